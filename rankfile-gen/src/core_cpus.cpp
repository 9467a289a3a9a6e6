#include "core_cpus.hpp"

namespace rankmap::detail {

// A view of what Machine::node_kinds() loaded, so core indices agree with
// the mapping and all hwloc loading stays in torus/.
MachineCores::MachineCores(NodeKinds kinds) : kinds_(std::move(kinds)) {
  for (int k = 0; k < kinds_.count(); ++k) {
    const NodeTopology& node = kinds_.kind(k);
    std::vector<CoreCpus>& cores = by_kind_.emplace_back(static_cast<size_t>(node.cores()));
    for (int c = 0; c < node.cores(); ++c)
      cores[static_cast<size_t>(c)] = CoreCpus{node.package_of_core(c), node.core_in_package(c), node.pus_of_core(c)};
  }
}

Result<MachineCores> load_core_cpus(const Machine& machine) {
  auto kinds = machine.node_kinds();
  if (!kinds) return kinds.error();
  return MachineCores(std::move(*kinds));
}

}  // namespace rankmap::detail
