// random: ranks on uniformly random slots of the allocation (seeded), the
// baseline any placement should beat.
#include <algorithm>
#include <random>

#include "detail.hpp"

namespace rankmap {

Result<MapOutcome> map_random(const MapProblem& p) {
  std::vector<int> slots;
  slots.reserve(static_cast<size_t>(p.allocation.total_slots()));
  for (int a : p.allocation.nodes())
    for (int i = 0; i < p.allocation.slots(a); ++i) slots.push_back(a);
  std::mt19937_64 rng(p.seed);
  // Fisher-Yates by hand: std::shuffle's draw sequence is library-specific,
  // and the same seed must give the same mapping everywhere.
  for (size_t i = slots.size(); i > 1; --i) std::swap(slots[i - 1], slots[rng() % i]);
  std::vector<int> node_of(slots.begin(), slots.begin() + p.ranks());
  return MapOutcome{detail::cores_in_rank_order(node_of, p.platform->net().nodes()), {}, {}};
}

}  // namespace rankmap
