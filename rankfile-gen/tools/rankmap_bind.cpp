// rankmap-bind MAPPING -- PROGRAM [ARGS...]
// Run by the launcher in place of the application: finds this process's rank
// in the launcher's environment, binds to the mapped core with hwloc, warns
// if the host is not the mapped one, then execs PROGRAM (so its exit status
// is the job's). Its own failures exit 2 (bad input) before the exec, 127 if
// PROGRAM cannot be executed. RANKMAP_BIND_VERBOSE=1 reports each binding.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "rankmap/bind.hpp"
#include "rankmap/mapping.hpp"

namespace {
int fail(const std::string& message, int status) {
  std::fprintf(stderr, "rankmap-bind: %s\n", message.c_str());
  return status;
}

std::string current_host() {
  if (const char* fake = std::getenv(rankmap::kFakeHostVariable)) return fake;
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "?";
  return name;
}

int bind_main(int argc, char** argv) {
  if (argc < 4 || std::strcmp(argv[2], "--") != 0)
    return fail("usage: rankmap-bind MAPPING -- PROGRAM [ARGS...]", 2);
  auto mapping = rankmap::read_mapping(argv[1]);
  if (!mapping) return fail(mapping.error().message, 2);
  auto env = rankmap::rank_from_environment([](const char* name) -> const char* { return std::getenv(name); });
  if (!env) return fail(env.error().message, 2);
  for (const std::string& w : env->warnings) std::fprintf(stderr, "rankmap-bind: warning: %s\n", w.c_str());
  const int rank = env->rank;
  if (rank >= mapping->ranks())
    return fail(env->variable + "=" + std::to_string(rank) + " but " + argv[1] + " maps " + std::to_string(mapping->ranks()) + " ranks", 2);

  const rankmap::Placement& p = mapping->placement[static_cast<size_t>(rank)];
  const std::string& mapped_host = mapping->machine.host_name(p.node);
  const std::string host = current_host();
  // A wrong host is the launcher's doing and cannot be fixed from here; bind
  // anyway so the run still has a core each, and say so.
  if (!rankmap::same_host(host, mapped_host))
    std::fprintf(stderr, "rankmap-bind: warning: rank %d runs on host '%s' but %s maps it to '%s'\n", rank, host.c_str(), argv[1], mapped_host.c_str());
  auto bound = rankmap::bind_process_to_core(p.core);
  if (!bound) return fail("rank " + std::to_string(rank) + ": " + bound.error().message, 2);
  if (const char* verbose = std::getenv("RANKMAP_BIND_VERBOSE"); verbose && std::strcmp(verbose, "0") != 0)
    std::fprintf(stderr, "rankmap-bind: rank %d (%s) host %s core %d cpus %s\n", rank, env->variable.c_str(), host.c_str(), p.core, bound->c_str());

  execvp(argv[3], argv + 3);
  return fail(std::string("cannot execute ") + argv[3] + ": " + std::strerror(errno), 127);
}
}  // namespace

int main(int argc, char** argv) {
  try {
    return bind_main(argc, argv);
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what(), 1);
  }
}
