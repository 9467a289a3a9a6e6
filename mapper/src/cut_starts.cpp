// A placement built cut by cut (docs/mapper.md, the default's step 3, "the
// side lineage"). A network's distance cuts (Network::distance_cuts) are
// bipartitions of its nodes whose prices, summed over the cuts that separate
// two nodes, give their weighted distance; so a placement's weighted cost is
// the sum, over the cuts, of price x the weight of the edges whose ends it
// separates. Where every cut halves every set of nodes the earlier cuts
// leave together (a torus whose rings have 2 or 4 nodes: desmos's 4x2x2x2 is
// a 5-bit cube, 4x4x4 a 6-bit one), any choice of sides that halves each
// such set of ranks is a full placement, one balanced bisection per cut.
//
// The searches move a rank or a node at a time and find the cheapest
// bisections only at some seeds (on recorded ADI at 192 ranks on desmos the
// cheaper seeds' mappings share the two cheapest orthogonal bisections, the
// dearer ones miss them). Here the cuts are chosen in turn, dearest price
// first, each the lightest of several tries: every set of ranks halved by
// METIS (large sets) or at random, the halves of each set oriented so that
// edges between sets cross the cut as little as possible, then swaps within
// the sets while one gains, then Kernighan-Lin passes. Deterministic: the
// caller's seed only (the default passes a fixed one).
#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

#include "detail.hpp"

namespace rankmap::detail {

namespace {

// Starts of each cut's bisection: METIS at consecutive seeds, then random
// halves while the cut's share of kWork lasts; the lightest after
// orientation, swaps and passes is kept.
constexpr int kMetisTries = 4;
constexpr int kRandomTries = 64;
// METIS halves only sets of at least this many ranks (a call costs ~0.5 ms;
// smaller sets start from random halves in those tries too).
constexpr int kMetisMinSet = 64;
// Edge visits (and swap pairs scanned) for all the random starts of all the
// cuts: ~0.05 s; 64 random starts per cut on recorded ADI at 192 ranks on
// desmos, fewer on larger jobs.
constexpr std::int64_t kWork = 20'000'000;
// Orientation passes over the sets (each pass flips a set only on a gain).
constexpr int kOrientationPasses = 16;
// Kernighan-Lin passes per set and bisection, at most; each step scans every
// pair of a set's two unlocked halves up to kFullScan pairs, else the
// kSwapCandidates ranks of largest gain on each side.
constexpr int kPasses = 4;
constexpr size_t kFullScan = 4096;
constexpr size_t kSwapCandidates = 8;

// The graph induced by `members` (vertex i = members[i]); `index` maps a
// rank to its position in members or -1, and is left as it was.
CommGraph induced(const CommGraph& g, const std::vector<int>& members, std::vector<int>& index) {
  CommGraph sub;
  sub.vertices = static_cast<int>(members.size());
  sub.xadj.assign(members.size() + 1, 0);
  for (size_t i = 0; i < members.size(); ++i) index[static_cast<size_t>(members[i])] = static_cast<int>(i);
  for (size_t i = 0; i < members.size(); ++i) {
    const int v = members[i];
    for (auto e = g.xadj[v]; e < g.xadj[v + 1]; ++e) {
      const int j = index[static_cast<size_t>(g.adjncy[e])];
      if (j < 0) continue;
      sub.adjncy.push_back(j);
      sub.weight.push_back(g.weight[e]);
    }
    sub.xadj[i + 1] = static_cast<std::int64_t>(sub.adjncy.size());
  }
  for (int v : members) index[static_cast<size_t>(v)] = -1;
  return sub;
}

// One cut's bisection of every set of ranks, from a start (METIS's halves
// of each set, or random ones), then oriented, swapped and passed over.
class Bisection {
 public:
  Bisection(const CommGraph& g, const std::vector<int>& rank_set, int sets)
      : g_(g), rank_set_(rank_set), members_(static_cast<size_t>(sets)), side_(static_cast<size_t>(g.vertices), 0),
        gain_(static_cast<size_t>(g.vertices), 0), tolerance_(1e-12 * g.total_weight()) {
    for (int v = 0; v < g.vertices; ++v) members_[static_cast<size_t>(rank_set[static_cast<size_t>(v)])].push_back(v);
  }
  const std::vector<std::vector<int>>& members() const { return members_; }
  std::vector<int>& side() { return side_; }
  std::int64_t work() const { return work_; }

  // From the sides set in side(): orientation, swaps, Kernighan-Lin passes;
  // returns the weight of the edges the cut separates.
  double improve() {
    orient();
    swap();
    kl_passes();
    double weight = 0;
    for (int v = 0; v < g_.vertices; ++v)
      for (auto e = g_.xadj[v]; e < g_.xadj[v + 1]; ++e)
        if (side_[static_cast<size_t>(v)] != side_[static_cast<size_t>(g_.adjncy[e])]) weight += g_.weight[e];
    work_ += static_cast<std::int64_t>(g_.adjncy.size());
    return weight / 2;
  }

