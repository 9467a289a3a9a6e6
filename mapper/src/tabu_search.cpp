// Tabu search on the mapping cost sum w x weighted_distance with at most its
// slots on every allocated node (Taillard's robust tabu search for the
// quadratic assignment problem, on the moves a capacity allows).
//
// The iterated local search (iterated_search.cpp) descends after random
// kicks and keeps a kick when the cost does not rise: which basin it ends in
// depends on its kicks, so two seeds end up several percent apart on
// irregular graphs (random partners, recorded CG and ADI at 6 ranks per
// node). A tabu search instead takes, at every step, the best move of the
// whole neighbourhood, uphill when nothing goes down, and forbids undoing
// recent moves for a while: it walks out of a basin along the cheapest way
// and explores the next one, which a kick that must not raise the cost
// rarely does (docs/mapper.md, step 3, for what it gains and what not).
//
// Moves: a rank to a node with room, or two ranks of different nodes
// swapped. Candidate nodes for a rank are the nodes of its partners and the
// network neighbours of its own node (elsewhere is rarely cheaper, and all
// nodes would multiply each step's work by nodes / degree). Every rank's cost at every allocated node, C[v][j] = sum over v's
// partners u of w(u, v) x d(j, node of u), is kept up to date, so a move
// is priced in O(1) and applying it costs degree x nodes.
//
// Tabu rule (RoTS): moving v back to a node it left less than `tenure`
// steps ago is tabu; a swap is tabu only when both of its moves are.
// Aspiration: a tabu move is taken if it gives the lowest cost seen.
// The tenure is drawn anew every 2 x its upper end of steps.
//
// Deterministic: ties and tenures come from std::mt19937_64 with the given
// seed, and the budget counts evaluated moves and updated entries.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "detail.hpp"

namespace rankmap::detail {

namespace {

// Entries of its tables: ranks x allocated nodes (a cost and a tabu step
// each) and allocated nodes x allocated nodes (distances and swap bounds).
constexpr std::int64_t kMaxTableEntries = 4'000'000;
// Tenure drawn from [p, 2p] percent of the ranks with partners. Measured at
// 5 seeds on random graphs, recorded sparse patterns and a shuffled stencil
// (64-1,024 ranks): 8-16% and 15-30% gave mean costs within 1% of each other
// (15-30% lower by 0.6-0.8% on the two largest), 4-8% up to 1% higher;
// 2-4% and 100-200% found almost nothing on recorded CG at 192 ranks.
constexpr int kTenureLowPercent = 15;

}  // namespace

bool tabu_search_fits(int ranks, int allocated_nodes) {
  // The second table outgrows the first where the allocation has more
  // nodes than the job has ranks (a few ranks spread over a large machine).
  const std::int64_t m = allocated_nodes;
  return std::max<std::int64_t>(ranks, m) * m <= kMaxTableEntries;
}

void tabu_search(const CommGraph& graph, const Network& net, const Allocation& allocation, std::vector<int>& node_of,
                 std::int64_t work, std::uint64_t seed) {
  const int n = graph.vertices;
  const std::vector<int>& nodes = allocation.nodes();
  const int m = static_cast<int>(nodes.size());
  if (n < 2 || m < 2 || graph.edges() == 0 || !tabu_search_fits(n, m)) return;
  const auto M = static_cast<size_t>(m);

  std::vector<int> index_of(static_cast<size_t>(net.nodes()), -1);
  for (int j = 0; j < m; ++j) index_of[nodes[j]] = j;
  std::vector<double> D(M * M);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) D[i * M + j] = i == j ? 0.0 : net.weighted_distance(nodes[i], nodes[j]);
  std::vector<std::vector<int>> neighbours(M);  // network neighbours, as indices of allocated nodes
  {
    std::vector<int> adj;
    for (int j = 0; j < m; ++j) {
      net.neighbors(nodes[j], adj);
      for (int b : adj)
        if (index_of[b] >= 0 && index_of[b] != j) neighbours[j].push_back(index_of[b]);
    }
  }

  std::vector<int> pos(static_cast<size_t>(n)), room(M);
  std::vector<std::vector<int>> members(M);
  for (int j = 0; j < m; ++j) room[j] = allocation.slots(nodes[j]);
  for (int v = 0; v < n; ++v) {
    pos[v] = index_of[node_of[v]];
    if (pos[v] < 0) return;  // off the allocation: not a placement to search from
    members[pos[v]].push_back(v);
    --room[pos[v]];
  }
  std::vector<double> C(static_cast<size_t>(n) * M, 0.0);
  for (int v = 0; v < n; ++v)
    for (auto e = graph.xadj[v]; e < graph.xadj[v + 1]; ++e) {
      const double w = graph.weight[e];
      const double* d = &D[static_cast<size_t>(pos[graph.adjncy[e]]) * M];
      double* c = &C[static_cast<size_t>(v) * M];
      for (int j = 0; j < m; ++j) c[j] += w * d[j];
    }
  work -= static_cast<std::int64_t>(graph.adjncy.size()) * m;

  std::vector<int> active;
  for (int v = 0; v < n; ++v)
    if (graph.xadj[v + 1] > graph.xadj[v]) active.push_back(v);
  const int units = static_cast<int>(active.size());
  std::mt19937_64 rng(seed);
  const int tenure_lo = std::max(2, units * kTenureLowPercent / 100), tenure_hi = std::max(tenure_lo + 1, 2 * tenure_lo);
  auto draw_tenure = [&] { return tenure_lo + static_cast<int>(rng() % static_cast<unsigned>(tenure_hi - tenure_lo + 1)); };
  int tenure = draw_tenure();
  // Step until which moving v to node j is tabu.
  std::vector<std::int64_t> tabu_until(static_cast<size_t>(n) * M, 0);

