// Two starts that follow the structure of the graph and of the torus rather
// than a min-cut partition:
//
//   matching_groups  node groups grown by repeated heavy-edge matching, the
//                    coarsening step of every multilevel partitioner. On a
//                    grid, pairs of ranks become dominoes and pairs of
//                    parallel dominoes (two edges between them, against one
//                    for collinear ones) become squares: the 2x2 blocks a 2D
//                    stencil needs at 4 ranks per node, which a k-way min-cut
//                    partition rarely returns and rank swaps cannot reshape.
//   snake_order      the allocated nodes along a boustrophedon (reflected
//                    mixed-radix) walk of the torus, in which consecutive
//                    nodes are neighbours: filling it in rank order embeds a
//                    chain of ranks with every inter-node edge one hop long.
//   cycle_order      the allocated nodes along a Hamiltonian cycle of a
//                    machine with open dimensions (a mesh), where the snake's
//                    last node is far from its first: a ring of ranks then
//                    has every inter-node edge one hop long too.
#include <algorithm>
#include <numeric>

#include "detail.hpp"

namespace rankmap::detail {

std::vector<int> matching_groups(const CommGraph& graph, int cap, int max_groups, int& groups, MatchingTies ties) {
  const int n = graph.vertices;
  groups = 0;
  std::vector<int> cluster(static_cast<size_t>(n));  // vertex -> current cluster
  std::iota(cluster.begin(), cluster.end(), 0);
  std::vector<int> size(static_cast<size_t>(n), 1);
  CommGraph q = graph;
  int k = n;
  // Vertices are visited in index order and ties go to the lowest index
  // (or, with MatchingTies::highest, to the highest):
  // deterministic, and it follows the application's own numbering where that
  // numbering has structure (as the `block` start does).
  for (;;) {
    std::vector<int> mate(static_cast<size_t>(k), -1);
    bool merged = false;
    for (int u = 0; u < k; ++u) {
      if (mate[u] >= 0) continue;
      int best = -1;
      double best_w = 0;
      for (auto e = q.xadj[u]; e < q.xadj[u + 1]; ++e) {
        const int v = q.adjncy[e];
        if (v == u || mate[v] >= 0 || size[u] + size[v] > cap) continue;
        if (q.weight[e] > best_w || (ties == MatchingTies::highest && q.weight[e] == best_w)) {
          best_w = q.weight[e];
          best = v;
        }
      }
      if (best >= 0) {
        mate[u] = best;
        mate[best] = u;
        merged = true;
      }
    }
    if (!merged) break;
    std::vector<int> id(static_cast<size_t>(k), -1);
    std::vector<int> new_size;
    for (int u = 0; u < k; ++u) {
      if (id[u] >= 0) continue;
      id[u] = static_cast<int>(new_size.size());
      new_size.push_back(size[u]);
      if (mate[u] >= 0) {
        id[mate[u]] = id[u];
        new_size.back() += size[mate[u]];
      }
    }
    for (int& c : cluster) c = id[c];
    k = static_cast<int>(new_size.size());
    size = std::move(new_size);
    q = contract(graph, cluster, k);
  }
  // Clusters that could not merge with a neighbour (every neighbour was too
  // large) are packed first-fit decreasing; with cluster sizes that divide
  // the capacity (powers of two at a power-of-two ppn) this is exact.
  std::vector<int> by_size(static_cast<size_t>(k));
  std::iota(by_size.begin(), by_size.end(), 0);
  std::stable_sort(by_size.begin(), by_size.end(), [&](int a, int b) { return size[a] > size[b]; });
  std::vector<int> bin_of(static_cast<size_t>(k), -1), room;
  for (int c : by_size) {
    size_t b = 0;
    while (b < room.size() && room[b] < size[c]) ++b;
    if (b == room.size()) room.push_back(cap);
    room[b] -= size[c];
    bin_of[c] = static_cast<int>(b);
  }
  if (static_cast<int>(room.size()) > max_groups) return {};  // sizes that do not tile: no start
  for (int& c : cluster) c = bin_of[c];
  groups = static_cast<int>(room.size());
  return cluster;
}

namespace {

// The dimensions by links, most first (ties: lower index): the walks' fastest
// dimension takes most of their steps, so it is the cheapest hop.
std::vector<int> dims_by_links(const Torus& torus) {
  std::vector<int> fast_first(static_cast<size_t>(torus.dims()));
  std::iota(fast_first.begin(), fast_first.end(), 0);
  std::stable_sort(fast_first.begin(), fast_first.end(), [&](int a, int b) { return torus.links(a) > torus.links(b); });
  return fast_first;
}

// Position of node a on the boustrophedon walk of the dimensions `fast_first`
// (fastest first): the slowest dimension first; a faster dimension runs
// backwards whenever the position so far is odd, so each step changes one
// coordinate by one.
long long walk_position(const Torus& torus, const std::vector<int>& fast_first, int a) {
  long long pos = 0;
  for (auto it = fast_first.rbegin(); it != fast_first.rend(); ++it) {
    const int d = *it;
    int c = torus.coord(a, d);
    if (pos % 2 == 1) c = torus.size(d) - 1 - c;
    pos = pos * torus.size(d) + c;
  }
  return pos;
}

// The nodes sorted by a position.
template <class Position>
std::vector<int> sorted_by(const std::vector<int>& nodes, Position&& position) {
  std::vector<std::pair<long long, int>> keyed;
  keyed.reserve(nodes.size());
  for (int a : nodes) keyed.push_back({position(a), a});
  std::sort(keyed.begin(), keyed.end());
  std::vector<int> out;
  out.reserve(nodes.size());
  for (auto& kv : keyed) out.push_back(kv.second);
  return out;
}

}  // namespace

std::vector<int> snake_order(const Torus& torus, const std::vector<int>& nodes) {
  const std::vector<int> fast_first = dims_by_links(torus);
  return sorted_by(nodes, [&](int a) { return walk_position(torus, fast_first, a); });
}

std::vector<int> cycle_order(const Torus& torus, const std::vector<int>& nodes) {
  std::vector<int> used;  // dimensions of size > 1, most links first
  bool open = false;
  for (int d : dims_by_links(torus))
    if (torus.size(d) > 1) {
      used.push_back(d);
      open = open || !torus.wraps(d);
    }
  if (!open || used.size() < 2) return {};
  // Rows: the boustrophedon walk of every used dimension but `f`, Y nodes
  // long; the cycle runs along row 0, snakes through rows 1..Y-1 over
  // columns 1..X-1 of f, and returns along column 0. It closes when Y is
  // even, i.e. when a dimension other than f has an even size: f is the
  // first used dimension for which one does (the cheapest hop where it can).
  auto rows_even_without = [&](int f) {
    for (int d : used)
      if (d != f && torus.size(d) % 2 == 0) return true;
    return false;
  };
  int f = -1;
  for (int d : used)
    if (rows_even_without(d)) {
      f = d;
      break;
    }
  if (f < 0) return {};  // every size odd: an odd number of nodes, no cycle
  std::vector<int> rows;
  for (int d : used)
    if (d != f) rows.push_back(d);
  const long long X = torus.size(f);
  long long Y = 1;
  for (int d : rows) Y *= torus.size(d);
  return sorted_by(nodes, [&](int a) {
    const long long x = torus.coord(a, f);
    const long long j = walk_position(torus, rows, a);
    if (j == 0) return x;
    if (x == 0) return X + (Y - 1) * (X - 1) + (Y - 1 - j);  // the way back, along column 0
    const long long in_row = j % 2 == 1 ? X - 1 - x : x - 1;
    return X + (j - 1) * (X - 1) + in_row;
  });
}

}  // namespace rankmap::detail
