// Scratch directories: where tools put what smpirun or a replay needs for a
// moment (platforms, hostfiles, generated traces), under $TMPDIR (else
// /tmp), and removed with everything in them when the owner goes away.
#pragma once

#include <string>

#include "rankmap/result.hpp"

namespace rankmap {

// $TMPDIR if set and not empty, else /tmp.
std::string temp_root();

class ScratchDir {
 public:
  // A new directory temp_root()/<prefix>-XXXXXX (mkdtemp).
  static Result<ScratchDir> make(const std::string& prefix);

  ScratchDir() = default;  // none: path() is empty, nothing is removed
  ScratchDir(ScratchDir&& other) noexcept;
  ScratchDir& operator=(ScratchDir&& other) noexcept;
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace rankmap
