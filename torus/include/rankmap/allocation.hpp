// The nodes a job got and how many ranks each may hold: what every mapper's
// capacity, the lower bound and the placement checks read, instead of a
// node list and one global "ranks per node" (nodes of a machine may differ,
// machine.hpp nodes=).
#pragma once

#include <cstddef>
#include <vector>

namespace rankmap {

class Allocation {
 public:
  Allocation() = default;
  // slots[i] ranks on nodes[i]; nodes distinct and in [0, network_nodes),
  // slots >= 1 (the caller checks: map_ranks and make_allocation do).
  Allocation(int network_nodes, std::vector<int> nodes, const std::vector<int>& slots);
  // `slots` ranks on every listed node.
  static Allocation uniform(int network_nodes, std::vector<int> nodes, int slots);

  // The allocated nodes in allocation order (what `block` fills first).
  const std::vector<int>& nodes() const { return nodes_; }
  int size() const { return static_cast<int>(nodes_.size()); }
  // Ranks node `node` may hold; 0 off the allocation.
  int slots(int node) const { return slots_[static_cast<size_t>(node)]; }
  bool contains(int node) const { return slots_[static_cast<size_t>(node)] > 0; }
  // Indexed by network node (0 off the allocation): a searcher's "room".
  const std::vector<int>& slots_by_node() const { return slots_; }
  long long total_slots() const { return total_; }
  int max_slots() const { return max_; }
  int min_slots() const { return min_; }
  // Every allocated node holds the same number of ranks (the group starts,
  // which cut the ranks into equal groups, need it to be exact).
  bool uniform() const { return min_ == max_; }
  int network_nodes() const { return static_cast<int>(slots_.size()); }

 private:
  std::vector<int> nodes_;
  std::vector<int> slots_;
  long long total_ = 0;
  int max_ = 0, min_ = 0;
};

}  // namespace rankmap
