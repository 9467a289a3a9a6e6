#include "rankmap/bind.hpp"

#include <hwloc.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "rankmap/text.hpp"

namespace rankmap {

const std::vector<const char*>& rank_environment_variables() {
  // PMI_RANK: MPICH Hydra (and srun --mpi=pmi2); OMPI_COMM_WORLD_RANK: Open
  // MPI's mpirun; PMIX_RANK: any PMIx launcher (mpirun, prterun, srun
  // --mpi=pmix); SLURM_PROCID: srun itself, also inherited by batch scripts.
  static const std::vector<const char*> names = {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "SLURM_PROCID"};
  return names;
}

Result<RankFromEnvironment> rank_from_environment(const char* (*get)(const char*)) {
  RankFromEnvironment out;
  for (const char* name : rank_environment_variables()) {
    const char* value = get(name);
    if (!value) continue;
    auto rank = text::parse_int(value);
    if (!rank || *rank < 0 || *rank > (1 << 30)) {
      if (out.rank < 0) return make_error(std::string(name) + "='" + value + "' is not a rank");
      continue;
    }
    if (out.rank < 0) {
      out.rank = static_cast<int>(*rank);
      out.variable = name;
    } else if (*rank != out.rank) {
      out.warnings.push_back(std::string(name) + "=" + value + " disagrees with " + out.variable + "=" +
                             std::to_string(out.rank) + "; using " + out.variable);
    }
  }
  if (out.rank < 0) {
    std::string names;
    for (const char* name : rank_environment_variables()) names += std::string(names.empty() ? "" : ", ") + name;
    return make_error("no rank in the environment (looked for " + names + "); run under an MPI launcher");
  }
  return out;
}

bool same_host(const std::string& a, const std::string& b) {
  if (a == b) return true;
  const std::string a_label = a.substr(0, a.find('.')), b_label = b.substr(0, b.find('.'));
  // Only a bare name may match the first label of a qualified one:
  // "n01.a" and "n01.b" are different hosts.
  const bool a_bare = a_label.size() == a.size(), b_bare = b_label.size() == b.size();
  return (a_bare || b_bare) && a_label == b_label;
}

Result<std::string> bind_process_to_core(int core) {
  struct TopologyDeleter {
    void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
  };
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return make_error("hwloc_topology_init failed");
  std::unique_ptr<hwloc_topology, TopologyDeleter> topo(raw);
  if (hwloc_topology_load(raw) != 0) return make_error("cannot load this machine's topology with hwloc");
  const int n_cores = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_CORE);
  // The topology of the machine the process runs on, not the description:
  // logical indices are portable, OS numbers are not.
  hwloc_obj_t obj = core >= 0 ? hwloc_get_obj_by_type(raw, HWLOC_OBJ_CORE, static_cast<unsigned>(core)) : nullptr;
  if (!obj) return make_error("core " + std::to_string(core) + " does not exist here (this machine has cores 0.." + std::to_string(n_cores - 1) + ")");
  // PROCESS: every thread, and the mask survives execvp.
  if (hwloc_set_cpubind(raw, obj->cpuset, HWLOC_CPUBIND_PROCESS) != 0)
    return make_error("cannot bind to core " + std::to_string(core) + ": " + std::strerror(errno));
  char* list = nullptr;
  hwloc_bitmap_list_asprintf(&list, obj->cpuset);
  std::string out = list ? list : "?";
  std::free(list);
  return out;
}

}  // namespace rankmap