 private:
  // A set's halves swap sides where that lowers the weight of its edges to
  // other sets that cross the cut (its own edges are unchanged).
  void orient() {
    for (int pass = 0; pass < kOrientationPasses; ++pass) {
      bool flipped = false;
      for (size_t s = 0; s < members_.size(); ++s) {
        double flip_gain = 0;
        for (int v : members_[s])
          for (auto e = g_.xadj[v]; e < g_.xadj[v + 1]; ++e) {
            const int u = g_.adjncy[e];
            if (rank_set_[static_cast<size_t>(u)] == static_cast<int>(s)) continue;
            flip_gain += side_[static_cast<size_t>(u)] != side_[static_cast<size_t>(v)] ? g_.weight[e] : -g_.weight[e];
          }
        if (flip_gain > tolerance_) {
          for (int v : members_[s]) side_[static_cast<size_t>(v)] ^= 1;
          flipped = true;
        }
      }
      work_ += static_cast<std::int64_t>(g_.adjncy.size());
      if (!flipped) break;
    }
  }

  double gain_of(int v) {
    double d = 0;
    for (auto e = g_.xadj[v]; e < g_.xadj[v + 1]; ++e)
      d += side_[static_cast<size_t>(g_.adjncy[e])] != side_[static_cast<size_t>(v)] ? g_.weight[e] : -g_.weight[e];
    work_ += g_.xadj[v + 1] - g_.xadj[v];
    return d;
  }

  void init_gains() {
    for (int v = 0; v < g_.vertices; ++v) gain_[static_cast<size_t>(v)] = gain_of(v);
  }

  // The swap of an unlocked rank of each half of set `m` that saves the
  // most cut weight, if it saves more than `floor`: over every pair up to
  // kFullScan pairs, else over the kSwapCandidates ranks of largest gain on
  // each side. Returns false where there is none.
  bool best_swap(const std::vector<int>& m, double floor, int& bu, int& bv, double& saved) {
    zero_.clear();
    one_.clear();
    for (int v : m)
      if (!locked_[static_cast<size_t>(v)]) (side_[static_cast<size_t>(v)] ? one_ : zero_).push_back(v);
    work_ += static_cast<std::int64_t>(m.size());
    if (zero_.size() * one_.size() > kFullScan)
      for (std::vector<int>* list : {&zero_, &one_}) {
        const auto k = static_cast<std::ptrdiff_t>(std::min(kSwapCandidates, list->size()));
        std::partial_sort(list->begin(), list->begin() + k, list->end(), [&](int a, int b) {
          return gain_[static_cast<size_t>(a)] > gain_[static_cast<size_t>(b)] ||
                 (gain_[static_cast<size_t>(a)] == gain_[static_cast<size_t>(b)] && a < b);
        });
        list->resize(static_cast<size_t>(k));
      }
    work_ += static_cast<std::int64_t>(zero_.size() * one_.size());
    saved = floor;
    bu = bv = -1;
    for (int u : zero_)
      for (int v : one_) {
        const double pair = gain_[static_cast<size_t>(u)] + gain_[static_cast<size_t>(v)];
        if (pair <= saved) continue;
        const double d = pair - 2 * edge_weight(g_, u, v);
        if (d > saved) {
          saved = d;
          bu = u;
          bv = v;
        }
      }
    return bu >= 0;
  }

  // Swaps two ranks of a set's two halves; their gains and their partners'.
  void flip(int u, int v) {
    side_[static_cast<size_t>(u)] ^= 1;
    side_[static_cast<size_t>(v)] ^= 1;
    for (int w : {u, v}) {
      gain_[static_cast<size_t>(w)] = gain_of(w);
      for (auto e = g_.xadj[w]; e < g_.xadj[w + 1]; ++e) gain_[static_cast<size_t>(g_.adjncy[e])] = gain_of(g_.adjncy[e]);
    }
  }

  // Swaps within each set (its halves stay equal), the best first, while
  // one lowers the cut.
  void swap() {
    init_gains();
    locked_.assign(static_cast<size_t>(g_.vertices), 0);
    int u = -1, v = -1;
    double saved = 0;
    for (bool improved = true; improved;) {
      improved = false;
      for (const std::vector<int>& m : members_)
        for (size_t swaps = 0; swaps < m.size() && best_swap(m, tolerance_, u, v, saved); ++swaps) {
          improved = true;
          flip(u, v);
        }
    }
  }

