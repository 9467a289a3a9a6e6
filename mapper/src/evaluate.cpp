#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <numeric>

#include "detail.hpp"
#include "parallel.hpp"
#include "rankmap/mapper.hpp"

namespace rankmap {

std::vector<NodeFlow> inter_node_flows(const Traffic& traffic, const std::vector<Placement>& placement) {
  std::vector<int> node_of(placement.size());
  for (size_t r = 0; r < placement.size(); ++r) node_of[r] = placement[r].node;
  return detail::node_flows(traffic, node_of);
}

Result<Platform> Platform::from_machine(const Machine& machine) {
  auto network = machine.network();
  if (!network) return network.error();
  auto node = machine.node_kinds();
  if (!node) return node.error();
  return Platform{std::move(*network), std::move(*node), machine.latency(), machine.intra_node};
}

namespace {

// For the k-th nearest other allocated node (k = 0, 1, ...), the smallest
// distance any allocated node has to its k-th nearest: a distance profile no
// node can beat. On a vertex-transitive network (a fully wrapped torus) with
// every node allocated, one node's profile is everyone's.
template <class Distance>
std::vector<double> nearest_profile(const Network& torus, const std::vector<int>& nodes, Distance dist) {
  const bool transitive = static_cast<int>(nodes.size()) == torus.nodes() && torus.vertex_transitive();
  std::vector<double> best, row;
  const size_t sources = transitive ? 1 : nodes.size();
  for (size_t i = 0; i < sources; ++i) {
    row.clear();
    for (int b : nodes)
      if (b != nodes[i]) row.push_back(dist(nodes[i], b));
    std::sort(row.begin(), row.end());
    if (best.empty()) best = row;
    else
      for (size_t k = 0; k < row.size(); ++k) best[k] = std::min(best[k], row[k]);
  }
  return best;
}

// The subgraph of the edges weighing at least `threshold`.
CommGraph heavy_edges(const CommGraph& g, double threshold) {
  CommGraph h;
  h.vertices = g.vertices;
  h.message_bytes = g.message_bytes;
  h.xadj.assign(static_cast<size_t>(g.vertices) + 1, 0);
  for (int u = 0; u < g.vertices; ++u) {
    for (auto e = g.xadj[u]; e < g.xadj[u + 1]; ++e)
      if (g.weight[e] >= threshold) {
        h.adjncy.push_back(g.adjncy[e]);
        h.weight.push_back(g.weight[e]);
      }
    h.xadj[u + 1] = static_cast<std::int64_t>(h.adjncy.size());
  }
  return h;
}

// The densest node groups: for every rank v, delta[v] = the largest W(S) / |S|
// over connected rank sets S containing v with |S| <= ppn (W(S) = weight of
// the edges inside S). Any set of at most ppn ranks splits into connected
// components C with W(C) / |C| <= delta[v] for each v in C, so the weight all
// nodes can keep inside is at most sum_v delta[v]. Sets are enumerated once
// each from their smallest rank (ESU: extension by exclusive neighbours);
// false if that needs more than `budget` sets (then no bound).
bool densest_sets(const CommGraph& g, int ppn, std::int64_t budget, std::vector<double>& delta) {
  const int n = g.vertices;
  delta.assign(static_cast<size_t>(n), 0.0);
  if (ppn < 2) return true;
  std::vector<int> in_set(static_cast<size_t>(n), 0), near(static_cast<size_t>(n), 0);
  std::vector<int> members;
  std::int64_t sets = 0;
  auto weight_to_set = [&](int w) {
    double sum = 0;
    for (auto e = g.xadj[w]; e < g.xadj[w + 1]; ++e)
      if (in_set[g.adjncy[e]]) sum += g.weight[e];
    return sum;
  };
  auto mark_near = [&](int w, int by) {
    for (auto e = g.xadj[w]; e < g.xadj[w + 1]; ++e) near[g.adjncy[e]] += by;
  };
  // weight_to_set of every rank at once, for the sets one rank short of
  // full (nearly all of the sets): summed member by member in rank order,
  // which is the order weight_to_set adds them in (neighbour lists are
  // sorted), so the sums are the same to the bit.
  std::vector<double> to_set(static_cast<size_t>(n), 0.0);
  std::vector<int> ordered;
  auto fill_to_set = [&] {
    for (int u : ordered)
      for (auto e = g.xadj[u]; e < g.xadj[u + 1]; ++e) to_set[g.adjncy[e]] += g.weight[e];
  };
  auto clear_to_set = [&] {
    for (int u : ordered)
      for (auto e = g.xadj[u]; e < g.xadj[u + 1]; ++e) to_set[g.adjncy[e]] = 0.0;
  };
  // extend(S, extension, root): S = members, W = its inner weight.
  auto extend = [&](auto&& self, std::vector<int> extension, int root, double inner) -> bool {
    if (++sets > budget) return false;
    const double density = inner / static_cast<double>(members.size());
    for (int u : members) delta[u] = std::max(delta[u], density);
    // S is never full here: the sets one short of full end below.
    if (static_cast<int>(members.size()) + 1 == ppn) {
      // Each w completes a full set, which extends no further: its density
      // only (what the call for S + w would do, without building the
      // extension it would not use). Counted as those calls were.
      ordered = members;
      std::sort(ordered.begin(), ordered.end());
      fill_to_set();
      bool ok = true;
      for (auto it = extension.rbegin(); it != extension.rend(); ++it) {
        if (++sets > budget) {
          ok = false;
          break;
        }
        const int w = *it;
        const double full = (inner + to_set[w]) / static_cast<double>(ppn);
        for (int u : members) delta[u] = std::max(delta[u], full);
        delta[w] = std::max(delta[w], full);
      }
      clear_to_set();
      return ok;
    }
    while (!extension.empty()) {
      const int w = extension.back();
      extension.pop_back();
      // New extension: the rest, plus w's neighbours above the root that are
      // neither in S nor next to it (so every set arises once).
      std::vector<int> next = extension;
      for (auto e = g.xadj[w]; e < g.xadj[w + 1]; ++e) {
        const int u = g.adjncy[e];
        if (u > root && !in_set[u] && near[u] == 0) next.push_back(u);
      }
      const double added = weight_to_set(w);
      in_set[w] = 1;
      members.push_back(w);
      mark_near(w, 1);
      const bool ok = self(self, std::move(next), root, inner + added);
      mark_near(w, -1);
      members.pop_back();
      in_set[w] = 0;
      if (!ok) return false;
    }
    return true;
  };
  for (int v = 0; v < n; ++v) {
    std::vector<int> extension;
    for (auto e = g.xadj[v]; e < g.xadj[v + 1]; ++e)
      if (g.adjncy[e] > v) extension.push_back(g.adjncy[e]);
    in_set[v] = 1;
    members.assign(1, v);
    mark_near(v, 1);
    const bool ok = extend(extend, std::move(extension), v, 0.0);
    mark_near(v, -1);
    in_set[v] = 0;
    if (!ok) return false;
  }
  return true;
}

// True if no three vertices are pairwise connected. Marks u's neighbours and
// looks for a marked vertex among the neighbours of each; stops at the first
// triangle, so dense graphs (which have triangles at once) cost little.
bool triangle_free(const CommGraph& g) {
  std::vector<int> mark(static_cast<size_t>(g.vertices), -1);
  for (int u = 0; u < g.vertices; ++u) {
    for (auto e = g.xadj[u]; e < g.xadj[u + 1]; ++e) mark[g.adjncy[e]] = u;
    for (auto e = g.xadj[u]; e < g.xadj[u + 1]; ++e) {
      const int v = g.adjncy[e];
      if (v <= u) continue;
      for (auto f = g.xadj[v]; f < g.xadj[v + 1]; ++f) {
        const int x = g.adjncy[f];
        if (x != u && x != v && mark[x] == u) return false;
      }
    }
  }
  return true;
}

}  // namespace

struct LowerBoundMemo {
  struct Entry {
    const Traffic* traffic;
    const Network* network;
    int ppn;
    std::vector<int> nodes;
    LowerBound bound;
  };
  // Evaluations on several threads may share the memo: the first to need a
  // bound computes it while the others wait for it, under the lock.
  template <class Compute>
  LowerBound get(const Traffic* t, const Network* n, int ppn, const std::vector<int>& nodes, Compute&& compute) {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const Entry& e : entries_)
      if (e.traffic == t && e.network == n && e.ppn == ppn && e.nodes == nodes) return e.bound;
    entries_.push_back({t, n, ppn, nodes, compute()});
    return entries_.back().bound;
  }

