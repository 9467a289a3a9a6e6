// rankfile-gen: writes the launcher files for a mapping and prints the launch
// line(s) to run. Exit status: 0 done, 2 bad input or an output that cannot be
// written (nothing written: the files are one set, all or nothing), 1
// internal error.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <string>

#include "rankmap/atomic_file.hpp"
#include "rankmap/cli.hpp"
#include "rankmap/launch.hpp"
#include "rankmap/mapping.hpp"

namespace {
// "runs/lu.map" -> "runs/lu": the outputs sit next to the mapping.
std::string default_prefix(const std::string& mapping_path) {
  const size_t slash = mapping_path.find_last_of('/');
  const size_t dot = mapping_path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == slash + 1) return mapping_path;
  return mapping_path.substr(0, dot);
}
int rankfile_gen_main(int argc, char** argv) {
  CLI::App cli{"Translate a rankmap mapping into launcher files (Open MPI rankfile, MPICH machine file, Slurm "
               "hostfile, permutation) and print the launch lines."};
  rankmap::cli::setup(cli, "rankfile-gen");
  std::string mapping_path, format_name = "all", prefix, app = "./app";
  bool quiet = false;
  rankmap::cli::add_mapping(cli, mapping_path);
  cli.add_option("--format", format_name, "openmpi, mpich, slurm, perm or all")->capture_default_str();
  rankmap::cli::add_output(cli, prefix, "output prefix: files PREFIX.rankfile, PREFIX.machinefile, ... "
                                        "(default: the mapping path without its extension)");
  rankmap::cli::add_hidden_alias(cli, "--output-prefix", prefix);  // its name before issue 13
  cli.add_option("--app", app, "program and arguments to show in the launch lines")->capture_default_str();
  rankmap::cli::add_quiet(cli, quiet, "no warnings on stderr");
  if (auto status = rankmap::cli::parse(cli, argc, argv, "rankfile-gen")) return *status;

  auto fail = [](const std::string& message, int status) {
    rankmap::cli::print_error("rankfile-gen", message);
    return status;
  };
  std::vector<rankmap::LaunchFormat> formats;
  if (format_name == "all") {
    formats = rankmap::all_launch_formats();
  } else {
    auto format = rankmap::parse_launch_format(format_name);
    if (!format) return fail(format.error().message, 2);
    formats.push_back(*format);
  }
  auto mapping = rankmap::read_mapping(mapping_path);
  if (!mapping) return fail(mapping.error().message, 2);

  rankmap::LaunchOptions options;
  options.prefix = prefix.empty() ? default_prefix(mapping_path) : prefix;
  options.mapping_path = mapping_path;
  options.app = app;
  std::vector<rankmap::LaunchPlan> plans;
  for (rankmap::LaunchFormat f : formats) {
    auto plan = rankmap::make_launch_plan(*mapping, f, options);
    if (!plan) return fail(plan.error().message, 2);
    plans.push_back(std::move(*plan));
  }
  std::vector<std::string> outputs, inputs = mapping->machine.files();
  inputs.push_back(mapping_path);
  for (const rankmap::LaunchPlan& plan : plans)
    for (const rankmap::LaunchFile& file : plan.files) outputs.push_back(file.path);
  rankmap::Status not_an_input = rankmap::refuse_to_overwrite_inputs(outputs, inputs);
  if (!not_an_input) return fail(not_an_input.error().message, 2);
  rankmap::Status written = rankmap::write_launch_files(plans);
  if (!written) return fail(written.error().message, 2);
  for (const std::string& warning : rankmap::launch_warnings(*mapping))
    if (!quiet) rankmap::cli::print_warning("rankfile-gen", warning);

  // Comments start with '#', so the output can be pasted into a shell as is.
  for (const rankmap::LaunchPlan& plan : plans) {
    std::printf("# %s:", rankmap::launch_format_name(plan.format));
    for (const rankmap::LaunchFile& file : plan.files) std::printf(" wrote %s", file.path.c_str());
    std::printf("\n");
    for (const std::string& note : plan.notes) std::printf("#   %s\n", note.c_str());
    for (const std::string& command : plan.commands) std::printf("%s\n", command.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return rankmap::cli::run("rankfile-gen", [&] { return rankfile_gen_main(argc, argv); });
}
