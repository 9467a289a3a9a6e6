// The inside of one compute node, from hwloc: packages, caches and cores.
// Cores are numbered by their hwloc logical index (0 .. cores()-1).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rankmap/result.hpp"

namespace rankmap {

class NodeTopology {
 public:
  // "package:2,core:6" (commas stand for spaces) or "package:2 core:6".
  static Result<NodeTopology> from_synthetic(const std::string& description);
  static Result<NodeTopology> from_xml(const std::string& path);

  int cores() const { return static_cast<int>(core_package_.size()); }
  int packages() const { return packages_; }
  int package_of_core(int core) const { return core_package_[core]; }
  // The OS index of the core's first PU (what a launcher binds to).
  int os_index_of_core(int core) const { return core_pus_[core].front(); }
  // OS indices of all PUs of the core, ascending: launchers that take CPU
  // numbers must name every hyperthread of a core, not only the first.
  const std::vector<int>& pus_of_core(int core) const { return core_pus_[core]; }
  // Index of the core among its package's cores (Open MPI's "slot=socket:core").
  int core_in_package(int core) const { return core_in_package_[core]; }
  // Distance between two cores in the tree: 0 same core, then one step per
  // topology level that separates them (shared L2 < shared L3 < same package <
  // same machine). Computed from the type of the common ancestor, so per-core
  // cache levels on real machines do not inflate it.
  int core_distance(int a, int b) const {
    if (!core_distance_.empty()) return core_distance_[static_cast<size_t>(a) * cores() + b];
    return computed_core_distance(a, b);
  }
  static constexpr int kDistanceTableCores = 256;  // a table of 256 KB at most
  int max_core_distance() const { return max_core_distance_; }
  // hwloc's synthetic export of the loaded topology (for messages and files).
  const std::string& synthetic() const { return synthetic_; }

 private:
  int packages_ = 0;
  std::vector<int> core_package_;
  std::vector<std::vector<int>> core_pus_;
  std::vector<int> core_in_package_;
  int computed_core_distance(int a, int b) const {
    if (a == b) return 0;
    const int* ga = &core_groups_[static_cast<size_t>(a) * levels_];
    const int* gb = &core_groups_[static_cast<size_t>(b) * levels_];
    for (int l = 0; l < levels_; ++l)
      if (ga[l] >= 0 && ga[l] == gb[l]) return l + 1;
    return levels_ + 1;
  }

  int levels_ = 0;                   // topology levels that group cores, innermost first
  std::vector<int> core_groups_;     // cores x levels: logical index of the core's ancestor, -1 none
  std::vector<int> core_distance_;   // cores x cores, only up to kDistanceTableCores
  int max_core_distance_ = 0;
  std::string synthetic_;
  friend struct NodeTopologyBuilder;
};

// The nodes of one machine: a few kinds of node and the kind of each node
// (machine.hpp, nodes=). Every node is the same kind on most machines; code
// that places ranks asks of(node), never one global "cores per node".
class NodeKinds {
 public:
  NodeKinds() = default;
  // kind_of_node: one entry per node, or empty when there is one kind.
  NodeKinds(std::vector<NodeTopology> kinds, std::vector<int> kind_of_node);

  const NodeTopology& of(int node) const { return kinds_[kind_of(node)]; }
  int kind_of(int node) const { return kind_of_node_.empty() ? 0 : kind_of_node_[static_cast<size_t>(node)]; }
  int cores(int node) const { return of(node).cores(); }
  int count() const { return static_cast<int>(kinds_.size()); }
  const NodeTopology& kind(int k) const { return kinds_[static_cast<size_t>(k)]; }
  bool uniform() const { return kinds_.size() == 1; }
  int max_cores() const { return max_cores_; }
  int min_cores() const { return min_cores_; }

 private:
  std::vector<NodeTopology> kinds_;
  std::vector<int> kind_of_node_;
  int max_cores_ = 0, min_cores_ = 0;
};

}  // namespace rankmap
