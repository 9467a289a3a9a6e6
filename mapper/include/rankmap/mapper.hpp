// The mapper: algorithms that place ranks on torus nodes and cores, chosen by
// name behind one interface, and the one evaluator every mapping is scored by.
// Pipeline, objective and models: docs/mapper.md.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rankmap/allocation.hpp"
#include "rankmap/comm_graph.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/mapping.hpp"
#include "rankmap/node.hpp"
#include "rankmap/result.hpp"
#include "rankmap/torus.hpp"

namespace rankmap {

// ---------------------------------------------------------------- evaluator

// A number that is not known (printed n/a, null in JSON).
inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

struct Metrics {
  int ranks = 0;
  int nodes_used = 0;
  double total_bytes = 0;
  double inter_node_bytes = 0;     // bytes whose ends sit on different nodes
  double hop_bytes = 0;            // sum bytes x hops
  double weighted_cost = 0;        // sum bytes x weighted_distance (1/links per hop)
  double mean_dilation = 0;        // hop_bytes / inter_node_bytes: hops of an average inter-node byte
  int max_dilation = 0;            // most hops between two communicating ranks
  double max_link_load = 0;        // bytes on the busiest directed connection
  double max_link_relative = 0;    // max over connections of bytes / capacity (seconds)
  double mean_link_relative = 0;   // mean over existing connections
  double comm_time_max = 0;        // max over ranks of the predicted time of its inter-node sends
  double comm_time_mean = 0;       // mean over ranks
  // The time model (predicted_rank_times; docs/mapper.md, "Time model"):
  // per rank, its messages' latencies plus the time its flows take on links
  // shared with every other flow; intra-node flows at the node's speed.
  double predicted_comm_time_max = 0;   // slowest rank
  double predicted_comm_time_mean = 0;  // mean over ranks
  // The bulk-synchronous model (predicted_bulk_time): kNoValue where not run.
  double predicted_bulk_time = kNoValue;
  double lower_bound_hop_bytes = 0;
  double lower_bound_weighted = 0;
  double gap_hop_bytes = 0;        // hop_bytes / bound - 1 (0 when both are 0)
  double gap_weighted = 0;
  double intra_node_bytes = 0;
  double cross_package_bytes = 0;  // intra-node bytes between cores of different packages
  // Against a baseline mapping (rankmap/app_estimate.hpp; set by the tools,
  // not by evaluate(), which sees one mapping): the profile's measured
  // fraction of time in MPI, the predicted change of communication time and
  // the estimated change of the whole application's time (ratio - 1).
  double p_mpi = kNoValue;
  double predicted_comm_change = kNoValue;
  double predicted_app_change = kNoValue;
};

// Lower bounds computed so far (evaluate fills it): the bound depends on the
// traffic, the network, ppn and the nodes, not on the mapping, and it is the
// evaluator's costliest part (seconds at 192 ranks of a 27-point stencil at 6
// per node). Share one between the evaluations of one traffic on one Platform.
struct LowerBoundMemo;

struct EvaluateOptions {
  int ppn = 0;              // slots per node for the lower bound; 0: cores per node
  std::vector<int> nodes;   // allocated nodes for the lower bound; empty: all
  bool lower_bound = true;
  std::shared_ptr<LowerBoundMemo> bound_memo;  // optional: reuse bounds across calls
  // The traffic the bulk model replays (MapOptions::point_to_point); null:
  // the evaluated traffic.
  const Traffic* point_to_point = nullptr;
  // The placement's bulk model time where the mapper already computed it
  // (MapOutcome::bulk_time, same traffic and placement): not run again.
  double bulk_time = kNoValue;
};
std::shared_ptr<LowerBoundMemo> make_lower_bound_memo();

// The machine context both the evaluator and the algorithms need.
struct Platform {
  std::shared_ptr<const Network> network;  // the machine's network (a torus, a fat-tree, ...)
  NodeKinds node_kinds;  // the inside of every node (kinds may differ: machine.hpp nodes=)
  LatencyModel latency;
  // What intra-node messages cost (the machine's shm-* and socket-* words):
  // the time model and rankmap-sim's platform read the same values.
  IntraNodeCosts intra_node;
  const Network& net() const { return *network; }
  const NodeTopology& node(int n) const { return node_kinds.of(n); }
  static Result<Platform> from_machine(const Machine& machine);
};

// Rank traffic between different nodes of a placement, summed per ordered
// node pair: what Torus::link_loads routes (the evaluator, the report's
// link-load pictures and the simulator all see the same flows).
std::vector<NodeFlow> inter_node_flows(const Traffic& traffic, const std::vector<Placement>& placement);

Result<Metrics> evaluate(const Traffic& traffic, const std::vector<Placement>& placement, const Platform& platform,
                         const EvaluateOptions& options = {});

// Several placements of one traffic scored at once, on up to `threads`
// threads (0: the cores the process may use): the results of evaluate, in
// order. Each may replay the bulk model up to its cap (~1 s at 1,024 ranks);
// jobs sharing a bound memo compute the bound once.
struct EvaluationJob {
  const std::vector<Placement>* placement;
  const Platform* platform;
  EvaluateOptions options;
};
std::vector<Result<Metrics>> evaluate_each(const Traffic& traffic, const std::vector<EvaluationJob>& jobs, int threads = 0);

// The time model, per rank (what evaluate's predicted_comm_time_* summarise;
// docs/mapper.md, "Time model"): rank r's time is the sum over its messages
// of their latency (t_inj + hops x t_hop; inside a package shm_lat, between
// packages of a node socket_lat) plus the time until the last of its flows
// has arrived when every flow of the traffic starts at once and each
// directed link is shared by the flows crossing it (in proportion to
// 1 / route latency, as SimGrid weighs them; a flow that ends leaves its
// share to the others). A node's inter-socket links are such links, of
// socket_bw per direction; flows inside a package run at shm_bw, unshared.
// Placement must fit the traffic and the machine (evaluate checks; this
// does not).
std::vector<double> predicted_rank_times(const Traffic& traffic, const std::vector<Placement>& placement,
                                         const Platform& platform, const EvaluateOptions& options = {});

// The bulk model (docs/mapper.md, "Bulk model"):
// the traffic as the program `rankmap-sim bulk-trace` writes (in round k
// every pair with more than k messages sends one of its mean size, and every
// rank waits for its round's requests before the next), run in a flow-level
// simulation: each message pays its route latency, then shares the links it
// crosses with the messages flowing at the same time (weighted max-min
// fairness, weights 1 / route latency, as SimGrid); inside a package at
// shm_bw unshared. Returns the time the last rank ends its last round, or
// nothing past `max_work`.
struct BulkModelOptions {
  std::uint64_t min_rounds = 4;  // as BulkTraceOptions (rankmap/bulk_rounds.hpp)
  std::uint64_t max_rounds = 100;
  double detached_below = 65536;  // SMPI's send-is-detached threshold (bytes)
  std::int64_t max_work = 4'000'000;
};
// Above this many ranks the evaluator and the tools do not run it (its set-up
// routes every pair).
inline constexpr int kBulkModelMaxRanks = 8192;
std::optional<double> predicted_bulk_time(const Traffic& traffic, const std::vector<Placement>& placement,
                                          const Platform& platform, const BulkModelOptions& options = {});

// The lower bound on sum(bytes x distance) over any placement with `ppn` ranks
// per node on `nodes` (docs/mapper.md): each rank gets its partners, heaviest
// first, at the nearest slots; halved because every edge is seen from both ends.
// `dense_sets` bounds the work of its densest-groups part (connected rank sets
// enumerated per try, ~4 M a second) and `cut_ranks` the ranks with traffic
// up to which its cut part solves the graph's Laplacian for its eigenvalues
// (a dense solve, 0.16 s at 1,024 ranks): the defaults suit a
// report; the mapper, which asks within its own time budget, passes less
// and may get a lower bound.
struct LowerBound {
  double hop_bytes = 0;
  double weighted = 0;
};
inline constexpr int kCutBoundMaxRanks = 1024;
LowerBound cost_lower_bound(const CommGraph& bytes_graph, const Network& torus, int ppn, const std::vector<int>& nodes,
                            std::int64_t dense_sets = 4'000'000, int cut_ranks = kCutBoundMaxRanks);

// --------------------------------------------------------------- algorithms

// How hard the default searches (KaMinPar-style presets). Work budgets, not
// wall-clock ones, so a seed always gives the same mapping; docs/mapper.md
// gives the time each takes.
enum class Preset {
  fast,      // one seed per randomised start, short local search
  standard,  // `default`: several seeds per start, iterated local search (~1 s up to 1,024 ranks)
  strong,    // more seeds, longer searches, the default's mapping a candidate; on a full machine held to
             // Scotch's mapping's cost and busiest link where it can be (~10 s up to 1,024 ranks)
};
Result<Preset> parse_preset(std::string_view name);  // "fast", "default", "strong"
const char* preset_name(Preset preset);

// Which cores a node that is not full gets (paper and the default; the
// launcher-order algorithms take cores 0, 1, ... as launchers do).
enum class CoreFill {
  compact,  // the first cores in hwloc order: one package filled before the next
            // (every pair of ranks as close as it can be; the seed's "first socket")
  spread,   // the same number of cores of every package: more memory bandwidth
            // and cache per rank, at the price of cross-package pairs
};
Result<CoreFill> parse_core_fill(std::string_view name);  // "compact", "spread"

struct MapProblem {
  const CommGraph* graph = nullptr;   // bytes + message equivalents (what paper and scotch optimise)
  const CommGraph* bytes_graph = nullptr;  // bytes only (the default's search objective); may be null
  const Traffic* traffic = nullptr;   // directed traffic (link loads, final choice)
  // The point-to-point traffic alone (the bulk model's program: collectives
  // are phases of their own, run by SMPI's algorithms); null: `traffic`.
  const Traffic* point_to_point = nullptr;
  bool bulk_model = true;             // see MapOptions::bulk_model
  const Platform* platform = nullptr;
  Allocation allocation;              // the nodes and how many ranks each may hold
  std::uint64_t seed = 1;
  Preset preset = Preset::standard;
  CoreFill core_fill = CoreFill::compact;
  std::function<void(const std::string&)> progress;  // optional, long runs report here
  int alternatives = 0;               // see MapOptions::alternatives
  int threads = 1;                    // see MapOptions::threads (resolved: at least 1)

