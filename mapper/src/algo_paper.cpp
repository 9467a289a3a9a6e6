// paper: the published method. METIS k-way splits the ranks into node groups
// (capacities enforced exactly), group g goes to the g-th allocated node, and
// each node's ranks are placed on cores through the hwloc tree.
#include "detail.hpp"

namespace rankmap {

Result<MapOutcome> map_paper(const MapProblem& p) {
  const int k = detail::groups_needed(p.ranks(), p.ppn);
  const std::vector<int> part = detail::partition_groups(*p.graph, k, p.ppn, p.seed);
  std::vector<int> node_of(part.size());
  for (size_t r = 0; r < part.size(); ++r) node_of[r] = p.nodes[static_cast<size_t>(part[r])];
  return MapOutcome{detail::cores_by_topology(*p.graph, node_of, p.platform->node, p.platform->net().nodes()), {}, {}};
}

}  // namespace rankmap
