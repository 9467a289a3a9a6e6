// scotch: Scotch's graph mapping of the rank graph onto the plain torusXD
// target (hop distances, no link multiplicity), restricted to the allocated
// nodes, then capacities enforced exactly; cores in rank order. This is the
// "use Scotch as is" reference.
#include "detail.hpp"

namespace rankmap {

Result<MapOutcome> map_scotch(const MapProblem& p) {
  MapOutcome out;
  auto node_of = detail::scotch_map(*p.graph, p.platform->net(), p.allocation.nodes(), false, false, p.seed, out.notes);
  if (!node_of) return node_of.error();
  detail::enforce_node_capacity(*p.graph, p.platform->net(), p.allocation, *node_of);
  out.placement = detail::cores_in_rank_order(*node_of, p.platform->net().nodes());
  return out;
}

}  // namespace rankmap