  int ranks() const { return graph->vertices; }
  Status check() const;
};

// A placement the default considered, for a judge that sees more than the
// static model (a trace replay): its candidate's name and placement.
struct Alternative {
  std::string name;
  std::vector<Placement> placement;
};

struct MapOutcome {
  std::vector<Placement> placement;   // indexed by rank
  std::vector<std::string> notes;     // fallbacks taken, candidates chosen (printed to stderr)
  // The default only, when asked (MapOptions::alternatives): the chosen
  // placement first, then `block`, `paper` and `scotch` (the references),
  // then, on part of a machine, the job spread over every allocated node
  // (docs/mapper.md, step 4, "Spread"), then the cheapest candidate of
  // each other start family, then the
  // cheapest others: distinct node assignments, at most `alternatives` in
  // all. Every one satisfies the same capacities.
  std::vector<Alternative> alternatives;
  // The placement's bulk model time where the default's last step computed
  // it (EvaluateOptions::bulk_time); kNoValue otherwise.
  double bulk_time = kNoValue;
};

using MapFunction = Result<MapOutcome> (*)(const MapProblem&);

struct AlgorithmInfo {
  std::string name;
  std::string summary;
  MapFunction run;
};

// Every algorithm, the default first.
const std::vector<AlgorithmInfo>& algorithms();
const AlgorithmInfo* find_algorithm(std::string_view name);
inline const char* default_algorithm() { return "rankmap"; }

// Parses "0-3,8,node-12" (indices, ranges, host names) into node indices.
Result<std::vector<int>> parse_node_list(const std::string& list, const Machine& machine);

struct MapOptions {
  std::string algorithm = default_algorithm();
  int ppn = 0;                 // 0: cores per node
  std::vector<int> nodes;      // empty: every node of the machine in index order
  std::uint64_t seed = 1;
  Preset preset = Preset::standard;
  CoreFill core_fill = CoreFill::compact;
  std::function<void(const std::string&)> progress;
  // How many placements the default returns in MapOutcome::alternatives
  // (0: none; the other algorithms return none).
  int alternatives = 0;
  // Threads the default may use for its independent steps (0: the cores
  // the process may run on). The mapping does not depend on it.
  int threads = 0;
  // The profile's traffic without collectives (traffic_from_profile with
  // CollectiveModel::ignore), which the default's bulk model replays
  // (MapProblem::point_to_point); null: the traffic itself.
  const Traffic* point_to_point = nullptr;
  // The default's bulk model may replace its static choice (docs/mapper.md,
  // step 4); false keeps the static choice (to compare the two).
  bool bulk_model = true;
};

// The allocation of --nodes (empty: every node in index order) at --ppn
// ranks per node (0: each node's cores; a node with fewer cores than ppn
// holds its cores). Fails when ppn exceeds the cores of every node.
Result<Allocation> make_allocation(const Platform& platform, const std::vector<int>& nodes, int ppn);

// Builds the problem (graph, allocation, capacity check: more ranks than
// slots is an error) and runs the algorithm. The placement is checked (every
// rank on an allocated node, within its slots, distinct cores).
Result<MapOutcome> map_ranks(const Traffic& traffic, const Platform& platform, const MapOptions& options);

// Placement invariants against an allocation.
Status check_placement(const std::vector<Placement>& placement, int ranks, const Platform& platform,
                       const Allocation& allocation);

}  // namespace rankmap
