// The first Network of rankmap (network.hpp): a k-ary n-dimensional torus or
// mesh with per-dimension link multiplicity and Angara's direction-ordered
// routing; also the latency model. Knows nothing about MPI.
//
// Node numbering: dimension 0 (X) varies fastest, as in Scotch's torusXD and
// SimGrid's TORUS cluster.
//
// Routing (Angara, direction-ordered): in every dimension the route takes the
// shorter way round the ring; on a tie (the destination exactly half a ring
// away, which includes every move along a size-2 ring) it goes the positive way.
// All positive moves are made first, in dimension order X, Y, Z, K, ...; then
// all negative moves in the same order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rankmap/network.hpp"
#include "rankmap/result.hpp"

namespace rankmap {

// The first Network: everything below that overrides a Network function is
// also what the torus-only algorithms (snake start, folding of a process grid)
// read directly through as_torus().
class Torus final : public Network {
 public:
  static constexpr int kMaxDims = 8;
  // sizes: 1..8 dimensions, each >= 1. wrap[d]: true for a ring, false for a
  // chain. links[d] >= 1: parallel physical links between two neighbours.
  // link_bw: bytes per second of one physical link in one direction.
  static Result<Torus> create(std::vector<int> sizes, std::vector<bool> wrap, std::vector<int> links,
                              double link_bw);

  std::string kind() const override { return "torus"; }
  int dims() const { return static_cast<int>(sizes_.size()); }
  int nodes() const override { return nodes_; }
  // "(x,y,z,...)"
  std::string node_label(int node) const override;
  int size(int d) const { return sizes_[d]; }
  bool wraps(int d) const { return wrap_[d]; }
  int links(int d) const { return links_[d]; }
  double link_bw() const { return link_bw_; }

  int coord(int node, int d) const { return coords_[static_cast<size_t>(node) * sizes_.size() + d]; }
  std::vector<int> coords(int node) const;
  int node_at(const std::vector<int>& coords) const;

  // Neighbour one step along d in direction dir, or -1 at a mesh border or in a size-1 dimension.
  int neighbor(int node, int d, Direction dir) const;

  // Signed number of steps the route makes along d from a to b (0 when equal).
  int dim_moves(int a, int b, int d) const;
  int hops(int a, int b) const override;
  // weighted_distance (Network): the sum over the route of 1 / links[d]; from
  // Network's table up to kDistanceTableNodes nodes, above from its tables
  // over blocks of consecutive dimensions.

  // The route from a to b as directed link traversals, appended to out
  // (cleared first). Empty when a == b.
  void route(int a, int b, std::vector<Hop>& out) const override;
  using Network::route;
  using Network::neighbors;

  // Directed connections are indexed node * 2 * dims + 2 * d + dir. Along a
  // size-2 ring both directions reach the same neighbour and the routing always
  // goes "+", so only the "+" slot exists there: one connection per direction
  // per neighbour pair, with capacity links[d] * link_bw.
  int link_slots() const override { return nodes_ * 2 * dims(); }
  int link_index(int node, int d, Direction dir) const { return (node * dims() + d) * 2 + static_cast<int>(dir); }
  bool link_exists(int link) const override;
  double link_capacity(int link) const override;

  // neighbor(node, d, dir) for d = 0, 1, ... and dir = plus, minus, where one exists.
  void neighbors(int node, std::vector<int>& out) const override;
  // Halves the nodes across the dimension with the most distinct coordinates
  // (ties: the one with fewer parallel links, whose cut is the more expensive
  // to cross and so should be cut where traffic is low), between coordinates,
  // as close to the middle as the coordinates allow.
  void split(std::vector<int>& nodes, size_t& half) const override;
  // The node at the per-dimension median coordinates if it is in the set,
  // else the set's middle element.
  int representative(const std::vector<int>& nodes) const override;
  // Every dimension a ring (or of size <= 2).
  bool vertex_transitive() const override;
  // Per dimension, cuts that split it into two arcs (a ring) or two ends (a
  // chain): a ring of even size s has s / 2 halvings, cutting link positions
  // p and p + s / 2, and two nodes k steps apart along it are separated by
  // exactly the k that cut a link of the shorter arc between them; a ring of
  // odd size s has s near-halvings (positions p and p + (s - 1) / 2) at half
  // price, 2k of which separate them (k <= (s - 1) / 2, so no near-halving
  // cuts the shorter arc twice); a chain has a cut at each of its s - 1
  // positions. Prices: one hop, and 1 / links[d] weighted. Summed over the
  // dimensions, the prices of the cuts separating two nodes are exactly
  // their hops and their weighted distance.
  int distance_cuts() const override;
  CutPrice distance_cut_price(int cut) const override;
  int distance_cut_side(int cut, int node) const override;

  int diameter() const override;
  double mean_hops() const override;

  const Torus* as_torus() const override { return this; }

  // Invariants (sizes, links, tables); returns an error naming the broken one.
  Status check() const override;

 private:
  Torus() = default;
  // Signed steps along d from coordinate ca to cb, computed: a table per
  // dimension is quadratic in its size (torus=30000 took 7 GB).
  int dim_move(int d, int ca, int cb) const {
    const int diff = cb - ca;  // in (-n, n)
    const int n = ring_size_[d];
    if (n == 0) return diff;   // a chain
    const int forward = diff < 0 ? diff + n : diff;
    // Tie (exactly half a ring, including every move on a size-2 ring): go positive.
    return forward <= n - forward ? forward : forward - n;
  }
  int dim_distance(int d, int ca, int cb) const {
    const int diff = cb - ca;
    const int n = ring_size_[d];
    if (n == 0) return diff < 0 ? -diff : diff;
    const int forward = diff < 0 ? diff + n : diff;
    return forward <= n - forward ? forward : n - forward;
  }
  double weighted_distance_computed(int a, int b) const override;
  // Cuts along dimension d (distance_cuts), and the dimension and link
  // position of cut `cut`.
  int cuts_along(int d) const;
  void locate_cut(int cut, int& d, int& position) const;

  std::vector<int> sizes_;
  std::vector<bool> wrap_;
  std::vector<int> links_;
  double link_bw_ = 0;
  int nodes_ = 0;
  std::vector<int> strides_;
  std::vector<int> coords_;                  // nodes x dims
  int ring_size_[kMaxDims] = {};             // per dim, its size if a ring, 0 if a chain
  // Above kDistanceTableNodes the weighted distance, a sum over dimensions,
  // comes from Network's block tables: blocks of consecutive dimensions of at
  // most kDistanceTableNodes nodes each (16x16 and 8x2 for 16x16x8x2), filled
  // by create(); none when one dimension alone exceeds the limit (then computed).
};

// The seed's latency model of one MPI message.
struct LatencyModel {
  double t_inj = 850e-9;  // injection + ejection
  double t_hop = 129e-9;  // per hop
  double bw = 0;          // bytes per second (0: ignore the bandwidth term)

  double message_time(int hops, double bytes) const {
    return t_inj + hops * t_hop + (bw > 0 ? bytes / bw : 0.0);
  }
};

// The published estimate of the run-time gain from mapping:
// p_mpi * t_hop * (d_net - 1) / (t_inj + t_hop * d_net), d_net the diameter.
double mapping_gain_estimate(double p_mpi, const LatencyModel& model, int diameter);

}  // namespace rankmap
