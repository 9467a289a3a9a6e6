// The network seen by everything above torus/: nodes, distances, routes as
// directed link traversals, link capacities, neighbours and the recursive
// split of a node set. The mapper, the evaluator (time model, lower bound,
// link loads), the report and the simulation export ask only this; a
// topology is one implementation of it (torus.hpp is the first).
//
// The seam follows Scotch's target architectures (arch.h): a small table of
// functions the mapping algorithms need -- distance, bipartition of a domain,
// a domain's representative terminal -- behind which each topology keeps its
// own geometry. Algorithms that only make sense on one topology ask for it
// (`as_torus()`) and step aside when they get nullptr.
//
// Links: every directed connection has an id in [0, link_slots()); an id may
// be unused (link_exists false), so that a topology can number its links by
// formula. Loads are counted per id.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rankmap/result.hpp"

namespace rankmap {

enum class Direction : int { plus = 0, minus = 1 };

// One directed traversal of a link. `link` is the id loads are counted on.
// `dim` and `dir` describe the link in the network's own terms (a torus: the
// dimension and the way along it; a tree: the level and up = plus, down =
// minus); only the network that made the hop interprets them.
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

// The price of crossing one of a network's distance cuts (below).
struct CutPrice {
  double hops = 0;      // against hops()
  double weighted = 0;  // against weighted_distance()
};

class Torus;

class Network {
 public:
  virtual ~Network() = default;

  // "torus", "fattree", ...: for messages, never for branching (use as_torus()).
  virtual std::string kind() const = 0;
  // Compute nodes (hosts), numbered 0..nodes()-1. Switches are not nodes.
  virtual int nodes() const = 0;
  // How a node is printed for a user: "(1,0,1,0)" on a torus.
  virtual std::string node_label(int node) const = 0;

  // Links crossed from a to b (0 when a == b); hops(a, b) == route(a, b).size().
  virtual int hops(int a, int b) const = 0;
  // Sum over the route of the cost of each hop (a single link costs more
  // than a doubled one); what the mappers minimise. From a table up to
  // kDistanceTableNodes nodes (the mappers' inner loop), above from
  // weighted_distance_untabled.
  double weighted_distance(int a, int b) const {
    if (!weighted_table_.empty()) return weighted_table_[static_cast<size_t>(a) * static_cast<size_t>(table_nodes_) + b];
    if (blocks_ > 0) {
      const int* ia = &block_index_[static_cast<size_t>(a) * 2 * static_cast<size_t>(blocks_)];
      const int* ib = &block_index_[static_cast<size_t>(b) * 2 * static_cast<size_t>(blocks_)];
      double w = 0;
      for (int k = 0; k < blocks_; ++k) w += block_table_[static_cast<size_t>(ia[2 * k]) + static_cast<size_t>(ib[2 * k + 1])];
      return w;
    }
    return weighted_distance_computed(a, b);
  }
  // Row a of that table (weighted_distance(a, b) == row[b]), or nullptr
  // where there is none: for loops that read one row many times.
  const double* weighted_row(int a) const {
    return weighted_table_.empty() ? nullptr
                                   : &weighted_table_[static_cast<size_t>(a) * static_cast<size_t>(table_nodes_)];
  }
  static constexpr int kDistanceTableNodes = 1024;  // 8 MB of doubles at most

  // The route from a to b as directed link traversals, appended to out
  // (cleared first). Empty when a == b. Deterministic: the one routing that
  // the evaluator, the link loads and the simulation export all follow.
  virtual void route(int a, int b, std::vector<Hop>& out) const = 0;
  std::vector<Hop> route(int a, int b) const;

  virtual int link_slots() const = 0;
  virtual bool link_exists(int link) const = 0;
  // Bytes per second the directed connection carries.
  virtual double link_capacity(int link) const = 0;
  int link_count() const;  // number of existing directed connections

  // The nodes one link (or one switch) away from `node`, appended to out
  // (cleared first), in the network's fixed order; a node reached by two
  // link directions is listed twice (a ring of two). The mappers draw
  // random candidates from this list, so its order is part of their results.
  virtual void neighbors(int node, std::vector<int>& out) const = 0;
  std::vector<int> neighbors(int node) const;

