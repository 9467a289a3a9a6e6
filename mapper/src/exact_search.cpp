// Exact search for a placement within a hop-bytes and a busiest-link limit
// (detail.hpp, find_placement_within): the proof behind the peer benchmark's
// "no placement is best on both" on small jobs (docs/benchmarks.md).
//
// Depth-first over the ranks, each put on every allocated node with room,
// pruned by both limits as soon as a partial placement passes one:
// - the busiest link: loads only grow as ranks are added, so a partial
//   placement whose routed flows already load a link past the limit has no
//   completion within it;
// - hop-bytes: the flows between placed ranks are priced exactly; each rank
//   still to place sends off its node at least the bytes it exchanges with
//   partners beyond the (slots - 1) heaviest (no node holds more), and every
//   byte between nodes travels at least one hop. A flow is counted from at
//   most both of its ends, hence half of that sum.
// Ranks are taken in order of their bytes to the ranks already placed (the
// heaviest traffic first, so both limits bite early), nodes for a rank in
// order of the hop-bytes they add (a placement within the limits is met
// early where there is one). Ranks without traffic go last, anywhere with
// room. No symmetry is assumed: the search is exhaustive unless it stops at
// its state budget.
#include <algorithm>
#include <map>

#include "detail.hpp"

namespace rankmap::detail {

namespace {

struct Partner {
  int rank;
  double out, in;  // bytes to and from it
};

}  // namespace

PlacementSearch find_placement_within(const Traffic& traffic, const Network& net, const Allocation& allocation,
                                      double max_hop_bytes, double max_link_relative, std::int64_t max_states) {
  PlacementSearch result;
  const int n = traffic.ranks;
  const std::vector<int>& nodes = allocation.nodes();
  const int m = allocation.size();
  if (allocation.total_slots() < n) return result;  // none: the ranks do not fit
  const double hop_limit = max_hop_bytes * (1 + 1e-12), link_limit = max_link_relative * (1 + 1e-12);

  std::map<std::pair<int, int>, std::pair<double, double>> pair_bytes;  // (u < v) -> (u to v, v to u)
  for (const Flow& f : traffic.flows) {
    if (f.src == f.dst || f.bytes <= 0) continue;
    auto& b = pair_bytes[{std::min(f.src, f.dst), std::max(f.src, f.dst)}];
    (f.src < f.dst ? b.first : b.second) += f.bytes;
  }
  std::vector<std::vector<Partner>> partners(static_cast<size_t>(n));
  std::vector<double> total(static_cast<size_t>(n), 0.0);
  for (const auto& [key, b] : pair_bytes) {
    partners[key.first].push_back({key.second, b.first, b.second});
    partners[key.second].push_back({key.first, b.second, b.first});
    total[key.first] += b.first + b.second;
    total[key.second] += b.first + b.second;
  }

  // The order: always the rank with the most bytes to those already
  // ordered, then the most bytes in all, then the lower rank.
  std::vector<int> order;
  std::vector<double> attached(static_cast<size_t>(n), 0.0);
  std::vector<char> ordered(static_cast<size_t>(n), 0);
  for (;;) {
    int next = -1;
    for (int v = 0; v < n; ++v) {
      if (ordered[v] || total[v] <= 0) continue;
      if (next < 0 || attached[v] > attached[next] || (attached[v] == attached[next] && total[v] > total[next]))
        next = v;
    }
    if (next < 0) break;
    ordered[next] = 1;
    order.push_back(next);
    for (const Partner& q : partners[next]) attached[q.rank] += q.out + q.in;
  }
  const int placed_last = static_cast<int>(order.size());

  // Bytes each rank must send off its node whatever the placement, and
  // their sum over the ranks from position k of the order on.
  const int max_slots = allocation.max_slots();
  std::vector<double> rest_bound(static_cast<size_t>(placed_last) + 1, 0.0);
  for (int k = placed_last - 1; k >= 0; --k) {
    const int v = order[k];
    std::vector<double> b;
    for (const Partner& q : partners[v]) b.push_back(q.out + q.in);
    std::sort(b.rbegin(), b.rend());
    double kept = 0;
    for (size_t i = 0; i < b.size() && static_cast<int>(i) < max_slots - 1; ++i) kept += b[i];
    rest_bound[k] = rest_bound[k + 1] + 0.5 * std::max(0.0, total[v] - kept);
  }

  // Hops and routes (link ids) between allocated nodes, by index.
  const auto M = static_cast<size_t>(m);
  std::vector<int> hops(M * M, 0);
  std::vector<std::vector<int>> route(M * M);
  std::vector<Hop> path;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) {
      if (i == j) continue;
      hops[i * M + j] = net.hops(nodes[i], nodes[j]);
      net.route(nodes[i], nodes[j], path);
      for (const Hop& h : path) route[i * M + j].push_back(h.link);
    }
  std::vector<double> link_room(static_cast<size_t>(net.link_slots()), 0.0);  // bytes a link may carry
  for (size_t l = 0; l < link_room.size(); ++l)
    if (net.link_exists(static_cast<int>(l))) link_room[l] = link_limit * net.link_capacity(static_cast<int>(l));

