// round-robin: rank r on allocated node r mod N (mpirun --map-by node).
#include "detail.hpp"

namespace rankmap {

Result<MapOutcome> map_round_robin(const MapProblem& p) {
  std::vector<int> node_of(static_cast<size_t>(p.ranks()));
  const int n = static_cast<int>(p.nodes.size());
  for (int r = 0; r < p.ranks(); ++r) node_of[r] = p.nodes[static_cast<size_t>(r % n)];
  return MapOutcome{detail::cores_in_rank_order(node_of, p.platform->net().nodes()), {}, {}};
}

}  // namespace rankmap