 private:
  std::mutex mutex_;
  std::vector<Entry> entries_;
};

std::shared_ptr<LowerBoundMemo> make_lower_bound_memo() { return std::make_shared<LowerBoundMemo>(); }

LowerBound cost_lower_bound(const CommGraph& g, const Network& torus, int ppn, const std::vector<int>& nodes_in,
                            std::int64_t dense_sets, int cut_ranks) {
  std::vector<int> nodes = nodes_in;
  if (nodes.empty()) {
    nodes.resize(static_cast<size_t>(torus.nodes()));
    std::iota(nodes.begin(), nodes.end(), 0);
  }
  const auto hop_profile = nearest_profile(torus, nodes, [&](int a, int b) { return double(torus.hops(a, b)); });
  const auto wd_profile = nearest_profile(torus, nodes, [&](int a, int b) { return torus.weighted_distance(a, b); });
  // Slot j of a rank's partners (heaviest first): the first ppn-1 share its
  // node, the next ppn sit on its nearest other node, and so on.
  auto slot_distance = [&](const std::vector<double>& profile, std::int64_t j) {
    if (j < ppn - 1 || profile.empty()) return 0.0;  // empty: no other node to be on
    const std::int64_t k = (j - (ppn - 1)) / ppn;
    return k < static_cast<std::int64_t>(profile.size()) ? profile[static_cast<size_t>(k)] : profile.back();
  };
  LowerBound lb;
  std::vector<double> w;
  for (int u = 0; u < g.vertices; ++u) {
    w.assign(g.weight.begin() + g.xadj[u], g.weight.begin() + g.xadj[u + 1]);
    std::sort(w.rbegin(), w.rend());
    for (size_t j = 0; j < w.size(); ++j) {
      lb.hop_bytes += w[j] * slot_distance(hop_profile, static_cast<std::int64_t>(j));
      lb.weighted += w[j] * slot_distance(wd_profile, static_cast<std::int64_t>(j));
    }
  }
  lb.hop_bytes /= 2;
  lb.weighted /= 2;

  // Second bound, for sparse graphs where every rank's partners would fit on
  // its node: a connected component of c ranks spans at least ceil(c / ppn)
  // nodes, so at least ceil(c / ppn) - 1 of its edges leave a node, each at
  // least the nearest-node distance D_0 long. The lightest such edges give a
  // bound; the larger of the two bounds holds.
  if (!hop_profile.empty()) {
    std::vector<int> parent(static_cast<size_t>(g.vertices));
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](int x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    for (int u = 0; u < g.vertices; ++u)
      for (auto e = g.xadj[u]; e < g.xadj[u + 1]; ++e) parent[find(u)] = find(g.adjncy[e]);
    std::vector<std::int64_t> size(static_cast<size_t>(g.vertices), 0);
    std::vector<std::vector<double>> edges(static_cast<size_t>(g.vertices));
    for (int u = 0; u < g.vertices; ++u) {
      ++size[find(u)];
      for (auto e = g.xadj[u]; e < g.xadj[u + 1]; ++e)
        if (u < g.adjncy[e]) edges[find(u)].push_back(g.weight[e]);
    }
    double lightest = 0;
    for (int c = 0; c < g.vertices; ++c) {
      const std::int64_t cut = (size[c] + ppn - 1) / ppn - 1;
      if (cut <= 0) continue;
      auto& w_c = edges[c];
      std::nth_element(w_c.begin(), w_c.begin() + (cut - 1), w_c.end());
      for (std::int64_t i = 0; i < cut; ++i) lightest += w_c[static_cast<size_t>(i)];
    }
    lb.hop_bytes = std::max(lb.hop_bytes, lightest * hop_profile[0]);
    lb.weighted = std::max(lb.weighted, lightest * wd_profile[0]);
  }

  // Third bound, for triangle-free graphs (stencils of 5 and 7 points, rings,
  // meshes of bipartite structure): by Mantel's theorem a triangle-free graph
  // on s vertices has at most floor(s^2 / 4) edges, so the ranks of one node
  // hold at most floor(ppn^2 / 4) edges among them and all nodes together at
  // most M = nodes x that. Every other edge joins two nodes, at least D_0
  // apart: bound 3 = D_0 x (total weight - the M heaviest edge weights).
  // At 8 ranks per node a 7-point stencil has 6 partners per rank, all of
  // which would fit on the node (bound 1 = 0), but a node can keep at most 16
  // of the 24 edges its 8 ranks touch.
  if (!hop_profile.empty() && triangle_free(g)) {
    const std::int64_t per_node = static_cast<std::int64_t>(ppn) * ppn / 4;
    const std::int64_t inside = per_node * static_cast<std::int64_t>(nodes.size());
    std::vector<double> w_all;
    for (int u = 0; u < g.vertices; ++u)
      for (auto e = g.xadj[u]; e < g.xadj[u + 1]; ++e)
        if (u < g.adjncy[e]) w_all.push_back(g.weight[e]);
    if (inside < static_cast<std::int64_t>(w_all.size())) {
      // The M heaviest may stay inside nodes; the lightest E - M must leave.
      const auto must_leave = static_cast<std::int64_t>(w_all.size()) - inside;
      std::nth_element(w_all.begin(), w_all.begin() + (must_leave - 1), w_all.end());
      double leaving = 0;
      for (std::int64_t i = 0; i < must_leave; ++i) leaving += w_all[static_cast<size_t>(i)];
      lb.hop_bytes = std::max(lb.hop_bytes, leaving * hop_profile[0]);
      lb.weighted = std::max(lb.weighted, leaving * wd_profile[0]);
    }
  }
  // Fourth bound, for any graph: the weight nodes can keep inside is at most
  // the sum over ranks of the density of their densest connected group of at
  // most ppn ranks (densest_sets); the rest leaves its node, at least D_0
  // far. It sees what Mantel's count does not: the heaviest edges of a grid
  // cannot all sit inside nodes (a 2x2 square keeps two x and two y edges,
  // not four x edges), and it also holds with triangles (27-point stencils).
  // Too many sets (dense collectives' light edges, 27-point stencils at 8
  // per node): the bound of a subgraph still bounds the whole, since dropping
  // edges only lowers every placement's cost; so the lightest edges are
  // dropped until the heaviest carrying 99%, 95%, ... of the weight enumerate.
  // The fullest subgraph that enumerates is wanted. A subgraph's connected
  // sets are connected in any fuller one, so whether it enumerates is
  // monotone in the share: a binary search finds the same subgraph as
  // trying them fullest first, with fewer of the tries that run out of
  // budget (each about a second; recorded hydro27 at 6 per node failed on
  // three before).
  if (!hop_profile.empty()) {
    std::vector<double> sorted_weights(g.weight);
    std::sort(sorted_weights.rbegin(), sorted_weights.rend());
    const double total = std::accumulate(sorted_weights.begin(), sorted_weights.end(), 0.0);  // both directions
    struct Try {
      size_t arcs;       // of the subgraph (all of g for the full graph)
      double threshold;  // lightest weight kept; 0 for the full graph
    };
    std::vector<Try> tries;  // fullest first, each subgraph once
    for (double share : {1.0, 0.99, 0.95, 0.9, 0.8, 0.6}) {
      double threshold = 0, kept = 0;
      size_t arcs = 0;
      for (double weight : sorted_weights) {
        if (kept >= share * total * (1 - 1e-12)) break;
        kept += weight;
        threshold = weight;
        ++arcs;
      }
      // Equal weights keep every edge at every share: the same graph again.
      while (arcs < sorted_weights.size() && sorted_weights[arcs] >= threshold) ++arcs;
      if (share == 1.0) tries.push_back({sorted_weights.size(), 0});
      else if (arcs < tries.back().arcs) tries.push_back({arcs, threshold});
    }
    // Binary search for the first (fullest) try that enumerates.
    size_t lo = 0, hi = tries.size();
    double leaving = 0;
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      const CommGraph sub = tries[mid].threshold == 0 ? CommGraph{} : heavy_edges(g, tries[mid].threshold);
      const CommGraph& h = tries[mid].threshold == 0 ? g : sub;
      std::vector<double> delta;
      if (densest_sets(h, ppn, dense_sets, delta)) {
        leaving = h.total_weight() - std::accumulate(delta.begin(), delta.end(), 0.0);
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    if (lo < tries.size() && leaving > 0) {
      lb.hop_bytes = std::max(lb.hop_bytes, leaving * hop_profile[0]);
      lb.weighted = std::max(lb.weighted, leaving * wd_profile[0]);
    }
  }
  // Fifth bound, for graphs that expand (random partners, irregular sparse
  // codes), where the parts above price far too many edges at D_0: the
  // network's distance cuts and the graph's second Laplacian eigenvalue
  // (cut_bound.cpp).
  const LowerBound cut = detail::cut_lower_bound(g, torus, ppn, nodes, cut_ranks);
  lb.hop_bytes = std::max(lb.hop_bytes, cut.hop_bytes);
  lb.weighted = std::max(lb.weighted, cut.weighted);
  return lb;
}

namespace {

// When each flow ends if all start together and every link is shared by its
// flows in proportion to their weights, a flow that ends leaving its share
// to the others (processor sharing), each link taken alone: a flow ends when
// its slowest link has carried it. Exact for a single shared link; across
// links it ignores that a flow held back elsewhere leaves bandwidth unused
// here (docs/mapper.md, "Time model"). The flows of link l are
// on_link[start[l] .. start[l+1]), reordered here.
std::vector<double> shared_finish_times(const std::vector<std::int64_t>& start, std::vector<int>& on_link,
                                        const std::vector<double>& size, const std::vector<double>& weight,
                                        const std::vector<double>& capacity) {
  // On one link, flow f has sent s_f / w_f per unit of weight when it ends;
  // by then every flow g has sent min(s_g, w_g s_f / w_f). Sorted by s / w:
  // a prefix of whole sizes plus s_f / w_f times the weight of the rest.
  std::vector<double> finish(size.size(), 0.0);
  auto norm = [&](int f) { return size[f] / weight[f]; };
  for (size_t l = 0; l + 1 < start.size(); ++l) {
    const auto first = on_link.begin() + start[l], last = on_link.begin() + start[l + 1];
    if (first == last) continue;
    std::sort(first, last, [&](int a, int b) { return norm(a) < norm(b); });
    double rest_weight = 0;
    for (auto it = first; it != last; ++it) rest_weight += weight[*it];
    double sent = 0;
    for (auto it = first; it != last; ++it) {
      sent += size[*it];
      rest_weight -= weight[*it];
      finish[*it] = std::max(finish[*it], (sent + norm(*it) * std::max(rest_weight, 0.0)) / capacity[l]);
    }
  }
  return finish;
}

}  // namespace

namespace detail {

SharedLinks shared_links(const Platform& platform) {
  const Network& net = platform.net();
  SharedLinks links;
  links.socket_first.assign(static_cast<size_t>(net.nodes()), -1);
  std::int64_t slots = net.link_slots();
  for (int n = 0; n < net.nodes(); ++n) {
    const int packages = platform.node(n).packages();
    if (packages < 2) continue;
    links.socket_first[static_cast<size_t>(n)] = slots;
    slots += static_cast<std::int64_t>(packages) * packages;
  }
  links.capacity.assign(static_cast<size_t>(slots), platform.intra_node.socket_bw);
  for (int l = 0; l < net.link_slots(); ++l)
    links.capacity[static_cast<size_t>(l)] = net.link_exists(l) ? net.link_capacity(l) : 0.0;
  return links;
}

std::int64_t SharedLinks::socket_link(const Platform& platform, int node, int src_core, int dst_core) const {
  const std::int64_t first = socket_first[static_cast<size_t>(node)];
  if (first < 0) return -1;
  const NodeTopology& topology = platform.node(node);
  const int p = topology.package_of_core(src_core), q = topology.package_of_core(dst_core);
  return p == q ? -1 : first + static_cast<std::int64_t>(p) * topology.packages() + q;
}

RankTimeParts predicted_rank_time_parts(const Traffic& traffic, const std::vector<Placement>& placement,
                                        const Platform& platform) {
  const Network& torus = platform.net();
  const LatencyModel& lat = platform.latency;
  const IntraNodeCosts& intra = platform.intra_node;
  // The inter-socket links of multi-package nodes are directed links too,
  // numbered after the network's (SharedLinks).
  const SharedLinks links = shared_links(platform);
  const std::int64_t link_slots = static_cast<std::int64_t>(links.capacity.size());
  // The inter-socket link an intra-node flow crosses; -1 inside one package.
  auto socket_link = [&](const Flow& f) {
    return links.socket_link(platform, placement[f.src].node, placement[f.src].core, placement[f.dst].core);
  };
  // Latency: every message pays its own, one after the other. Bytes: all
  // flows run at once and a rank waits for the last of its own (charging
  // each flow's shared time in turn would count the sharing among its own
  // flows twice: two flows at half the link take as long as one after the
  // other at the whole link).
  RankTimeParts parts;
  std::vector<double>& time = parts.latency;
  std::vector<double>& transfer = parts.transfer;
  std::vector<double>& overlapped = parts.latency_overlapped;
  time.assign(placement.size(), 0.0);
  transfer.assign(placement.size(), 0.0);
  overlapped.assign(placement.size(), 0.0);
  auto pay = [&](int src, double messages, double latency) {
    time[src] += messages * latency;
    overlapped[src] = std::max(overlapped[src], messages * latency);
  };
  // Inter-node flows that carry bytes share links; each gets a weight of
  // 1 / its route latency, as SimGrid's network model weighs a flow (with
  // rankmap-sim's network/weight-S:0), so a longer route gets less of a
  // shared link. Routes are computed twice (count, then fill) rather than
  // stored: at 1M flows on a 25x25x20 torus they would hold 17M link ids.
  // Cross-socket flows share their inter-socket link the same way; all the
  // flows on one have the same route (that link alone), so equal weights.
  std::vector<int> flow_index;
  std::vector<double> size, weight;
  std::vector<std::int64_t> start(static_cast<size_t>(link_slots) + 1, 0);
  std::vector<Hop> hops;
  for (size_t i = 0; i < traffic.flows.size(); ++i) {
    const Flow& f = traffic.flows[i];
    const int a = placement[f.src].node, b = placement[f.dst].node;
    if (a == b) {
      const std::int64_t socket = socket_link(f);
      if (socket < 0) {
        pay(f.src, f.messages, intra.shm_lat);
        transfer[f.src] = std::max(transfer[f.src], f.bytes / intra.shm_bw);
        continue;
      }
      pay(f.src, f.messages, intra.socket_lat);
      if (!(f.bytes > 0)) continue;
      ++start[static_cast<size_t>(socket) + 1];
      flow_index.push_back(static_cast<int>(i));
      size.push_back(f.bytes);
      weight.push_back(1.0);
      continue;
    }
    torus.route(a, b, hops);
    const double latency = lat.t_inj + static_cast<double>(hops.size()) * lat.t_hop;
    pay(f.src, f.messages, latency);
    if (!(f.bytes > 0)) continue;
    for (const Hop& h : hops) ++start[static_cast<size_t>(h.link) + 1];
    flow_index.push_back(static_cast<int>(i));
    size.push_back(f.bytes);
    weight.push_back(1.0 / latency);
  }
  for (size_t l = 1; l < start.size(); ++l) start[l] += start[l - 1];
  std::vector<int> on_link(static_cast<size_t>(start.back()));
  std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
  for (size_t k = 0; k < flow_index.size(); ++k) {
    const Flow& f = traffic.flows[static_cast<size_t>(flow_index[k])];
    if (placement[f.src].node == placement[f.dst].node) {
      on_link[static_cast<size_t>(fill[static_cast<size_t>(socket_link(f))]++)] = static_cast<int>(k);
      continue;
    }
    torus.route(placement[f.src].node, placement[f.dst].node, hops);
    for (const Hop& h : hops) on_link[static_cast<size_t>(fill[h.link]++)] = static_cast<int>(k);
  }
  const std::vector<double> finish = shared_finish_times(start, on_link, size, weight, links.capacity);
  for (size_t k = 0; k < flow_index.size(); ++k) {
    const int src = traffic.flows[static_cast<size_t>(flow_index[k])].src;
    transfer[src] = std::max(transfer[src], finish[k]);
  }
  return parts;
}

}  // namespace detail

std::vector<double> predicted_rank_times(const Traffic& traffic, const std::vector<Placement>& placement,
                                         const Platform& platform, const EvaluateOptions& options) {
  (void)options;  // nothing in it concerns the time model
  detail::RankTimeParts parts = detail::predicted_rank_time_parts(traffic, placement, platform);
  for (size_t r = 0; r < parts.latency.size(); ++r) parts.latency[r] += parts.transfer[r];
  return std::move(parts.latency);
}

Result<Metrics> evaluate(const Traffic& traffic, const std::vector<Placement>& placement, const Platform& platform,
                         const EvaluateOptions& options) {
  const Network& torus = platform.net();
  if (static_cast<int>(placement.size()) != traffic.ranks)
    return make_error("the mapping places " + std::to_string(placement.size()) + " ranks but the profile has " +
                      std::to_string(traffic.ranks));
  for (const Placement& p : placement)
    if (p.node < 0 || p.node >= torus.nodes() || p.core < 0 || p.core >= platform.node(p.node).cores())
      return make_error("the mapping names a node or core outside the machine");
  Metrics m;
  m.ranks = traffic.ranks;
  std::vector<int> node_of(placement.size());
  std::vector<char> used(static_cast<size_t>(torus.nodes()), 0);
  for (size_t r = 0; r < placement.size(); ++r) {
    node_of[r] = placement[r].node;
    used[placement[r].node] = 1;
  }
  m.nodes_used = static_cast<int>(std::count(used.begin(), used.end(), 1));
  std::vector<double> rank_time(placement.size(), 0.0);
  const LatencyModel& lat = platform.latency;
  for (const Flow& f : traffic.flows) {
    m.total_bytes += f.bytes;
    const Placement& a = placement[f.src];
    const Placement& b = placement[f.dst];
    if (a.node == b.node) {
      m.intra_node_bytes += f.bytes;
      const NodeTopology& node = platform.node(a.node);
      if (node.package_of_core(a.core) != node.package_of_core(b.core)) m.cross_package_bytes += f.bytes;
      continue;
    }
    const int h = torus.hops(a.node, b.node);
    m.inter_node_bytes += f.bytes;
    m.hop_bytes += f.bytes * h;
    m.weighted_cost += f.bytes * torus.weighted_distance(a.node, b.node);
    m.max_dilation = std::max(m.max_dilation, h);
    // f.messages messages of f.bytes / f.messages bytes each, sent by f.src.
    rank_time[f.src] += f.messages * (lat.t_inj + h * lat.t_hop) + (lat.bw > 0 ? f.bytes / lat.bw : 0.0);
  }
  m.mean_dilation = m.inter_node_bytes > 0 ? m.hop_bytes / m.inter_node_bytes : 0;
  if (!rank_time.empty()) {
    m.comm_time_max = *std::max_element(rank_time.begin(), rank_time.end());
    m.comm_time_mean = std::accumulate(rank_time.begin(), rank_time.end(), 0.0) / static_cast<double>(rank_time.size());
  }
  const std::vector<double> predicted = predicted_rank_times(traffic, placement, platform, options);
  // The bulk model, where it is affordable: up to kBulkModelMaxRanks and five times the work the default spends on one
  // candidate (under a second), since it runs once per mapping.
  BulkModelOptions bulk;
  bulk.max_work *= 5;
  if (!std::isnan(options.bulk_time))
    m.predicted_bulk_time = options.bulk_time;
  else if (traffic.ranks <= kBulkModelMaxRanks)
    if (auto t = predicted_bulk_time(options.point_to_point ? *options.point_to_point : traffic, placement, platform, bulk))
      m.predicted_bulk_time = *t;
  if (!predicted.empty()) {
    m.predicted_comm_time_max = *std::max_element(predicted.begin(), predicted.end());
    m.predicted_comm_time_mean =
        std::accumulate(predicted.begin(), predicted.end(), 0.0) / static_cast<double>(predicted.size());
  }
  const LinkLoadSummary loads = torus.summarize_loads(torus.link_loads(detail::node_flows(traffic, node_of)));
  m.max_link_load = loads.max_load;
  m.max_link_relative = loads.max_relative;
  m.mean_link_relative = loads.mean_relative;
  if (options.lower_bound) {
    // The bound must hold for this mapping even if it was made elsewhere with
    // more ranks per node or on other nodes than requested: widen to cover it.
    // On a machine of mixed nodes it takes the largest node's capacity for
    // every node (still a bound: no node holds more).
    std::vector<int> per_node(static_cast<size_t>(torus.nodes()), 0);
    for (int a : node_of) ++per_node[a];
    const int ppn = std::max(options.ppn > 0 ? options.ppn : platform.node_kinds.max_cores(),
                             *std::max_element(per_node.begin(), per_node.end()));
    std::vector<int> nodes = options.nodes;
    if (!nodes.empty()) {
      std::vector<char> listed(static_cast<size_t>(torus.nodes()), 0);
      for (int a : nodes) listed[a] = 1;
      for (int a = 0; a < torus.nodes(); ++a)
        if (used[a] && !listed[a]) nodes.push_back(a);
    }
    auto compute = [&] { return cost_lower_bound(build_comm_graph(traffic, 0.0), torus, ppn, nodes); };
    const LowerBound lb = options.bound_memo ? options.bound_memo->get(&traffic, &torus, ppn, nodes, compute) : compute();
    m.lower_bound_hop_bytes = lb.hop_bytes;
    m.lower_bound_weighted = lb.weighted;
    auto gap = [](double v, double bound) { return bound > 0 ? v / bound - 1 : (v > 0 ? INFINITY : 0.0); };
    m.gap_hop_bytes = gap(m.hop_bytes, lb.hop_bytes);
    m.gap_weighted = gap(m.weighted_cost, lb.weighted);
  }
  return m;
}

std::vector<Result<Metrics>> evaluate_each(const Traffic& traffic, const std::vector<EvaluationJob>& jobs, int threads) {
  std::vector<Result<Metrics>> out(jobs.size(), Error{"not evaluated"});
  detail::parallel_for(jobs.size(), threads > 0 ? threads : detail::available_threads(), [&](size_t i) {
    out[i] = evaluate(traffic, *jobs[i].placement, *jobs[i].platform, jobs[i].options);
  });
  return out;
}

}  // namespace rankmap
