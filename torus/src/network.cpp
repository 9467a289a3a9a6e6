#include "rankmap/network.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace rankmap {

std::vector<Hop> Network::route(int a, int b) const {
  std::vector<Hop> out;
  route(a, b, out);
  return out;
}

std::vector<int> Network::neighbors(int node) const {
  std::vector<int> out;
  neighbors(node, out);
  return out;
}

int Network::link_count() const {
  int count = 0;
  for (int l = 0; l < link_slots(); ++l) count += link_exists(l) ? 1 : 0;
  return count;
}

void Network::build_distance_table() {
  weighted_table_.clear();
  table_nodes_ = nodes();
  if (table_nodes_ > kDistanceTableNodes) return;
  std::vector<double> table(static_cast<size_t>(table_nodes_) * static_cast<size_t>(table_nodes_));
  for (int a = 0; a < table_nodes_; ++a)
    for (int b = 0; b < table_nodes_; ++b)
      table[static_cast<size_t>(a) * static_cast<size_t>(table_nodes_) + b] = weighted_distance_computed(a, b);
  weighted_table_ = std::move(table);
}

int Network::diameter() const {
  int dia = 0;
  for (int a = 0; a < nodes(); ++a)
    for (int b = 0; b < nodes(); ++b) dia = std::max(dia, hops(a, b));
  return dia;
}

double Network::mean_hops() const {
  // Exact integers summed, then one division: what summing all pairs gives.
  long long sum = 0;
  for (int a = 0; a < nodes(); ++a)
    for (int b = 0; b < nodes(); ++b) sum += hops(a, b);
  const double n = nodes();
  return static_cast<double>(sum) / (n * n);
}

std::vector<std::uint16_t> Network::all_pair_hops() const {
  const int n = nodes();
  std::vector<std::uint16_t> table(static_cast<size_t>(n) * n);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) table[static_cast<size_t>(a) * n + b] = static_cast<std::uint16_t>(hops(a, b));
  return table;
}

std::vector<double> Network::link_loads(const std::vector<NodeFlow>& flows) const {
  std::vector<double> loads(static_cast<size_t>(link_slots()), 0.0);
  std::vector<Hop> path;
  for (const NodeFlow& f : flows) {
    if (f.src == f.dst || f.bytes == 0) continue;
    route(f.src, f.dst, path);
    for (const Hop& h : path) loads[h.link] += f.bytes;
  }
  return loads;
}

LinkLoadSummary Network::summarize_loads(const std::vector<double>& loads) const {
  LinkLoadSummary s;
  int existing = 0;
  double relative_sum = 0;
  for (int l = 0; l < link_slots(); ++l) {
    if (!link_exists(l)) continue;
    ++existing;
    const double load = loads[l];
    const double rel = load / link_capacity(l);
    s.total_bytes_on_links += load;
    relative_sum += rel;
    if (rel > s.max_relative || s.busiest_link < 0) {
      s.max_relative = rel;
      s.max_load = load;
      s.busiest_link = l;
    }
  }
  s.mean_relative = existing > 0 ? relative_sum / existing : 0;
  if (s.max_relative == 0) s.busiest_link = -1;
  return s;
}

Status Network::check() const {
  const int n = std::min(nodes(), kCheckedNodes);
  std::vector<Hop> path;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      route(a, b, path);
      const std::string pair = " from node " + std::to_string(a) + " to " + std::to_string(b);
      if (static_cast<int>(path.size()) != hops(a, b)) return make_error(kind() + ": route length is not hops()" + pair);
      if (hops(a, b) != hops(b, a)) return make_error(kind() + ": hops not symmetric" + pair);
      int at = a;
      for (const Hop& h : path) {
        if (h.from != at) return make_error(kind() + ": route is not a connected path" + pair);
        if (!link_exists(h.link)) return make_error(kind() + ": route uses a missing link" + pair);
        at = h.to;
      }
      if (!path.empty() && at != b) return make_error(kind() + ": route ends elsewhere" + pair);
    }
  // The cuts' prices never overcharge a pair (distance_cuts), on fewer
  // nodes where the cuts are many (a chain of a million nodes has as many
  // cuts): at most ~1e8 pair visits.
  const int cuts = distance_cuts();
  const int m = cuts == 0 ? 0 : std::max(2, std::min(n, static_cast<int>(std::sqrt(1e8 / cuts))));
  std::vector<double> hop_sum(static_cast<size_t>(m) * m, 0.0), weighted_sum(hop_sum.size(), 0.0);
  std::vector<int> side(static_cast<size_t>(m));
  for (int c = 0; c < cuts; ++c) {
    const CutPrice price = distance_cut_price(c);
    if (!(price.hops >= 0 && price.weighted >= 0) || !std::isfinite(price.hops + price.weighted))
      return make_error(kind() + ": distance cut " + std::to_string(c) + " has a negative or infinite price");
    for (int a = 0; a < m; ++a) {
      side[a] = distance_cut_side(c, a);
      if (side[a] != 0 && side[a] != 1)
        return make_error(kind() + ": distance cut " + std::to_string(c) + " gives node " + std::to_string(a) +
                          " a side other than 0 or 1");
    }
    for (int a = 0; a < m; ++a)
      for (int b = a + 1; b < m; ++b)
        if (side[a] != side[b]) {
          hop_sum[static_cast<size_t>(a) * m + b] += price.hops;
          weighted_sum[static_cast<size_t>(a) * m + b] += price.weighted;
        }
  }
  for (int a = 0; a < m; ++a)
    for (int b = a + 1; b < m; ++b) {
      const double wd = weighted_distance(a, b);
      if (hop_sum[static_cast<size_t>(a) * m + b] > hops(a, b) + 1e-9 ||
          weighted_sum[static_cast<size_t>(a) * m + b] > wd + 1e-9 * std::max(1.0, wd))
        return make_error(kind() + ": the distance cuts separating node " + std::to_string(a) + " and " +
                          std::to_string(b) + " cost more than their distance");
    }
  return Ok{};
}

size_t Network::cut_between_blocks(const std::vector<int>& nodes, int group) {
  const size_t half = nodes.size() / 2;
  size_t best = 0, best_off = nodes.size();
  for (size_t i = 1; i < nodes.size(); ++i) {
    if (nodes[i] / group == nodes[i - 1] / group) continue;
    const size_t off = i > half ? i - half : half - i;
    if (off < best_off) {
      best_off = off;
      best = i;
    }
  }
  return best > 0 ? best : half;
}

int Network::median_node(const std::vector<int>& nodes) {
  std::vector<int> sorted = nodes;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(sorted.size() / 2), sorted.end());
  return sorted[sorted.size() / 2];
}

CutPrice Network::separation_price(int a, int b) const {
  CutPrice sum;
  for (int c = 0; c < distance_cuts(); ++c)
    if (distance_cut_side(c, a) != distance_cut_side(c, b)) {
      const CutPrice price = distance_cut_price(c);
      sum.hops += price.hops;
      sum.weighted += price.weighted;
    }
  return sum;
}

}  // namespace rankmap
