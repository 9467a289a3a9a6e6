// Synthetic profiles: the patterns benchmarks and tests are built from.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <set>

#include "rankmap/comm_graph.hpp"

namespace rankmap {

const std::vector<std::string>& synth_patterns() {
  static const std::vector<std::string> names = {"stencil2d", "stencil3d", "stencil27", "stencil3d-shuffled",
                                                 "ring",      "alltoall",  "random"};
  return names;
}

std::vector<int> balanced_shape(int n, int dims) {
  // Greedy: the largest divisor not above the remaining dims-th root, peeled
  // from the smallest side up, gives the most cubic factorisation for the
  // smooth numbers used in practice (powers of two, 6 x 2^k, ...).
  std::vector<int> shape;
  int rest = n;
  for (int left = dims; left > 1; --left) {
    const double target = std::pow(static_cast<double>(rest), 1.0 / left);
    int best = 1;
    for (int f = 1; f <= rest; ++f)
      if (rest % f == 0 && f <= target + 1e-9) best = f;
    shape.push_back(best);
    rest /= best;
  }
  shape.push_back(rest);
  std::sort(shape.rbegin(), shape.rend());
  return shape;
}

namespace {

// Periodic grid neighbours within the box offsets [-1, 1]^dims: `full` takes
// all 3^dims - 1 of them (27-point), otherwise only the 2*dims faces.
void grid_pairs(const std::vector<int>& shape, bool full, std::set<std::pair<int, int>>& pairs) {
  const int dims = static_cast<int>(shape.size());
  int n = 1;
  for (int s : shape) n *= s;
  std::vector<int> c(dims), o(dims);
  for (int r = 0; r < n; ++r) {
    int x = r;
    for (int d = 0; d < dims; ++d) {
      c[d] = x % shape[d];
      x /= shape[d];
    }
    int combos = 1;
    for (int d = 0; d < dims; ++d) combos *= 3;
    for (int k = 0; k < combos; ++k) {
      int y = k, nonzero = 0;
      for (int d = 0; d < dims; ++d) {
        o[d] = y % 3 - 1;
        y /= 3;
        nonzero += o[d] != 0;
      }
      if (nonzero == 0 || (!full && nonzero != 1)) continue;
      int q = 0;
      for (int d = dims - 1; d >= 0; --d) q = q * shape[d] + ((c[d] + o[d]) % shape[d] + shape[d]) % shape[d];
      if (q != r) pairs.insert({r, q});
    }
  }
}

}  // namespace

Result<Profile> synthesize(const SynthSpec& spec) {
  const auto& known = synth_patterns();
  if (std::find(known.begin(), known.end(), spec.pattern) == known.end()) {
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    return make_error("unknown pattern '" + spec.pattern + "' (known: " + list + ")");
  }
  if (spec.ranks < 1) return make_error("synthetic pattern needs at least one rank");
  if (spec.bytes == 0 && spec.messages == 0) return make_error("synthetic pattern with no traffic");
  const int n = spec.ranks;
  std::set<std::pair<int, int>> pairs;
  const std::string& p = spec.pattern;
  if (p.rfind("stencil", 0) == 0) {
    const int dims = p == "stencil2d" ? 2 : 3;
    std::vector<int> shape = spec.shape.empty() ? balanced_shape(n, dims) : spec.shape;
    if (static_cast<int>(shape.size()) != dims) return make_error(p + " needs a " + std::to_string(dims) + "-dimensional shape");
    long long prod = 1;
    for (int s : shape) {
      if (s < 1) return make_error("bad grid side");
      prod *= s;
    }
    if (prod != n) return make_error("grid shape does not multiply to " + std::to_string(n) + " ranks");
    grid_pairs(shape, p == "stencil27", pairs);
    if (p == "stencil3d-shuffled") {
      std::vector<int> perm(static_cast<size_t>(n));
      std::iota(perm.begin(), perm.end(), 0);
      std::mt19937_64 rng(spec.seed);
      std::shuffle(perm.begin(), perm.end(), rng);
      std::set<std::pair<int, int>> shuffled;
      for (auto [a, b] : pairs) shuffled.insert({perm[a], perm[b]});
      pairs.swap(shuffled);
    }
  } else if (p == "ring") {
    for (int r = 0; r < n && n > 1; ++r) {
      pairs.insert({r, (r + 1) % n});
      pairs.insert({(r + 1) % n, r});
    }
  } else if (p == "alltoall") {
    if (static_cast<long long>(n) * n > 200'000'000LL) return make_error("alltoall with " + std::to_string(n) + " ranks has too many pairs to write out");
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        if (a != b) pairs.insert({a, b});
  } else if (p == "random") {
    if (spec.degree < 1 || spec.degree >= n) return make_error("random pattern needs 1 <= degree < ranks");
    std::mt19937_64 rng(spec.seed);
    std::uniform_int_distribution<int> pick(0, n - 1);
    for (int a = 0; a < n; ++a) {
      std::set<int> mine;
      while (static_cast<int>(mine.size()) < spec.degree) {
        const int b = pick(rng);
        if (b != a) mine.insert(b);
      }
      for (int b : mine) pairs.insert({a, b});
    }
  }
  Profile prof;
  prof.ranks = n;
  prof.rank_info.assign(static_cast<size_t>(n), RankInfo{"synthetic", -1, 0, 0});
  prof.p2p.reserve(pairs.size());
  for (auto [a, b] : pairs) prof.p2p.push_back(PairTraffic{a, b, spec.messages, spec.bytes});
  return prof;
}

}  // namespace rankmap
