// block: what launchers do by default: fill each allocated node in turn.
#include "detail.hpp"

namespace rankmap {

Result<MapOutcome> map_block(const MapProblem& p) {
  const std::vector<int> node_of = detail::fill_in_order(p.allocation.nodes(), p.allocation, p.ranks());
  return MapOutcome{detail::cores_in_rank_order(node_of, p.platform->net().nodes()), {}, {}};
}

}  // namespace rankmap
