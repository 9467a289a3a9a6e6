// round-robin: rank r on allocated node r mod N (mpirun --map-by node); a
// node whose slots are full is skipped (mixed machines).
#include "detail.hpp"

namespace rankmap {

Result<MapOutcome> map_round_robin(const MapProblem& p) {
  std::vector<int> node_of(static_cast<size_t>(p.ranks()));
  const std::vector<int>& nodes = p.allocation.nodes();
  std::vector<int> held(nodes.size(), 0);
  size_t at = 0;
  for (int r = 0; r < p.ranks(); ++r, at = (at + 1) % nodes.size()) {
    while (held[at] == p.allocation.slots(nodes[at])) at = (at + 1) % nodes.size();
    node_of[r] = nodes[at];
    ++held[at];
  }
  return MapOutcome{detail::cores_in_rank_order(node_of, p.platform->net().nodes()), {}, {}};
}

}  // namespace rankmap
