// What launchers need to know about the cores of the machine description's
// node: every PU of a core (launchers that take CPU numbers must name all
// hyperthreads of the core, not only the first) and the core's index inside its
// package (Open MPI's "slot=socket:core"), from NodeTopology.
#pragma once

#include <vector>

#include "rankmap/machine.hpp"
#include "rankmap/result.hpp"

namespace rankmap::detail {

struct CoreCpus {
  int package = 0;               // logical index of the package
  int core_in_package = 0;       // logical index of the core among the package's cores
  std::vector<int> pu_os_index;  // OS indices of the core's PUs, ascending
};

// The cores of every node of a machine, whose nodes may be of several kinds
// (machine.hpp, nodes=).
class MachineCores {
 public:
  MachineCores(NodeKinds kinds);
  // Core `core` (hwloc logical index, as in the mapping) of node `node`.
  const CoreCpus& at(int node, int core) const {
    return by_kind_[static_cast<size_t>(kinds_.kind_of(node))][static_cast<size_t>(core)];
  }

 private:
  NodeKinds kinds_;
  std::vector<std::vector<CoreCpus>> by_kind_;
};

Result<MachineCores> load_core_cpus(const Machine& machine);

}  // namespace rankmap::detail
