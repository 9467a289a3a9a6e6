// Iterated local search (ILS) on the mapping cost sum w x weighted_distance
// with a hard capacity per node (its slots): the search that lets the default
// spend its time budget. A descent alone (refine.cpp) stops in the first local
// minimum of its starting point; ILS, the standard metaheuristic for the
// quadratic assignment problem that mapping is, kicks the assignment out of
// it and descends again, keeping a kick whenever the cost does not rise
// (sideways moves let it cross the plateaus that regular graphs on tori are
// full of). Kicks are local (a rank and a nearby node, or two nearby nodes'
// contents), so each descent is short: only the ranks the kick moved and
// their partners are re-examined, not the whole graph. Besides single moves
// and swaps, the descent re-divides the ranks of two neighbouring nodes
// exactly (all divisions, up to 4 ranks per node): the two-for-two exchanges
// that reshape groups (squares into columns of a 27-point stencil) and that
// no single swap reaches.
//
// Deterministic: the kicks come from std::mt19937_64 with a fixed seed and the
// budget counts edge visits, not seconds, so a seed always gives one mapping.
#include <algorithm>
#include <random>

#include "detail.hpp"

namespace rankmap::detail {

namespace {

constexpr int kMaxResplitRanks = 8;  // 256 divisions of two nodes of 4

class RankSearch {
 public:
  RankSearch(const CommGraph& g, const Network& t, const Allocation& allocation, std::vector<int>& node_of)
      : g_(g), t_(t), slots_(allocation.slots_by_node()), node_of_(node_of), members_(static_cast<size_t>(t.nodes())),
        queued_(static_cast<size_t>(g.vertices), 0), partner_w_(static_cast<size_t>(g.vertices), 0.0),
        free_nodes_(one_slot_with_free_nodes(allocation, g.vertices)) {
    for (int v = 0; v < g.vertices; ++v) members_[node_of[v]].push_back(v);
    tol_ = 1e-9 * (g.total_weight() / static_cast<double>(std::max<std::int64_t>(1, g.edges())) + 1);
  }

  std::int64_t work() const { return work_; }
  void charge(std::int64_t visits) { work_ += visits; }
  const std::vector<int>& members(int a) const { return members_[a]; }
  bool allocated(int a) const { return slots_[a] > 0; }
  int slots(int a) const { return slots_[a]; }

  // Moves v to `to` and returns the cost change (exact: computed on the
  // current state before the move). Logged for undo.
  double move(int v, int to) {
    const int from = node_of_[v];
    const double d = delta(v, from, to);
    relocate(v, to);
    log_.push_back({v, from});
    return d;
  }

  void clear_log() { log_.clear(); }
  void undo() {
    for (auto it = log_.rbegin(); it != log_.rend(); ++it) relocate(it->first, it->second);
    log_.clear();
  }

  // The best single move or swap of r onto the nodes it is most attached to;
  // applied if it lowers the cost. Returns the gain (0 if none) and queues
  // the partners of every rank that moved.
  double improve(int r) {
    const int a = node_of_[r];
    attached_nodes(g_, node_of_, r, 3, att_);
    work_ += g_.xadj[r + 1] - g_.xadj[r];
    // r's edge weights by partner, for the swaps' pair term (a lookup, not
    // a search of s's adjacency per swap).
    for (auto e = g_.xadj[r]; e < g_.xadj[r + 1]; ++e) partner_w_[g_.adjncy[e]] = g_.weight[e];
    double best = -tol_;
    int best_b = -1, best_s = -1;
    for (auto [w, b] : att_) {
      if (!slots_[b]) continue;
      const double dr = delta(r, a, b);
      if (static_cast<int>(members_[b].size()) < slots_[b] && dr < best) {
        best = dr;
        best_b = b;
        best_s = -1;
      }
      for (int s : members_[b]) {
        const double d = dr + delta(s, b, a) + 2 * partner_w_[s] * t_.weighted_distance(a, b);
        if (d < best) {
          best = d;
          best_b = b;
          best_s = s;
        }
      }
    }
    // At one slot per node the attached nodes are full, while a node next
    // to them may be free: the move a sparse placement (a spread job)
    // needs, which no swap with a partner gives.
    if (free_nodes_) {
      for (auto [w, b] : att_) {
        t_.neighbors(b, near_);
        for (int c : near_) {
          if (c == a || static_cast<int>(members_[c].size()) >= slots_[c]) continue;
          const double dr = delta(r, a, c);
          if (dr < best) {
            best = dr;
            best_b = c;
            best_s = -1;
          }
        }
      }
    }
    for (auto e = g_.xadj[r]; e < g_.xadj[r + 1]; ++e) partner_w_[g_.adjncy[e]] = 0;
    if (best_b < 0) return 0;
    move(r, best_b);
    if (best_s >= 0) move(best_s, a);
    enqueue_partners(r);
    if (best_s >= 0) enqueue_partners(best_s);
    return -best;
  }