  double cost = 0;
  for (int v = 0; v < n; ++v) cost += C[static_cast<size_t>(v) * M + pos[v]];
  cost /= 2;  // every edge counted from both ends
  double best_cost = cost;
  const double tol = 1e-12 * std::max(cost, 1.0);
  std::vector<int> best_pos = pos;

  std::vector<double> partner_w(static_cast<size_t>(n), 0.0);
  std::vector<int> stamp(M, -1), cand;
  // Lower bound of the second half of a swap out of node j into node a:
  // min over the ranks s of j of C[s][a] - C[s][j] (the pair term
  // 2 w(r, s) d(a, j) is never negative). Computed once per step and node
  // pair when first needed; a swap whose bound cannot beat the step's best
  // so far is not priced rank by rank (the same choice, fewer lookups).
  std::vector<double> swap_bound(M * M);
  std::vector<std::int64_t> bound_step(M * M, 0);
  auto bound_of = [&](int j, int a, std::int64_t step) {
    const size_t k = static_cast<size_t>(j) * M + a;
    if (bound_step[k] != step) {
      bound_step[k] = step;
      double lo = std::numeric_limits<double>::infinity();
      for (int s : members[j]) {
        const double* cs = &C[static_cast<size_t>(s) * M];
        lo = std::min(lo, cs[a] - cs[j]);
      }
      swap_bound[k] = lo;
    }
    return swap_bound[k];
  };
  auto apply_move = [&](int v, int to) {
    const int from = pos[v];
    auto& mf = members[from];
    mf.erase(std::find(mf.begin(), mf.end(), v));
    members[to].push_back(v);
    ++room[from];
    --room[to];
    pos[v] = to;
    const double* dt = &D[static_cast<size_t>(to) * M];
    const double* df = &D[static_cast<size_t>(from) * M];
    for (auto e = graph.xadj[v]; e < graph.xadj[v + 1]; ++e) {
      const double w = graph.weight[e];
      double* c = &C[static_cast<size_t>(graph.adjncy[e]) * M];
      for (int j = 0; j < m; ++j) c[j] += w * (dt[j] - df[j]);
    }
    work -= (graph.xadj[v + 1] - graph.xadj[v]) * m;
  };

  for (std::int64_t step = 1; work > 0; ++step) {
    double best = std::numeric_limits<double>::infinity();
    int best_r = -1, best_s = -1, best_to = -1, ties = 0;
    std::int64_t evaluated = 0;
    for (int r : active) {
      const int a = pos[r];
      const double* cr = &C[static_cast<size_t>(r) * M];
      const std::int64_t* tr = &tabu_until[static_cast<size_t>(r) * M];
      cand.clear();
      for (auto e = graph.xadj[r]; e < graph.xadj[r + 1]; ++e) {
        partner_w[graph.adjncy[e]] = graph.weight[e];
        const int j = pos[graph.adjncy[e]];
        if (j != a && stamp[j] != r) {
          stamp[j] = r;
          cand.push_back(j);
        }
      }
      for (int j : neighbours[a])
        if (stamp[j] != r) {
          stamp[j] = r;
          cand.push_back(j);
        }
      for (int j : cand) {
        const double dr = cr[j] - cr[a];
        const bool r_tabu = tr[j] > step;
        auto consider = [&](double delta, bool tabu, int s) {
          ++evaluated;
          if (tabu && cost + delta >= best_cost - tol) return;
          if (delta < best - tol) {
            best = delta;
            best_r = r;
            best_s = s;
            best_to = j;
            ties = 1;
          } else if (delta <= best + tol && rng() % static_cast<unsigned>(++ties) == 0) {
            best_r = r;
            best_s = s;
            best_to = j;
          }
        };
        if (room[j] > 0) consider(dr, r_tabu, -1);
        if (members[j].empty()) continue;
        if (dr + bound_of(j, a, step) > best + tol) {
          evaluated += static_cast<std::int64_t>(members[j].size());  // the budget counts them all the same
          continue;
        }
        for (int s : members[j]) {
          const double* cs = &C[static_cast<size_t>(s) * M];
          const double delta = dr + cs[a] - cs[j] + 2 * partner_w[s] * D[static_cast<size_t>(a) * M + j];
          consider(delta, r_tabu && tabu_until[static_cast<size_t>(s) * M + a] > step, s);
        }
      }
      for (auto e = graph.xadj[r]; e < graph.xadj[r + 1]; ++e) partner_w[graph.adjncy[e]] = 0;
    }
    work -= evaluated + units;
    if (best_r < 0) break;  // every move tabu and none aspirated
    const int a = pos[best_r];
    tabu_until[static_cast<size_t>(best_r) * M + a] = step + tenure;
    apply_move(best_r, best_to);
    if (best_s >= 0) {
      tabu_until[static_cast<size_t>(best_s) * M + best_to] = step + tenure;
      apply_move(best_s, a);
    }
    cost += best;
    if (cost < best_cost - tol) {
      best_cost = cost;
      best_pos = pos;
    }
    if (step % (2 * tenure_hi) == 0) tenure = draw_tenure();
  }
  // The running cost drifts by rounding; the input is kept unless the best
  // really is cheaper.
  std::vector<int> found(node_of.size());
  for (int v = 0; v < n; ++v) found[v] = nodes[best_pos[v]];
  if (weighted_cost(graph, net, found) < weighted_cost(graph, net, node_of)) node_of = std::move(found);
}

}  // namespace rankmap::detail
