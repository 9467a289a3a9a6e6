// Outputs are never left half-written: write to a temporary file in the same
// directory, then rename over the destination.
#pragma once

#include <string>

#include "rankmap/result.hpp"

namespace rankmap {

// Writes content to path atomically (temporary file + fsync + rename).
Status write_file_atomically(const std::string& path, const std::string& content);

}  // namespace rankmap
