#include "rankmap/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rankmap {

namespace {
std::string size_text(std::uint64_t bytes) {
  if (bytes % (std::uint64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes % (std::uint64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};
}  // namespace

Result<std::string> read_input_file(const std::string& path, std::uint64_t max_bytes) {
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) {
    if (errno == EISDIR) return located_error(path, "is a directory");
    return located_error(path, std::string("cannot open file: ") + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) return located_error(path, std::string("cannot read file: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return located_error(path, "is a directory");
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return located_error(path, "is a device, not a file");
  const std::string too_big = "larger than the limit of " + size_text(max_bytes) + " for an input file";
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes) return located_error(path, too_big);

  std::string content;
  if (S_ISREG(st.st_mode)) content.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(file.fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EISDIR) return located_error(path, "is a directory");
      return located_error(path, std::string("read error: ") + std::strerror(errno));
    }
    if (content.size() + static_cast<size_t>(n) > max_bytes) return located_error(path, too_big);
    content.append(buf, static_cast<size_t>(n));
  }
  return content;
}

}  // namespace rankmap