  std::vector<int> at(static_cast<size_t>(n), -1), room(M);
  for (int j = 0; j < m; ++j) room[j] = allocation.slots(nodes[j]);
  std::vector<double> load(link_room.size(), 0.0);
  double hop_bytes = 0;

  // Adds (sign +1) or removes (-1) the flows between rank v on node j and
  // the placed ranks; false where adding took a link past the limit (the
  // flows stay added: the caller removes them with -1, as after a search).
  auto apply = [&](int v, int j, double sign) {
    for (const Partner& q : partners[v]) {
      const int i = at[q.rank];
      if (i < 0 || i == j) continue;
      for (int l : route[j * M + i]) load[l] += sign * q.out;
      for (int l : route[i * M + j]) load[l] += sign * q.in;
      hop_bytes += sign * (q.out + q.in) * hops[j * M + i];
    }
    if (sign < 0) return true;
    for (const Partner& q : partners[v]) {
      const int i = at[q.rank];
      if (i < 0 || i == j) continue;
      for (int l : route[j * M + i])
        if (load[l] > link_room[l]) return false;
      for (int l : route[i * M + j])
        if (load[l] > link_room[l]) return false;
    }
    return true;
  };
  auto added_hop_bytes = [&](int v, int j) {
    double h = 0;
    for (const Partner& q : partners[v])
      if (at[q.rank] >= 0) h += (q.out + q.in) * hops[j * M + at[q.rank]];
    return h;
  };

  bool found = false, stopped = false;
  std::vector<std::vector<std::pair<double, int>>> choices(static_cast<size_t>(placed_last));
  auto search = [&](auto&& self, int k) -> void {
    if (k == placed_last) {
      found = true;
      return;
    }
    if (++result.states > max_states) {
      stopped = true;
      return;
    }
    const int v = order[k];
    auto& options = choices[k];
    options.clear();
    for (int j = 0; j < m; ++j) {
      if (room[j] == 0) continue;
      const double h = added_hop_bytes(v, j);
      if (hop_bytes + h + rest_bound[k + 1] <= hop_limit) options.push_back({h, j});
    }
    std::stable_sort(options.begin(), options.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t c = 0; c < options.size(); ++c) {
      const int j = options[c].second;
      at[v] = j;
      --room[j];
      if (apply(v, j, 1)) self(self, k + 1);
      if (found || stopped) return;  // the placement stays in `at`
      apply(v, j, -1);
      ++room[j];
      at[v] = -1;
    }
  };
  search(search, 0);
  if (stopped) {
    result.outcome = PlacementSearch::Outcome::gave_up;
    return result;
  }
  if (!found) {
    result.outcome = PlacementSearch::Outcome::none;
    return result;
  }
  // Ranks without traffic: any node with room.
  for (int v = 0; v < n; ++v)
    if (at[v] < 0)
      for (int j = 0; j < m; ++j)
        if (room[j] > 0) {
          at[v] = j;
          --room[j];
          break;
        }
  result.outcome = PlacementSearch::Outcome::found;
  result.node_of.resize(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) result.node_of[v] = nodes[at[v]];
  return result;
}

}  // namespace rankmap::detail
