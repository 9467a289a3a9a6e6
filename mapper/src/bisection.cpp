// Dual recursive bisection, the idea behind Scotch's mapper, with METIS as the
// graph bisector and the network split geometrically (Network::split; a torus
// halves the allocated nodes across their widest dimension), split the ranks in proportion to the two
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
  const Network& torus;
  const Allocation& allocation;
  std::uint64_t seed;
  std::vector<int>& node_of;
  std::vector<int> local;  // global vertex -> index in the current subgraph, -1 outside

  template <class It>
  long long slots_of(It begin, It end) const {
    long long total = 0;
    for (It i = begin; i != end; ++i) total += allocation.slots(*i);
    return total;
  }

  // The network's split (Torus: across the widest dimension, between coordinates).
  void split_nodes(std::vector<int>& nodes, size_t& half) const { torus.split(nodes, half); }

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
      real_t tpwgts[2] = {static_cast<real_t>(first) / static_cast<real_t>(n),
                          1 - static_cast<real_t>(first) / static_cast<real_t>(n)};
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

  // A node of `nodes` near their middle: where the vertices of this domain
  // are assumed to be until the recursion places them.
  int representative(const std::vector<int>& nodes) const { return torus.representative(nodes); }

  // Pull of the vertices in [b, e) towards node `at`, from their edges to
  // vertices outside the domain being split (at their current representative).
  double external_cost(const std::vector<int>& verts, size_t b, size_t e, int at) const {
    double cost = 0;
    for (size_t i = b; i < e; ++i) {
      const int v = verts[i];
      for (auto k = g.xadj[v]; k < g.xadj[v + 1]; ++k) {
        const int q = g.adjncy[k];
        if (domain[q] != domain[v]) cost += g.weight[k] * torus.weighted_distance(at, node_of[q]);
      }
    }
    return cost;
  }

  // Kernighan-Lin style pair swaps between the two halves [0, f) -> r0 and
  // [f, n) -> r1 that lower the cut (priced at the distance between the
  // halves) plus the distance to partners outside (at their current place).
  // This is what METIS cannot see: it bisects without knowing where the rest
  // of the graph sits. Swaps keep both sizes exact.
  void refine_split(std::vector<int>& verts, size_t f, int r0, int r1) {
    const size_t n = verts.size();
    if (f == 0 || f == n) return;
    const double d01 = torus.weighted_distance(r0, r1);
    for (size_t i = 0; i < n; ++i) local[verts[i]] = static_cast<int>(i);
    std::vector<double> gain(n);  // cost change if the vertex alone switched sides
    std::vector<size_t> side0, side1;
    for (int pass = 0; pass < 4; ++pass) {
      for (size_t i = 0; i < n; ++i) {
        const int v = verts[i];
        const bool in0 = i < f;
        double d = 0;
        for (auto e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
          const int q = g.adjncy[e];
          const int li = local[q];
          if (li >= 0) {
            const bool q0 = static_cast<size_t>(li) < f;
            d += g.weight[e] * d01 * (q0 == in0 ? 1.0 : -1.0);
          } else {
            d += g.weight[e] * (torus.weighted_distance(in0 ? r1 : r0, node_of[q]) -
                                torus.weighted_distance(in0 ? r0 : r1, node_of[q]));
          }
        }
        gain[i] = d;
      }
      side0.clear();
      side1.clear();
      for (size_t i = 0; i < n; ++i)
        if (gain[i] < 0) (i < f ? side0 : side1).push_back(i);
      auto by_gain = [&](size_t a, size_t b) { return gain[a] != gain[b] ? gain[a] < gain[b] : a < b; };
      std::sort(side0.begin(), side0.end(), by_gain);
      std::sort(side1.begin(), side1.end(), by_gain);
      // Pair the most eager movers of each side; a pair's estimate ignores
      // edges among other pairs, so each pass recomputes from scratch.
      std::vector<char> moved(n, 0);
      int swaps = 0;
      for (size_t k = 0; k < std::min(side0.size(), side1.size()); ++k) {
        const size_t a = side0[k], b = side1[k];
        double ab = 0;
        const int va = verts[a], vb = verts[b];
        for (auto e = g.xadj[va]; e < g.xadj[va + 1]; ++e)
          if (g.adjncy[e] == vb) ab = g.weight[e];
        bool touched = false;
        for (size_t x : {a, b})
          for (auto e = g.xadj[verts[x]]; e < g.xadj[verts[x] + 1]; ++e) {
            const int li = local[g.adjncy[e]];
            if (li >= 0 && moved[static_cast<size_t>(li)]) touched = true;
          }
        if (touched || gain[a] + gain[b] + 2 * ab * d01 >= 0) continue;
        std::swap(verts[a], verts[b]);
        local[verts[a]] = static_cast<int>(a);
        local[verts[b]] = static_cast<int>(b);
        moved[a] = moved[b] = 1;
        ++swaps;
      }
      if (swaps == 0) break;
    }
    for (int v : verts) local[v] = -1;
  }

  struct Job {
    std::vector<int> verts, nodes;
  };
  std::vector<int> domain;  // id of the job a vertex currently belongs to

  // Breadth first, so that when a domain is split every other vertex is
  // already placed at the same granularity: the two halves can then be
  // oriented towards the neighbours they talk to (Scotch's external gains,
  // reduced to the choice of orientation).
  void run(std::vector<int> all_verts, std::vector<int> all_nodes) {
    std::vector<Job> level, next;
    int next_id = 1;
    domain.assign(static_cast<size_t>(g.vertices), 0);
    const int rep0 = representative(all_nodes);
    for (int v : all_verts) node_of[v] = rep0;
    level.push_back(Job{std::move(all_verts), std::move(all_nodes)});
    while (!level.empty()) {
      next.clear();
      for (Job& job : level) {
        if (job.verts.empty()) continue;
        if (job.nodes.size() == 1) {
          for (int v : job.verts) node_of[v] = job.nodes[0];
          continue;
        }
        size_t half = 0;
        split_nodes(job.nodes, half);
        std::vector<int> nodes0(job.nodes.begin(), job.nodes.begin() + static_cast<long>(half));
        std::vector<int> nodes1(job.nodes.begin() + static_cast<long>(half), job.nodes.end());
        const long long n = static_cast<long long>(job.verts.size());
        const long long slots0 = slots_of(job.nodes.begin(), job.nodes.begin() + static_cast<long>(half));
        const long long slots = slots0 + slots_of(job.nodes.begin() + static_cast<long>(half), job.nodes.end());
        // Ranks in proportion to slots, within both halves' capacity.
        long long first = (n * slots0 + slots / 2) / slots;
        first = std::max(first, n - (slots - slots0));
        first = std::min(first, slots0);
        bisect(job.verts, static_cast<int>(first));
        const size_t f = static_cast<size_t>(first);
        const int rep0h = representative(nodes0), rep1h = representative(nodes1);
        if (2 * f == job.verts.size() && nodes0.size() == nodes1.size()) {
          const double keep = external_cost(job.verts, 0, f, rep0h) + external_cost(job.verts, f, job.verts.size(), rep1h);
          const double flip = external_cost(job.verts, 0, f, rep1h) + external_cost(job.verts, f, job.verts.size(), rep0h);
          if (flip < keep) std::swap(nodes0, nodes1);
        }
        const int r0 = representative(nodes0), r1 = representative(nodes1);
        refine_split(job.verts, f, r0, r1);
        Job a{std::vector<int>(job.verts.begin(), job.verts.begin() + static_cast<long>(f)), std::move(nodes0)};
        Job b{std::vector<int>(job.verts.begin() + static_cast<long>(f), job.verts.end()), std::move(nodes1)};
        const int ida = next_id++, idb = next_id++;
        for (int v : a.verts) {
          domain[v] = ida;
          node_of[v] = r0;
        }
        for (int v : b.verts) {
          domain[v] = idb;
          node_of[v] = r1;
        }
        next.push_back(std::move(a));
        next.push_back(std::move(b));
      }
      level.swap(next);
    }
  }
};

}  // namespace

std::vector<int> recursive_bisection_map(const CommGraph& graph, const Network& torus, const Allocation& allocation,
                                         std::uint64_t seed) {
  const std::vector<int>& nodes = allocation.nodes();
  std::vector<int> node_of(static_cast<size_t>(graph.vertices), nodes.front());
  Bisector b{graph, torus, allocation, seed, node_of, std::vector<int>(static_cast<size_t>(graph.vertices), -1), {}};
  std::vector<int> verts(static_cast<size_t>(graph.vertices));
  std::iota(verts.begin(), verts.end(), 0);
  b.run(std::move(verts), nodes);
  return node_of;
}

}  // namespace rankmap::detail
