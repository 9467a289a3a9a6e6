// Regrouping search: an iterated search one level up, whose kicks change the
// partition and whose repair re-solves the placement of the node groups.
//
// The rank-level searches (iterated_search.cpp, tabu_search.cpp) price a
// change of two nodes' groups with every other group where it stands. On
// regular graphs of equal weights (a CG solver's butterflies and transposes)
// a better partition often pays only once many groups have moved: each
// group's partners changed nodes, so the groups' best places changed too.
// A move of a few ranks followed by a descent sees the price of the new
// groups at the old places and undoes it. Here the kick re-divides the ranks
// of two nearby nodes at random, then a tabu search of the quadratic
// assignment of whole node contents to nodes (Taillard's robust tabu search;
// the group graph is small: one vertex per allocated node) places every
// group anew, and a rank descent finishes; the kick is kept when the cost
// does not rise.
#include <algorithm>
#include <random>

#include "detail.hpp"

namespace rankmap::detail {

namespace {

// Steps of the group tabu search after each kick, 2 per group at 16 nodes.
// Recorded CG at 64 ranks on 4x4 at 15 seeds (2 searches of 1.5x the
// iterated search's budget): 16 steps left 3 seeds one edge-hop above the
// lowest cost, 32 steps 2, 64 steps (fewer kicks) 6, 8 steps 10.
constexpr int kGroupTabuSteps = 32;

// The quadratic assignment of node contents to allocated nodes: flow[i][j]
// is the weight between the contents of node index i and j, place[i] the
// node index content i is on. Swaps only, between contents that fit each
// other's slots. Returns the best placement's cost change (<= 0) and leaves
// `place` at it.
class GroupTabu {
 public:
  GroupTabu(const std::vector<double>& dist, int n) : dist_(dist), n_(n) {}

  double run(const std::vector<double>& flow, const std::vector<int>& size, const std::vector<int>& slots,
             std::vector<int>& place, int steps, std::mt19937_64& rng, std::int64_t& work) {
    const int n = n_;
    auto d = [&](int a, int b) { return dist_[static_cast<size_t>(a * n + b)]; };
    auto f = [&](int i, int j) { return flow[static_cast<size_t>(i * n + j)]; };
    auto fits = [&](int i, int j) { return size[i] <= slots[place[j]] && size[j] <= slots[place[i]]; };
    auto swap_delta = [&](int i, int j) {
      double delta = 0;
      const int pi = place[i], pj = place[j];
      for (int k = 0; k < n; ++k) {
        if (k == i || k == j) continue;
        const int pk = place[k];
        delta += (f(i, k) - f(j, k)) * (d(pj, pk) - d(pi, pk));
      }
      return delta;
    };
    // delta_[i * n + j] (i < j): the cost change of swapping i and j,
    // updated after every swap as Taillard does (O(n^2) a step).
    delta_.assign(static_cast<size_t>(n * n), 0.0);
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) delta_[static_cast<size_t>(i * n + j)] = swap_delta(i, j);
    work += static_cast<std::int64_t>(n) * (n - 1) / 2 * n;
    tabu_.assign(static_cast<size_t>(n * n), -1);  // content i may not return to node index p before step tabu_[i*n+p]
    std::vector<int> best_place = place;
    double cur = 0, best = 0;
    const double tol = 1e-9;
    // Tenures of n/2 to 3n/2 steps (drawn by hand: the standard
    // distributions' draws are library-specific).
    const int tenure_min = std::max(2, n / 2), tenure_span = std::max(3, 3 * n / 2) - tenure_min + 1;
    auto tenure = [&] { return tenure_min + static_cast<int>(rng() % static_cast<unsigned>(tenure_span)); };
    for (int s = 0; s < steps; ++s) {
      int bi = -1, bj = -1;
      double bd = 0;
      int ties = 0;
      for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
          if (!size[i] && !size[j]) continue;
          if (!fits(i, j)) continue;
          const double dl = delta_[static_cast<size_t>(i * n + j)];
          const bool forbidden = tabu_[static_cast<size_t>(i * n + place[j])] > s &&
                                 tabu_[static_cast<size_t>(j * n + place[i])] > s;
          if (forbidden && cur + dl >= best - tol) continue;
          if (bi < 0 || dl < bd - tol) {
            bi = i, bj = j, bd = dl, ties = 1;
          } else if (dl <= bd + tol && rng() % static_cast<unsigned>(++ties) == 0) {
            bi = i, bj = j, bd = dl;
          }
        }
      work += static_cast<std::int64_t>(n) * (n - 1) / 2;
      if (bi < 0) break;
      tabu_[static_cast<size_t>(bi * n + place[bi])] = s + tenure();
      tabu_[static_cast<size_t>(bj * n + place[bj])] = s + tenure();
      std::swap(place[bi], place[bj]);
      cur += bd;
      // Update every pair's delta: pairs touching bi or bj afresh (O(n)),
      // the others by Taillard's O(1) correction.
      for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
          double& dl = delta_[static_cast<size_t>(i * n + j)];
          if (i == bi || i == bj || j == bi || j == bj) {
            dl = swap_delta(i, j);
            continue;
          }
          const int pi = place[i], pj = place[j], pu = place[bi], pv = place[bj];
          dl += (f(i, bi) - f(i, bj) + f(j, bj) - f(j, bi)) * (d(pj, pu) - d(pj, pv) + d(pi, pv) - d(pi, pu));
        }
      work += static_cast<std::int64_t>(n) * (n - 1) / 2 + 2 * static_cast<std::int64_t>(n) * n;
      if (cur < best - tol) {
        best = cur;
        best_place = place;
      }
    }
    place = best_place;
    return best;
  }

 private:
  const std::vector<double>& dist_;
  int n_;
  std::vector<double> delta_;
  std::vector<int> tabu_;
};

}  // namespace

