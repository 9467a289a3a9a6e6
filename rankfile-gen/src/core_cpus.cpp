#include "core_cpus.hpp"

namespace rankmap::detail {

// A view of what Machine::node_topology() loaded, so core indices agree with
// the mapping and all hwloc loading stays in torus/.
Result<std::vector<CoreCpus>> load_core_cpus(const Machine& machine) {
  auto node = machine.node_topology();
  if (!node) return node.error();
  std::vector<CoreCpus> cores(static_cast<size_t>(node->cores()));
  for (int c = 0; c < node->cores(); ++c)
    cores[static_cast<size_t>(c)] = CoreCpus{node->package_of_core(c), node->core_in_package(c), node->pus_of_core(c)};
  return cores;
}

}  // namespace rankmap::detail
