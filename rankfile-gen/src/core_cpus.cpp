#include "core_cpus.hpp"

#include <hwloc.h>

#include <algorithm>
#include <memory>
#include <string>

namespace rankmap::detail {

namespace {
struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
}  // namespace

// Loads the node from what Machine::node_topology() loaded (its canonical
// synthetic export, or the same XML), so core indices agree with the mapping
// and the rules for completing a description stay in torus/.
Result<std::vector<CoreCpus>> load_core_cpus(const Machine& machine) {
  auto node = machine.node_topology();
  if (!node) return node.error();
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return make_error("hwloc_topology_init failed");
  std::unique_ptr<hwloc_topology, TopologyDeleter> topo(raw);
  if (machine.node_xml.empty()) {
    if (hwloc_topology_set_synthetic(raw, node->synthetic().c_str()) != 0)
      return make_error("hwloc rejects the synthetic node '" + node->synthetic() + "'");
  } else if (hwloc_topology_set_xml(raw, machine.node_xml.c_str()) != 0) {
    return make_error(machine.node_xml + ": cannot read node topology XML");
  }
  if (hwloc_topology_load(raw) != 0) return make_error("cannot load node topology '" + machine.node + "'");

  const int n_cores = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_CORE);
  std::vector<CoreCpus> cores(static_cast<size_t>(std::max(n_cores, 0)));
  for (int c = 0; c < n_cores; ++c) {
    hwloc_obj_t core = hwloc_get_obj_by_type(raw, HWLOC_OBJ_CORE, static_cast<unsigned>(c));
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(raw, HWLOC_OBJ_PACKAGE, core);
    CoreCpus& out = cores[static_cast<size_t>(c)];
    if (pkg) {
      out.package = static_cast<int>(pkg->logical_index);
      // Logical indices follow the tree, so the cores of a package are
      // numbered consecutively and the first one has the package's smallest.
      hwloc_obj_t first = hwloc_get_obj_inside_cpuset_by_type(raw, pkg->cpuset, HWLOC_OBJ_CORE, 0);
      out.core_in_package = static_cast<int>(core->logical_index - first->logical_index);
    } else {
      out.core_in_package = c;
    }
    unsigned pu = 0;
    hwloc_bitmap_foreach_begin(pu, core->cpuset) { out.pu_os_index.push_back(static_cast<int>(pu)); }
    hwloc_bitmap_foreach_end();
  }
  return cores;
}

}  // namespace rankmap::detail
