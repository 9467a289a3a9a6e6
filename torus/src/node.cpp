#include "rankmap/node.hpp"

#include <hwloc.h>

#include <algorithm>
#include <memory>

namespace rankmap {

struct NodeTopologyBuilder {
  static Result<NodeTopology> build(hwloc_topology_t topo);
};

namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using TopologyHandle = std::unique_ptr<hwloc_topology, TopologyDeleter>;

Result<TopologyHandle> new_topology() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return make_error("hwloc_topology_init failed");
  return TopologyHandle(raw);
}

}  // namespace

Result<NodeTopology> NodeTopologyBuilder::build(hwloc_topology_t topo) {
  NodeTopology node;
  const int n_cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  if (n_cores <= 0) return make_error("node topology has no cores");
  node.packages_ = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE));

  // Levels that can group cores, innermost first. A level only counts where
  // one of its objects holds more than one core: per-core L1/L2 caches of real
  // machines would otherwise make every pair of cores look farther apart.
  const hwloc_obj_type_t candidate_levels[] = {HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_GROUP,
                                               HWLOC_OBJ_DIE,     HWLOC_OBJ_PACKAGE, HWLOC_OBJ_MACHINE};
  std::vector<hwloc_obj_type_t> levels;
  for (hwloc_obj_type_t type : candidate_levels) {
    const int count = hwloc_get_nbobjs_by_type(topo, type);
    for (int i = 0; i < count; ++i) {
      hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type, static_cast<unsigned>(i));
      if (hwloc_get_nbobjs_inside_cpuset_by_type(topo, obj->cpuset, HWLOC_OBJ_CORE) > 1) {
        levels.push_back(type);
        break;
      }
    }
  }

  std::vector<hwloc_obj_t> cores(static_cast<size_t>(n_cores));
  node.core_package_.resize(static_cast<size_t>(n_cores));
  node.core_pus_.resize(static_cast<size_t>(n_cores));
  node.core_in_package_.resize(static_cast<size_t>(n_cores));
  for (int c = 0; c < n_cores; ++c) {
    cores[c] = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, static_cast<unsigned>(c));
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, cores[c]);
    node.core_package_[c] = pkg ? static_cast<int>(pkg->logical_index) : 0;
    // Logical indices follow the tree: a package's cores are numbered
    // consecutively from its first one.
    hwloc_obj_t first = pkg ? hwloc_get_obj_inside_cpuset_by_type(topo, pkg->cpuset, HWLOC_OBJ_CORE, 0) : nullptr;
    node.core_in_package_[c] = first ? static_cast<int>(cores[c]->logical_index - first->logical_index) : c;
    unsigned pu = 0;
    hwloc_bitmap_foreach_begin(pu, cores[c]->cpuset) { node.core_pus_[c].push_back(static_cast<int>(pu)); }
    hwloc_bitmap_foreach_end();
    if (node.core_pus_[c].empty()) return make_error("core " + std::to_string(c) + " has no PU");
  }

  node.core_distance_.assign(static_cast<size_t>(n_cores) * n_cores, 0);
  const int far = static_cast<int>(levels.size()) + 1;
  for (int a = 0; a < n_cores; ++a) {
    for (int b = 0; b < n_cores; ++b) {
      if (a == b) continue;
      int distance = far;
      for (size_t l = 0; l < levels.size(); ++l) {
        hwloc_obj_t pa = hwloc_get_ancestor_obj_by_type(topo, levels[l], cores[a]);
        hwloc_obj_t pb = hwloc_get_ancestor_obj_by_type(topo, levels[l], cores[b]);
        if (pa && pa == pb) {
          distance = static_cast<int>(l) + 1;
          break;
        }
      }
      node.core_distance_[static_cast<size_t>(a) * n_cores + b] = distance;
      node.max_core_distance_ = std::max(node.max_core_distance_, distance);
    }
  }

  char buf[4096];
  if (hwloc_topology_export_synthetic(topo, buf, sizeof buf, 0) > 0) node.synthetic_ = buf;
  return node;
}

Result<NodeTopology> NodeTopology::from_synthetic(const std::string& description) {
  std::string spaced = description;
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  // hwloc wants PUs as the last level; machine descriptions usually stop at
  // cores ("package:1,core:6"), which means one PU per core.
  const size_t last = spaced.find_last_of(' ');
  const std::string last_level = spaced.substr(last == std::string::npos ? 0 : last + 1);
  if (last_level.rfind("pu:", 0) != 0 && last_level.rfind("PU:", 0) != 0) spaced += " pu:1";
  auto topo = new_topology();
  if (!topo) return topo.error();
  if (hwloc_topology_set_synthetic(topo->get(), spaced.c_str()) != 0)
    return make_error("invalid hwloc synthetic node description '" + description + "'");
  if (hwloc_topology_load(topo->get()) != 0) return make_error("hwloc cannot load node description '" + description + "'");
  return NodeTopologyBuilder::build(topo->get());
}

Result<NodeTopology> NodeTopology::from_xml(const std::string& path) {
  auto topo = new_topology();
  if (!topo) return topo.error();
  if (hwloc_topology_set_xml(topo->get(), path.c_str()) != 0)
    return located_error(path, "cannot read hwloc XML topology");
  if (hwloc_topology_load(topo->get()) != 0) return located_error(path, "hwloc cannot load XML topology");
  return NodeTopologyBuilder::build(topo->get());
}

}  // namespace rankmap
