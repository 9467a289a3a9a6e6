// Recombination of good placements (a memetic step, as in the memetic
// algorithms for the quadratic assignment problem): the iterated local search
// (iterated_search.cpp) ends in the basin its start and its kicks led it to,
// and which basin that is depends on the seed. Two good placements from
// different starts usually agree on most of the structure (which ranks share a
// node, which nodes neighbour) and differ in a few regions; a child that keeps
// what both parents agree on and re-places the rest, then searched, lands in
// basins neither start reaches, and the best of a pool evolved this way depends
// far less on which start happened to be lucky.
//
// Placements that are images of each other under a symmetry of the torus
// (translation, reflection, exchange of equal dimensions) agree on nothing
// rank by rank, so the second parent is first moved by the symmetry that
// makes it agree most with the first.
//
// Deterministic: choices come from std::mt19937_64 with the given seed and the
// budget counts edge visits.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>

#include "detail.hpp"
#include "parallel.hpp"
#include "torus_symmetries.hpp"

namespace rankmap::detail {

namespace {

// A child with fewer than 1/kNearShare of its ranks on other nodes than a
// pool member counts as that member's variant (recombine, below).
constexpr std::int64_t kNearShare = 16;

// Keeps every rank on which the parents agree; places the others one by one,
// most attached to the placed ranks first, each on the allocated node with room
// that costs least towards its placed partners (the parents' nodes and the
// partners' nodes and their torus neighbours are the candidates, else the
// first node with room).
std::vector<int> cross(const CommGraph& g, const Torus& t, const Allocation& allocation, const std::vector<int>& a,
                       const std::vector<int>& b, std::int64_t& work) {
  const int n = g.vertices;
  std::vector<int> child(static_cast<size_t>(n), -1);
  std::vector<int> room = allocation.slots_by_node();
  std::vector<int> open;
  for (int r = 0; r < n; ++r)
    if (a[static_cast<size_t>(r)] == b[static_cast<size_t>(r)]) {
      child[static_cast<size_t>(r)] = a[static_cast<size_t>(r)];
      --room[static_cast<size_t>(a[static_cast<size_t>(r)])];
    } else {
      open.push_back(r);
    }
  // Pull towards placed partners; recomputed as ranks get placed (a simple
  // quadratic loop over the open ranks: they are the disagreement, a minority).
  std::vector<double> pull(static_cast<size_t>(n), 0);
  for (int r : open)
    for (auto e = g.xadj[r]; e < g.xadj[r + 1]; ++e)
      if (child[static_cast<size_t>(g.adjncy[e])] >= 0) pull[static_cast<size_t>(r)] += g.weight[e];
  work += static_cast<std::int64_t>(g.adjncy.size());
  std::vector<int> cand;
  while (!open.empty()) {
    size_t pick = 0;
    for (size_t i = 1; i < open.size(); ++i)
      if (pull[static_cast<size_t>(open[i])] > pull[static_cast<size_t>(open[pick])]) pick = i;
    const int r = open[pick];
    open.erase(open.begin() + static_cast<long>(pick));
    work += static_cast<std::int64_t>(open.size());
    cand.clear();
    cand.push_back(a[static_cast<size_t>(r)]);
    cand.push_back(b[static_cast<size_t>(r)]);
    for (auto e = g.xadj[r]; e < g.xadj[r + 1]; ++e) {
      const int q = child[static_cast<size_t>(g.adjncy[e])];
      if (q < 0) continue;
      cand.push_back(q);
      for (int d = 0; d < t.dims(); ++d)
        for (Direction dir : {Direction::plus, Direction::minus}) {
          const int c = t.neighbor(q, d, dir);
          if (c >= 0) cand.push_back(c);
        }
    }
    int best_node = -1;
    double best_cost = 0;
    for (int x : cand) {
      if (room[static_cast<size_t>(x)] <= 0) continue;
      double c = 0;
      for (auto e = g.xadj[r]; e < g.xadj[r + 1]; ++e) {
        const int q = child[static_cast<size_t>(g.adjncy[e])];
        if (q >= 0) c += g.weight[e] * t.weighted_distance(x, q);
      }
      work += g.xadj[r + 1] - g.xadj[r];
      if (best_node < 0 || c < best_cost || (c == best_cost && x < best_node)) {
        best_node = x;
        best_cost = c;
      }
    }
    if (best_node < 0)
      for (int x : allocation.nodes())
        if (room[static_cast<size_t>(x)] > 0) {
          best_node = x;
          break;
        }
    child[static_cast<size_t>(r)] = best_node;
    --room[static_cast<size_t>(best_node)];
    for (auto e = g.xadj[r]; e < g.xadj[r + 1]; ++e) pull[static_cast<size_t>(g.adjncy[e])] += g.weight[e];
  }
  return child;
}

}  // namespace

std::vector<int> align_by_symmetry(const Torus& t, const Allocation& allocation, const std::vector<int>& a,
                                   const std::vector<int>& b, std::int64_t& work) {
  const TorusSymmetries sym(t, TorusSymmetries::kWithTranslations);
  // Ranks per (node in a, node in b) pair: agreement is a sum over pairs.
  std::vector<std::pair<int, int>> pairs;
  pairs.reserve(a.size());
  for (size_t r = 0; r < a.size(); ++r) pairs.push_back({a[r], b[r]});
  std::sort(pairs.begin(), pairs.end());
  std::vector<std::pair<std::pair<int, int>, int>> counted;
  for (size_t i = 0; i < pairs.size();) {
    size_t j = i;
    while (j < pairs.size() && pairs[j] == pairs[i]) ++j;
    counted.push_back({pairs[i], static_cast<int>(j - i)});
    i = j;
  }
  int best = -1;
  std::vector<int> best_map;
  sym.for_each([&](const std::vector<int>& map) {
    work += static_cast<std::int64_t>(map.size() + counted.size());
    if (!keeps_allocation(allocation, map)) return;
    int agree = 0;
    for (const auto& [pr, k] : counted)
      if (map[static_cast<size_t>(pr.second)] == pr.first) agree += k;
    if (agree > best) {
      best = agree;
      best_map = map;
    }
  });
  std::vector<int> out(b);
  if (!best_map.empty())
    for (int& x : out) x = best_map[static_cast<size_t>(x)];
  return out;
}

std::vector<int> recombine(const CommGraph& g, const Torus& t, const Allocation& allocation,
                           const std::vector<std::vector<int>>& parents, std::int64_t work, std::uint64_t seed,
                           int threads) {
  struct Member {
    std::vector<int> node_of;
    double cost;
    std::uint64_t id;  // which placement: a member replaced gets a new one
  };
  std::vector<Member> pool;
  std::uint64_t next_id = 0;
  for (const std::vector<int>& p : parents) pool.push_back({p, weighted_cost(g, t, p), next_id++});
  if (pool.empty()) return {};
  auto by_cost = [](const Member& x, const Member& y) { return x.cost < y.cost; };
  std::sort(pool.begin(), pool.end(), by_cost);
  if (pool.size() < 2 || g.edges() == 0) return pool.front().node_of;
  std::mt19937_64 rng(seed);
  const double tol = 1e-12 * std::max(1.0, pool.front().cost);
  // Each child gets a search of this many edge visits: a few descents'
  // worth, enough to settle the re-placed region and its surroundings.
  const std::int64_t child_work = std::max<std::int64_t>(work / 16, 20 * static_cast<std::int64_t>(g.adjncy.size()));
  // The child of the best member and pool[j], searched with `child_seed`;
  // its work is added to `done`.
  auto make_child = [&](size_t j, std::uint64_t child_seed, std::int64_t& done) {
    const std::vector<int> b = align_by_symmetry(t, allocation, pool[0].node_of, pool[j].node_of, done);
    std::vector<int> child = cross(g, t, allocation, pool[0].node_of, b, done);
    iterated_search(g, t, allocation, child, child_work, child_seed);
    done += child_work;
    return child;
  };
  std::int64_t spent = 0;
  auto admit = [&](std::vector<int> child) {
    const double cost = weighted_cost(g, t, child);
    spent += static_cast<std::int64_t>(g.adjncy.size());
    // Into the pool in place of the worst when better than it and not a copy;
    // but a child that is nearly a member (fewer than 1/kNearShare of the
    // ranks elsewhere) can only replace that member. Children of the best
    // mostly land next to it: replacing the worst with them filled the pool
    // with variants of one placement within a few children, after which every
    // child was that placement again and the result was whichever basin the
    // best happened to be in (measured: 5 seeds of a shuffled 3D stencil at
    // 256 ranks, one stuck 6% above the others this way).
    const bool copy = std::any_of(pool.begin(), pool.end(),
                                  [&](const Member& m) { return std::abs(m.cost - cost) <= tol || m.node_of == child; });
    size_t nearest = 0;
    std::int64_t nearest_apart = -1;
    for (size_t m = 0; m < pool.size(); ++m) {
      std::int64_t apart = 0;
      for (size_t r = 0; r < child.size(); ++r) apart += child[r] != pool[m].node_of[r];
      if (nearest_apart < 0 || apart < nearest_apart) {
        nearest = m;
        nearest_apart = apart;
      }
    }
    spent += static_cast<std::int64_t>(pool.size() * child.size());
    const size_t replaced = nearest_apart < static_cast<std::int64_t>(child.size()) / kNearShare ? nearest : pool.size() - 1;
    if (!copy && cost < pool[replaced].cost - tol) {
      pool[replaced] = {std::move(child), cost, next_id++};
      std::sort(pool.begin(), pool.end(), by_cost);
    }
  };
  // The best member with a random other one: the pool's best keeps
  // improving while the others supply the variation.
  auto draw = [&] {
    const size_t j = 1 + static_cast<size_t>(rng() % (pool.size() - 1));
    return std::pair<size_t, std::uint64_t>{j, rng()};
  };
  // Children are made one after the other, each from the pool as the one
  // before left it. With a second thread the next child is made beside the
  // current one, from the pool as it stands, and used if the current one's
  // admission left both its parents where they were; else it is made again
  // as the next round's current child, beside the one after it. The same
  // children, and the same result, for any thread count. Measured: 1 in 4
  // to every next child used, the default's wall time 0.92x at 128-256
  // ranks on 2 threads.
  std::optional<std::pair<size_t, std::uint64_t>> carried;  // drawn, to be made from the pool as it is now
  while (spent < work) {
    // (Plain names, not a structured binding: the lambda below captures them.)
    const std::pair<size_t, std::uint64_t> drawn = carried ? *carried : draw();
    const size_t j = drawn.first;
    const std::uint64_t child_seed = drawn.second;
    carried.reset();
    if (threads < 2) {
      admit(make_child(j, child_seed, spent));
      continue;
    }
    const std::pair<size_t, std::uint64_t> next_drawn = draw();
    const size_t next_j = next_drawn.first;
    const std::uint64_t next_seed = next_drawn.second;
    const std::uint64_t best_id = pool[0].id, next_parent_id = pool[next_j].id;
    std::vector<int> child, next_child;
    std::int64_t done = 0, next_done = 0;
    parallel_for(2, threads, [&](size_t k) {
      if (k == 0)
        child = make_child(j, child_seed, done);
      else
        next_child = make_child(next_j, next_seed, next_done);
    });
    spent += done;
    admit(std::move(child));
    if (spent >= work) break;
    if (pool[0].id == best_id && pool[next_j].id == next_parent_id) {
      spent += next_done;
      admit(std::move(next_child));
    } else {
      carried = {next_j, next_seed};
    }
  }
  return pool.front().node_of;
}

}  // namespace rankmap::detail
