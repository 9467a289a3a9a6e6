// The network model of rankmap: a k-ary n-dimensional torus or mesh with
// per-dimension link multiplicity, Angara's direction-ordered routing, link
// loads, distances and the latency model. Knows nothing about MPI.
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
#include <vector>

#include "rankmap/result.hpp"

namespace rankmap {

enum class Direction : int { plus = 0, minus = 1 };

// One directed traversal of a neighbour connection. `link` is the index of the
// directed connection (see Torus::link_index) and is what loads are counted on.
struct Hop {
  int from;
  int to;
  int dim;
  Direction dir;
  int link;
};

// Bytes sent from one node to another (directed).
struct NodeFlow {
  int src;
  int dst;
  double bytes;
};

struct LinkLoadSummary {
  double total_bytes_on_links = 0;  // sum over links == sum(bytes x hops)
  double max_load = 0;              // bytes on the busiest directed connection
  double max_relative = 0;          // max over connections of load / capacity (seconds)
  double mean_relative = 0;         // mean over existing connections of load / capacity
  int busiest_link = -1;
};

class Torus {
 public:
  static constexpr int kMaxDims = 8;
  // sizes: 1..8 dimensions, each >= 1. wrap[d]: true for a ring, false for a
  // chain. links[d] >= 1: parallel physical links between two neighbours.
  // link_bw: bytes per second of one physical link in one direction.
  static Result<Torus> create(std::vector<int> sizes, std::vector<bool> wrap, std::vector<int> links,
                              double link_bw);

  int dims() const { return static_cast<int>(sizes_.size()); }
  int nodes() const { return nodes_; }
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
  int hops(int a, int b) const;
  // Sum over the route of 1 / links[d]: a single link costs more than a doubled one.
  // From a table up to kDistanceTableNodes nodes (the mappers' inner loop);
  // above, a sum of lookups in tables over blocks of consecutive dimensions.
  double weighted_distance(int a, int b) const {
    if (!weighted_table_.empty()) return weighted_table_[static_cast<size_t>(a) * static_cast<size_t>(nodes_) + b];
    if (block_tables_.empty()) return weighted_distance_computed(a, b);
    const int* ia = &block_coord_[static_cast<size_t>(a) * block_tables_.size()];
    const int* ib = &block_coord_[static_cast<size_t>(b) * block_tables_.size()];
    double w = 0;
    for (size_t k = 0; k < block_tables_.size(); ++k)
      w += block_tables_[k][static_cast<size_t>(ia[k]) * block_sizes_[k] + static_cast<size_t>(ib[k])];
    return w;
  }
  static constexpr int kDistanceTableNodes = 1024;  // 8 MB of doubles at most

  // The route from a to b as directed link traversals, appended to out
  // (cleared first). Empty when a == b.
  void route(int a, int b, std::vector<Hop>& out) const;
  std::vector<Hop> route(int a, int b) const;

  // Directed connections are indexed node * 2 * dims + 2 * d + dir. Along a
  // size-2 ring both directions reach the same neighbour and the routing always
  // goes "+", so only the "+" slot exists there: one connection per direction
  // per neighbour pair, with capacity links[d] * link_bw.
  int link_slots() const { return nodes_ * 2 * dims(); }
  int link_index(int node, int d, Direction dir) const { return (node * dims() + d) * 2 + static_cast<int>(dir); }
  bool link_exists(int link) const;
  double link_capacity(int link) const;
  int link_count() const;  // number of existing directed connections

  int diameter() const;
  // Mean hop distance over all ordered pairs, self pairs included.
  double mean_hops() const;
  // Exact all-pairs hop distances, row-major nodes x nodes.
  std::vector<std::uint16_t> all_pair_hops() const;

  // Loads (bytes) on every directed connection when the given flows follow the
  // routing; indexed like link_index.
  std::vector<double> link_loads(const std::vector<NodeFlow>& flows) const;
  LinkLoadSummary summarize_loads(const std::vector<double>& loads) const;

  // Invariants (sizes, links, tables); returns an error naming the broken one.
  Status check() const;

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
  double weighted_distance_computed(int a, int b) const;

  std::vector<int> sizes_;
  std::vector<bool> wrap_;
  std::vector<int> links_;
  double link_bw_ = 0;
  int nodes_ = 0;
  std::vector<int> strides_;
  std::vector<int> coords_;                  // nodes x dims
  int ring_size_[kMaxDims] = {};             // per dim, its size if a ring, 0 if a chain
  std::vector<double> weighted_table_;       // nodes x nodes, empty above kDistanceTableNodes
  // Above kDistanceTableNodes: the weighted distance is a sum over
  // dimensions, so over blocks of consecutive dimensions of at most
  // kDistanceTableNodes nodes each (16x16 and 8x2 for 16x16x8x2): a table
  // per block, and every node's coordinate in each block. Empty when one
  // dimension alone exceeds the limit (then computed).
  std::vector<std::vector<double>> block_tables_;
  std::vector<size_t> block_sizes_;
  std::vector<int> block_coord_;  // nodes x blocks
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