  // One step of the recursive split of a node set (bisection and its lower
  // bound): reorders `nodes` so that [0, half) and [half, size) are the two
  // parts, cut where the network is thinnest. nodes.size() >= 2.
  virtual void split(std::vector<int>& nodes, size_t& half) const = 0;
  // A node of `nodes` near their middle (where a domain's vertices are
  // assumed to sit before the recursion places them).
  virtual int representative(const std::vector<int>& nodes) const = 0;

  // Distance cuts: bipartitions of the nodes (distance_cut_side: 0 or 1)
  // whose prices never overcharge a pair: for every a and b, the prices of
  // the cuts separating them sum to at most hops(a, b) (CutPrice::hops) and
  // weighted_distance(a, b) (CutPrice::weighted). So any placement costs at
  // least the sum over the cuts of price x the traffic between their sides,
  // which the lower bound's cut part bounds from the graph alone
  // (docs/mapper.md, "Lower bound"). Asked one node at a time, so that a
  // million-node torus needs no table. The default: none. check() verifies
  // the inequality.
  virtual int distance_cuts() const { return 0; }
  virtual CutPrice distance_cut_price(int /*cut*/) const { return {}; }
  virtual int distance_cut_side(int /*cut*/, int /*node*/) const { return 0; }
  // The prices of the distance cuts separating a and b, summed: at most
  // their hops and weighted distance (exactly those on a torus and a
  // fat-tree). O(cuts).
  CutPrice separation_price(int a, int b) const;

  // True when every node sees the same distance profile to the others (the
  // lower bound then computes it from one node).
  virtual bool vertex_transitive() const { return false; }

  virtual int diameter() const;
  // Mean hop distance over all ordered pairs, self pairs included.
  virtual double mean_hops() const;
  // Exact all-pairs hop distances, row-major nodes x nodes.
  std::vector<std::uint16_t> all_pair_hops() const;

  // Loads (bytes) on every directed connection when the given flows follow
  // the routing; indexed by link id.
  std::vector<double> link_loads(const std::vector<NodeFlow>& flows) const;
  LinkLoadSummary summarize_loads(const std::vector<double>& loads) const;

  // The torus, when this network is one; nullptr otherwise.
  virtual const Torus* as_torus() const { return nullptr; }

  // Invariants; returns an error naming the broken one. The default checks
  // what every network promises (routes are connected paths of existing
  // links whose length is hops(), distances symmetric in hops) on up to
  // kCheckedNodes nodes.
  virtual Status check() const;
  static constexpr int kCheckedNodes = 256;

 protected:
  Network() = default;
  Network(const Network&) = default;
  Network& operator=(const Network&) = default;
  Network(Network&&) = default;
  Network& operator=(Network&&) = default;
  // For networks whose node numbers run subtree by subtree (fat-tree,
  // dragonfly): where to cut the sorted `nodes` between two blocks of
  // `group` consecutive numbers, nearest to the middle (the middle when all
  // share one block); and the median node number, their representative.
  static size_t cut_between_blocks(const std::vector<int>& nodes, int group);
  static int median_node(const std::vector<int>& nodes);
  // The formula, from which the tables are built.
  virtual double weighted_distance_computed(int a, int b) const = 0;
  // Fills the weighted-distance table (up to kDistanceTableNodes nodes); an
  // implementation calls it once it is complete.
  void build_distance_table();

 private:
  std::vector<double> weighted_table_;  // nodes x nodes, empty above kDistanceTableNodes
  int table_nodes_ = 0;

 protected:
  // Above kDistanceTableNodes, a network whose weighted distance is a sum
  // over parts of the node's label (the torus: blocks of consecutive
  // dimensions) may fill these: a table per part, the tables one after
  // another in block_table_, and for every node and part where the node's
  // row starts in block_table_ and its column (its coordinate in the part);
  // weighted_distance then sums one lookup per part (the search's inner loop
  // at 32k ranks: no per-part table pointer or multiplication on the way).
  int blocks_ = 0;
  std::vector<double> block_table_;
  std::vector<int> block_index_;  // nodes x blocks x {row start, column}
};

}  // namespace rankmap
