// Dual recursive bisection, the idea behind Scotch's mapper, with METIS as the
// graph bisector and the torus split geometrically: halve the allocated nodes
// across their widest dimension, split the ranks in proportion to the two
// halves' capacity so the cut traffic is small, recurse. Traffic that is cut
// high in the recursion crosses the middle of the machine; traffic cut low
// stays between neighbours.
#include <metis.h>

#include <algorithm>
#include <numeric>

#include "detail.hpp"

namespace rankmap::detail {

namespace {

struct Bisector {
  const CommGraph& g;
  const Torus& torus;
  int cap;
  std::uint64_t seed;
  std::vector<int>& node_of;
  std::vector<int> local;  // global vertex -> index in the current subgraph, -1 outside

  // Splits `nodes` in two halves across the dimension with the most distinct
  // coordinates (ties: the one with fewer parallel links, whose cut is the
  // more expensive to cross and so should be cut where traffic is low).
  void split_nodes(std::vector<int>& nodes, size_t& half) const {
    int best_d = 0, best_span = -1;
    for (int d = 0; d < torus.dims(); ++d) {
      std::vector<int> cs;
      for (int a : nodes) cs.push_back(torus.coord(a, d));
      std::sort(cs.begin(), cs.end());
      const int span = static_cast<int>(std::unique(cs.begin(), cs.end()) - cs.begin());
      if (span > best_span || (span == best_span && torus.links(d) < torus.links(best_d))) {
        best_span = span;
        best_d = d;
      }
    }
    std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) { return torus.coord(a, best_d) < torus.coord(b, best_d); });
    // Cut between coordinates, as close to the middle as the coordinates allow.
    half = nodes.size() / 2;
    size_t lo = half, hi = half;
    while (lo > 0 && torus.coord(nodes[lo - 1], best_d) == torus.coord(nodes[lo], best_d)) --lo;
    while (hi < nodes.size() && torus.coord(nodes[hi - 1], best_d) == torus.coord(nodes[hi], best_d)) ++hi;
    if (lo == 0 && hi == nodes.size()) return;  // cannot happen with span > 1
    half = (lo > 0 && (half - lo <= hi - half || hi == nodes.size())) ? lo : hi;
  }

  // Splits `verts` into a first part of exactly `first` vertices with a small cut.
  void bisect(std::vector<int>& verts, int first) {
    const int n = static_cast<int>(verts.size());
    std::vector<int> side(static_cast<size_t>(n), 1);
    for (int i = 0; i < n; ++i) local[verts[i]] = i;
    std::vector<idx_t> xadj(1, 0), adjncy;
    std::vector<double> w;
    for (int v : verts) {
      for (auto e = g.xadj[v]; e < g.xadj[v + 1]; ++e)
        if (local[g.adjncy[e]] >= 0) {
          adjncy.push_back(local[g.adjncy[e]]);
          w.push_back(g.weight[e]);
        }
      xadj.push_back(static_cast<idx_t>(adjncy.size()));
    }
    if (first > 0 && first < n && !adjncy.empty()) {
      auto iw = integer_weights(w);
      std::vector<idx_t> adjwgt(iw.begin(), iw.end());
      idx_t nv = n, ncon = 1, nparts = 2, objval = 0;
      real_t tpwgts[2] = {static_cast<real_t>(first) / n, 1 - static_cast<real_t>(first) / n};
      real_t ubvec = 1.001f;
      idx_t options[METIS_NOPTIONS];
      METIS_SetDefaultOptions(options);
      options[METIS_OPTION_SEED] = static_cast<idx_t>(seed % 2147483647);
      std::vector<idx_t> part(static_cast<size_t>(n));
      if (METIS_PartGraphRecursive(&nv, &ncon, xadj.data(), adjncy.data(), nullptr, nullptr, adjwgt.data(), &nparts,
                                   tpwgts, &ubvec, options, &objval, part.data()) == METIS_OK)
        for (int i = 0; i < n; ++i) side[i] = static_cast<int>(part[i]);
      else
        for (int i = 0; i < n; ++i) side[i] = i < first ? 0 : 1;
    } else {
      for (int i = 0; i < n; ++i) side[i] = i < first ? 0 : 1;
    }
    // Exact sizes: move the vertices that lose least from the larger side.
    int count0 = static_cast<int>(std::count(side.begin(), side.end(), 0));
    if (count0 != first) {
      const int from = count0 > first ? 0 : 1;
      std::vector<std::pair<double, int>> gain;
      for (int i = 0; i < n; ++i) {
        if (side[i] != from) continue;
        double ext = 0;
        for (idx_t e = xadj[i]; e < xadj[i + 1]; ++e) ext += side[adjncy[e]] != from ? w[e] : -w[e];
        gain.push_back({-ext, i});
      }
      std::sort(gain.begin(), gain.end());
      const int moves = std::abs(count0 - first);
      for (int k = 0; k < moves; ++k) side[gain[k].second] = 1 - from;
    }
    std::vector<int> a, b;
    for (int i = 0; i < n; ++i) (side[i] == 0 ? a : b).push_back(verts[i]);
    for (int v : verts) local[v] = -1;
    verts = std::move(a);
    verts.insert(verts.end(), b.begin(), b.end());
  }

  void run(std::vector<int> verts, std::vector<int> nodes) {
    if (verts.empty()) return;
    if (nodes.size() == 1) {
      for (int v : verts) node_of[v] = nodes[0];
      return;
    }
    size_t half = 0;
    split_nodes(nodes, half);
    const long long n = static_cast<long long>(verts.size());
    const long long slots0 = static_cast<long long>(half) * cap, slots = static_cast<long long>(nodes.size()) * cap;
    // Ranks in proportion to slots, within both halves' capacity.
    long long first = (n * slots0 + slots / 2) / slots;
    first = std::max(first, n - (slots - slots0));
    first = std::min(first, slots0);
    bisect(verts, static_cast<int>(first));
    run(std::vector<int>(verts.begin(), verts.begin() + first), std::vector<int>(nodes.begin(), nodes.begin() + static_cast<long>(half)));
    run(std::vector<int>(verts.begin() + first, verts.end()), std::vector<int>(nodes.begin() + static_cast<long>(half), nodes.end()));
  }
};

}  // namespace

std::vector<int> recursive_bisection_map(const CommGraph& graph, const Torus& torus, const std::vector<int>& nodes,
                                         int cap, std::uint64_t seed) {
  std::vector<int> node_of(static_cast<size_t>(graph.vertices), nodes.front());
  Bisector b{graph, torus, cap, seed, node_of, std::vector<int>(static_cast<size_t>(graph.vertices), -1)};
  std::vector<int> verts(static_cast<size_t>(graph.vertices));
  std::iota(verts.begin(), verts.end(), 0);
  b.run(std::move(verts), nodes);
  return node_of;
}

}  // namespace rankmap::detail
