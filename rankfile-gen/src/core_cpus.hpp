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

// Indexed by the core's hwloc logical index, as in the mapping.
Result<std::vector<CoreCpus>> load_core_cpus(const Machine& machine);

}  // namespace rankmap::detail