  // The best division of the ranks of nodes a and b between the two, by
  // enumeration (at most kMaxResplitRanks ranks): every rank's cost to its
  // partners elsewhere at either node, plus the pairs it separates at
  // distance d(a, b). Multi-rank exchanges (two for two, ...) that no single
  // swap reaches. Applied if it lowers the cost; returns the gain.
  double resplit(int a, int b) {
    union_.clear();
    for (int v : members_[a]) union_.push_back(v);
    for (int v : members_[b]) union_.push_back(v);
    const int m = static_cast<int>(union_.size());
    if (m < 2 || m > kMaxResplitRanks) return 0;
    const double dab = t_.weighted_distance(a, b);
    std::fill(inner_.begin(), inner_.end(), 0.0);
    for (int i = 0; i < m; ++i) {
      const int u = union_[i];
      ext_a_[i] = ext_b_[i] = 0;
      work_ += g_.xadj[u + 1] - g_.xadj[u];
      for (auto e = g_.xadj[u]; e < g_.xadj[u + 1]; ++e) {
        const int v = g_.adjncy[e];
        const int q = node_of_[v];
        if (q == a || q == b) {
          const int j = static_cast<int>(std::find(union_.begin(), union_.end(), v) - union_.begin());
          inner_[static_cast<size_t>(i * kMaxResplitRanks + j)] = g_.weight[e];
          continue;
        }
        ext_a_[i] += g_.weight[e] * t_.weighted_distance(a, q);
        ext_b_[i] += g_.weight[e] * t_.weighted_distance(b, q);
      }
    }
    auto cost_of = [&](unsigned mask) {
      double c = 0;
      for (int i = 0; i < m; ++i) {
        const bool at_b = (mask >> i) & 1u;
        c += at_b ? ext_b_[i] : ext_a_[i];
        for (int j = i + 1; j < m; ++j)
          if (at_b != (((mask >> j) & 1u) != 0)) c += inner_[static_cast<size_t>(i * kMaxResplitRanks + j)] * dab;
      }
      return c;
    };
    unsigned current = 0;
    for (int i = static_cast<int>(members_[a].size()); i < m; ++i) current |= 1u << i;
    const double now = cost_of(current);
    double best = now - tol_;
    unsigned best_mask = current;
    const int min_b = std::max(0, m - slots_[a]), max_b = std::min(slots_[b], m);
    for (unsigned mask = 0; mask < (1u << m); ++mask) {
      const int at_b = __builtin_popcount(mask);
      if (at_b < min_b || at_b > max_b || mask == current) continue;
      const double c = cost_of(mask);
      if (c < best) {
        best = c;
        best_mask = mask;
      }
    }
    work_ += static_cast<std::int64_t>(1u << m) * m;
    if (best_mask == current) return 0;
    for (int i = 0; i < m; ++i) {
      const int want = ((best_mask >> i) & 1u) ? b : a;
      if (node_of_[union_[i]] != want) {
        move(union_[i], want);
        enqueue_partners(union_[i]);
      }
    }
    return now - best;
  }

  // resplit() over every pair of neighbouring allocated nodes, each followed
  // by a rank descent, until a whole sweep gains nothing or the work reaches
  // work_limit.
  double resplit_neighbours(const std::vector<int>& nodes, std::int64_t work_limit) {
    double gain = 0;
    for (int sweep = 0; sweep < 8 && work_ < work_limit; ++sweep) {
      double sweep_gain = 0;
      for (int a : nodes)
        for (int b : t_.neighbors(a)) {
          if (b <= a || !slots_[b] || (members_[a].empty() && members_[b].empty()) || work_ >= work_limit)
            continue;
          sweep_gain += resplit(a, b);
          sweep_gain += descend();
        }
      gain += sweep_gain;
      if (sweep_gain <= tol_) break;
    }
    return gain;
  }

  // Descent from the queued ranks until none of them improves.
  double descend() {
    double gain = 0;
    while (!queue_.empty()) {
      const int r = queue_.back();
      queue_.pop_back();
      queued_[r] = 0;
      gain += improve(r);
    }
    return gain;
  }

  void enqueue(int v) {
    if (!queued_[v]) {
      queued_[v] = 1;
      queue_.push_back(v);
    }
  }
  void enqueue_partners(int v) {
    enqueue(v);
    for (auto e = g_.xadj[v]; e < g_.xadj[v + 1]; ++e) enqueue(g_.adjncy[e]);
  }

 private:
  double delta(int v, int from, int to) {
    work_ += g_.xadj[v + 1] - g_.xadj[v];
    return move_delta(g_, t_, node_of_, v, from, to);
  }
  void relocate(int v, int to) {
    auto& m = members_[node_of_[v]];
    m.erase(std::find(m.begin(), m.end(), v));
    members_[to].push_back(v);
    node_of_[v] = to;
  }

