// paper: the published method. METIS k-way splits the ranks into node groups
// (capacities enforced exactly), group g goes to the g-th allocated node, and
// each node's ranks are placed on cores through the hwloc tree. On nodes of
// different sizes the groups are cut at the largest node's size and the
// excess moved to nodes with room.
#include "detail.hpp"

namespace rankmap {

Result<MapOutcome> map_paper(const MapProblem& p) {
  const int k = detail::nodes_needed(p.allocation, p.ranks());
  const std::vector<int> part = detail::partition_groups(*p.graph, k, p.allocation.max_slots(), p.seed);
  std::vector<int> node_of(part.size());
  for (size_t r = 0; r < part.size(); ++r) node_of[r] = p.allocation.nodes()[static_cast<size_t>(part[r])];
  if (!p.allocation.uniform()) detail::enforce_node_capacity(*p.graph, p.platform->net(), p.allocation, node_of);
  return MapOutcome{detail::cores_by_topology(*p.graph, node_of, p.platform->node_kinds, p.platform->net().nodes(), p.core_fill, p.threads), {}, {}};
}

}  // namespace rankmap