  // Kernighan-Lin passes within each set (its halves stay equal): the best
  // swap of two unlocked ranks, even uphill, then both locked, until one
  // side runs out; the pass keeps its most profitable prefix. Passes repeat
  // while one gains (at most kPasses): unlike swaps that must each gain,
  // a pass shifts a whole block of a half (a path's halves slide along it).
  void kl_passes() {
    init_gains();
    std::vector<std::pair<int, int>> made;
    int u = -1, v = -1;
    double saved = 0;
    for (const std::vector<int>& m : members_)
      for (int pass = 0; pass < kPasses; ++pass) {
        made.clear();
        double total = 0, best_total = tolerance_;
        size_t best_length = 0;
        while (best_swap(m, -std::numeric_limits<double>::infinity(), u, v, saved)) {
          flip(u, v);
          locked_[static_cast<size_t>(u)] = locked_[static_cast<size_t>(v)] = 1;
          made.emplace_back(u, v);
          total += saved;
          if (total > best_total) {
            best_total = total;
            best_length = made.size();
          }
        }
        for (size_t i = made.size(); i > best_length; --i) flip(made[i - 1].first, made[i - 1].second);
        for (int w : m) locked_[static_cast<size_t>(w)] = 0;
        if (best_length == 0) break;
      }
  }

  const CommGraph& g_;
  const std::vector<int>& rank_set_;
  std::vector<std::vector<int>> members_;
  std::vector<int> side_;
  std::vector<double> gain_;  // cut weight saved by moving the rank alone to the other side
  std::vector<int> zero_, one_;
  std::vector<char> locked_;
  const double tolerance_;
  std::int64_t work_ = 0;
};

}  // namespace

std::vector<int> distance_cut_start(const CommGraph& g, const Network& net, const Allocation& allocation, int ranks,
                                    std::uint64_t seed) {
  const int cuts = net.distance_cuts();
  const std::vector<int>& nodes = allocation.nodes();
  if (cuts == 0 || !allocation.uniform() || static_cast<int>(nodes.size()) != net.nodes() ||
      ranks != static_cast<int>(nodes.size()) * allocation.max_slots() || ranks != g.vertices)
    return {};
  std::vector<int> order(static_cast<size_t>(cuts));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return net.distance_cut_price(a).weighted > net.distance_cut_price(b).weighted;
  });
  // Node sets, cut by cut: every cut must halve every set, and the last
  // cut leave one node in each (else the cost does not separate).
  std::vector<int> node_set(static_cast<size_t>(net.nodes()), 0);
  int sets = 1;
  for (int c : order) {
    std::vector<int> count(static_cast<size_t>(sets) * 2, 0);
    for (int a : nodes) ++count[static_cast<size_t>(node_set[static_cast<size_t>(a)] * 2 + net.distance_cut_side(c, a))];
    for (int s = 0; s < sets; ++s)
      if (count[static_cast<size_t>(2 * s)] != count[static_cast<size_t>(2 * s + 1)]) return {};
    for (int a : nodes) node_set[static_cast<size_t>(a)] = node_set[static_cast<size_t>(a)] * 2 + net.distance_cut_side(c, a);
    sets *= 2;
  }
  if (sets != static_cast<int>(nodes.size())) return {};
  std::vector<int> node_of_set(static_cast<size_t>(sets), -1);
  for (int a : nodes) node_of_set[static_cast<size_t>(node_set[static_cast<size_t>(a)])] = a;

  // The ranks' sets, cut by cut, each cut the lightest of its bisections.
  const int n = g.vertices;
  std::vector<int> rank_set(static_cast<size_t>(n), 0), index(static_cast<size_t>(n), -1), best_side;
  const std::int64_t work_per_cut = kWork / cuts;
  sets = 1;
  for (size_t step = 0; step < order.size(); ++step, sets *= 2) {
    std::mt19937_64 rng(seed + step);
    double lightest = std::numeric_limits<double>::infinity();
    std::int64_t work = 0;
    for (int t = 0; t < kMetisTries + kRandomTries && (t < kMetisTries || work < work_per_cut); ++t) {
      Bisection b(g, rank_set, sets);
      for (const std::vector<int>& m : b.members()) {
        if (t < kMetisTries && static_cast<int>(m.size()) >= kMetisMinSet) {
          const std::vector<int> part = partition_groups(induced(g, m, index), 2, static_cast<int>(m.size()) / 2,
                                                         seed + static_cast<std::uint64_t>(t));
          for (size_t i = 0; i < m.size(); ++i) b.side()[static_cast<size_t>(m[i])] = part[i];
        } else {
          std::vector<int> shuffled = m;
          std::shuffle(shuffled.begin(), shuffled.end(), rng);
          for (size_t i = shuffled.size() / 2; i < shuffled.size(); ++i) b.side()[static_cast<size_t>(shuffled[i])] = 1;
        }
      }
      const double weight = b.improve();
      if (t >= kMetisTries) work += b.work();
      if (weight < lightest) {
        lightest = weight;
        best_side = b.side();
      }
    }
    for (int v = 0; v < n; ++v)
      rank_set[static_cast<size_t>(v)] = rank_set[static_cast<size_t>(v)] * 2 + best_side[static_cast<size_t>(v)];
  }
  std::vector<int> node_of(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) node_of[static_cast<size_t>(v)] = node_of_set[static_cast<size_t>(rank_set[static_cast<size_t>(v)])];
  return node_of;
}

}  // namespace rankmap::detail
