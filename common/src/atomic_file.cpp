#include "rankmap/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace rankmap {

namespace {

std::string why(int err) { return err == EISDIR ? "is a directory" : std::strerror(err); }

// Writes content to a new temporary file next to path; returns its name.
Result<std::string> write_temporary(const std::string& path, const std::string& content) {
  std::string tmp = path + ".tmp.XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) return located_error(path, "cannot create temporary file: " + why(errno));
  const char* p = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return located_error(path, "write failed: " + why(err));
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
    return located_error(path, "write failed: " + why(err));
  }
  return tmp;
}

// A second name for the file now at path, so that it can be put back if a
// later file of the set cannot be renamed into place. Empty when path does
// not exist, or when the file system has no hard links (then a failed set
// keeps that file's new version: the old one cannot be brought back).
std::string keep_old_version(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return "";
  std::string old = path + ".old.XXXXXX";
  int fd = mkstemp(old.data());  // reserves a fresh name
  if (fd < 0) return "";
  ::close(fd);
  ::unlink(old.c_str());
  if (::link(path.c_str(), old.c_str()) != 0) return "";
  return old;
}

}  // namespace

Status write_file_atomically(const std::string& path, const std::string& content) {
  return write_files_atomically({OutputFile{path, content}});
}

Status write_files_atomically(const std::vector<OutputFile>& files) {
  // 1. Every temporary is written before any destination changes.
  std::vector<std::string> temporaries;
  for (const OutputFile& f : files) {
    auto tmp = write_temporary(f.path, f.content);
    if (!tmp) {
      for (const std::string& t : temporaries) ::unlink(t.c_str());
      return tmp.error();
    }
    temporaries.push_back(*tmp);
  }
  // 2. Renamed into place one by one; a failure puts back what was there.
  std::vector<std::string> old_versions;
  std::vector<bool> existed;
  for (size_t i = 0; i < files.size(); ++i) {
    struct stat st {};
    existed.push_back(::lstat(files[i].path.c_str(), &st) == 0);
    old_versions.push_back(existed.back() ? keep_old_version(files[i].path) : "");
    if (std::rename(temporaries[i].c_str(), files[i].path.c_str()) == 0) continue;
    const int err = errno;
    for (size_t j = i; j < files.size(); ++j) ::unlink(temporaries[j].c_str());
    if (!old_versions[i].empty()) ::unlink(old_versions[i].c_str());
    for (size_t j = 0; j < i; ++j) {
      if (!old_versions[j].empty()) std::rename(old_versions[j].c_str(), files[j].path.c_str());
      else if (!existed[j]) ::unlink(files[j].path.c_str());
    }
    return located_error(files[i].path, err == EISDIR ? why(err) : "cannot rename temporary file: " + why(err));
  }
  for (const std::string& old : old_versions)
    if (!old.empty()) ::unlink(old.c_str());
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