  const CommGraph& g_;
  const Network& t_;
  const std::vector<int>& slots_;  // per node, 0 off the allocation
  std::vector<int>& node_of_;
  std::vector<std::vector<int>> members_;
  std::vector<char> queued_;
  std::vector<double> partner_w_;  // improve(): the weight of r's edge to each rank, 0 elsewhere
  std::vector<int> queue_;
  std::vector<std::pair<int, int>> log_;  // (rank, node it came from)
  std::vector<std::pair<double, int>> att_;
  std::vector<int> near_;  // improve(): an attached node's network neighbours
  bool free_nodes_;        // one slot per node, more nodes than ranks
  std::vector<int> union_;
  std::vector<double> ext_a_ = std::vector<double>(kMaxResplitRanks), ext_b_ = std::vector<double>(kMaxResplitRanks);
  std::vector<double> inner_ = std::vector<double>(kMaxResplitRanks * kMaxResplitRanks);
  double tol_ = 0;
  std::int64_t work_ = 0;
};

}  // namespace

void kick_targets(const CommGraph& graph, const Network& net, const Allocation& allocation,
                  const std::vector<int>& node_of, int r, std::vector<int>& near, std::vector<int>& adjacent,
                  std::vector<std::pair<double, int>>& att) {
  const int a = node_of[r];
  near.clear();
  net.neighbors(a, adjacent);
  for (int b : adjacent)
    if (b != a && allocation.contains(b)) near.push_back(b);
  attached_nodes(graph, node_of, r, 3, att);  // never r's own node
  for (auto [w, b] : att)
    if (allocation.contains(b)) near.push_back(b);
}

std::int64_t rank_descent(const CommGraph& graph, const Network& net, const Allocation& allocation,
                          std::vector<int>& node_of) {
  RankSearch s(graph, net, allocation, node_of);
  for (int v = 0; v < graph.vertices; ++v)
    if (graph.xadj[v + 1] > graph.xadj[v]) s.enqueue(v);
  s.descend();
  return s.work();
}

void iterated_search(const CommGraph& graph, const Network& torus, const Allocation& allocation,
                     std::vector<int>& node_of, std::int64_t work, std::uint64_t seed) {
  const std::vector<int>& nodes = allocation.nodes();
  if (graph.vertices < 2 || graph.edges() == 0 || nodes.size() < 2) return;
  std::vector<int> current = node_of;
  RankSearch s(graph, torus, allocation, current);
  std::mt19937_64 rng(seed);
  auto uniform = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  // Ranks without partners never matter; kicks pick among the others.
  std::vector<int> active;
  for (int v = 0; v < graph.vertices; ++v)
    if (graph.xadj[v + 1] > graph.xadj[v]) active.push_back(v);
  // First a full descent from every rank, so the kicks start from a local minimum.
  for (int v : active) s.enqueue(v);
  double cost = weighted_cost(graph, torus, current) - s.descend();
  // At most half the budget: the kicks need the rest.
  cost -= s.resplit_neighbours(nodes, work / 2);
  s.clear_log();
  double best_cost = cost;
  node_of = current;
  const double tol = 1e-12 * std::max(cost, 1.0);
  std::vector<int> near, adjacent;
  std::vector<std::pair<double, int>> att;
  while (s.work() < work) {
    const int r = active[uniform(active.size())];
    const int a = current[r];
    // Every kick costs at least its choice, so the loop ends even when no
    // rank has a nearby node to be kicked to.
    s.charge(1 + graph.xadj[r + 1] - graph.xadj[r]);
    // A nearby node: a torus neighbour of r's node or a node r is attached to.
    kick_targets(graph, torus, allocation, current, r, near, adjacent, att);
    if (near.empty()) continue;
    const int b = near[uniform(near.size())];
    double delta = 0;
    // Whole contents are exchanged only where each fits the other's slots.
    if (rng() % 2 == 0 && static_cast<int>(s.members(a).size()) <= s.slots(b) &&
        static_cast<int>(s.members(b).size()) <= s.slots(a)) {
      // Exchange the whole contents of a and b (a group-level kick).
      const std::vector<int> from_a = s.members(a), from_b = s.members(b);
      for (int v : from_a) delta += s.move(v, b);
      for (int v : from_b) delta += s.move(v, a);
      for (int v : from_a) s.enqueue_partners(v);
      for (int v : from_b) s.enqueue_partners(v);
    } else {
      const std::vector<int>& mb = s.members(b);
      if (static_cast<int>(mb.size()) < s.slots(b) && rng() % 2 == 0) {
        delta += s.move(r, b);
      } else if (!mb.empty()) {
        const int q = mb[uniform(mb.size())];
        delta += s.move(r, b);
        delta += s.move(q, a);
        s.enqueue_partners(q);
      } else {
        delta += s.move(r, b);
      }
      s.enqueue_partners(r);
    }
    delta -= s.descend();
    delta -= s.resplit(a, b);
    delta -= s.descend();
    if (delta <= tol) {
      cost += delta;
      s.clear_log();
      if (cost < best_cost - tol) {
        best_cost = cost;
        node_of = current;
      }
    } else {
      s.undo();
    }
  }
}

}  // namespace rankmap::detail
