#include "rankmap/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rankmap {

Status write_file_atomically(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp.XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) return located_error(path, std::string("cannot create temporary file: ") + std::strerror(errno));
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return located_error(path, std::string("write failed: ") + std::strerror(err));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  // mkstemp creates 0600; outputs are ordinary user files.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return located_error(path, std::string("write failed: ") + std::strerror(err));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return located_error(path, std::string("cannot rename temporary file: ") + std::strerror(err));
  }
  return Ok{};
}

Status refuse_to_overwrite_inputs(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs) {
  for (const std::string& output : outputs) {
    struct stat out {};
    if (output.empty() || ::stat(output.c_str(), &out) != 0) continue;  // not there yet: cannot be an input
    for (const std::string& input : inputs) {
      struct stat in {};
      if (input.empty() || ::stat(input.c_str(), &in) != 0) continue;
      if (in.st_dev != out.st_dev || in.st_ino != out.st_ino) continue;
      return located_error(output, input == output ? "is an input; refusing to write over it"
                                                   : "is the same file as the input " + input +
                                                         "; refusing to write over an input");
    }
  }
  return Ok{};
}

}  // namespace rankmap
