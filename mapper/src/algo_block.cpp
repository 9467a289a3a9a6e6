// block: what launchers do by default: fill each allocated node in turn.
#include "detail.hpp"

namespace rankmap {

Result<MapOutcome> map_block(const MapProblem& p) {
  std::vector<int> node_of(static_cast<size_t>(p.ranks()));
  for (int r = 0; r < p.ranks(); ++r) node_of[r] = p.nodes[static_cast<size_t>(r / p.ppn)];
  return MapOutcome{detail::cores_in_rank_order(node_of, p.platform->net().nodes()), {}, {}};
}

}  // namespace rankmap
