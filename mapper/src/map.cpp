#include <algorithm>
#include <numeric>

#include "detail.hpp"
#include "parallel.hpp"
#include "rankmap/mapper.hpp"
#include "rankmap/text.hpp"

namespace rankmap {

// One line per algorithm; each lives in its own algo_*.cpp.
Result<MapOutcome> map_block(const MapProblem&);
Result<MapOutcome> map_round_robin(const MapProblem&);
Result<MapOutcome> map_random(const MapProblem&);
Result<MapOutcome> map_paper(const MapProblem&);
Result<MapOutcome> map_scotch(const MapProblem&);
Result<MapOutcome> map_rankmap(const MapProblem&);

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> list = {
      {"rankmap", "METIS/Scotch candidates, network-aware local search, best by cost and link load, hwloc cores", map_rankmap},
      {"block", "ranks fill nodes in order, cores in rank order (launcher default)", map_block},
      {"round-robin", "rank r on allocated node r mod N (launcher --map-by node)", map_round_robin},
      {"random", "uniformly random slots (seeded)", map_random},
      {"paper", "METIS k-way node groups placed in node order, then hwloc cores (published method)", map_paper},
      {"scotch", "SCOTCH_graphMap onto the plain torusXD target, capacities enforced", map_scotch},
  };
  return list;
}

Result<Preset> parse_preset(std::string_view name) {
  if (name == "fast") return Preset::fast;
  if (name == "default") return Preset::standard;
  if (name == "strong") return Preset::strong;
  return make_error("unknown preset '" + std::string(name) + "' (known: fast, default, strong)");
}

Result<CoreFill> parse_core_fill(std::string_view name) {
  if (name == "compact") return CoreFill::compact;
  if (name == "spread") return CoreFill::spread;
  return make_error("unknown core fill '" + std::string(name) + "' (known: compact, spread)");
}

const char* preset_name(Preset preset) {
  switch (preset) {
    case Preset::fast: return "fast";
    case Preset::standard: return "default";
    case Preset::strong: return "strong";
  }
  return "default";
}

const AlgorithmInfo* find_algorithm(std::string_view name) {
  for (const AlgorithmInfo& a : algorithms())
    if (a.name == name) return &a;
  return nullptr;
}

Result<std::vector<int>> parse_node_list(const std::string& list, const Machine& machine) {
  const int nn = machine.nodes();
  std::vector<int> out;
  std::vector<char> seen(static_cast<size_t>(nn), 0);
  auto add = [&](int a, const std::string& word) -> Status {
    if (a < 0 || a >= nn) return make_error("--nodes: node " + word + " outside the machine (0.." + std::to_string(nn - 1) + ")");
    if (seen[a]) return make_error("--nodes: node " + word + " listed twice");
    seen[a] = 1;
    out.push_back(a);
    return Ok{};
  };
  for (const std::string& raw : text::split(list, ',')) {
    const std::string word(text::trim(raw));
    if (word.empty()) return make_error("--nodes: empty entry in '" + list + "'");
    if (const auto lo_hi = text::parse_range(word)) {
      if (lo_hi->second < lo_hi->first) return make_error("--nodes: empty range '" + word + "'");
      for (long long a = lo_hi->first; a <= lo_hi->second; ++a)
        if (auto st = add(static_cast<int>(std::min<long long>(a, nn)), std::to_string(a)); !st) return st.error();
    } else {
      const int a = machine.node_of_host(word);
      if (a < 0) return make_error("--nodes: '" + word + "' is neither a node index nor a host name of the machine");
      if (auto st = add(a, word); !st) return st.error();
    }
  }
  if (out.empty()) return make_error("--nodes: no nodes listed");
  return out;
}

Status MapProblem::check() const {
  if (!graph || !traffic || !platform) return make_error("internal: incomplete map problem");
  if (graph->vertices != traffic->ranks) return make_error("internal: graph and traffic disagree on ranks");
  if (allocation.size() == 0) return make_error("no nodes allocated");
  if (allocation.network_nodes() != platform->net().nodes()) return make_error("internal: allocation of another network");
  if (ranks() > allocation.total_slots()) {
    const std::string per_node = allocation.uniform() ? " x " + std::to_string(allocation.max_slots()) + " ranks per node" : "";
    return make_error(std::to_string(ranks()) + " ranks do not fit on " + std::to_string(allocation.size()) + " nodes" +
                      per_node + " (" + std::to_string(allocation.total_slots()) + " slots)");
  }
  return Ok{};
}

