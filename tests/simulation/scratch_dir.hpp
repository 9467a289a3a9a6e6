// A scratch directory for the simulation tests (rankmap::ScratchDir under
// $TMPDIR), removed with everything in it when the object goes away. `path`
// is empty if it could not be made (the tests then fail on their first file).
#pragma once

#include <string>
#include <utility>

#include "rankmap/scratch_dir.hpp"

namespace rankmap::test {

struct ScratchDir {
  rankmap::ScratchDir dir;
  std::string path;
  explicit ScratchDir(const std::string& prefix) {
    if (auto made = rankmap::ScratchDir::make(prefix)) {
      dir = std::move(*made);
      path = dir.path();
    }
  }
};

}  // namespace rankmap::test
