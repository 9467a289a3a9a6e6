#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "rankmap/comm_graph.hpp"

namespace rankmap {

namespace {

// Sorts by (src, dst), merges duplicates, drops self pairs and empty flows.
void merge_flows(std::vector<Flow>& flows) {
  std::sort(flows.begin(), flows.end(),
            [](const Flow& a, const Flow& b) { return a.src != b.src ? a.src < b.src : a.dst < b.dst; });
  size_t out = 0;
  for (size_t i = 0; i < flows.size();) {
    Flow f = flows[i++];
    while (i < flows.size() && flows[i].src == f.src && flows[i].dst == f.dst) {
      f.messages += flows[i].messages;
      f.bytes += flows[i].bytes;
      ++i;
    }
    if (f.src != f.dst && (f.messages > 0 || f.bytes > 0)) flows[out++] = f;
  }
  flows.resize(out);
}

}  // namespace

double Traffic::total_bytes() const {
  double s = 0;
  for (const Flow& f : flows) s += f.bytes;
  return s;
}

Status Traffic::check() const {
  if (ranks < 1) return make_error("traffic has no ranks");
  for (size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    if (f.src < 0 || f.src >= ranks || f.dst < 0 || f.dst >= ranks) return make_error("flow names a rank out of range");
    if (f.src == f.dst) return make_error("self flow");
    if (!(f.bytes >= 0) || !(f.messages >= 0)) return make_error("negative or NaN flow");
    if (i > 0) {
      const Flow& p = flows[i - 1];
      if (p.src > f.src || (p.src == f.src && p.dst >= f.dst)) return make_error("flows not sorted or duplicated");
    }
  }
  return Ok{};
}

Result<Traffic> traffic_from_profile(const Profile& profile, CollectiveModel collectives) {
  if (auto st = profile.check(); !st) return st.error();
  Traffic t;
  t.ranks = profile.ranks;
  t.flows.reserve(profile.p2p.size() + profile.one_sided.size());
  for (const auto* list : {&profile.p2p, &profile.one_sided})
    for (const PairTraffic& p : *list)
      t.flows.push_back(Flow{p.src, p.dst, static_cast<double>(p.messages), static_cast<double>(p.bytes)});
  if (collectives == CollectiveModel::model) {
    std::unordered_map<int, const CommunicatorRecord*> comms;
    for (const CommunicatorRecord& c : profile.communicators) comms[c.id] = &c;
    // Every record adds its flows; merging whenever they have doubled keeps
    // the list within twice the distinct pairs, however many records there are.
    size_t merged = t.flows.size();
    for (const CollectiveRecord& c : profile.collectives) {
      if (!expand_collective(c, comms.at(c.comm)->world_ranks, t.flows))
        t.notes.push_back("collective '" + c.op + "' is not modelled; its traffic is ignored");
      if (t.flows.size() > 2 * merged + (size_t{1} << 20)) {
        merge_flows(t.flows);
        merged = t.flows.size();
      }
    }
  }
  merge_flows(t.flows);
  std::sort(t.notes.begin(), t.notes.end());
  t.notes.erase(std::unique(t.notes.begin(), t.notes.end()), t.notes.end());
  return t;
}

double message_byte_equivalent(const LatencyModel& model) { return model.bw > 0 ? model.t_inj * model.bw : 0.0; }

double CommGraph::total_weight() const {
  double s = 0;
  for (double w : weight) s += w;
  return s / 2;
}

Status CommGraph::check() const {
  if (vertices < 0 || xadj.size() != static_cast<size_t>(vertices) + 1) return make_error("graph: bad xadj size");
  if (xadj[0] != 0 || xadj[vertices] != static_cast<std::int64_t>(adjncy.size()) || adjncy.size() != weight.size())
    return make_error("graph: offsets do not match the edge arrays");
  for (int u = 0; u < vertices; ++u) {
    if (xadj[u] > xadj[u + 1]) return make_error("graph: decreasing offsets");
    for (std::int64_t e = xadj[u]; e < xadj[u + 1]; ++e) {
      const int v = adjncy[e];
      if (v < 0 || v >= vertices || v == u) return make_error("graph: bad neighbour of vertex " + std::to_string(u));
      if (e > xadj[u] && adjncy[e - 1] >= v) return make_error("graph: neighbours of " + std::to_string(u) + " not sorted");
      if (!(weight[e] > 0) || !std::isfinite(weight[e])) return make_error("graph: non-positive weight");
      const auto* b = adjncy.data() + xadj[v];
      const auto* end = adjncy.data() + xadj[v + 1];
      const auto* it = std::lower_bound(b, end, u);
      if (it == end || *it != u || weight[xadj[v] + (it - b)] != weight[e]) return make_error("graph: not symmetric");
    }
  }
  return Ok{};
}

CommGraph build_comm_graph(const Traffic& traffic, double message_bytes) {
  // Both directions of every flow, bucketed by their first end (counting
  // sort: the arcs of 32k ranks took a third of a second to sort whole), then
  // each rank's bucket sorted by the other end and merged: memory linear in
  // flows, and exactly symmetric weights (same sums on both sides).
  struct Arc {
    int v;
    double w;
  };
  const int n = traffic.ranks;
  std::vector<std::int64_t> start(static_cast<size_t>(n) + 1, 0);
  auto weight_of = [&](const Flow& f) { return f.bytes + message_bytes * f.messages; };
  for (const Flow& f : traffic.flows)
    if (weight_of(f) > 0) {
      ++start[static_cast<size_t>(f.src) + 1];
      ++start[static_cast<size_t>(f.dst) + 1];
    }
  for (int u = 0; u < n; ++u) start[static_cast<size_t>(u) + 1] += start[static_cast<size_t>(u)];
  std::vector<Arc> arcs(static_cast<size_t>(start.back()));
  std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
  for (const Flow& f : traffic.flows) {
    const double w = weight_of(f);
    if (!(w > 0)) continue;
    arcs[static_cast<size_t>(fill[static_cast<size_t>(f.src)]++)] = {f.dst, w};
    arcs[static_cast<size_t>(fill[static_cast<size_t>(f.dst)]++)] = {f.src, w};
  }
  CommGraph g;
  g.vertices = n;
  g.message_bytes = message_bytes;
  g.xadj.assign(static_cast<size_t>(n) + 1, 0);
  g.adjncy.reserve(arcs.size());
  g.weight.reserve(arcs.size());
  for (int u = 0; u < n; ++u) {
    const auto first = arcs.begin() + start[static_cast<size_t>(u)], last = arcs.begin() + start[static_cast<size_t>(u) + 1];
    std::sort(first, last, [](const Arc& a, const Arc& b) { return a.v < b.v; });
    for (auto i = first; i != last;) {
      Arc a = *i++;
      // At most two terms (one per direction), and a + b == b + a exactly, so
      // both sides of an edge get bit-identical weights.
      while (i != last && i->v == a.v) a.w += (i++)->w;
      g.adjncy.push_back(a.v);
      g.weight.push_back(a.w);
    }
    g.xadj[static_cast<size_t>(u) + 1] = static_cast<std::int64_t>(g.adjncy.size());
  }
  return g;
}

}  // namespace rankmap
