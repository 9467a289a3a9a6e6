// Reading an input file whole, within bounds.
#pragma once

#include <cstdint>
#include <string>

#include "rankmap/limits.hpp"
#include "rankmap/result.hpp"

namespace rankmap {

// The whole content of path. Refuses a directory ("is a directory"), a device
// ("is a device, not a file": /dev/zero would never end) and a file of more
// than max_bytes; a pipe is read up to max_bytes. Errors are "path: what".
Result<std::string> read_input_file(const std::string& path,
                                    std::uint64_t max_bytes = limits::kMaxInputFileBytes);

}  // namespace rankmap