void regroup_search(const CommGraph& graph, const Network& net, const Allocation& allocation,
                    std::vector<int>& node_of, std::int64_t work, std::uint64_t seed) {
  const std::vector<int>& nodes = allocation.nodes();
  const int n = static_cast<int>(nodes.size());
  if (graph.vertices < 2 || graph.edges() == 0 || n < 3) return;
  std::vector<int> index_of(static_cast<size_t>(net.nodes()), -1);
  for (int i = 0; i < n; ++i) index_of[nodes[i]] = i;
  std::vector<double> dist(static_cast<size_t>(n * n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) dist[static_cast<size_t>(i * n + j)] = net.weighted_distance(nodes[i], nodes[j]);
  std::vector<int> slots(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) slots[i] = allocation.slots(nodes[i]);
  std::mt19937_64 rng(seed);
  GroupTabu tabu(dist, n);

  std::vector<int> current = node_of;
  refine(graph, net, allocation, current, 4);
  double cost = weighted_cost(graph, net, current);
  double best_cost = weighted_cost(graph, net, node_of);
  if (cost < best_cost) {
    best_cost = cost;
    node_of = current;
  }
  const double tol = 1e-12 * std::max(cost, 1.0);
  std::int64_t spent = 0;
  std::vector<int> active;
  for (int v = 0; v < graph.vertices; ++v)
    if (graph.xadj[v + 1] > graph.xadj[v]) active.push_back(v);
  if (active.empty()) return;
  std::vector<int> near, adjacent, ranks, trial, place(static_cast<size_t>(n)), size(static_cast<size_t>(n));
  std::vector<double> flow(static_cast<size_t>(n * n));
  std::vector<std::pair<double, int>> att;
  while (spent < work) {
    trial = current;
    // The kick: the ranks of r's node and a nearby node divided at random.
    const int r = active[rng() % active.size()];
    const int a = trial[r];
    kick_targets(graph, net, allocation, trial, r, near, adjacent, att);
    spent += 1 + graph.xadj[r + 1] - graph.xadj[r];
    if (near.empty()) continue;
    const int b = near[rng() % near.size()];
    ranks.clear();
    int at_a = 0;
    for (int v = 0; v < graph.vertices; ++v)
      if (trial[v] == a || trial[v] == b) {
        ranks.push_back(v);
        at_a += trial[v] == a;
      }
    spent += graph.vertices;
    if (ranks.size() < 2) continue;
    for (size_t i = ranks.size() - 1; i > 0; --i) std::swap(ranks[i], ranks[rng() % (i + 1)]);  // Fisher-Yates
    for (size_t i = 0; i < ranks.size(); ++i) trial[ranks[i]] = static_cast<int>(i) < at_a ? a : b;
    // The repair: the node contents placed anew by the group tabu search.
    std::fill(flow.begin(), flow.end(), 0.0);
    std::fill(size.begin(), size.end(), 0);
    for (int u = 0; u < graph.vertices; ++u) {
      const int i = index_of[trial[u]];
      ++size[i];
      for (auto e = graph.xadj[u]; e < graph.xadj[u + 1]; ++e) {
        const int j = index_of[trial[graph.adjncy[e]]];
        if (i != j) flow[static_cast<size_t>(i * n + j)] += graph.weight[e];
      }
    }
    spent += graph.xadj[graph.vertices];
    for (int i = 0; i < n; ++i) place[i] = i;
    tabu.run(flow, size, slots, place, kGroupTabuSteps, rng, spent);
    for (int u = 0; u < graph.vertices; ++u) trial[u] = nodes[place[index_of[trial[u]]]];
    spent += rank_descent(graph, net, allocation, trial);
    const double c = weighted_cost(graph, net, trial);
    spent += graph.xadj[graph.vertices];
    if (c <= cost + tol) {
      cost = c;
      current.swap(trial);
      if (cost < best_cost - tol) {
        best_cost = cost;
        node_of = current;
      }
    }
  }
}

}  // namespace rankmap::detail
