#include <algorithm>

#include "detail.hpp"
#include "parallel.hpp"

namespace rankmap::detail {

namespace {

constexpr int kMultiStartRanks = 64;     // more ranks on a node: one greedy fill only
constexpr int kAllStartsRanks = 16;      // up to here, a fill from every rank
constexpr int kLeastAttachedStarts = 8;  // above, from the 8 least attached

std::vector<std::vector<int>> ranks_per_node(const std::vector<int>& node_of, int torus_nodes) {
  std::vector<std::vector<int>> members(static_cast<size_t>(torus_nodes));
  for (int r = 0; r < static_cast<int>(node_of.size()); ++r) members[node_of[r]].push_back(r);
  return members;
}

}  // namespace

int nodes_needed(const Allocation& allocation, int ranks) {
  int used = 0;
  for (long long held = 0; held < ranks && used < allocation.size(); ++used)
    held += allocation.slots(allocation.nodes()[static_cast<size_t>(used)]);
  return used;
}

std::vector<int> fill_in_order(const std::vector<int>& order, const Allocation& allocation, int ranks) {
  std::vector<int> node_of(static_cast<size_t>(ranks));
  size_t at = 0;
  int held = 0;
  for (int r = 0; r < ranks; ++r) {
    while (held == allocation.slots(order[at])) {
      ++at;
      held = 0;
    }
    node_of[static_cast<size_t>(r)] = order[at];
    ++held;
  }
  return node_of;
}

std::vector<Placement> cores_in_rank_order(const std::vector<int>& node_of, int torus_nodes) {
  std::vector<Placement> out(node_of.size());
  std::vector<int> next(static_cast<size_t>(torus_nodes), 0);
  for (size_t r = 0; r < node_of.size(); ++r) out[r] = Placement{node_of[r], next[node_of[r]]++};
  return out;
}

std::vector<int> cores_to_fill(const NodeTopology& node, int k, CoreFill fill) {
  std::vector<int> cores;
  if (fill == CoreFill::compact || node.packages() < 2 || k >= node.cores()) {
    for (int c = 0; c < k; ++c) cores.push_back(c);
    return cores;
  }
  // spread: the first cores of every package, as even as the counts allow
  // (a package with fewer cores gives up its share to the others).
  std::vector<std::vector<int>> by_package(static_cast<size_t>(node.packages()));
  for (int c = 0; c < node.cores(); ++c) by_package[static_cast<size_t>(node.package_of_core(c))].push_back(c);
  std::vector<size_t> taken(by_package.size(), 0);
  for (int n = 0; n < k;)
    for (size_t p = 0; p < by_package.size() && n < k; ++p)
      if (taken[p] < by_package[p].size()) {
        cores.push_back(by_package[p][taken[p]++]);
        ++n;
      }
  std::sort(cores.begin(), cores.end());
  return cores;
}

std::vector<Placement> cores_by_topology(const CommGraph& graph, const std::vector<int>& node_of,
                                         const NodeKinds& kinds, int torus_nodes, CoreFill fill, int threads) {
  std::vector<Placement> out(node_of.size());
  const std::vector<std::vector<int>> members = ranks_per_node(node_of, torus_nodes);
  // Each node writes only its own ranks' entries (0.1 s at 32k ranks on one thread).
  parallel_for(static_cast<size_t>(torus_nodes), threads, [&](size_t index) {
    const int at = static_cast<int>(index);
    const std::vector<int>& ranks = members[index];
    const int k = static_cast<int>(ranks.size());
    if (k == 0) return;
    const NodeTopology& node = kinds.of(at);
    const int maxd = node.max_core_distance();
    // Local weight matrix of this node's ranks (k <= cores per node: small).
    std::vector<double> w(static_cast<size_t>(k) * k, 0.0);
    for (int i = 0; i < k; ++i) {
      const int u = ranks[i];
      for (auto e = graph.xadj[u]; e < graph.xadj[u + 1]; ++e) {
        auto it = std::lower_bound(ranks.begin(), ranks.end(), graph.adjncy[e]);
        if (it != ranks.end() && *it == graph.adjncy[e]) w[static_cast<size_t>(i) * k + (it - ranks.begin())] = graph.weight[e];
      }
    }
    const std::vector<int> chosen = cores_to_fill(node, k, fill);
    // Greedy fill of the chosen cores in hwloc logical order (which walks
    // caches and packages contiguously): each core takes the unplaced rank
    // with the most traffic to ranks already close to it, closeness = levels
    // shared; the first core takes `first` (-1: the heaviest rank). Then
    // pairwise swaps on sum w x core_distance until no swap helps. Returns
    // that sum.
    auto place_from = [&](int first, std::vector<int>& core_of) {
      core_of.assign(static_cast<size_t>(k), -1);
      std::vector<char> placed(static_cast<size_t>(k), 0);
      size_t next = 0;
      if (first >= 0) {
        placed[static_cast<size_t>(first)] = 1;
        core_of[static_cast<size_t>(first)] = chosen[next++];
      }
      for (; next < chosen.size(); ++next) {
        const int c = chosen[next];
        int best = -1;
        double best_score = -1;
        for (int i = 0; i < k; ++i) {
          if (placed[i]) continue;
          double score = 0;
          for (int j = 0; j < k; ++j)
            if (placed[j]) score += w[static_cast<size_t>(i) * k + j] * (maxd + 1 - node.core_distance(c, core_of[j]));
          // Starting a fresh package: take the rank with the heaviest total so the
          // heavy cluster forms around it.
          if (score == 0)
            for (int j = 0; j < k; ++j) score += 1e-12 * w[static_cast<size_t>(i) * k + j];
          if (score > best_score) {
            best_score = score;
            best = i;
          }
        }
        placed[best] = 1;
        core_of[best] = c;
      }
      auto cost_of = [&](int i, int ci) {
        double s = 0;
        for (int j = 0; j < k; ++j)
          if (j != i) s += w[static_cast<size_t>(i) * k + j] * node.core_distance(ci, core_of[j]);
        return s;
      };
      for (int pass = 0; pass < 4; ++pass) {
        bool moved = false;
        for (int i = 0; i < k; ++i)
          for (int j = i + 1; j < k; ++j) {
            const int ci = core_of[i], cj = core_of[j];
            const double before = cost_of(i, ci) + cost_of(j, cj);
            std::swap(core_of[i], core_of[j]);
            const double after = cost_of(i, cj) + cost_of(j, ci);
            if (after < before - 1e-9 * (before + 1)) moved = true;
            else std::swap(core_of[i], core_of[j]);
          }
        if (!moved) break;
      }
      double total = 0;
      for (int i = 0; i < k; ++i) total += cost_of(i, core_of[i]);
      return total;
    };
    std::vector<int> core_of, trial;
    double cost = place_from(-1, core_of);
    // Pairwise swaps stop in local optima that matter across packages: a
    // chain of 12 ranks grown from its middle over 2 x 6 cores ends with both
    // of its ends in the second package (two crossings where one would do).
    // Greedy fills grown from the least attached ranks (a chain's ends, a
    // cluster's border) as well, the cheapest kept; only where the chosen
    // cores are not all equally far apart, and on nodes of a few dozen ranks
    // (the fill is cubic in them).
    bool levels = false;
    for (size_t x = 1; x < chosen.size() && !levels; ++x)
      levels = node.core_distance(chosen[0], chosen[x]) != node.core_distance(chosen[0], chosen[1]);
    if (levels && k <= kMultiStartRanks) {
      std::vector<std::pair<double, int>> by_attachment;
      for (int i = 0; i < k; ++i) {
        double total = 0;
        for (int j = 0; j < k; ++j) total += w[static_cast<size_t>(i) * k + j];
        by_attachment.push_back({total, i});
      }
      std::sort(by_attachment.begin(), by_attachment.end());
      const int starts = k <= kAllStartsRanks ? k : kLeastAttachedStarts;
      for (int s = 0; s < starts; ++s) {
        const double c = place_from(by_attachment[static_cast<size_t>(s)].second, trial);
        if (c < cost - 1e-9 * (cost + 1)) {
          cost = c;
          core_of.swap(trial);
        }
      }
    }
    for (int i = 0; i < k; ++i) out[ranks[i]] = Placement{node_of[ranks[i]], core_of[i]};
  });
  return out;
}

}  // namespace rankmap::detail
