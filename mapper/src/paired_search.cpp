// The tabu search one level up: ranks paired inside their nodes, the pairs
// searched as units, then the ranks (a two-level V-cycle, as the multilevel
// partitioners refine: KaHyPar's V-cycles contract only vertices of one
// block, so the coarse level starts from the current solution).
//
// Why: the rank-level searches (iterated_search.cpp, tabu_search.cpp) move
// one rank or swap two. Where two ranks of a node talk mostly to each other
// and to a third node, moving them there one at a time first separates
// them, at a cost the tabu search must climb before the second move pays;
// on recorded CG at 192 ranks (6 per node) the seeds ended 5.8% apart in
// such basins. As one unit the pair moves or swaps in one step, priced
// exactly: an edge inside a pair never has a length, so the coarse cost
// equals the ranks' cost and the coarse search's gain is the real gain.
//
// Pairs: ranks in a seeded random order, each unpaired rank with its
// heaviest-linked unpaired partner on the same node, the rest of a node's
// ranks paired in rank order; every cycle pairs anew. Where a node holds an
// odd number of ranks no pairing covers it: nothing happens (the tabu
// search's capacities count units, not sizes).
#include <algorithm>
#include <numeric>
#include <random>

#include "detail.hpp"

namespace rankmap::detail {

bool paired_search_applies(const Allocation& allocation, const std::vector<int>& node_of) {
  std::vector<int> held(static_cast<size_t>(allocation.network_nodes()), 0);
  for (int node : node_of) {
    if (node < 0 || node >= allocation.network_nodes()) return false;
    ++held[static_cast<size_t>(node)];
  }
  bool more_than_a_pair = false;
  for (int node : allocation.nodes()) {
    if (held[static_cast<size_t>(node)] % 2 != 0) return false;
    more_than_a_pair = more_than_a_pair || held[static_cast<size_t>(node)] > 2;
  }
  // One pair a node: the pairs are the node contents, whose placement the
  // searches below already exchange whole (a tabu search of them found
  // nothing, docs/mapper.md).
  return more_than_a_pair;
}

void paired_search(const CommGraph& graph, const Network& net, const Allocation& allocation, std::vector<int>& node_of,
                   int cycles, std::int64_t work_per_cycle, std::uint64_t seed, int threads,
                   const std::atomic<bool>* spare_thread) {
  if (!paired_search_applies(allocation, node_of)) return;
  const int n = graph.vertices;
  // Pairs fit where two slots are free: a node of 2s + 1 slots holds s pairs.
  std::vector<int> pair_nodes, pair_slots;
  for (int node : allocation.nodes())
    if (allocation.slots(node) >= 2) {
      pair_nodes.push_back(node);
      pair_slots.push_back(allocation.slots(node) / 2);
    }
  const Allocation pairs_allocation(allocation.network_nodes(), pair_nodes, pair_slots);
  if (!tabu_search_fits(n / 2, pairs_allocation.size())) return;
  std::mt19937_64 rng(seed);
  std::vector<int> order(static_cast<size_t>(n)), pair_of(static_cast<size_t>(n));
  std::vector<std::vector<int>> unpaired(static_cast<size_t>(allocation.network_nodes()));
  for (int cycle = 0; cycle < cycles; ++cycle) {
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    std::fill(pair_of.begin(), pair_of.end(), -1);
    int pairs = 0;
    for (int r : order) {
      if (pair_of[r] >= 0) continue;
      int mate = -1;
      double heaviest = 0;
      for (auto e = graph.xadj[r]; e < graph.xadj[r + 1]; ++e) {
        const int u = graph.adjncy[e];
        if (pair_of[u] < 0 && u != r && node_of[u] == node_of[r] && graph.weight[e] > heaviest) {
          heaviest = graph.weight[e];
          mate = u;
        }
      }
      if (mate < 0) continue;
      pair_of[r] = pair_of[mate] = pairs++;
    }
    for (auto& list : unpaired) list.clear();
    for (int r = 0; r < n; ++r)
      if (pair_of[r] < 0) unpaired[static_cast<size_t>(node_of[r])].push_back(r);
    for (const auto& list : unpaired)
      for (size_t i = 0; i + 1 < list.size(); i += 2) pair_of[list[i]] = pair_of[list[i + 1]] = pairs++;
    // paired_search_applies: every node's count is even, so no rank is left.
    const CommGraph coarse = contract(graph, pair_of, pairs);
    std::vector<int> pair_node(static_cast<size_t>(pairs));
    for (int r = 0; r < n; ++r) pair_node[pair_of[r]] = node_of[r];
    tabu_search(coarse, net, pairs_allocation, pair_node, work_per_cycle, rng(), threads, nullptr, nullptr,
                spare_thread);
    for (int r = 0; r < n; ++r) node_of[r] = pair_node[pair_of[r]];
    // Back at the ranks, a descent: what splitting a pair now gains.
    refine(graph, net, allocation, node_of, 4);
  }
}

}  // namespace rankmap::detail
