#include "rankmap/scratch_dir.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <utility>

namespace rankmap {

std::string temp_root() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

Result<ScratchDir> ScratchDir::make(const std::string& prefix) {
  std::string pattern = temp_root() + "/" + prefix + "-XXXXXX";
  if (!mkdtemp(pattern.data())) return make_error("cannot create a temporary directory from " + pattern);
  ScratchDir d;
  d.path_ = pattern;
  return d;
}

ScratchDir::ScratchDir(ScratchDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}

ScratchDir& ScratchDir::operator=(ScratchDir&& other) noexcept {
  std::swap(path_, other.path_);
  return *this;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

}  // namespace rankmap