Result<Allocation> make_allocation(const Platform& platform, const std::vector<int>& nodes_in, int ppn) {
  const int max_cores = platform.node_kinds.max_cores();
  if (ppn < 0) return make_error("ranks per node must be at least 1");
  if (ppn > max_cores)
    return make_error("--ppn " + std::to_string(ppn) + " exceeds the " + std::to_string(max_cores) + " cores of " +
                      (platform.node_kinds.uniform() ? "a node" : "the largest node"));
  std::vector<int> nodes = nodes_in;
  if (nodes.empty()) {
    nodes.resize(static_cast<size_t>(platform.net().nodes()));
    std::iota(nodes.begin(), nodes.end(), 0);
  }
  std::vector<int> slots(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i] < 0 || nodes[i] >= platform.net().nodes()) return make_error("node " + std::to_string(nodes[i]) + " is not a node of the machine");
    const int cores = platform.node(nodes[i]).cores();
    slots[i] = ppn > 0 ? std::min(ppn, cores) : cores;
  }
  return Allocation(platform.net().nodes(), std::move(nodes), slots);
}

Status check_placement(const std::vector<Placement>& placement, int ranks, const Platform& platform,
                       const Allocation& allocation) {
  if (static_cast<int>(placement.size()) != ranks) return make_error("placement has the wrong number of ranks");
  const int nn = platform.net().nodes();
  std::vector<int> load(static_cast<size_t>(nn), 0);
  const int stride = platform.node_kinds.max_cores();
  std::vector<char> core_used(static_cast<size_t>(nn) * stride, 0);
  for (int r = 0; r < ranks; ++r) {
    const Placement& p = placement[r];
    if (p.node < 0 || p.node >= nn || !allocation.contains(p.node))
      return make_error("rank " + std::to_string(r) + " placed on a node outside the allocation");
    if (p.core < 0 || p.core >= platform.node(p.node).cores()) return make_error("rank " + std::to_string(r) + " on a missing core");
    if (++load[p.node] > allocation.slots(p.node))
      return make_error("node " + std::to_string(p.node) + " holds more than " + std::to_string(allocation.slots(p.node)) + " ranks");
    char& c = core_used[static_cast<size_t>(p.node) * stride + p.core];
    if (c) return make_error("two ranks share core " + std::to_string(p.core) + " of node " + std::to_string(p.node));
    c = 1;
  }
  return Ok{};
}

Result<MapOutcome> map_ranks(const Traffic& traffic, const Platform& platform, const MapOptions& options) {
  const AlgorithmInfo* algo = find_algorithm(options.algorithm);
  if (!algo) {
    std::string names;
    for (const auto& a : algorithms()) names += (names.empty() ? "" : ", ") + a.name;
    return make_error("unknown algorithm '" + options.algorithm + "' (known: " + names + ")");
  }
  MapProblem problem;
  const CommGraph graph = build_comm_graph(traffic, message_byte_equivalent(platform.latency));
  problem.graph = &graph;
  const CommGraph bytes_graph = build_comm_graph(traffic, 0.0);
  problem.bytes_graph = &bytes_graph;
  problem.traffic = &traffic;
  problem.point_to_point = options.point_to_point;
  problem.bulk_model = options.bulk_model;
  problem.platform = &platform;
  auto allocation = make_allocation(platform, options.nodes, options.ppn);
  if (!allocation) return allocation.error();
  problem.allocation = std::move(*allocation);
  problem.seed = options.seed;
  problem.preset = options.preset;
  problem.core_fill = options.core_fill;
  problem.progress = options.progress;
  problem.alternatives = std::max(0, options.alternatives);
  problem.threads = options.threads > 0 ? options.threads : detail::available_threads();
  if (auto st = problem.check(); !st) return st.error();
  auto outcome = algo->run(problem);
  if (!outcome) return outcome.error();
  if (auto st = check_placement(outcome->placement, problem.ranks(), platform, problem.allocation); !st)
    return make_error("internal: algorithm '" + algo->name + "' broke an invariant: " + st.error().message);
  for (const Alternative& a : outcome->alternatives)
    if (auto st = check_placement(a.placement, problem.ranks(), platform, problem.allocation); !st)
      return make_error("internal: alternative '" + a.name + "' broke an invariant: " + st.error().message);
  return outcome;
}

}  // namespace rankmap
