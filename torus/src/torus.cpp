#include "rankmap/torus.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "rankmap/limits.hpp"

namespace rankmap {


Result<Torus> Torus::create(std::vector<int> sizes, std::vector<bool> wrap, std::vector<int> links,
                            double link_bw) {
  const size_t dims = sizes.size();
  if (dims < 1 || dims > kMaxDims) return make_error("a torus has 1 to 8 dimensions, not " + std::to_string(dims));
  if (wrap.size() != dims) return make_error("wrap has " + std::to_string(wrap.size()) + " dimensions, torus has " + std::to_string(dims));
  if (links.size() != dims) return make_error("links has " + std::to_string(links.size()) + " dimensions, torus has " + std::to_string(dims));
  if (!(link_bw > 0)) return make_error("link bandwidth must be positive");
  long long nodes = 1;
  for (size_t d = 0; d < dims; ++d) {
    if (sizes[d] < 1) return make_error("dimension sizes must be >= 1");
    if (links[d] < 1) return make_error("links per dimension must be >= 1");
    nodes *= sizes[d];
    if (nodes > limits::kMaxNodes)
      return make_error("torus has more than " + std::to_string(limits::kMaxNodes) + " nodes, the limit");
  }

  Torus t;
  t.sizes_ = std::move(sizes);
  t.wrap_ = std::move(wrap);
  t.links_ = std::move(links);
  t.link_bw_ = link_bw;
  t.nodes_ = static_cast<int>(nodes);
  for (size_t d = 0; d < dims; ++d) t.ring_size_[d] = t.wrap_[d] ? t.sizes_[d] : 0;
  t.strides_.resize(dims);
  int stride = 1;
  for (size_t d = 0; d < dims; ++d) {
    t.strides_[d] = stride;
    stride *= t.sizes_[d];
  }
  t.coords_.resize(static_cast<size_t>(t.nodes_) * dims);
  for (int n = 0; n < t.nodes_; ++n)
    for (size_t d = 0; d < dims; ++d) t.coords_[static_cast<size_t>(n) * dims + d] = (n / t.strides_[d]) % t.sizes_[d];

  t.build_distance_table();
  if (t.nodes_ > kDistanceTableNodes && *std::max_element(t.sizes_.begin(), t.sizes_.end()) <= kDistanceTableNodes) {
    // Blocks of consecutive dimensions, each as large as the limit allows.
    std::vector<size_t> first;  // first dimension of every block
    for (size_t d = 0, product = kDistanceTableNodes + 1; d < dims; ++d) {
      if (product * static_cast<size_t>(t.sizes_[d]) > static_cast<size_t>(kDistanceTableNodes)) {
        first.push_back(d);
        product = 1;
      }
      product *= static_cast<size_t>(t.sizes_[d]);
    }
    first.push_back(dims);
    const size_t blocks = first.size() - 1;
    t.block_index_.resize(static_cast<size_t>(t.nodes_) * 2 * blocks);
    for (size_t k = 0; k < blocks; ++k) {
      const int block_stride = t.strides_[first[k]];
      const int block_size = first[k + 1] < dims ? t.strides_[first[k + 1]] / block_stride : t.nodes_ / block_stride;
      // At most 8 tables of at most kDistanceTableNodes^2 entries: int offsets.
      const int table_start = static_cast<int>(t.block_table_.size());
      // Node i * block_stride has coordinate i in this block and 0 elsewhere.
      for (int x = 0; x < block_size; ++x)
        for (int y = 0; y < block_size; ++y)
          t.block_table_.push_back(t.weighted_distance_computed(x * block_stride, y * block_stride));
      for (int n = 0; n < t.nodes_; ++n) {
        const int c = (n / block_stride) % block_size;
        t.block_index_[(static_cast<size_t>(n) * blocks + k) * 2] = table_start + c * block_size;
        t.block_index_[(static_cast<size_t>(n) * blocks + k) * 2 + 1] = c;
      }
    }
    t.blocks_ = static_cast<int>(blocks);
  }
  return t;
}

std::vector<int> Torus::coords(int node) const {
  return std::vector<int>(coords_.begin() + static_cast<long>(node) * dims(),
                          coords_.begin() + static_cast<long>(node + 1) * dims());
}

int Torus::node_at(const std::vector<int>& c) const {
  int node = 0;
  for (int d = 0; d < dims(); ++d) node += c[d] * strides_[d];
  return node;
}

std::string Torus::node_label(int node) const {
  std::string s = "(";
  for (int d = 0; d < dims(); ++d) s += (d ? "," : "") + std::to_string(coord(node, d));
  return s + ")";
}

void Torus::neighbors(int node, std::vector<int>& out) const {
  out.clear();
  for (int d = 0; d < dims(); ++d)
    for (Direction dir : {Direction::plus, Direction::minus}) {
      const int b = neighbor(node, d, dir);
      if (b >= 0) out.push_back(b);
    }
}

void Torus::split(std::vector<int>& nodes, size_t& half) const {
  int best_d = 0, best_span = -1;
  for (int d = 0; d < dims(); ++d) {
    std::vector<int> cs;
    for (int a : nodes) cs.push_back(coord(a, d));
    std::sort(cs.begin(), cs.end());
    const int span = static_cast<int>(std::unique(cs.begin(), cs.end()) - cs.begin());
    if (span > best_span || (span == best_span && links(d) < links(best_d))) {
      best_span = span;
      best_d = d;
    }
  }
  std::stable_sort(nodes.begin(), nodes.end(), [&](int a, int b) { return coord(a, best_d) < coord(b, best_d); });
  half = nodes.size() / 2;
  size_t lo = half, hi = half;
  while (lo > 0 && coord(nodes[lo - 1], best_d) == coord(nodes[lo], best_d)) --lo;
  while (hi < nodes.size() && coord(nodes[hi - 1], best_d) == coord(nodes[hi], best_d)) ++hi;
  if (lo == 0 && hi == nodes.size()) return;  // cannot happen with span > 1
  half = (lo > 0 && (half - lo <= hi - half || hi == nodes.size())) ? lo : hi;
}

int Torus::representative(const std::vector<int>& nodes) const {
  std::vector<int> c(static_cast<size_t>(dims()));
  std::vector<int> cs;
  for (int d = 0; d < dims(); ++d) {
    cs.clear();
    for (int a : nodes) cs.push_back(coord(a, d));
    std::nth_element(cs.begin(), cs.begin() + static_cast<long>(cs.size() / 2), cs.end());
    c[d] = cs[cs.size() / 2];
  }
  const int mid = node_at(c);
  return std::find(nodes.begin(), nodes.end(), mid) != nodes.end() ? mid : nodes[nodes.size() / 2];
}

bool Torus::vertex_transitive() const {
  for (int d = 0; d < dims(); ++d)
    if (!wraps(d) && size(d) > 2) return false;
  return true;
}

int Torus::neighbor(int node, int d, Direction dir) const {
  const int n = sizes_[d];
  if (n == 1) return -1;
  const int c = coord(node, d);
  int next = dir == Direction::plus ? c + 1 : c - 1;
  if (next < 0 || next >= n) {
    if (!wrap_[d]) return -1;
    next = (next + n) % n;
  }
  return node + (next - c) * strides_[d];
}

int Torus::dim_moves(int a, int b, int d) const { return dim_move(d, coord(a, d), coord(b, d)); }

int Torus::hops(int a, int b) const {
  int h = 0;
  for (int d = 0; d < dims(); ++d) h += dim_distance(d, coord(a, d), coord(b, d));
  return h;
}

int Torus::cuts_along(int d) const {
  const int s = sizes_[d];
  if (s < 2) return 0;
  if (ring_size_[d] == 0) return s - 1;  // a chain: a cut after each coordinate but the last
  return s % 2 == 0 ? s / 2 : s;        // a ring: halvings, or near-halvings at half price
}

void Torus::locate_cut(int cut, int& d, int& position) const {
  for (d = 0; d < dims(); ++d) {
    if (cut < cuts_along(d)) {
      position = cut;
      return;
    }
    cut -= cuts_along(d);
  }
  d = -1;
  position = -1;
}

int Torus::distance_cuts() const {
  int total = 0;
  for (int d = 0; d < dims(); ++d) total += cuts_along(d);
  return total;
}

CutPrice Torus::distance_cut_price(int cut) const {
  int d = 0, p = 0;
  locate_cut(cut, d, p);
  if (d < 0) return {};
  const double share = ring_size_[d] != 0 && sizes_[d] % 2 == 1 ? 0.5 : 1.0;
  return {share, share / links_[d]};
}

int Torus::distance_cut_side(int cut, int node) const {
  int d = 0, p = 0;
  locate_cut(cut, d, p);
  if (d < 0) return 0;
  const int c = coord(node, d), s = sizes_[d];
  if (ring_size_[d] == 0) return c <= p ? 0 : 1;  // a chain: cut after coordinate p
  // A ring: the arc of the coordinates after link position p (between p and
  // p + 1), half the ring or (odd) one less than half, against the rest; an
  // even ring's halvings cut each link position once, an odd ring's
  // near-halvings each position twice (at half price).
  const int arc = s % 2 == 0 ? s / 2 : (s - 1) / 2;
  return (c - p - 1 + s) % s < arc ? 0 : 1;
}

double Torus::weighted_distance_computed(int a, int b) const {
  double w = 0;
  for (int d = 0; d < dims(); ++d) w += static_cast<double>(dim_distance(d, coord(a, d), coord(b, d))) / links_[d];
  return w;
}

void Torus::route(int a, int b, std::vector<Hop>& out) const {
  out.clear();
  // The walk neighbor() would make, step by step, with the coordinate kept
  // in hand: the route is the inner loop of the link loads and of the link
  // relief (millions of hops per call at 32k ranks).
  const int nd = dims();
  const int* ca = &coords_[static_cast<size_t>(a) * static_cast<size_t>(nd)];
  const int* cb = &coords_[static_cast<size_t>(b) * static_cast<size_t>(nd)];
  int moves[kMaxDims];
  for (int d = 0; d < nd; ++d) moves[d] = dim_move(d, ca[d], cb[d]);
  int at = a;
  // Positive phase first, then negative phase, each in dimension order. A
  // positive move on a chain never passes its end, so only rings wrap.
  for (int d = 0; d < nd; ++d) {
    int c = ca[d];
    for (int s = 0; s < moves[d]; ++s) {
      const int next = c + 1 == sizes_[d] ? at - c * strides_[d] : at + strides_[d];
      out.push_back(Hop{at, next, d, Direction::plus, (at * nd + d) * 2});
      at = next;
      c = c + 1 == sizes_[d] ? 0 : c + 1;
    }
  }
  for (int d = 0; d < nd; ++d) {
    // The positive phase left this dimension's coordinate as a's.
    int c = ca[d];
    for (int s = 0; s < -moves[d]; ++s) {
      const int next = c == 0 ? at + (sizes_[d] - 1) * strides_[d] : at - strides_[d];
      out.push_back(Hop{at, next, d, Direction::minus, (at * nd + d) * 2 + 1});
      at = next;
      c = c == 0 ? sizes_[d] - 1 : c - 1;
    }
  }
}

bool Torus::link_exists(int link) const {
  if (link < 0 || link >= link_slots()) return false;
  const int dir = link % 2;
  const int d = (link / 2) % dims();
  const int node = link / (2 * dims());
  const int n = sizes_[d];
  if (n == 1) return false;
  // On a size-2 ring the routing always goes "+", which reaches the only neighbour.
  if (wrap_[d] && n == 2) return dir == 0;
  return neighbor(node, d, static_cast<Direction>(dir)) >= 0;
}

double Torus::link_capacity(int link) const {
  const int d = (link / 2) % dims();
  return links_[d] * link_bw_;
}

int Torus::diameter() const {
  // The farthest coordinate along a ring is half way round, along a chain the other end.
  int dia = 0;
  for (int d = 0; d < dims(); ++d) dia += wrap_[d] ? sizes_[d] / 2 : sizes_[d] - 1;
  return dia;
}

double Torus::mean_hops() const {
  // Hop distance is a sum over dimensions, and over all ordered pairs every
  // coordinate pair of a dimension appears equally often: the mean is the sum
  // of the per-dimension means. The sum over a dimension's n^2 coordinate
  // pairs takes O(n): a ring looks the same from every coordinate, so it is n
  // times the sum from coordinate 0; a chain has 2 (n - k) pairs k apart.
  // (Exact integers, so the mean is what summing all pairs gives.)
  double mean = 0;
  for (int d = 0; d < dims(); ++d) {
    const long long n = sizes_[d];
    long long sum = 0;
    if (wrap_[d]) {
      for (int b = 0; b < n; ++b) sum += std::abs(dim_move(d, 0, b));
      sum *= n;
    } else {
      for (long long k = 1; k < n; ++k) sum += 2 * k * (n - k);
    }
    mean += static_cast<double>(sum) / static_cast<double>(static_cast<size_t>(n) * static_cast<size_t>(n));
  }
  return mean;
}

Status Torus::check() const {
  if (sizes_.empty() || sizes_.size() > kMaxDims) return make_error("torus: bad dimension count");
  long long n = 1;
  for (int d = 0; d < dims(); ++d) {
    if (sizes_[d] < 1 || links_[d] < 1) return make_error("torus: bad size or link count in dimension " + std::to_string(d));
    n *= sizes_[d];
  }
  if (n != nodes_) return make_error("torus: node count does not match sizes");
  for (int node = 0; node < nodes_; ++node)
    if (node_at(coords(node)) != node) return make_error("torus: coordinates do not round-trip for node " + std::to_string(node));
  for (int d = 0; d < dims(); ++d)
    for (int a = 0; a < sizes_[d]; ++a)
      if (dim_distance(d, a, a) != 0) return make_error("torus: nonzero self distance");
  return Network::check();
}

double mapping_gain_estimate(double p_mpi, const LatencyModel& model, int diameter) {
  if (diameter <= 1) return 0.0;
  return p_mpi * model.t_hop * (diameter - 1) / (model.t_inj + model.t_hop * diameter);
}

}  // namespace rankmap
