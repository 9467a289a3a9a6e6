// rankmap-bind MAPPING -- PROGRAM [ARGS...]
// Run by the launcher in place of the application: finds this process's rank
// in the launcher's environment, binds to the mapped core with hwloc, warns
// if the host is not the mapped one, then execs PROGRAM (so its exit status
// is the job's). Its own failures exit 2 (bad input or usage) before the exec,
// 127 if PROGRAM cannot be executed. -v (or RANKMAP_BIND_VERBOSE=1) reports
// each binding, -q drops the warnings.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "rankmap/bind.hpp"
#include "rankmap/cli.hpp"
#include "rankmap/mapping.hpp"

namespace {

using rankmap::cli::fail;
using rankmap::cli::take;

constexpr const char* kTool = "rankmap-bind";

std::string current_host() {
  if (const char* fake = std::getenv(rankmap::kFakeHostVariable)) return fake;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "?";
  return name;
}

int bind_main(int argc, char** argv) {
  CLI::App app{"rankmap-bind MAPPING -- PROGRAM [ARGS...]: run by the launcher in place of the program; binds this "
               "rank to its mapped core, then executes the program"};
  rankmap::cli::setup(app, kTool);
  app.footer("Exit status: the program's; before it runs, 2 for bad input or usage (one line on stderr), 127 if it "
             "cannot be executed, 1 internal error.");
  std::string mapping_path;
  std::vector<std::string> command;
  bool quiet = false, verbose = false;
  rankmap::cli::add_mapping(app, mapping_path);
  app.add_option("command", command, "program and its arguments, after --");
  rankmap::cli::add_quiet(app, quiet, "no warnings on stderr (a wrong host, a guessed rank)");
  rankmap::cli::add_verbose(app, verbose, "report each binding on stderr (also RANKMAP_BIND_VERBOSE=1)");
  if (auto status = rankmap::cli::parse(app, argc, argv, kTool)) return *status;
  if (command.empty()) fail("no program to run: rankmap-bind MAPPING -- PROGRAM [ARGS...] (see rankmap-bind --help)");
  if (const char* v = std::getenv("RANKMAP_BIND_VERBOSE"); v && std::strcmp(v, "0") != 0) verbose = true;

  rankmap::Mapping mapping = take(rankmap::read_mapping(mapping_path));
  auto env = take(rankmap::rank_from_environment([](const char* name) -> const char* { return std::getenv(name); }));
  if (!quiet)
    for (const std::string& w : env.warnings) rankmap::cli::print_warning(kTool, w);
  const int rank = env.rank;
  if (rank >= mapping.ranks())
    fail(env.variable + "=" + std::to_string(rank) + " but " + mapping_path + " maps " + std::to_string(mapping.ranks()) +
         " ranks");

  const rankmap::Placement& p = mapping.placement[static_cast<size_t>(rank)];
  const std::string& mapped_host = mapping.machine.host_name(p.node);
  const std::string host = current_host();
  // A wrong host is the launcher's doing and cannot be fixed from here; bind
  // anyway so the run still has a core each, and say so.
  if (!rankmap::same_host(host, mapped_host) && !quiet)
    rankmap::cli::print_warning(kTool, "rank " + std::to_string(rank) + " runs on host '" + host + "' but " + mapping_path +
                                           " maps it to '" + mapped_host + "'");
  const std::string cpus = take(rankmap::bind_process_to_core(p.core), "rank " + std::to_string(rank));
  if (verbose)
    rankmap::cli::print_note(kTool, "rank " + std::to_string(rank) + " (" + env.variable + ") host " + host + " core " +
                                        std::to_string(p.core) + " cpus " + cpus);

  std::vector<char*> args;
  for (std::string& word : command) args.push_back(word.data());
  args.push_back(nullptr);
  execvp(args[0], args.data());
  fail("cannot execute " + command.front() + ": " + std::strerror(errno), 127);
}

}  // namespace

int main(int argc, char** argv) {
  return rankmap::cli::run(kTool, [&] { return bind_main(argc, argv); });
}
