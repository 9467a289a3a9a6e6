// Building blocks the algorithms share. Internal to mapper/.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "rankmap/mapper.hpp"

namespace rankmap::detail {

// Scales positive double weights to integers for METIS/Scotch (32-bit idx_t
// and SCOTCH_Num): every weight >= 1, the total stays far below 2^31 so their
// internal cost sums cannot overflow.
std::vector<std::int32_t> integer_weights(const std::vector<double>& weight, double total_cap = 1e8);

// METIS k-way into k groups (recursive bisection where k-way leaves them far
// out of balance); then enforce_group_capacity. k == 1 and
// k >= vertices are handled by hand (METIS 5.1 crashes or leaves parts empty).
std::vector<int> partition_groups(const CommGraph& graph, int k, int cap, std::uint64_t seed);

// Moves vertices out of groups above `cap`, each time the vertex that loses
// least connection, to the connected group with room it is most attached to
// (or the first group with room). Exact: afterwards every group has <= cap.
void enforce_group_capacity(const CommGraph& graph, std::vector<int>& part, int k, int cap);

// Per-node variant: a node holds at most its slots (none off the
// allocation); excess ranks go to the most attached allocated node with
// room, else the nearest one (hops) with room.
void enforce_node_capacity(const CommGraph& graph, const Network& torus, const Allocation& allocation,
                           std::vector<int>& node_of);

// Graph of the groups: vertex g = group g, edge weight = sum of weights between them.
CommGraph contract(const CommGraph& graph, const std::vector<int>& part, int k);

// Scotch graph mapping of `graph` onto the allocated nodes of the torus.
// weighted: a target built from the torus graph with edge cost 1/links[d]
// (Scotch "deco" target) instead of the plain torusXD/meshXD (hop) target.
// Returns the torus node of every vertex (balance is Scotch's, not exact).
// strict_balance: quality + balance strategy with zero imbalance (-cqb -b0).
Result<std::vector<int>> scotch_map(const CommGraph& graph, const Network& torus, const std::vector<int>& nodes,
                                    bool weighted, bool strict_balance, std::uint64_t seed,
                                    std::vector<std::string>& notes);

// Dual recursive bisection: the allocated nodes are halved across their widest
// dimension and the vertices split by METIS in proportion to the halves'
// slots, recursively. Exact: every node gets at most its slots. (To place
// groups, one per node: Allocation::uniform(nodes, 1).)
std::vector<int> recursive_bisection_map(const CommGraph& graph, const Network& torus, const Allocation& allocation,
                                         std::uint64_t seed);

// Where the network's distance cuts halve every set of nodes the earlier
// cuts leave together (a torus whose rings have 2 or 4 nodes), a full
// placement chosen cut by cut, dearest first: every set of ranks halved by
// METIS or at random, the halves oriented and swapped to lower that cut's
// whole weight (cut_starts.cpp). Empty where the cuts do not halve the
// sets, or the network is not wholly allocated with equal slots all taken.
std::vector<int> distance_cut_start(const CommGraph& graph, const Network& net, const Allocation& allocation, int ranks,
                                    std::uint64_t seed);

// Node groups of at most `cap` vertices by repeated heavy-edge matching (index
// order), leftovers packed first-fit decreasing.
// Returns the group of every vertex and sets `groups`; empty if more than
// `max_groups` groups would be needed.
// Ties between equally heavy edges go to the lowest-numbered or to the
// highest-numbered partner (merging along an application grid's fastest- or
// slowest-varying dimension first).
enum class MatchingTies { lowest, highest };
std::vector<int> matching_groups(const CommGraph& graph, int cap, int max_groups, int& groups,
                                 MatchingTies ties = MatchingTies::lowest);

// Node groups that tile an assumed row-major process grid (cartesian_starts.cpp).
struct GridGrouping {
  std::string name;       // grid shape / block shape, e.g. "16x16/2x2"
  std::vector<int> part;  // group of every rank, row-major over the blocks
  std::vector<std::vector<int>> grids;  // the block grids giving this grouping: blocks along each dimension
  double cut = 0;         // weight between groups
};
// The `limit` distinct groupings of lowest cut over every 2D and 3D grid
// shape of the ranks and every block of ppn ranks that tiles it; none when
// ppn does not divide the ranks, or when no shape has `min_affinity` of the
// total weight between grid neighbours. `work_limit` bounds the edge visits.
std::vector<GridGrouping> cartesian_groupings(const CommGraph& graph, int ppn, int limit, std::int64_t work_limit,
                                              double min_affinity = 0);
// A periodic 2D or 3D grid (every side >= 5) recognised in the graph's heavy
// edges whatever the numbering (grid_recognition.cpp): the rank at every
// grid point, row-major with the first dimension fastest, and the sides in
// `dims`; empty when the graph is not one.
std::vector<int> torus_grid_order(const CommGraph& graph, std::vector<int>& dims);
// The graph with vertex i standing for vertex order[i] of `graph`.
CommGraph renumbered(const CommGraph& graph, const std::vector<int>& order);
// The node of every block (vertex of `blocks`, row-major over `grid`) when the
// block grid folds dimension by dimension onto a box of allocated nodes
// (block dimensions onto box dimensions whose sizes multiply to theirs; the
// box the whole torus, or smaller where there are more allocated nodes than
// blocks); the folding of lowest weighted cost over every box shape, or
// empty when none exists.
std::vector<int> embed_block_grid(const CommGraph& blocks, const std::vector<int>& grid, const Torus& torus,
                                  const std::vector<int>& nodes);
// Every folding of that kind within `tie_share` of the lowest weighted cost
// (at most 32), cheapest first; the first is embed_block_grid's. Foldings of
// one cost can load the links differently: boxes of other shapes, rings
// walked in other dimensions (the routing is not symmetric).
struct BlockGridFolding {
  double cost = 0;            // weighted cost of the block graph
  std::vector<int> node_of;   // node of every block
};
std::vector<BlockGridFolding> tied_block_grid_foldings(const CommGraph& blocks, const std::vector<int>& grid,
                                                       const Torus& torus, const std::vector<int>& nodes,
                                                       double tie_share);
// The folding a start keeps, among the cheapest folding over the grids of
// one grouping (`part`: the block of each rank; the first found among
// equals) and those within `tie_share` of its cost: where the lightest
// busiest link under the real routing of `traffic` is at least
// `min_load_gain` lighter than the cheapest's, the cheapest of those within
// `tie_share` of the lightest; else the cheapest (also without traffic).
// Boxes of other shapes and rings walked along other dimensions cost alike
// and load the links differently; a cheap start heavy on one link reaches
// the choice only through a relief that costs (recorded ADI at 256 ranks on
// a quarter of 8x4x4x4 ended 8.3% dearer at 3 seeds of 5 from a folding 36%
// heavier than block's busiest link). Empty when no grid folds.
std::vector<int> lightest_block_grid_folding(const CommGraph& blocks, const std::vector<std::vector<int>>& grids,
                                             const std::vector<int>& part, const Traffic* traffic, const Network& net,
                                             const Torus& torus, const std::vector<int>& nodes, double tie_share,
                                             double min_load_gain);

// The ranks of the likeliest row-major 2D or 3D process grid (the shape with
// the most weight between grid neighbours, at least `min_affinity` of the
// total; near-ties to fewer dimensions; each dimension carrying some of it)
// laid onto the whole torus in proportion: each grid dimension onto
// torus dimensions (walked as a boustrophedon when several), coordinate x of
// a side D at (x + 1/2) D' / D of the walk's length D', then each node held
// to its slots (enforce_node_capacity); the assignment of lowest weighted
// cost. Empty when the allocation is not the whole torus or no shape
// qualifies. `name`: the grid shape, e.g. "20x10".
struct ScaledGrid {
  std::string name;
  std::vector<int> node_of;
};
ScaledGrid scaled_grid_start(const CommGraph& graph, const Torus& torus, const Allocation& allocation,
                             double min_affinity);

// The allocated nodes along a boustrophedon walk of the torus (consecutive
// nodes are neighbours; the dimension with the most links runs fastest).
std::vector<int> snake_order(const Torus& torus, const std::vector<int>& nodes);
// The allocated nodes along a Hamiltonian cycle of a machine with an open
// (non-wrapping) dimension: consecutive nodes are neighbours and so are the
// last and the first of the whole machine. Empty on a full torus (the snake
// closes there), on one used dimension, or where every size is odd (no
// cycle exists).
std::vector<int> cycle_order(const Torus& torus, const std::vector<int>& nodes);

// sum over edges weight x weighted_distance(node_of[u], node_of[v]).
double weighted_cost(const CommGraph& graph, const Network& torus, const std::vector<int>& node_of);
// sum over edges whose ends are on different nodes of their weight: what
// leaves the nodes for the network.
double inter_node_weight(const CommGraph& graph, const std::vector<int>& node_of);

// The lower bound's cut part (cut_bound.cpp): the sum over the network's
// distance cuts of price x the least weight any placement with at most ppn
// ranks per allocated node leaves between the cut's sides, from the
// eigenvalues of the graph's Laplacian. Zero where the network has
// no cuts, the graph (its ranks with traffic) is not connected or has more
// than `max_ranks` ranks.
LowerBound cut_lower_bound(const CommGraph& g, const Network& net, int ppn, const std::vector<int>& nodes,
                           int max_ranks);

// Local search on sum w x weighted_distance: swaps of whole node contents
// between nodes (or moves onto free allocated nodes), then swaps/moves of
// single ranks across nodes. Never increases the cost; respects every
// node's slots. With `stop`: once it is set, returns false at once, with
// node_of part-way (for a search made ahead, which is then discarded).
bool refine(const CommGraph& graph, const Network& torus, const Allocation& allocation, std::vector<int>& node_of,
            int passes, const std::atomic<bool>* stop = nullptr);

// Iterated local search on sum w x weighted_distance with at most its slots
// on every allocated node: random kicks (a rank swapped with one of a nearby node,
// or two nearby nodes' contents exchanged) each followed by a rank-level
// descent from the ranks they touched; a kick is kept when the cost does not
// rise. `work` bounds the edge visits (deterministic for a seed). node_of
// becomes the best assignment seen (never worse than the input).
void iterated_search(const CommGraph& graph, const Network& torus, const Allocation& allocation,
                     std::vector<int>& node_of, std::int64_t work, std::uint64_t seed);

// The nodes a kick may take rank r to (iterated_search, regroup_search):
// the allocated network neighbours of its node, then the allocated nodes
// among the 3 it is most attached to. `adjacent` and `att` are scratch.
void kick_targets(const CommGraph& graph, const Network& net, const Allocation& allocation,
                  const std::vector<int>& node_of, int r, std::vector<int>& near, std::vector<int>& adjacent,
                  std::vector<std::pair<double, int>>& att);

// One slot per node and more nodes than ranks (the spread job of a job
// smaller than its allocation): every node a rank talks to is full, and
// the searches also try the free nodes next to them (iterated_search's
// descent, tabu_search; docs/mapper.md, step 4, "One slot per node").
inline bool one_slot_with_free_nodes(const Allocation& allocation, int ranks) {
  return allocation.max_slots() == 1 && allocation.total_slots() > ranks;
}

// The rank-level descent of iterated_search alone: from every rank, the
// best move or swap onto the nodes it is most attached to (and at one slot
// per node with nodes free, onto a free node next to them), until none
// lowers the cost. Returns the edge visits it made.
std::int64_t rank_descent(const CommGraph& graph, const Network& net, const Allocation& allocation,
                          std::vector<int>& node_of);

// Regrouping search (regroup_search.cpp): kicks re-divide the ranks of two
// nearby nodes at random, a tabu search of the node contents' placement
// (one unit per allocated node) and a descent repair it; a kick is kept
// when the cost does not rise. `work` bounds the edge visits; node_of
// becomes the best assignment seen (never worse than the input).
void regroup_search(const CommGraph& graph, const Network& net, const Allocation& allocation,
                    std::vector<int>& node_of, std::int64_t work, std::uint64_t seed);

// Tabu search (tabu_search.cpp) on sum w x weighted_distance with at most its
// slots on every allocated node: at every step the best move or swap of the
// neighbourhood, uphill too, recent moves forbidden. node_of becomes the best
// assignment seen (never worse than the input). `work` bounds the moves
// evaluated; deterministic for a seed. Needs ranks x allocated nodes and
// allocated nodes x allocated nodes table entries: nothing happens where
// tabu_search_fits says no. The scan of each step's neighbourhood runs on
// up to `threads` threads (large enough jobs); the result does not depend
// on it. `go_on`, when given, is called after every step with the lowest
// cost seen so far (the running sum, exact to rounding); false ends the
// search there.
// With a TiedLoadWatch, the search also watches its walk for the least
// loaded placement at a tied cost: after every step whose cost is within
// `tie_share` of the lowest seen, the max link load under the real routing
// (kept up to date move by move from the directed traffic), then the sum of
// squared loads. On the plateaus of equal cost that regular and recorded
// patterns are full of, the walk passes many placements the cost cannot tell
// apart and the links can. Nothing is watched where the routes between the
// allocated nodes would not fit a table (tied_load_watch_fits).
struct TiedLoadWatch {
  const Traffic* traffic = nullptr;
  double tie_share = 1e-3;
  // Out: the least loaded placement seen within the tie of the lowest cost
  // (empty if none was watched) and its max link load (bytes / capacity).
  std::vector<int> node_of;
  double max_load = 0;
  std::int64_t placements_seen = 0;
};
bool tied_load_watch_fits(int allocated_nodes);
bool tabu_search_fits(int ranks, int allocated_nodes);
// `spare_thread`, when given, turns true when one more thread is free for
// the search's scan (another search beside it has ended); the search is the
// same either way.
void tabu_search(const CommGraph& graph, const Network& net, const Allocation& allocation, std::vector<int>& node_of,
                 std::int64_t work, std::uint64_t seed, int threads = 1,
                 const std::function<bool(double)>& go_on = nullptr, TiedLoadWatch* watch = nullptr,
                 const std::atomic<bool>* spare_thread = nullptr);

// The tabu search one level up (paired_search.cpp): `cycles` times, the
// ranks of every node are paired (heaviest link first), the pairs searched
// as units by tabu_search with `work_per_cycle`, then the ranks by refine.
// Never worse than the input, keeps every node's slots, deterministic for a
// seed, whatever `threads` (the tabu search's, and `spare_thread` as
// there). Applies where every
// allocated node holds an even number of ranks and some node more than 2
// (paired_search_applies); else a no-op.
bool paired_search_applies(const Allocation& allocation, const std::vector<int>& node_of);
void paired_search(const CommGraph& graph, const Network& net, const Allocation& allocation, std::vector<int>& node_of,
                   int cycles, std::int64_t work_per_cycle, std::uint64_t seed, int threads = 1,
                   const std::atomic<bool>* spare_thread = nullptr);

// Recombination of good placements (recombine.cpp): children keep what two
// parents agree on (the second moved by the torus symmetry that agrees most
// with the first) and re-place the rest, then get an iterated local search;
// a child better than the pool's worst replaces it. Returns the pool's best
// (never worse than the best parent). `work` bounds the edge visits; the
// result is the same for any `threads`.
std::vector<int> recombine(const CommGraph& graph, const Torus& torus, const Allocation& allocation,
                           const std::vector<std::vector<int>>& parents, std::int64_t work, std::uint64_t seed,
                           int threads = 1);
// `b` moved by the torus symmetry (translation, reflection, exchange of equal
// dimensions; at most 4,096 tried) under which most ranks sit where `a` puts
// them, among those that map every node onto one with as many slots (the
// allocation onto itself). Adds the work done to `work`.
std::vector<int> align_by_symmetry(const Torus& torus, const Allocation& allocation, const std::vector<int>& a,
                                   const std::vector<int>& b, std::int64_t& work);

// The cost change of moving v alone from `from` to `to`, its neighbours where node_of puts them.
double move_delta(const CommGraph& g, const Network& t, const std::vector<int>& node_of, int v, int from, int to);
// Weight of edge {u, v}, 0 if absent.
double edge_weight(const CommGraph& g, int u, int v);
// The nodes v is most attached to (by edge weight), v's own node excluded, at most `limit`.
void attached_nodes(const CommGraph& g, const std::vector<int>& node_of, int v, int limit,
                    std::vector<std::pair<double, int>>& out);

// The image of the placement under a symmetry of the torus (reflection,
// exchange of equal dimensions; translations load the links alike) with the
// lowest (max link load, links at the max) under the real routing, when
// lower than the placement's own: the same cost, since the symmetries keep
// every weighted distance, but routes that are not symmetric (dimension
// order, the direction taken halfway round a ring) cross other links. Only
// images that map the allocation onto itself; tori only, not on dense
// traffic. Returns whether node_of changed.
bool relieve_by_symmetry(const Traffic& traffic, const Network& net, const Allocation& allocation,
                         std::vector<int>& node_of);

// Swaps of whole node contents between torus neighbours that lower the max
// link load (or the number of links at the max) under the real routing while
// the bandwidth-weighted cost rises by at most `cost_budget` in total;
// candidates are the ends of the flows crossing the busiest links. At most
// `max_swaps` swaps; nothing on dense traffic (over 32 node flows per node).
// Returns the number of swaps made.
int relieve_links(const Traffic& traffic, const Network& torus, const Allocation& allocation, std::vector<int>& node_of,
                  int max_swaps, double cost_budget);

// The same aim with single ranks: a rank with a flow across a busiest link
// moved to a node with room or swapped with a rank there (its node's torus
// neighbours and its partners' nodes), best lexicographic (max load, links
// at the max) per step, cost rise within `cost_budget` in total. At most
// `max_swaps` steps; sees partition changes that whole-node swaps cannot.
// Returns the number of steps taken.
// With a tenure (RankReliefTabu), a tabu search instead of the greedy: each
// step takes the best allowed move, uphill too, and freezes the ranks it
// moved for tenure to 2 x tenure steps (a frozen rank moves only to a new
// best); it ends after `patience` steps without a new best or `max_swaps`
// steps, and leaves the best placement seen by (max load, links at the max,
// sum of squared loads, cost), the start if nothing beat it (then 0 is
// returned). The cost budget holds for every placement of the walk.
// A step's trials are priced on up to `threads` threads (the same steps).
struct RankReliefTabu {
  int tenure = 0;  // 0: the greedy
  int patience = 0;
  std::uint64_t seed = 0;
};
int relieve_rank_links(const Traffic& traffic, const Network& torus, const Allocation& allocation,
                       std::vector<int>& node_of, int max_swaps, double cost_budget, const RankReliefTabu& tabu = {},
                       int threads = 1);

// The network objective of a node assignment under the real routing.
struct NetworkScore {
  double weighted_cost = 0;      // bytes x weighted_distance
  double max_link_relative = 0;  // busiest connection, bytes / capacity
};
NetworkScore network_score(const Traffic& traffic, const Network& torus, const std::vector<int>& node_of);

// The directed links the time model and the bulk model share: the
// network's link ids, then each multi-package node's inter-socket links
// (node n's from package p to package q: socket_first[n] + p x packages + q),
// with their capacities (a network id that is no link has capacity 0).
struct SharedLinks {
  std::vector<std::int64_t> socket_first;  // per node; -1: one package
  std::vector<double> capacity;            // per link id
  // The inter-socket link a flow between two ranks of node `node` crosses;
  // -1 inside one package.
  std::int64_t socket_link(const Platform& platform, int node, int src_core, int dst_core) const;
};
SharedLinks shared_links(const Platform& platform);

// The time model's parts per rank (predicted_rank_times = latency +
// transfer): `latency`, its messages' latencies one after the other;
// `latency_overlapped`, the same messages with every partner's in parallel
// (the largest messages x latency of one partner: a halo exchange's
// nonblocking sends overlap); `transfer`, until its last flow has arrived
// with the links shared. The profile does not say which a program does.
struct RankTimeParts {
  std::vector<double> latency, latency_overlapped, transfer;
};
RankTimeParts predicted_rank_time_parts(const Traffic& traffic, const std::vector<Placement>& placement,
                                        const Platform& platform);

// predicted_bulk_time that also gives up (nothing) once `stop` is set: the
// default times its shortlist at once and drops the others' runs when its
// choice's passes the work cap (then none is used).
std::optional<double> predicted_bulk_time(const Traffic& traffic, const std::vector<Placement>& placement,
                                          const Platform& platform, const BulkModelOptions& options,
                                          const std::atomic<bool>* stop);

// Node flows (directed, merged) of a node assignment.
std::vector<NodeFlow> node_flows(const Traffic& traffic, const std::vector<int>& node_of);

// Cores: ranks of each node get cores 0, 1, ... in rank order (what launchers do).
std::vector<Placement> cores_in_rank_order(const std::vector<int>& node_of, int torus_nodes);
// Cores from the hwloc tree: each node's ranks are placed so that heavy pairs
// share the deepest common level (package, cache) first, then improved by swaps.
// `fill` chooses which cores a node that is not full uses (CoreFill). Nodes
// are placed independently, on up to `threads` threads (the same result).
std::vector<Placement> cores_by_topology(const CommGraph& graph, const std::vector<int>& node_of,
                                         const NodeKinds& kinds, int torus_nodes, CoreFill fill = CoreFill::compact,
                                         int threads = 1);
// The k cores of `node` that `fill` uses, ascending.
std::vector<int> cores_to_fill(const NodeTopology& node, int k, CoreFill fill);

// Number of nodes a job of `ranks` needs at `ppn` per node.
inline int groups_needed(int ranks, int ppn) { return (ranks + ppn - 1) / ppn; }
// Number of the allocation's first nodes whose slots hold `ranks` (the
// node groups of the group starts); groups_needed when the slots are equal.
int nodes_needed(const Allocation& allocation, int ranks);
// Ranks in order onto the nodes in `order` (allocated nodes), each filled
// to its slots before the next: `block` along any order of the nodes.
std::vector<int> fill_in_order(const std::vector<int>& order, const Allocation& allocation, int ranks);

// Exact search (exact_search.cpp): is there a placement of the traffic's
// ranks on the allocation (at most its slots on every node) whose hop-bytes
// (bytes x hops, as the evaluator counts them) are at most max_hop_bytes and
// whose busiest directed link, under the network's routing, carries at most
// max_link_relative (bytes / capacity, seconds)? Exhaustive depth-first
// search with both limits pruning partial placements; exponential, for
// small jobs (the peer benchmark's 16-rank LAMMPS runs). Gives up after
// max_states partial placements.
struct PlacementSearch {
  enum class Outcome { none, found, gave_up };
  Outcome outcome = Outcome::none;
  std::vector<int> node_of;  // found: a placement within both limits (network nodes)
  std::int64_t states = 0;   // partial placements visited
};
PlacementSearch find_placement_within(const Traffic& traffic, const Network& net, const Allocation& allocation,
                                      double max_hop_bytes, double max_link_relative, std::int64_t max_states);

}  // namespace rankmap::detail
