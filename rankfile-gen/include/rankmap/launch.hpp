// Translation of a mapping into the files and command lines that launchers
// need to reproduce it: an Open MPI rankfile, an MPICH/Hydra machine file, a
// Slurm SLURM_HOSTFILE with CPU binding, a permutation file. Nothing here
// computes a placement; every choice below is forced by a launcher's syntax.
// The outputs and the launcher behaviour they rely on are in docs/relaunch.md.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rankmap/mapping.hpp"
#include "rankmap/result.hpp"

namespace rankmap {

enum class LaunchFormat { openmpi, mpich, slurm, perm };

// "openmpi" | "mpich" | "slurm" | "perm"; "all" is handled by the caller.
Result<LaunchFormat> parse_launch_format(std::string_view name);
const char* launch_format_name(LaunchFormat format);
const std::vector<LaunchFormat>& all_launch_formats();

struct LaunchOptions {
  std::string prefix = "rankmap";  // output files are <prefix><suffix>
  std::string mapping_path;        // named in bind-helper command lines
  std::string app = "./app";       // the program (and its arguments) in command lines
};

struct LaunchFile {
  std::string path;
  std::string content;
};

struct LaunchPlan {
  LaunchFormat format;
  std::vector<LaunchFile> files;
  // Lines the user runs, in order (an environment assignment may precede the
  // launcher). Paths are the ones the files are written to.
  std::vector<std::string> commands;
  // Why a command looks the way it does (e.g. why the bind helper is needed).
  std::vector<std::string> notes;
};

// Warnings about the mapping as a whole, for the user before launching (the
// tool prints them on stderr): e.g. host names that are the machine
// description's placeholders (`node-<i>`, no hosts= file), which no real
// launcher can reach.
std::vector<std::string> launch_warnings(const Mapping& mapping);

// Builds the plan for one launcher. Fails only if the mapping's node
// description cannot be loaded or the mapping does not pass Mapping::check().
Result<LaunchPlan> make_launch_plan(const Mapping& mapping, LaunchFormat format, const LaunchOptions& options);

// Writes every file of every plan as one set, all or nothing
// (write_files_atomically): a file that cannot be written leaves none of the
// set behind and every file that existed as it was. Plans are built first, so
// bad input writes nothing either.
Status write_launch_files(const std::vector<LaunchPlan>& plans);

}  // namespace rankmap
