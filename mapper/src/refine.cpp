#include <algorithm>
#include <numeric>

#include "detail.hpp"

namespace rankmap::detail {

double weighted_cost(const CommGraph& graph, const Network& torus, const std::vector<int>& node_of) {
  double cost = 0;
  for (int u = 0; u < graph.vertices; ++u)
    for (auto e = graph.xadj[u]; e < graph.xadj[u + 1]; ++e)
      if (u < graph.adjncy[e]) cost += graph.weight[e] * torus.weighted_distance(node_of[u], node_of[graph.adjncy[e]]);
  return cost;
}

double inter_node_weight(const CommGraph& graph, const std::vector<int>& node_of) {
  double off = 0;
  for (int u = 0; u < graph.vertices; ++u)
    for (auto e = graph.xadj[u]; e < graph.xadj[u + 1]; ++e)
      if (u < graph.adjncy[e] && node_of[u] != node_of[graph.adjncy[e]]) off += graph.weight[e];
  return off;
}

std::vector<NodeFlow> node_flows(const Traffic& traffic, const std::vector<int>& node_of) {
  // Bucketed by source node first (a counting sort), then each bucket's few
  // entries sorted by destination: a full sort of the rank flows was 10% of
  // the default's time at 32k ranks, where every candidate is scored.
  int nodes = 0;
  for (int a : node_of) nodes = std::max(nodes, a + 1);
  std::vector<size_t> start(static_cast<size_t>(nodes) + 1, 0);
  for (const Flow& f : traffic.flows) {
    const int a = node_of[f.src], b = node_of[f.dst];
    if (a != b && f.bytes > 0) ++start[static_cast<size_t>(a) + 1];
  }
  for (size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
  std::vector<NodeFlow> flows(start.back());
  std::vector<size_t> fill(start.begin(), start.end() - 1);
  for (const Flow& f : traffic.flows) {
    const int a = node_of[f.src], b = node_of[f.dst];
    if (a != b && f.bytes > 0) flows[fill[static_cast<size_t>(a)]++] = NodeFlow{a, b, f.bytes};
  }
  size_t out = 0;
  for (int a = 0; a < nodes; ++a) {
    const auto first = flows.begin() + static_cast<long>(start[static_cast<size_t>(a)]);
    const auto last = flows.begin() + static_cast<long>(start[static_cast<size_t>(a) + 1]);
    std::stable_sort(first, last, [](const NodeFlow& x, const NodeFlow& y) { return x.dst < y.dst; });
    for (auto it = first; it != last;) {
      NodeFlow f = *it++;
      while (it != last && it->dst == f.dst) f.bytes += (it++)->bytes;
      flows[out++] = f;
    }
  }
  flows.resize(out);
  return flows;
}

NetworkScore network_score(const Traffic& traffic, const Network& torus, const std::vector<int>& node_of) {
  NetworkScore s;
  auto flows = node_flows(traffic, node_of);
  for (const NodeFlow& f : flows) s.weighted_cost += f.bytes * torus.weighted_distance(f.src, f.dst);
  s.max_link_relative = torus.summarize_loads(torus.link_loads(flows)).max_relative;
  return s;
}

// Sum over v's edges of w x (distance from `to` - distance from `from`) with
// v's neighbours where `node_of` puts them: the cost change of moving v alone.
double move_delta(const CommGraph& g, const Network& t, const std::vector<int>& node_of, int v, int from, int to) {
  double d = 0;
  const double* dt = t.weighted_row(to);
  const double* df = t.weighted_row(from);
  if (dt && df) {
    // The two rows of the distance table, found once (the iterated search's
    // inner loop); the same sums as below.
    for (auto e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      const auto q = static_cast<size_t>(node_of[g.adjncy[e]]);
      d += g.weight[e] * (dt[q] - df[q]);
    }
    return d;
  }
  for (auto e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
    const int q = node_of[g.adjncy[e]];
    d += g.weight[e] * (t.weighted_distance(to, q) - t.weighted_distance(from, q));
  }
  return d;
}

double edge_weight(const CommGraph& g, int u, int v) {
  const auto* b = g.adjncy.data() + g.xadj[u];
  const auto* e = g.adjncy.data() + g.xadj[u + 1];
  const auto* it = std::lower_bound(b, e, v);
  return (it != e && *it == v) ? g.weight[g.xadj[u] + (it - b)] : 0.0;
}

// The nodes v is most attached to (by edge weight), v's own node excluded, at most `limit`.
void attached_nodes(const CommGraph& g, const std::vector<int>& node_of, int v, int limit,
                    std::vector<std::pair<double, int>>& out) {
  out.clear();
  // Each node's weight summed in edge order, its entry found through a
  // per-thread table by node (sorting the edges by node cost most of this
  // function, in the searches' innermost loop).
  thread_local std::vector<int> entry_of;  // node -> index in out, -1 when absent
  const int own = node_of[v];
  for (auto e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
    const int node = node_of[g.adjncy[e]];
    if (node == own) continue;
    if (static_cast<size_t>(node) >= entry_of.size()) entry_of.resize(static_cast<size_t>(node) + 1, -1);
    int& at = entry_of[static_cast<size_t>(node)];
    if (at < 0) {
      at = static_cast<int>(out.size());
      out.push_back({g.weight[e], node});
    } else {
      out[static_cast<size_t>(at)].first += g.weight[e];
    }
  }
  for (const auto& p : out) entry_of[static_cast<size_t>(p.second)] = -1;
  // Heaviest first, then the lowest node: a total order, so the first
  // `limit` are one set in one order however they are found.
  auto heavier = [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; };
  const size_t keep = std::min(out.size(), static_cast<size_t>(std::max(0, limit)));
  std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(keep), out.end(), heavier);
  out.resize(keep);
}

namespace {

constexpr double kMinGain = 1e-9;      // relative to the edge weights: ignore rounding-level "gains"
constexpr double kMinPassGain = 1e-3;  // relative to the cost: a pass gaining less ends the search
constexpr double kMinRoundGain = 1e-2; // relative to the cost: a round of both levels gaining less ends it

// Swaps of whole node contents (groups), on the contracted graph. Candidate
// places for group g: the nodes of its heaviest partners and their torus
// neighbours; a place may be free (allocated but empty). A swap must fit
// both nodes' slots (nodes of a mixed machine hold different numbers).
// Returns the total cost reduction. A pass that gains less than `min_pass_gain`
// ends the search: the last passes of a local search cost as much as the
// first and buy almost nothing.
// Whether `stop` is set, read every 256th step of a pass.
bool stopped(const std::atomic<bool>* stop, int step) {
  return stop && (step & 255) == 0 && stop->load(std::memory_order_relaxed);
}

double refine_groups(const CommGraph& graph, const Network& torus, const std::vector<int>& slots,
                     std::vector<int>& node_of, int passes, double min_pass_gain, const std::atomic<bool>* stop) {
  // Groups = current node contents; group id = node index (dense enough, and
  // free nodes are simply groups without vertices).
  const int nn = torus.nodes();
  CommGraph q = contract(graph, node_of, nn);
  std::vector<int> pos(static_cast<size_t>(nn)), occ(static_cast<size_t>(nn));
  std::iota(pos.begin(), pos.end(), 0);
  std::iota(occ.begin(), occ.end(), 0);  // occ[node] = group there
  std::vector<char> empty(static_cast<size_t>(nn), 1);
  std::vector<int> group_size(static_cast<size_t>(nn), 0);
  for (int a : node_of) {
    empty[a] = 0;
    ++group_size[a];
  }
  std::vector<std::pair<double, int>> att;
  std::vector<int> cand, near, partner_node;
  std::vector<double> from_a;
  double total_gain = 0;
  const double tol = kMinGain * (q.total_weight() / static_cast<double>(std::max<std::int64_t>(1, q.edges())) + 1);
  for (int pass = 0; pass < passes; ++pass) {
    double gain = 0;
    for (int g = 0; g < nn; ++g) {
      if (stopped(stop, g)) return total_gain;
      if (empty[g] || q.xadj[g] == q.xadj[g + 1]) continue;
      const int a = pos[g];
      attached_nodes(q, pos, g, 4, att);
      cand.clear();
      for (auto [w, b] : att) {
        cand.push_back(b);
        torus.neighbors(b, near);
        cand.insert(cand.end(), near.begin(), near.end());
      }
      std::sort(cand.begin(), cand.end());
      cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
      // move_delta(q, torus, pos, g, a, b) for every candidate b, with the
      // partners' nodes and their distances from a looked up once for all
      // (the same terms in the same order).
      partner_node.clear();
      from_a.clear();
      for (auto e = q.xadj[g]; e < q.xadj[g + 1]; ++e) {
        partner_node.push_back(pos[q.adjncy[e]]);
        from_a.push_back(torus.weighted_distance(a, partner_node.back()));
      }
      double best = -tol;
      int best_b = -1;
      for (int b : cand) {
        if (b == a || !slots[b]) continue;
        const int h = occ[b];
        if (group_size[g] > slots[b] || group_size[h] > slots[a]) continue;
        double delta = 0;
        for (size_t i = 0; i < partner_node.size(); ++i)
          delta += q.weight[static_cast<size_t>(q.xadj[g]) + i] * (torus.weighted_distance(b, partner_node[i]) - from_a[i]);
        if (!empty[h]) {
          delta += move_delta(q, torus, pos, h, b, a);
          // The g-h edge keeps its length, but both deltas above counted it as shortened.
          delta += 2 * edge_weight(q, g, h) * torus.weighted_distance(a, b);
        }
        if (delta < best) {
          best = delta;
          best_b = b;
        }
      }
      if (best_b >= 0) {
        const int h = occ[best_b];
        std::swap(pos[g], pos[h]);
        occ[a] = h;
        occ[best_b] = g;
        gain -= best;
      }
    }
    total_gain += gain;
    if (gain <= min_pass_gain) break;
  }
  if (total_gain > 0)
    for (int& a : node_of) a = pos[a];  // group id == original node
  return total_gain;
}

double refine_ranks(const CommGraph& g, const Network& torus, const std::vector<int>& slots,
                    std::vector<int>& node_of, int passes, double min_pass_gain, const std::atomic<bool>* stop) {
  const int nn = torus.nodes();
  std::vector<std::vector<int>> members(static_cast<size_t>(nn));
  for (int v = 0; v < g.vertices; ++v) members[node_of[v]].push_back(v);
  std::vector<std::pair<double, int>> att;
  const double tol = kMinGain * (g.total_weight() / static_cast<double>(std::max<std::int64_t>(1, g.edges())) + 1);
  double total_gain = 0;
  for (int pass = 0; pass < passes; ++pass) {
    double gain = 0;
    for (int r = 0; r < g.vertices; ++r) {
      if (stopped(stop, r)) return total_gain;
      const int a = node_of[r];
      attached_nodes(g, node_of, r, 3, att);
      double best = -tol;
      int best_b = -1, best_s = -1;
      for (auto [w, b] : att) {
        if (!slots[b]) continue;
        const double dr = move_delta(g, torus, node_of, r, a, b);
        if (static_cast<int>(members[b].size()) < slots[b] && dr < best) {
          best = dr;
          best_b = b;
          best_s = -1;
        }
        for (int s : members[b]) {
          const double delta = dr + move_delta(g, torus, node_of, s, b, a) +
                               2 * edge_weight(g, r, s) * torus.weighted_distance(a, b);
          if (delta < best) {
            best = delta;
            best_b = b;
            best_s = s;
          }
        }
      }
      if (best_b < 0) continue;
      auto& ma = members[a];
      ma.erase(std::find(ma.begin(), ma.end(), r));
      members[best_b].push_back(r);
      node_of[r] = best_b;
      if (best_s >= 0) {
        auto& mb = members[best_b];
        mb.erase(std::find(mb.begin(), mb.end(), best_s));
        ma.push_back(best_s);
        node_of[best_s] = a;
      }
      gain -= best;
    }
    total_gain += gain;
    if (gain <= min_pass_gain) break;
  }
  return total_gain;
}

}  // namespace

bool refine(const CommGraph& graph, const Network& torus, const Allocation& allocation, std::vector<int>& node_of,
            int passes, const std::atomic<bool>* stop) {
  const std::vector<int>& slots = allocation.slots_by_node();
  // Alternate the two levels: group swaps open room for rank swaps and back.
  double cost = weighted_cost(graph, torus, node_of);
  const double min_pass_gain = kMinPassGain * cost;
  for (int round = 0; round < 3; ++round) {
    const double g = refine_groups(graph, torus, slots, node_of, passes, min_pass_gain, stop);
    if (stop && stop->load()) return false;
    const double r = refine_ranks(graph, torus, slots, node_of, passes, min_pass_gain, stop);
    if (stop && stop->load()) return false;
    // Another round only when this one still moved the cost by a percent.
    if (g + r <= kMinRoundGain * cost) break;
    cost -= g + r;
  }
  return true;
}

}  // namespace rankmap::detail
