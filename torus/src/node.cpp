#include "rankmap/node.hpp"

#include <hwloc.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>

#include "rankmap/limits.hpp"
#include "rankmap/text.hpp"

namespace rankmap {

struct NodeTopologyBuilder {
  static Result<NodeTopology> build(hwloc_topology_t topo);
};

namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using TopologyHandle = std::unique_ptr<hwloc_topology, TopologyDeleter>;

// hwloc's synthetic loader is superlinear in the children of one object and
// in the PUs of the node (core:8192 takes 11 s, package:1000,core:1000 does
// not finish), so the counts are checked before hwloc sees the description.
// That check is only sound if it reads the description as hwloc does, and
// hwloc's grammar is wide (bare counts, hex and octal, attributes, a ':'
// searched for anywhere, the string cut at a NUL byte): a fuzzer walked
// "node=100000" and a NUL past a looser check. So node= takes the plain
// form only, levels "type:N" with a decimal N; anything else hwloc can read
// is for node-xml=.
Status check_synthetic_size(const std::string& spaced, const std::string& description) {
  auto refuse = [&](const std::string& why) {
    return make_error("node description '" + text::excerpt(description) + "': " + why);
  };
  long long pus = 1;
  size_t pos = 0;
  while (pos < spaced.size()) {
    size_t end = spaced.find(' ', pos);
    if (end == std::string::npos) end = spaced.size();
    const std::string level = spaced.substr(pos, end - pos);
    pos = end + 1;
    if (level.empty()) continue;
    const size_t colon = level.find(':');
    bool plain = colon != std::string::npos && colon > 0 && colon + 1 < level.size() &&
                 std::isalpha(static_cast<unsigned char>(level[0])) && level[colon + 1] != '0';
    for (size_t i = 0; plain && i < level.size(); ++i) {
      const unsigned char c = static_cast<unsigned char>(level[i]);
      plain = i < colon ? std::isalnum(c) != 0 : i == colon || std::isdigit(c) != 0;
    }
    if (!plain)
      return refuse("'" + text::excerpt(level) + "' is not a level like core:4 (type:count, a decimal count >= 1; " +
                    "other hwloc syntax goes in an XML file, node-xml=)");
    const std::string count = level.substr(colon + 1);
    const long long arity = count.size() > 7 ? limits::kMaxNodeArity + 1LL : std::stoll(count);
    if (arity > limits::kMaxNodeArity)
      return refuse("'" + text::excerpt(level) + "' puts more than " + std::to_string(limits::kMaxNodeArity) +
                    " objects under one parent, the limit");
    pus *= arity;
    if (pus > limits::kMaxNodePus)
      return refuse("more than " + std::to_string(limits::kMaxNodePus) + " PUs (hardware threads), the limit");
  }
  return Ok{};
}

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
  const int n_pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  if (n_pus > limits::kMaxNodePus)
    return make_error("node topology has " + std::to_string(n_pus) + " PUs (hardware threads), more than the limit of " +
                      std::to_string(limits::kMaxNodePus));
  node.packages_ = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE));

  // Levels that can group cores, innermost first. A level only counts where
  // one of its objects holds more than one core: per-core L1/L2 caches of real
  // machines would otherwise make every pair of cores look farther apart.
  const hwloc_obj_type_t candidate_levels[] = {HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_GROUP,
                                               HWLOC_OBJ_DIE,     HWLOC_OBJ_PACKAGE, HWLOC_OBJ_MACHINE};
  std::vector<hwloc_obj_t> cores(static_cast<size_t>(n_cores));
  for (int c = 0; c < n_cores; ++c) cores[c] = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, static_cast<unsigned>(c));
  // Each core's ancestor at every level kept, as the ancestor's logical index
  // (-1: none), found once per core: O(cores x depth), where comparing
  // ancestors pair by pair was O(cores^2 x depth) (core:4000 took seconds).
  std::vector<std::vector<int>> ancestors;  // per kept level, per core
  for (hwloc_obj_type_t type : candidate_levels) {
    std::vector<int> of_core(static_cast<size_t>(n_cores), -1);
    std::vector<int> cores_under(static_cast<size_t>(std::max(0, hwloc_get_nbobjs_by_type(topo, type))), 0);
    bool groups_cores = false;
    for (int c = 0; c < n_cores; ++c) {
      hwloc_obj_t above = hwloc_get_ancestor_obj_by_type(topo, type, cores[c]);
      if (!above || above->logical_index >= cores_under.size()) continue;
      of_core[c] = static_cast<int>(above->logical_index);
      groups_cores |= ++cores_under[above->logical_index] > 1;
    }
    if (groups_cores) ancestors.push_back(std::move(of_core));
  }
  const int levels = static_cast<int>(ancestors.size());

  node.core_package_.resize(static_cast<size_t>(n_cores));
  node.core_pus_.resize(static_cast<size_t>(n_cores));
  node.core_in_package_.resize(static_cast<size_t>(n_cores));
  for (int c = 0; c < n_cores; ++c) {
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

  node.levels_ = levels;
  node.core_groups_.resize(static_cast<size_t>(n_cores) * levels);
  for (int c = 0; c < n_cores; ++c)
    for (int l = 0; l < levels; ++l) node.core_groups_[static_cast<size_t>(c) * levels + l] = ancestors[l][c];
  // The largest distance over all pairs (at most 4096^2 / 2 pairs of a few
  // integer comparisons); the table of all of them only for small nodes.
  const int far = levels + 1;
  for (int a = 0; a < n_cores && node.max_core_distance_ < far; ++a)
    for (int b = a + 1; b < n_cores; ++b) node.max_core_distance_ = std::max(node.max_core_distance_, node.computed_core_distance(a, b));
  if (n_cores <= NodeTopology::kDistanceTableCores) {
    node.core_distance_.assign(static_cast<size_t>(n_cores) * n_cores, 0);
    for (int a = 0; a < n_cores; ++a)
      for (int b = 0; b < n_cores; ++b) node.core_distance_[static_cast<size_t>(a) * n_cores + b] = node.computed_core_distance(a, b);
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
  Status size = check_synthetic_size(spaced, description);
  if (!size) return size.error();
  if (hwloc_topology_set_synthetic(topo->get(), spaced.c_str()) != 0)
    return make_error("invalid hwloc synthetic node description '" + text::excerpt(description) + "'");
  if (hwloc_topology_load(topo->get()) != 0) return make_error("hwloc cannot load node description '" + text::excerpt(description) + "'");
  return NodeTopologyBuilder::build(topo->get());
}

Result<NodeTopology> NodeTopology::from_xml(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return located_error(path, std::string("cannot open hwloc XML topology: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return located_error(path, "is not a regular file (an hwloc XML topology is one)");
  if (static_cast<std::uint64_t>(st.st_size) > limits::kMaxNodeXmlBytes)
    return located_error(path, "larger than the limit of " + std::to_string(limits::kMaxNodeXmlBytes >> 20) +
                                   " MiB for an hwloc XML topology");
  auto topo = new_topology();
  if (!topo) return topo.error();
  if (hwloc_topology_set_xml(topo->get(), path.c_str()) != 0)
    return located_error(path, "cannot read hwloc XML topology");
  if (hwloc_topology_load(topo->get()) != 0) return located_error(path, "hwloc cannot load XML topology");
  return NodeTopologyBuilder::build(topo->get());
}

}  // namespace rankmap

namespace rankmap {

NodeKinds::NodeKinds(std::vector<NodeTopology> kinds, std::vector<int> kind_of_node)
    : kinds_(std::move(kinds)), kind_of_node_(std::move(kind_of_node)) {
  if (kinds_.size() <= 1) kind_of_node_.clear();
  // Over the kinds some node has (the default kind may cover none).
  std::vector<char> used(kinds_.size(), kind_of_node_.empty() ? 1 : 0);
  for (int k : kind_of_node_) used[static_cast<size_t>(k)] = 1;
  max_cores_ = 0;
  min_cores_ = 0;
  for (size_t k = 0; k < kinds_.size(); ++k) {
    if (!used[k]) continue;
    max_cores_ = std::max(max_cores_, kinds_[k].cores());
    min_cores_ = min_cores_ == 0 ? kinds_[k].cores() : std::min(min_cores_, kinds_[k].cores());
  }
}

}  // namespace rankmap
