// The launcher-independent bind helper (rankmap-bind): a process finds its MPI
// rank in the environment its launcher gave it, binds itself to the core the
// mapping gives that rank, checks the host and execs the application.
#pragma once

#include <string>
#include <vector>

#include "rankmap/mapping.hpp"
#include "rankmap/result.hpp"

namespace rankmap {

// The variables that carry the rank, in the order they are trusted. The
// variable of the innermost launcher must win over ones inherited from an
// outer environment: SLURM_PROCID is last because an sbatch script has
// SLURM_PROCID=0 in its environment, which an mpiexec run from that script
// passes on to every rank.
const std::vector<const char*>& rank_environment_variables();

struct RankFromEnvironment {
  int rank = -1;
  std::string variable;              // which variable gave it
  std::vector<std::string> warnings; // other variables that disagree
};

// Reads the first variable of rank_environment_variables() that is set.
// getenv is passed in so tests need not touch the process environment.
Result<RankFromEnvironment> rank_from_environment(const char* (*get)(const char*));

// Test hook: when set, its value replaces gethostname() as "the host this
// process runs on", so fake-host launches (tests/rankfile-gen/fakessh) can
// check the host logic on one machine.
inline constexpr const char* kFakeHostVariable = "RANKMAP_FAKE_HOST";

// Host names match exactly, or when one is the other's first DNS label
// ("n01" and "n01.cluster.local").
bool same_host(const std::string& a, const std::string& b);

// Binds the calling process to the core with hwloc logical index `core` of the
// machine it runs on (all PUs of that core). Returns the bound cpuset as a
// list string ("2" or "2,26") for messages.
Result<std::string> bind_process_to_core(int core);

}  // namespace rankmap
