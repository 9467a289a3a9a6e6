// Outputs never cost the user data: they are never left half-written (write to
// a temporary file in the same directory, then rename over the destination),
// and a tool never writes over one of its own inputs.
#pragma once

#include <string>
#include <vector>

#include "rankmap/result.hpp"

namespace rankmap {

// Writes content to path atomically (temporary file + fsync + rename).
Status write_file_atomically(const std::string& path, const std::string& content);

struct OutputFile {
  std::string path;
  std::string content;
};

// Writes a set of files all or nothing: every temporary is written first,
// then all are renamed into place. On any failure every temporary is removed,
// files that did not exist before are removed again and files that did are
// put back (through a hard link kept until the set is complete; on a file
// system without hard links an overwritten file keeps its new version).
Status write_files_atomically(const std::vector<OutputFile>& files);

// Fails when an output names the same file as an input. Files are compared by
// identity (device and inode), not by name, so "x" and "./x", symbolic links
// and hard links to an input are all caught. Outputs that do not exist yet
// and inputs that do not exist are never the same file. Call it before any
// output is written: the error names the output and the input.
Status refuse_to_overwrite_inputs(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs);

}  // namespace rankmap
