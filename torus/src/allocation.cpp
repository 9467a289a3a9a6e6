#include "rankmap/allocation.hpp"

#include <algorithm>

namespace rankmap {

Allocation::Allocation(int network_nodes, std::vector<int> nodes, const std::vector<int>& slots)
    : nodes_(std::move(nodes)), slots_(static_cast<size_t>(network_nodes), 0) {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const int s = slots[i];
    slots_[static_cast<size_t>(nodes_[i])] = s;
    total_ += s;
    max_ = std::max(max_, s);
    min_ = i == 0 ? s : std::min(min_, s);
  }
}

Allocation Allocation::uniform(int network_nodes, std::vector<int> nodes, int slots) {
  const std::vector<int> each(nodes.size(), slots);
  return Allocation(network_nodes, std::move(nodes), each);
}

}  // namespace rankmap
