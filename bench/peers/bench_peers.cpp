// rankmap_bench_peers: rankmap's algorithms and the peer mappers (KaHIP process
// mapping, Mt-KaHyPar map_onto_graph, scotch_gmap on the plain and on a
// weighted torus target) side by side on the same instances, every result
// scored by rankmap's one evaluator. The full suite runs on tori; `--suite
// networks` runs fat-trees and a dragonfly through the same code (the
// network's target graph: network_target_graph). Peers run as separate programs (the
// adapters next to this file); they are benchmark dependencies only.
//
// What is compared is the inter-node placement: every result, ours included,
// gets its cores by the same rule (a node's ranks take cores 0, 1, ... in rank
// order), and a peer result that puts more than ppn ranks on a node is repaired
// minimally and the repair is flagged. The peers get the bytes-only graph (the
// scored objective is bytes-only hop-bytes). rankmap's default runs at its
// three presets, and the default preset at several seeds for its spread; the
// summary judges the presets against the peers (write_summary). Method and
// caveats: docs/benchmarks.md (bench/peers/notes.md).
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "rankmap/cli.hpp"
#include "rankmap/comm_graph.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/mapper.hpp"
#include "rankmap/mapping.hpp"
#include "rankmap/network.hpp"
#include "rankmap/profile.hpp"
#include "rankmap/text.hpp"
#include "rankmap/torus.hpp"
#include "../../mapper/src/detail.hpp"  // find_placement_within (the exact search)

namespace fs = std::filesystem;

namespace {

using rankmap::CommGraph;
using rankmap::Metrics;
using rankmap::Network;
using rankmap::Placement;
using rankmap::Torus;

// ------------------------------------------------------------------ instances

// The machines of the benchmark, each at one ranks-per-node count. `dir` names
// the subdirectory of --recorded-dir (bench/profiles/) holding that machine's
// recorded profiles. Every machine runs full (ranks = nodes x ppn), so no tool
// can win by spreading ranks over more nodes than another, and the capacity is
// exact.
struct MachineGroup {
  const char* dir;
  const char* title;
  const char* machine;
  int nodes;
  int ppn;
};

const std::vector<MachineGroup>& machine_groups() {
  static const std::vector<MachineGroup> g = {
      {"desmos-2", "desmos, 2 ranks per node", "desmos", 32, 2},
      {"desmos-4", "desmos, 4 ranks per node", "desmos", 32, 4},
      {"desmos-6", "desmos, 6 ranks per node", "desmos", 32, 6},
      {"8x8-4", "8x8 torus, 4 ranks per node", "torus=8x8 node=package:2,core:4", 64, 4},
      {"4x4-4", "4x4 torus, 4 ranks per node", "torus=4x4 node=package:2,core:4", 16, 4},
      {"4x4x4-2", "4x4x4 torus, 2 ranks per node", "torus=4x4x4 node=package:2,core:4", 64, 2},
      {"8x4x4x4-2", "8x4x4x4 torus, 2 ranks per node", "torus=8x4x4x4 node=package:2,core:4", 512, 2},
  };
  return g;
}

// The networks suite (docs/benchmarks.md, "Peer mappers on fat-trees and
// dragonflies"): three networks of 64 hosts at 2 ranks per node (128 ranks),
// so the recorded 128-rank profiles of the 4x4x4 torus fit them. `dir` is
// the profile group they borrow (see kNetworkProfiles).
const std::vector<MachineGroup>& network_groups() {
  static const std::vector<MachineGroup> g = {
      {"4x4x4-2", "fat-tree 8x8, 2 ranks per node", "fattree=2;8,8;1,4;1,2 node=package:2,core:4", 64, 2},
      {"4x4x4-2", "fat-tree 8x8 taper 4, 2 ranks per node", "fattree=2;8,8;1,4;1,2;taper=4 node=package:2,core:4",
       64, 2},
      {"4x4x4-2", "dragonfly 4x2x4x2, 2 ranks per node", "dragonfly=4,1;2,1;4,1;2 node=package:2,core:4", 64, 2},
  };
  return g;
}
// The recorded profiles (of bench/profiles/4x4x4-2/) that join every network
// of the networks suite: 128 ranks each.
const std::vector<std::string>& network_profiles() {
  static const std::vector<std::string> p = {"cg", "hydro27", "mg"};
  return p;
}
const std::vector<std::string>& network_patterns() {
  static const std::vector<std::string> p = {"stencil2d", "stencil3d", "stencil3d-shuffled", "random"};
  return p;
}

struct Instance {
  std::string group;          // section of the tables: machine title, synthetic or recorded
  std::string machine_title;  // the machine at its ppn, for the per-machine summaries
  std::string machine;        // machine description (preset or key=value words)
  int ppn = 0;
  bool ppn_differs = false;  // ppn differs from the rest of the group
  rankmap::SynthSpec spec;
  std::string recorded_name;  // a profile recorded with libcommprof instead of a synthetic pattern
  std::string recorded_path;
  int slots = 0;  // nodes x ppn of the machine (recorded profiles may leave some free)

  bool recorded() const { return !recorded_path.empty(); }

  std::string name() const {
    if (recorded())
      return recorded_name + " " + std::to_string(spec.ranks) + " (recorded" +
             (spec.ranks < slots ? ", " + std::to_string(spec.ranks) + " of " + std::to_string(slots) + " slots" : "") +
             ")";
    std::string shape;
    if (spec.pattern.rfind("stencil", 0) == 0) {
      const int dims = spec.pattern == "stencil2d" ? 2 : 3;
      const std::vector<int> s = spec.shape.empty() ? rankmap::balanced_shape(spec.ranks, dims) : spec.shape;
      for (size_t i = 0; i < s.size(); ++i) shape += (i ? "x" : "") + std::to_string(s[i]);
      shape = " " + shape;
    } else if (spec.pattern == "random") {
      shape = " d" + std::to_string(spec.degree);
    }
    return spec.pattern + " " + std::to_string(spec.ranks) + shape +
           (ppn_differs ? " (" + std::to_string(ppn) + " per node)" : "");
  }
};

const std::vector<std::string>& all_patterns() {
  static const std::vector<std::string> p = {"stencil2d", "stencil3d", "stencil27", "stencil3d-shuffled",
                                             "ring",      "alltoall",  "random"};
  return p;
}

std::vector<Instance> full_suite() {
  std::vector<Instance> out;
  for (const MachineGroup& g : machine_groups())
    for (const std::string& pattern : all_patterns()) {
      Instance in;
      in.group = std::string(g.title) + " (`" + g.machine + "`)";
      in.machine_title = g.title;
      in.machine = g.machine;
      in.ppn = g.ppn;
      in.spec.pattern = pattern;
      in.spec.ranks = g.nodes * g.ppn;
      // All-to-all on 1,024 ranks is a complete graph of half a million edges:
      // one rank per node keeps the 8x4x4x4 run within the time budget.
      if (pattern == "alltoall" && g.nodes * g.ppn > 512) {
        in.ppn = 1;
        in.ppn_differs = true;
        in.spec.ranks = g.nodes;
      }
      out.push_back(in);
    }
  return out;
}

// One tiny instance for the CTest smoke test: every tool, a few seconds.
std::vector<Instance> smoke_suite() {
  Instance in;
  in.group = "smoke (`desmos`)";
  in.machine_title = "smoke";
  in.machine = "desmos";
  in.ppn = 2;
  in.spec.pattern = "stencil3d-shuffled";
  in.spec.ranks = 64;
  return {in};
}

// Every network of network_groups() with the synthetic patterns of
// network_patterns() (128 ranks) and the recorded profiles of
// network_profiles() found under recorded_dir/GROUP/.
std::vector<Instance> networks_suite(const std::string& recorded_dir) {
  std::vector<Instance> out;
  for (const MachineGroup& g : network_groups()) {
    const std::string group = std::string(g.title) + " (`" + g.machine + "`)";
    for (const std::string& pattern : network_patterns()) {
      Instance in;
      in.group = group;
      in.machine_title = g.title;
      in.machine = g.machine;
      in.ppn = g.ppn;
      in.spec.pattern = pattern;
      in.spec.ranks = g.nodes * g.ppn;
      out.push_back(in);
    }
    if (recorded_dir.empty()) continue;
    for (const std::string& name : network_profiles()) {
      const fs::path path = fs::path(recorded_dir) / g.dir / (name + ".prof");
      if (!fs::exists(path)) continue;
      auto profile = rankmap::read_profile(path.string());
      if (!profile) throw std::runtime_error(profile.error().message);
      if (profile->ranks > g.nodes * g.ppn) continue;
      Instance in;
      in.group = group;
      in.machine_title = g.title;
      in.machine = g.machine;
      in.ppn = g.ppn;
      in.spec.ranks = profile->ranks;
      in.recorded_name = name;
      in.recorded_path = path.string();
      in.slots = g.nodes * g.ppn;
      out.push_back(in);
    }
  }
  return out;
}

// ---------------------------------------------------------------------- tools

enum class ToolKind { ours, kahip_flat, kahip_tree, mtkahypar, scotch_torus, scotch_weighted };

struct Tool {
  std::string name;
  ToolKind kind;
  std::string algorithm;  // ours only
  rankmap::Preset preset = rankmap::Preset::standard;  // ours only
  bool scotch_stock = false;  // scotch_gmap's own default strategy instead of -cqb -b0

  // A preset of rankmap's default algorithm: judged against the others, never
  // a reference of the judgement.
  bool is_preset() const { return kind == ToolKind::ours && algorithm == rankmap::default_algorithm(); }
  bool is_scotch() const { return kind == ToolKind::scotch_torus || kind == ToolKind::scotch_weighted; }
  // Targets that describe a torus only (Scotch's torusXD, KaHIP's torus
  // tree): not run on other networks.
  bool torus_only() const { return kind == ToolKind::scotch_torus || kind == ToolKind::kahip_tree; }
};

constexpr const char* kDefaultTool = "rankmap (default)";
constexpr const char* kStrongTool = "rankmap strong";
// Relative tolerance under which two scores count as tied (issue 10: "<= best
// peer x 1.001").
constexpr double kTie = 1e-3;
// The exact search for a placement best on both runs up to this many ranks
// (the LAMMPS jobs' 16: 0.05-0.2 s there), and gives up after this many
// partial placements.
constexpr int kExactMaxRanks = 20;
constexpr std::int64_t kExactMaxStates = 200'000'000;

const std::vector<Tool>& all_tools() {
  using rankmap::Preset;
  static const std::vector<Tool> t = {
      {kDefaultTool, ToolKind::ours, "rankmap", Preset::standard},
      {"rankmap fast", ToolKind::ours, "rankmap", Preset::fast},
      {kStrongTool, ToolKind::ours, "rankmap", Preset::strong},
      {"block", ToolKind::ours, "block"},
      {"paper", ToolKind::ours, "paper"},
      {"scotch_gmap torusXD (stock)", ToolKind::scotch_torus, "", Preset::standard, true},
      {"scotch_gmap torusXD -cqb -b0", ToolKind::scotch_torus, ""},
      {"scotch_gmap amk_grf -cqb -b0", ToolKind::scotch_weighted, ""},
      {"Mt-KaHyPar", ToolKind::mtkahypar, ""},
      {"KaHIP flat", ToolKind::kahip_flat, ""},
      {"KaHIP torus tree", ToolKind::kahip_tree, ""},
  };
  return t;
}

const Tool* find_tool_info(const std::string& name) {
  for (const Tool& t : all_tools())
    if (t.name == name) return &t;
  return nullptr;
}

enum class State { ok, not_installed, unsupported, failed };

struct Result {
  std::string tool;
  State state = State::failed;
  std::string message;   // why a tool did not produce a mapping, or its note
  std::string version;   // peer version from the adapter
  Metrics metrics;
  double seconds = 0;    // the tool's own mapping time
  int repaired = 0;      // ranks moved to restore the capacity
  bool capacity_ok = false;
  bool finite = false;
};

// The default preset at further seeds (the first is the reported row).
struct SeedRun {
  std::uint64_t seed = 0;
  bool ok = false;
  double hop_bytes = 0, max_link = 0, seconds = 0;
  double bulk_time = rankmap::kNoValue;  // the bulk model's predicted time
};

// Whether any placement is best or tied on both metrics against the best
// peer: the exact search on small jobs (detail::find_placement_within).
struct ExactCheck {
  bool ran = false;
  rankmap::detail::PlacementSearch::Outcome outcome = rankmap::detail::PlacementSearch::Outcome::gave_up;
  std::int64_t states = 0;
  double seconds = 0;
};

struct InstanceRun {
  std::vector<Result> results;
  std::vector<SeedRun> seeds;  // the default preset at every seed of the spread, the reported one first
  ExactCheck exact;
};

// ----------------------------------------------------------- graph export

// Integer weights for the peers (32-bit weights and cost sums in Scotch,
// KaHIP and Mt-KaHyPar): scaled so the total is 1e7, every weight >= 1. The
// largest target distance is below 20 hops (200 in KaHIP's x10 tree
// distances) on every benchmarked torus, so cost sums stay below 2^31.
std::vector<std::int64_t> integer_weights(const CommGraph& g) {
  const double total = std::max(g.total_weight(), 1e-300);
  const double scale = 1e7 / total;
  std::vector<std::int64_t> w(g.weight.size());
  for (size_t e = 0; e < w.size(); ++e) w[e] = std::max<std::int64_t>(1, std::llround(g.weight[e] * scale));
  return w;
}

bool write_metis(const fs::path& path, const CommGraph& g, const std::vector<std::int64_t>& w) {
  std::ofstream f(path);
  f << g.vertices << ' ' << g.edges() << " 001\n";
  for (int u = 0; u < g.vertices; ++u) {
    for (std::int64_t e = g.xadj[u]; e < g.xadj[u + 1]; ++e)
      f << (e > g.xadj[u] ? " " : "") << g.adjncy[e] + 1 << ' ' << w[e];
    f << '\n';
  }
  return static_cast<bool>(f);
}

// Scotch source graph format, base 0, edge weights only ("010").
bool write_scotch_graph(const fs::path& path, const CommGraph& g, const std::vector<std::int64_t>& w) {
  std::ofstream f(path);
  f << "0\n" << g.vertices << '\t' << g.adjncy.size() << "\n0\t010\n";
  for (int u = 0; u < g.vertices; ++u) {
    f << g.xadj[u + 1] - g.xadj[u];
    for (std::int64_t e = g.xadj[u]; e < g.xadj[u + 1]; ++e) f << '\t' << w[e] << ' ' << g.adjncy[e];
    f << '\n';
  }
  return static_cast<bool>(f);
}

// The network as a target graph for Scotch's amk_grf and Mt-KaHyPar: on a
// torus, torus_target_graph; on any other network, the complete graph of its
// compute nodes with edge {a, b} weighted by hops(a, b). Hop distances obey
// the triangle inequality, so the direct edge is a shortest path and the
// graph's shortest-path distances are exactly the network's hop distances
// (the scored hop-bytes objective). Switches are not vertices: the peers map
// onto compute nodes only.
CommGraph torus_target_graph(const Torus& t, std::vector<std::int64_t>& weight);

CommGraph network_target_graph(const Network& net, std::vector<std::int64_t>& weight) {
  if (const Torus* t = net.as_torus()) return torus_target_graph(*t, weight);
  CommGraph g;
  g.vertices = net.nodes();
  g.xadj.push_back(0);
  weight.clear();
  for (int a = 0; a < net.nodes(); ++a) {
    for (int b = 0; b < net.nodes(); ++b) {
      if (b == a) continue;
      const std::int64_t w = net.hops(a, b);
      g.adjncy.push_back(b);
      g.weight.push_back(static_cast<double>(w));
      weight.push_back(w);
    }
    g.xadj.push_back(static_cast<std::int64_t>(g.adjncy.size()));
  }
  return g;
}

// What both target graphs promise, checked on every instance of up to
// kCheckedTargetNodes nodes (Floyd-Warshall): the shortest-path distance
// between nodes a and b of the target graph is hops(a, b) on a network other
// than a torus, and weighted_distance(a, b) x scale on a torus, scale being
// the weight of one single-link hop (the lcm of torus_target_graph). Throws
// naming the first pair that differs.
constexpr int kCheckedTargetNodes = 256;

void check_target_graph(const Network& net, const CommGraph& g, const std::vector<std::int64_t>& weight) {
  const int n = net.nodes();
  if (n > kCheckedTargetNodes) return;
  if (g.vertices != n) throw std::runtime_error("target graph: " + std::to_string(g.vertices) + " vertices for " +
                                                std::to_string(n) + " nodes");
  constexpr std::int64_t inf = std::numeric_limits<std::int64_t>::max() / 4;
  std::vector<std::int64_t> d(static_cast<size_t>(n) * n, inf);
  for (int a = 0; a < n; ++a) {
    d[static_cast<size_t>(a) * n + a] = 0;
    for (std::int64_t e = g.xadj[a]; e < g.xadj[a + 1]; ++e) {
      auto& x = d[static_cast<size_t>(a) * n + g.adjncy[e]];
      x = std::min(x, weight[e]);
    }
  }
  for (int k = 0; k < n; ++k)
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        d[static_cast<size_t>(a) * n + b] = std::min(d[static_cast<size_t>(a) * n + b],
                                                     d[static_cast<size_t>(a) * n + k] + d[static_cast<size_t>(k) * n + b]);
  double scale = 1;
  if (const Torus* t = net.as_torus()) {
    std::int64_t lcm = 1;
    for (int dim = 0; dim < t->dims(); ++dim) lcm = std::lcm(lcm, static_cast<std::int64_t>(t->links(dim)));
    scale = static_cast<double>(lcm);
  }
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      const double want = net.as_torus() ? net.weighted_distance(a, b) * scale : net.hops(a, b);
      const double got = static_cast<double>(d[static_cast<size_t>(a) * n + b]);
      if (std::abs(got - want) > 1e-9 * std::max(1.0, want))
        throw std::runtime_error("target graph: shortest path " + net.node_label(a) + " -> " + net.node_label(b) +
                                 " is " + rankmap::text::format_double(got) + ", the network's distance " +
                                 rankmap::text::format_double(want));
    }
}

// The torus as a target graph: one vertex per node, one edge per neighbour
// pair, weight = cost of one hop along that dimension = 1 / links[d], scaled
// by the lcm of the link counts to stay integral. Shortest paths in this graph
// are exactly Torus::weighted_distance (routes are minimal in every dimension).
CommGraph torus_target_graph(const Torus& t, std::vector<std::int64_t>& weight) {
  std::int64_t lcm = 1;
  for (int d = 0; d < t.dims(); ++d) lcm = std::lcm(lcm, static_cast<std::int64_t>(t.links(d)));
  std::vector<std::vector<std::pair<int, std::int64_t>>> adj(static_cast<size_t>(t.nodes()));
  for (int a = 0; a < t.nodes(); ++a)
    for (int d = 0; d < t.dims(); ++d)
      for (rankmap::Direction dir : {rankmap::Direction::plus, rankmap::Direction::minus}) {
        const int b = t.neighbor(a, d, dir);
        if (b < 0 || b == a) continue;
        const std::int64_t w = lcm / t.links(d);
        auto& list = adj[a];
        if (std::none_of(list.begin(), list.end(), [&](const auto& p) { return p.first == b; })) list.push_back({b, w});
      }
  CommGraph g;
  g.vertices = t.nodes();
  g.xadj.push_back(0);
  weight.clear();
  for (auto& list : adj) {
    std::sort(list.begin(), list.end());
    for (const auto& [b, w] : list) {
      g.adjncy.push_back(b);
      g.weight.push_back(static_cast<double>(w));
      weight.push_back(w);
    }
    g.xadj.push_back(static_cast<std::int64_t>(g.adjncy.size()));
  }
  return g;
}

// Scotch's torusXD/meshXD target string (dimension 0 varies fastest, as in
// rankmap). Scotch accepts at most 5 dimensions; size-1 dimensions are dropped.
std::optional<std::string> scotch_torus_target(const Torus& t) {
  std::vector<int> sizes;
  bool wrap = true, mesh = true;
  for (int d = 0; d < t.dims(); ++d) {
    if (t.size(d) == 1) continue;
    sizes.push_back(t.size(d));
    wrap = wrap && t.wraps(d);
    mesh = mesh && !t.wraps(d);
  }
  if (sizes.empty()) sizes.push_back(1);
  if (sizes.size() > 5 || !(wrap || mesh)) return std::nullopt;
  std::string s = std::string(wrap ? "torusXD " : "meshXD ") + std::to_string(sizes.size());
  for (int v : sizes) s += " " + std::to_string(v);
  return s;
}

// KaHIP's machine model is a tree: levels innermost first, a distance per
// level. The torus becomes one level per dimension (dimension 0 innermost, so
// KaHIP's PE numbering is rankmap's node numbering) and the distance of level l
// is the mean weighted torus distance between two nodes whose highest differing
// coordinate is l: the mean ring distance of dimension l between different
// coordinates, plus the mean over all pairs of every lower dimension. In
// tenths, rounded, kept strictly increasing.
std::pair<std::string, std::string> kahip_torus_tree(const Torus& t) {
  std::string hierarchy, distances;
  double lower = 0;
  long previous = 0;
  for (int d = 0; d < t.dims(); ++d) {
    const int s = t.size(d);
    if (s == 1) continue;
    double sum = 0;
    for (int a = 0; a < s; ++a)
      for (int b = 0; b < s; ++b) {
        const int o = std::abs(a - b);
        sum += (t.wraps(d) ? std::min(o, s - o) : o) / static_cast<double>(t.links(d));
      }
    const double mean_distinct = sum / (static_cast<double>(s) * (s - 1));
    long level = std::max(previous + 1, std::lround(10 * (mean_distinct + lower)));
    lower += sum / (static_cast<double>(s) * s);
    previous = level;
    hierarchy += (hierarchy.empty() ? "" : ":") + std::to_string(s);
    distances += (distances.empty() ? "" : ":") + std::to_string(level);
  }
  if (hierarchy.empty()) hierarchy = "1", distances = "1";
  return {hierarchy, distances};
}

// ------------------------------------------------------------ peer programs

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string last_line(const std::string& text) {
  std::string s = text;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  const auto nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

struct PeerRun {
  State state = State::failed;
  std::string message;
  std::vector<int> node_of;
  double seconds = 0;
  std::string version;
  std::string note;
};

// Runs an adapter, which writes a node-index vector to `out` (see
// peer_common.py for the exit statuses), and reads the vector back.
PeerRun run_peer(const std::string& command, const fs::path& out, const fs::path& err, int ranks, int node_count,
                 int timeout_s) {
  PeerRun r;
  fs::remove(out);
  const std::string limited = "timeout " + std::to_string(timeout_s) + " " + command;
  const int raw = std::system((limited + " >" + quote(err.string()) + " 2>&1").c_str());
  const int status = raw == -1 ? -1 : (WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw));
  const std::string why = last_line(read_text(err));
  if (status == 124) {
    r.message = "timed out after " + std::to_string(timeout_s) + " s";
    return r;
  }
  if (status == 3) {
    r.state = State::not_installed;
    r.message = "not installed: " + why;
    return r;
  }
  if (status == 4) {
    r.state = State::unsupported;
    r.message = "N/A: " + why;
    return r;
  }
  if (status != 0) {
    r.message = "failed (status " + std::to_string(status) + "): " + why;
    return r;
  }
  std::ifstream f(out);
  std::string line;
  int lineno = 0;
  while (std::getline(f, line)) {
    ++lineno;
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::istringstream ws(line.substr(1));
      std::string key;
      ws >> key;
      std::string rest;
      std::getline(ws >> std::ws, rest);
      if (key == "seconds") r.seconds = std::atof(rest.c_str());
      if (key == "tool") r.version = rest;
      if (key == "note") r.note = rest;
      continue;
    }
    char* end = nullptr;
    const long v = std::strtol(line.c_str(), &end, 10);
    if (end == line.c_str() || *end != '\0' || v < 0 || v >= node_count) {
      r.message = "failed: " + out.filename().string() + ":" + std::to_string(lineno) + ": bad node index '" + line + "'";
      return r;
    }
    r.node_of.push_back(static_cast<int>(v));
  }
  if (static_cast<int>(r.node_of.size()) != ranks) {
    r.message = "failed: " + std::to_string(r.node_of.size()) + " node indices for " + std::to_string(ranks) + " ranks";
    return r;
  }
  r.state = State::ok;
  return r;
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// ----------------------------------------------- capacity repair and cores

// Restores <= ppn ranks per node with the fewest moves (exactly the excess of
// every overfull node). From each overfull node, in node order, the ranks
// least attached to the rest of the node leave first (ties: higher rank); each
// goes to the nearest allocated node with room (hops, then weighted distance,
// then node index). Deterministic. Returns the number of ranks moved.
int repair_capacity(const CommGraph& g, const Network& t, const std::vector<int>& nodes, int ppn,
                    std::vector<int>& node_of) {
  std::vector<int> load(static_cast<size_t>(t.nodes()), 0);
  for (int n : node_of) ++load[n];
  std::vector<char> allocated(static_cast<size_t>(t.nodes()), 0);
  for (int n : nodes) allocated[n] = 1;
  int moved = 0;
  for (int n = 0; n < t.nodes(); ++n) {
    if (load[n] <= ppn) continue;
    std::vector<std::pair<double, int>> members;  // (weight to the node's other ranks, -rank)
    for (int r = 0; r < g.vertices; ++r) {
      if (node_of[r] != n) continue;
      double attached = 0;
      for (std::int64_t e = g.xadj[r]; e < g.xadj[r + 1]; ++e)
        if (node_of[g.adjncy[e]] == n) attached += g.weight[e];
      members.push_back({attached, -r});
    }
    std::sort(members.begin(), members.end());
    for (size_t i = 0; load[n] > ppn; ++i) {
      const int r = -members[i].second;
      int best = -1;
      for (int m : nodes) {
        if (load[m] >= ppn || !allocated[m]) continue;
        if (best < 0 || std::make_tuple(t.hops(n, m), t.weighted_distance(n, m), m) <
                            std::make_tuple(t.hops(n, best), t.weighted_distance(n, best), best))
          best = m;
      }
      if (best < 0) return -1;  // more ranks than slots: cannot happen for checked instances
      node_of[r] = best;
      --load[n];
      ++load[best];
      ++moved;
    }
  }
  return moved;
}

// The one intra-node rule applied to every tool: a node's ranks take cores
// 0, 1, ... in rank order (what launchers do), so only the inter-node
// placement differs between tools.
std::vector<Placement> cores_in_rank_order(const std::vector<int>& node_of, int node_count) {
  std::vector<int> next(static_cast<size_t>(node_count), 0);
  std::vector<Placement> p(node_of.size());
  for (size_t r = 0; r < node_of.size(); ++r) p[r] = Placement{node_of[r], next[node_of[r]]++};
  return p;
}

// The evaluator's gap is hop-bytes / bound - 1, infinite when the bound is 0
// (e.g. a ring at 3+ ranks per node: every rank's two partners fit on its
// node). That is a weak bound, not a broken score: the gap is only required
// finite when the bound is positive. The gap is taken on hop-bytes, the scored
// objective (equal to the bandwidth-weighted one on single-link machines).
bool metrics_finite(const Metrics& m) {
  for (double v : {m.hop_bytes, m.weighted_cost, m.max_link_relative, m.mean_link_relative, m.lower_bound_hop_bytes,
                   m.lower_bound_weighted, m.comm_time_max})
    if (!std::isfinite(v)) return false;
  if (m.lower_bound_hop_bytes > 0 && !std::isfinite(m.gap_hop_bytes)) return false;
  if (m.lower_bound_weighted > 0 && !std::isfinite(m.gap_weighted)) return false;
  return true;
}

bool has_bound(const Metrics& m) { return m.lower_bound_hop_bytes > 0; }

std::string gap_text(const Metrics& m) {
  if (!has_bound(m)) return "n/a (bound 0)";
  return fmt("%.1f%%", m.gap_hop_bytes * 100);
}

// ------------------------------------------------------------------- driver

struct Options {
  std::string suite = "full";
  std::string filter;
  std::string python;
  std::string peers_dir = RANKMAP_PEERS_DIR;
  std::string work;
  std::string markdown;
  std::vector<std::string> tools;
  std::vector<std::string> recorded;  // NAME=PATH of recorded profiles
  std::string recorded_machine = "desmos";  // the machine of --recorded
  int recorded_ppn = 4;                     // and its ranks per node
  std::string recorded_dir;           // every *.prof below it is a recorded instance
  std::uint64_t seed = 1;
  int spread_seeds = 5;               // seeds of the default preset per instance (1: no spread)
  int timeout = 120;
  bool check = false;
  bool keep = false;
  bool list = false;
};

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool selected(const Options& opt, const std::string& tool) {
  return opt.tools.empty() || std::find(opt.tools.begin(), opt.tools.end(), tool) != opt.tools.end();
}

// The results of every tool that is not a rankmap preset (block and paper
// included) that produced a mapping.
std::vector<const Result*> peer_results(const std::vector<Result>& rs) {
  std::vector<const Result*> peers;
  for (const Result& r : rs) {
    const Tool* t = find_tool_info(r.tool);
    if (r.state == State::ok && t && !t->is_preset()) peers.push_back(&r);
  }
  return peers;
}

InstanceRun run_instance(const Instance& in, const Options& opt, const fs::path& dir, std::ostream& log) {
  InstanceRun run;
  std::vector<Result>& results = run.results;
  auto machine = rankmap::load_machine(in.machine);
  if (!machine) throw std::runtime_error(machine.error().message);
  auto platform = rankmap::Platform::from_machine(*machine);
  if (!platform) throw std::runtime_error(platform.error().message);
  rankmap::SynthSpec spec = in.spec;
  spec.seed = opt.seed;
  auto profile = in.recorded() ? rankmap::read_profile(in.recorded_path) : rankmap::synthesize(spec);
  if (!profile) throw std::runtime_error(profile.error().message);
  auto traffic = rankmap::traffic_from_profile(*profile, rankmap::CollectiveModel::model);
  if (!traffic) throw std::runtime_error(traffic.error().message);
  // The point-to-point traffic alone, which the bulk model replays: passed to
  // the default and to the evaluator as `rankmap map` and `rankmap evaluate`
  // do (up to the model's rank limit, as they do).
  std::optional<rankmap::Traffic> point_to_point;
  if (traffic->ranks <= rankmap::kBulkModelMaxRanks) {
    auto p2p = rankmap::traffic_from_profile(*profile, rankmap::CollectiveModel::ignore);
    if (!p2p) throw std::runtime_error(p2p.error().message);
    point_to_point = std::move(*p2p);
  }
  const Network& net = platform->net();  // the machine's network (a torus in the full suite)
  const int ranks = traffic->ranks;
  std::vector<int> nodes(static_cast<size_t>(net.nodes()));
  std::iota(nodes.begin(), nodes.end(), 0);

  // The peers get the bytes-only graph (weight of {u, v} = bytes both ways, no
  // message byte-equivalents): the scored objective is bytes-only hop-bytes,
  // so this is each peer's best shot at it. build_comm_graph drops pairs
  // without bytes (messages only, e.g. barriers), so every edge has a
  // positive weight and integer_weights() keeps it >= 1.
  const CommGraph graph = rankmap::build_comm_graph(*traffic, 0.0);
  if (auto st = graph.check(); !st) throw std::runtime_error("bytes-only graph: " + st.error().message);
  const auto weights = integer_weights(graph);
  std::vector<std::int64_t> target_weights;
  const CommGraph target = network_target_graph(net, target_weights);
  check_target_graph(net, target, target_weights);
  const fs::path metis = dir / "graph.metis", grf = dir / "graph.grf";
  const fs::path target_metis = dir / "target.metis", target_grf = dir / "target.grf";
  if (!write_metis(metis, graph, weights) || !write_scotch_graph(grf, graph, weights) ||
      !write_metis(target_metis, target, target_weights) || !write_scotch_graph(target_grf, target, target_weights))
    throw std::runtime_error("cannot write graph files under " + dir.string());

  rankmap::EvaluateOptions eval_options;
  eval_options.ppn = in.ppn;
  eval_options.point_to_point = point_to_point ? &*point_to_point : nullptr;
  // The bound depends on the instance only (every scored placement keeps the
  // capacity): computed once here, not in each of the ~17 evaluations.
  const rankmap::LowerBound bound = rankmap::cost_lower_bound(rankmap::build_comm_graph(*traffic, 0.0), net, in.ppn, nodes);
  eval_options.lower_bound = false;
  auto with_bound = [&](Metrics m) {
    auto gap = [](double v, double b) { return b > 0 ? v / b - 1 : (v > 0 ? INFINITY : 0.0); };
    m.lower_bound_hop_bytes = bound.hop_bytes;
    m.lower_bound_weighted = bound.weighted;
    m.gap_hop_bytes = gap(m.hop_bytes, bound.hop_bytes);
    m.gap_weighted = gap(m.weighted_cost, bound.weighted);
    return m;
  };
  // rankmap's own algorithms, scored; `seconds` is the whole map_ranks.
  auto run_ours = [&](const std::string& algorithm, rankmap::Preset preset, std::uint64_t seed, Result& res,
                      std::vector<int>& node_of) {
    rankmap::MapOptions mo;
    mo.algorithm = algorithm;
    mo.ppn = in.ppn;
    mo.seed = seed;
    mo.preset = preset;
    mo.point_to_point = eval_options.point_to_point;
    const double start = now();
    auto outcome = rankmap::map_ranks(*traffic, *platform, mo);
    res.seconds = now() - start;
    if (!outcome) {
      res.message = "failed: " + outcome.error().message;
    } else {
      res.state = State::ok;
      for (const Placement& p : outcome->placement) node_of.push_back(p.node);
    }
  };
  auto score = [&](Result& res, std::vector<int>& node_of) {
    if (res.state != State::ok) return;
    res.repaired = repair_capacity(graph, net, nodes, in.ppn, node_of);
    const auto placement = cores_in_rank_order(node_of, net.nodes());
    res.capacity_ok =
        res.repaired >= 0 && static_cast<bool>(rankmap::check_placement(placement, ranks, *platform,
                                                                  rankmap::Allocation::uniform(net.nodes(), nodes, in.ppn)));
    auto metrics = rankmap::evaluate(*traffic, placement, *platform, eval_options);
    if (!metrics) {
      res.state = State::failed;
      res.message = "evaluation failed: " + metrics.error().message;
    } else {
      res.metrics = with_bound(*metrics);
      res.finite = metrics_finite(res.metrics);
    }
  };

  for (const Tool& tool : all_tools()) {
    if (!selected(opt, tool.name)) continue;
    if (tool.torus_only() && !net.as_torus()) continue;
    Result res;
    res.tool = tool.name;
    std::vector<int> node_of;
    log << "  " << tool.name << " ... " << std::flush;
    if (tool.kind == ToolKind::ours) {
      run_ours(tool.algorithm, tool.preset, opt.seed, res, node_of);
    } else {
      std::string command;
      const fs::path out = dir / "peer.vec", err = dir / "peer.err";
      const std::string py = "env PYTHONDONTWRITEBYTECODE=1 " + quote(opt.python) + " ";
      const std::string adapters = opt.peers_dir + "/";
      PeerRun pr;
      if (!tool.is_scotch() && !fs::exists(opt.python)) {
        pr.state = State::not_installed;
        pr.message = "not installed: no Python environment at " + opt.python + " (run bench/peers/setup.sh)";
      } else {
        const std::string scotch_strategy = tool.scotch_stock ? " --strategy stock" : " --strategy strict";
        switch (tool.kind) {
          case ToolKind::kahip_flat:
          case ToolKind::kahip_tree: {
            const auto [hierarchy, distances] = tool.kind == ToolKind::kahip_tree
                                                    ? kahip_torus_tree(*net.as_torus())
                                                    : std::make_pair(std::to_string(net.nodes()), std::string("1"));
            command = py + quote(adapters + "peer_kahip.py") + " --graph " + quote(metis.string()) +
                      " --ppn " + std::to_string(in.ppn) + " --hierarchy " + hierarchy + " --distances " + distances +
                      " --seed " + std::to_string(opt.seed) + " --out " + quote(out.string());
            break;
          }
          case ToolKind::mtkahypar:
            command = py + quote(adapters + "peer_mtkahypar.py") + " --graph " + quote(metis.string()) +
                      " --target " + quote(target_metis.string()) + " --ppn " + std::to_string(in.ppn) +
                      " --seed " + std::to_string(opt.seed) + " --out " + quote(out.string());
            break;
          case ToolKind::scotch_torus: {
            const auto tgt = scotch_torus_target(*net.as_torus());
            if (!tgt) {
              pr.state = State::unsupported;
              pr.message = "N/A: Scotch's torusXD/meshXD target has at most 5 dimensions, uniform wrap";
            } else {
              command = quote(adapters + "peer_scotch.sh") + " --graph " + quote(grf.string()) + " --target " +
                        quote(*tgt) + scotch_strategy + " --out " + quote(out.string());
            }
            break;
          }
          case ToolKind::scotch_weighted:
            command = quote(adapters + "peer_scotch.sh") + " --graph " + quote(grf.string()) + " --target-graph " +
                      quote(target_grf.string()) + scotch_strategy + " --out " + quote(out.string());
            break;
          case ToolKind::ours:
            break;
        }
        if (!command.empty()) pr = run_peer(command, out, err, ranks, net.nodes(), opt.timeout);
      }
      res.state = pr.state;
      res.message = pr.state == State::ok ? pr.note : pr.message;
      res.version = pr.version;
      res.seconds = pr.seconds;
      node_of = std::move(pr.node_of);
    }
    score(res, node_of);
    if (res.state == State::ok)
      log << rankmap::text::format_double(res.metrics.hop_bytes) << " B*hop, max link "
          << rankmap::text::format_double(res.metrics.max_link_relative * 1e3) << " ms, comm time "
          << rankmap::text::format_double(res.metrics.comm_time_max * 1e3) << " ms, " << res.seconds << " s"
          << (res.repaired ? ", repaired " + std::to_string(res.repaired) + " ranks" : "") << "\n";
    else
      log << res.message << "\n";
    if (tool.name == kDefaultTool && res.state == State::ok)
      run.seeds.push_back({opt.seed, res.capacity_ok && res.finite, res.metrics.hop_bytes,
                           res.metrics.max_link_relative, res.seconds, res.metrics.predicted_bulk_time});
    results.push_back(std::move(res));
  }

  // The default preset at the further seeds of the spread (seed 1 is the row
  // above). Only the default: the spread is a property of what users run.
  if (!run.seeds.empty() && opt.spread_seeds > 1) {
    log << "  " << kDefaultTool << " at seeds";
    for (int k = 1; k < opt.spread_seeds; ++k) {
      Result res;
      std::vector<int> node_of;
      SeedRun sr;
      sr.seed = opt.seed + static_cast<std::uint64_t>(k);
      run_ours(rankmap::default_algorithm(), rankmap::Preset::standard, sr.seed, res, node_of);
      score(res, node_of);
      sr.ok = res.state == State::ok && res.capacity_ok && res.finite;
      sr.hop_bytes = res.metrics.hop_bytes;
      sr.max_link = res.metrics.max_link_relative;
      sr.bulk_time = res.metrics.predicted_bulk_time;
      sr.seconds = res.seconds;
      log << " " << sr.seed << ": "
          << (sr.ok ? rankmap::text::format_double(sr.hop_bytes) + " B*hop " +
                          rankmap::text::format_double(sr.max_link * 1e3) + " ms " +
                          rankmap::text::format_double(sr.seconds) + " s;"
                    : "(" + res.message + ");")
          << std::flush;
      run.seeds.push_back(sr);
    }
    log << "\n";
  }

  // Small jobs: is there a placement within the tie of the best peer on both
  // metrics at all? Where none is, a trade-off is not the search's miss.
  if (ranks <= kExactMaxRanks) {
    double best_hop = INFINITY, best_link = INFINITY;
    for (const Result* p : peer_results(results)) {
      best_hop = std::min(best_hop, p->metrics.hop_bytes);
      best_link = std::min(best_link, p->metrics.max_link_relative);
    }
    if (std::isfinite(best_hop) && std::isfinite(best_link)) {
      const double start = now();
      const auto found = rankmap::detail::find_placement_within(
          *traffic, net, rankmap::Allocation::uniform(net.nodes(), nodes, in.ppn), best_hop * (1 + kTie),
          best_link * (1 + kTie), kExactMaxStates);
      run.exact = {true, found.outcome, found.states, now() - start};
      using O = rankmap::detail::PlacementSearch::Outcome;
      log << "  exact search for a placement within " << 1 + kTie << "x the best peer on both: "
          << (found.outcome == O::found ? "found" : found.outcome == O::none ? "none" : "gave up") << " ("
          << found.states << " partial placements, " << run.exact.seconds << " s)\n";
    }
  }
  return run;
}

// ------------------------------------------------------------------- tables

bool tied_or_better(double ours, double best) { return ours <= best * (1 + kTie) + 1e-300; }
// a is lower than b by more than the tie tolerance.
bool clearly_lower(double a, double b) { return !tied_or_better(b, a); }

const Result* find_result(const std::vector<Result>& rs, const std::string& name) {
  for (const Result& r : rs)
    if (r.tool == name) return &r;
  return nullptr;
}

bool usable(const Result* r) { return r && r->state == State::ok; }

std::string ratio(double v, double ref) {
  if (ref <= 0) return v <= 0 ? "1.00" : "inf";
  return fmt("%.2f", v / ref);
}

std::string short_machine(const Instance& in) { return in.group.substr(0, in.group.find(" (")); }

// ------------------------------------------------------------- the judgement

// The scored metrics of the judgement: bytes-only hop-bytes and max link load
// decide "best"; the predicted communication time joins them for dominance:
// the bulk model's (predicted_bulk_time, the default's last judge, validated
// against SimGrid in docs/benchmarks.md) where it ran for both mappings
// compared, else the time model's slowest rank (predicted_comm_time_max).
struct Scores {
  double hop_bytes, max_link;
  double bulk_time;  // kNoValue where the bulk model did not run
  double time_model;
};
Scores scores(const Result& r) {
  return {r.metrics.hop_bytes, r.metrics.max_link_relative, r.metrics.predicted_bulk_time,
          r.metrics.predicted_comm_time_max};
}
bool has_bulk(const Scores& s) { return !std::isnan(s.bulk_time); }
// The predicted times of a and b, by the same model for both.
std::pair<double, double> predicted_times(const Scores& a, const Scores& b) {
  if (has_bulk(a) && has_bulk(b)) return {a.bulk_time, b.bulk_time};
  return {a.time_model, b.time_model};
}

// p dominates j: no worse on all three (ties within kTie count as equal),
// clearly lower on at least one.
bool dominates(const Scores& p, const Scores& j) {
  const auto [pt, jt] = predicted_times(p, j);
  const double pv[] = {p.hop_bytes, p.max_link, pt};
  const double jv[] = {j.hop_bytes, j.max_link, jt};
  bool lower = false;
  for (int k = 0; k < 3; ++k) {
    if (clearly_lower(jv[k], pv[k])) return false;
    if (clearly_lower(pv[k], jv[k])) lower = true;
  }
  return lower;
}

// The gain in predicted time under which the default's bulk model step keeps
// its static choice (kBulkMinGain in mapper/src/algo_rankmap.cpp): a mapping
// that a peer beats on both static metrics counts as *faster* only past it.
constexpr double kFasterGain = 0.03;

enum class Outcome { best, tradeoff, faster, fails, no_result, no_peer };

// One rankmap preset on one instance against the peers: every tool that is not
// a rankmap preset (block and paper included) and produced a mapping.
//  best      hop-bytes and max link load each <= best peer x (1 + kTie);
//  tradeoff  not that, but no mapping (peers and the judged one) is within
//            kTie of the best on both, and no peer dominates the judged one
//            on (hop-bytes, max link load, predicted time);
//  faster    a peer is within kTie of the best on both static metrics, but
//            the bulk model predicts the judged mapping at least kFasterGain
//            faster than every such peer, and no peer dominates it (outside
//            the letter of issue 10's rule: the time issue's MG case, where
//            the faster placement costs more hop-bytes);
//  fails     otherwise: a peer is best on both, or a peer dominates.
struct Verdict {
  Outcome outcome = Outcome::no_result;
  double hop_ratio = 0, link_ratio = 0;  // judged / best peer
  std::string hop_best, link_best;       // the best peer on each metric
  std::string culprit;                   // the peer best on both, or dominating
  bool culprit_dominates = false;
  double time_ratio = 0;                 // faster: judged / the fastest peer best on both (bulk model)
  // Trade-off: whether some placement is best or tied on both against
  // the peers. `both_by` names who showed it (another rankmap
  // preset's mapping, or the exact search); none: the exact search proved
  // that no placement is; unknown: too many ranks to search, or it gave up.
  enum class Both { unknown, exists, none } both = Both::unknown;
  std::string both_by;
  std::int64_t exact_states = 0;
};

// Where the judged preset is not best or tied on both: does a placement
// exist that is? Another preset's mapping shows one; else the exact search
// on small jobs settles it.
void settle_both(Verdict& v, const InstanceRun& run, const std::string& judged_name, double best_hop,
                 double best_link) {
  for (const Result& r : run.results) {
    const Tool* t = find_tool_info(r.tool);
    if (r.tool == judged_name || r.state != State::ok || !t || !t->is_preset()) continue;
    if (tied_or_better(r.metrics.hop_bytes, best_hop) && tied_or_better(r.metrics.max_link_relative, best_link)) {
      v.both = Verdict::Both::exists;
      v.both_by = "`" + r.tool + "`";
      return;
    }
  }
  if (!run.exact.ran) return;
  using O = rankmap::detail::PlacementSearch::Outcome;
  v.exact_states = run.exact.states;
  if (run.exact.outcome == O::found) {
    v.both = Verdict::Both::exists;
    v.both_by = "the exact search";
  } else if (run.exact.outcome == O::none) {
    v.both = Verdict::Both::none;
  }
}

Verdict judge(const InstanceRun& run, const std::string& judged_name) {
  const std::vector<Result>& rs = run.results;
  Verdict v;
  const Result* j = find_result(rs, judged_name);
  if (!usable(j)) return v;
  const std::vector<const Result*> peers = peer_results(rs);
  if (peers.empty()) {
    v.outcome = Outcome::no_peer;
    return v;
  }
  const Scores js = scores(*j);
  double best_hop = 0, best_link = 0;
  for (const Result* p : peers) {
    const Scores ps = scores(*p);
    if (v.hop_best.empty() || ps.hop_bytes < best_hop) best_hop = ps.hop_bytes, v.hop_best = p->tool;
    if (v.link_best.empty() || ps.max_link < best_link) best_link = ps.max_link, v.link_best = p->tool;
  }
  auto rel = [](double a, double b) { return b > 0 ? a / b : (a > 0 ? INFINITY : 1.0); };
  v.hop_ratio = rel(js.hop_bytes, best_hop);
  v.link_ratio = rel(js.max_link, best_link);
  if (tied_or_better(js.hop_bytes, best_hop) && tied_or_better(js.max_link, best_link)) {
    v.outcome = Outcome::best;
    return v;
  }
  const double all_hop = std::min(best_hop, js.hop_bytes), all_link = std::min(best_link, js.max_link);
  bool beaten_on_both = false;
  for (const Result* p : peers) {
    const Scores ps = scores(*p);
    if (!tied_or_better(ps.hop_bytes, all_hop) || !tied_or_better(ps.max_link, all_link)) continue;
    beaten_on_both = true;
    const double r = has_bulk(js) && has_bulk(ps) && ps.bulk_time > 0 ? js.bulk_time / ps.bulk_time : INFINITY;
    if (r > 1 - kFasterGain) {
      v.outcome = Outcome::fails;
      v.culprit = p->tool;
      return v;
    }
    if (v.culprit.empty() || r > v.time_ratio) v.time_ratio = r, v.culprit = p->tool;
  }
  for (const Result* p : peers)
    if (dominates(scores(*p), js)) {
      v.outcome = Outcome::fails;
      v.culprit = p->tool;
      v.culprit_dominates = true;
      return v;
    }
  v.outcome = beaten_on_both ? Outcome::faster : Outcome::tradeoff;
  if (v.outcome == Outcome::tradeoff) settle_both(v, run, judged_name, best_hop, best_link);
  return v;
}

std::string ratio_to_best(double r, const std::string& best) {
  if (!std::isfinite(r)) return "inf (" + best + ")";
  return fmt("%.3f", r) + (tied_or_better(r, 1.0) ? "" : " (" + best + ")");
}

// What is known of a placement best on both, for a trade-off's verdict.
std::string both_text(const Verdict& v) {
  switch (v.both) {
    case Verdict::Both::none:
      return "no placement is best on both (exact search: none within " + fmt("%.1f", kTie * 100) +
             "% of the best peer on both metrics, " + std::to_string(v.exact_states) + " partial placements)";
    case Verdict::Both::exists: return "no peer's mapping is best on both, but " + v.both_by + "'s is";
    case Verdict::Both::unknown: break;
  }
  return "no tool's mapping is best on both";
}

std::string verdict_text(const Verdict& v) {
  const std::string ratios = "hop-bytes " + fmt("%.3f", v.hop_ratio) + "x " + v.hop_best + ", max link " +
                             fmt("%.3f", v.link_ratio) + "x " + v.link_best;
  switch (v.outcome) {
    case Outcome::best: return "best or tied";
    case Outcome::tradeoff:
      return "*trade-off*: " + both_text(v) + "; not dominated by any peer (" + ratios + ")";
    case Outcome::faster:
      return "*faster*: " + v.culprit + " is best on both, the bulk model predicts the mapping " +
             fmt("%.1f%%", (1 - v.time_ratio) * 100) + " faster; not dominated (" + ratios + ")";
    case Outcome::fails:
      return "**fails**: " + v.culprit + (v.culprit_dominates ? " dominates it" : " is best on both") + " (" +
             ratios + ")";
    case Outcome::no_result: return "no result";
    case Outcome::no_peer: return "no peer result";
  }
  return "";
}

// (max - min) / min over the seeds that produced a mapping; -1 with fewer than two.
struct Spread {
  double hop_bytes = -1, max_link = -1;
  double bulk_time = -1;  // -1 also where the bulk model did not run at every seed
  int seeds = 0;
};

Spread spread(const std::vector<SeedRun>& seeds) {
  Spread s;
  double hmin = INFINITY, hmax = -INFINITY, lmin = INFINITY, lmax = -INFINITY, tmin = INFINITY, tmax = -INFINITY;
  bool timed = true;
  for (const SeedRun& r : seeds) {
    if (!r.ok) continue;
    ++s.seeds;
    hmin = std::min(hmin, r.hop_bytes), hmax = std::max(hmax, r.hop_bytes);
    lmin = std::min(lmin, r.max_link), lmax = std::max(lmax, r.max_link);
    timed = timed && !std::isnan(r.bulk_time);
    if (timed) tmin = std::min(tmin, r.bulk_time), tmax = std::max(tmax, r.bulk_time);
  }
  if (s.seeds < 2) return s;
  auto rel = [](double lo, double hi) { return lo > 0 ? (hi - lo) / lo : (hi > 0 ? INFINITY : 0.0); };
  s.hop_bytes = rel(hmin, hmax);
  s.max_link = rel(lmin, lmax);
  if (timed) s.bulk_time = rel(tmin, tmax);
  return s;
}

std::string percent(double v, const char* format = "%.2f%%") {
  if (v < 0) return "n/a";
  if (!std::isfinite(v)) return "inf";
  return fmt(format, v * 100);
}

constexpr double kSpreadHop = 0.01, kSpreadLink = 0.05;  // issue 10's limits per instance

// ----------------------------------------------------------- ratio summaries

// The reference a preset is compared with: one tool, or the best of several
// (per metric) where a tool has variants.
struct Reference {
  std::string label;
  std::vector<std::string> tools;
};

std::vector<Reference> references() {
  Reference scotch{"scotch_gmap (best variant per metric)", {}};
  for (const Tool& t : all_tools())
    if (t.is_scotch()) scotch.tools.push_back(t.name);
  return {{"block", {"block"}}, scotch, {"Mt-KaHyPar", {"Mt-KaHyPar"}}};
}

// The reference's best value on one metric, or nullopt when none of its tools produced a mapping.
std::optional<double> reference_value(const std::vector<Result>& rs, const Reference& ref,
                                      double (*metric)(const Result&)) {
  std::optional<double> best;
  for (const std::string& name : ref.tools) {
    const Result* r = find_result(rs, name);
    if (!usable(r)) continue;
    const double v = metric(*r);
    if (!best || v < *best) best = v;
  }
  return best;
}

struct RatioStats {
  int instances = 0, lower = 0, tied = 0, higher = 0, undefined = 0;
  double worst = 0, log_sum = 0;
  std::string worst_instance;
  void add(double v, double ref, const std::string& instance) {
    ++instances;
    if (clearly_lower(v, ref)) ++lower;
    else if (tied_or_better(v, ref)) ++tied;
    else ++higher;
    double r = 1;  // both zero
    if (ref > 0 && v > 0) {
      r = v / ref;
    } else if (ref > 0 || v > 0) {
      ++undefined;  // zero against a positive value: no finite ratio for the mean
      if (v <= 0) return;
      r = INFINITY;
    }
    if (std::isfinite(r)) log_sum += std::log(r);
    if (worst_instance.empty() || r > worst) worst = r, worst_instance = instance;
  }
  std::string counts() const {
    return std::to_string(lower) + " / " + std::to_string(tied) + " / " + std::to_string(higher);
  }
  std::string worst_text() const {
    if (worst_instance.empty()) return "";
    return (std::isfinite(worst) ? fmt("%.3f", worst) : std::string("inf")) + " (" + worst_instance + ")";
  }
  std::string mean_text() const {
    const int n = instances - undefined;
    return n > 0 ? fmt("%.3f", std::exp(log_sum / n)) : std::string("");
  }
};

double metric_hop(const Result& r) { return r.metrics.hop_bytes; }
double metric_link(const Result& r) { return r.metrics.max_link_relative; }

// ------------------------------------------------------------------ writing

void write_summary(std::ostream& md, const std::vector<Instance>& instances, const std::vector<InstanceRun>& runs) {
  std::vector<std::string> presets;
  for (const Tool& t : all_tools())
    if (t.is_preset()) presets.push_back(t.name);
  const std::vector<std::string> judged = {kDefaultTool, kStrongTool};

  // Machines in suite order.
  std::vector<std::string> machines;
  for (const Instance& in : instances)
    if (std::find(machines.begin(), machines.end(), in.machine_title) == machines.end())
      machines.push_back(in.machine_title);
  int recorded = 0;
  for (const Instance& in : instances) recorded += in.recorded();

  std::vector<Verdict> def_v(instances.size()), strong_v(instances.size());
  std::vector<Spread> spreads(instances.size());
  for (size_t i = 0; i < instances.size(); ++i) {
    def_v[i] = judge(runs[i], kDefaultTool);
    strong_v[i] = judge(runs[i], kStrongTool);
    spreads[i] = spread(runs[i].seeds);
  }
  auto count = [&](const std::vector<Verdict>& vs, Outcome o, const std::string& machine = "") {
    int n = 0;
    for (size_t i = 0; i < vs.size(); ++i)
      if (vs[i].outcome == o && (machine.empty() || instances[i].machine_title == machine)) ++n;
    return n;
  };

  md << "### Summary\n\n"
     << instances.size() << " instances: " << instances.size() - recorded << " synthetic, " << recorded
     << " recorded profiles.\n\n";
  for (const auto& [name, vs] : {std::pair{std::string(kDefaultTool), &def_v}, std::pair{std::string(kStrongTool), &strong_v}}) {
    int proven = 0, shown = 0;
    for (const Verdict& v : *vs)
      if (v.outcome == Outcome::tradeoff) {
        proven += v.both == Verdict::Both::none;
        shown += v.both == Verdict::Both::exists;
      }
    md << "- `" << name << "`: best or tied on both metrics on " << count(*vs, Outcome::best) << "; trade-off, not dominated on "
       << count(*vs, Outcome::tradeoff);
    if (proven + shown > 0)
      md << " (of which no placement is best on both, by exact search, on " << proven
         << "; another preset's mapping or the exact search is best on both on " << shown << ")";
    md << "; beaten on both by a peer but predicted at least "
       << kFasterGain * 100 << "% faster (*faster*) on " << count(*vs, Outcome::faster) << "; **fails** on "
       << count(*vs, Outcome::fails);
    if (const int n = count(*vs, Outcome::no_result)) md << "; no result on " << n;
    if (const int n = count(*vs, Outcome::no_peer)) md << "; no peer result on " << n;
    md << ".\n";
  }
  int hop_over = 0, link_over = 0, with_spread = 0, timed = 0, time_over = 0;
  double worst_hop = -1, worst_link = -1, worst_time = -1;
  for (const Spread& s : spreads) {
    if (s.hop_bytes < 0) continue;
    ++with_spread;
    hop_over += s.hop_bytes > kSpreadHop;
    link_over += s.max_link > kSpreadLink;
    worst_hop = std::max(worst_hop, s.hop_bytes);
    worst_link = std::max(worst_link, s.max_link);
    if (s.bulk_time < 0) continue;
    ++timed;
    time_over += s.bulk_time > kSpreadHop;
    worst_time = std::max(worst_time, s.bulk_time);
  }
  size_t seed_count = 0;
  for (const InstanceRun& r : runs) seed_count = std::max(seed_count, r.seeds.size());
  md << "- Seed spread of `" << kDefaultTool << "` over " << seed_count << " seeds, (max - min) / min per instance: hop-bytes worst " << percent(worst_hop) << ", above "
     << kSpreadHop * 100 << "% on " << hop_over << " of " << with_spread << " instances; max link load worst "
     << percent(worst_link) << ", above " << kSpreadLink * 100 << "% on " << link_over << " of " << with_spread
     << "; the bulk model's predicted time (where it ran at every seed) worst " << percent(worst_time) << ", above "
     << kSpreadHop * 100 << "% on " << time_over << " of " << timed << ".\n\n";

  // Issue 10's "whatever the seed": the default at every seed of the spread
  // against the best peer (every tool that is not a rankmap preset), on
  // hop-bytes and max link load; dominated = some peer lower on both than
  // one of its seeds.
  {
    int checked = 0, hop_beaten = 0, link_beaten = 0;
    double seed_hop_ratio = 0, seed_link_ratio = 0;
    std::string seed_hop_where, seed_link_where;
    std::vector<std::string> dominated;
    for (size_t i = 0; i < instances.size(); ++i) {
      const std::vector<const Result*> peers = peer_results(runs[i].results);
      double seed_hop = -1, seed_link = -1;
      for (const SeedRun& sr : runs[i].seeds)
        if (sr.ok) seed_hop = std::max(seed_hop, sr.hop_bytes), seed_link = std::max(seed_link, sr.max_link);
      if (peers.empty() || seed_hop < 0) continue;
      ++checked;
      double peer_hop = INFINITY, peer_link = INFINITY;
      for (const Result* r : peers)
        peer_hop = std::min(peer_hop, r->metrics.hop_bytes), peer_link = std::min(peer_link, r->metrics.max_link_relative);
      const std::string where = instances[i].machine_title + ": " + instances[i].name();
      hop_beaten += !tied_or_better(seed_hop, peer_hop);
      link_beaten += !tied_or_better(seed_link, peer_link);
      const double rh = peer_hop > 0 ? seed_hop / peer_hop : 1, rl = peer_link > 0 ? seed_link / peer_link : 1;
      if (seed_hop_where.empty() || rh > seed_hop_ratio) seed_hop_ratio = rh, seed_hop_where = where;
      if (seed_link_where.empty() || rl > seed_link_ratio) seed_link_ratio = rl, seed_link_where = where;
      bool lost = false;
      for (const SeedRun& sr : runs[i].seeds)
        for (const Result* r : peers)
          lost = lost || (sr.ok && clearly_lower(r->metrics.hop_bytes, sr.hop_bytes) &&
                          clearly_lower(r->metrics.max_link_relative, sr.max_link));
      if (lost) dominated.push_back(where);
    }
    md << "- `" << kDefaultTool << "` at its worst of the " << seed_count << " seeds against the best peer (per metric), on "
       << checked << " instances: hop-bytes above the best peer's by more than " << kTie * 100 << "% on " << hop_beaten
       << " (worst " << fmt("%.3f", seed_hop_ratio) << "x, " << seed_hop_where << "), max link load on " << link_beaten
       << " (worst " << fmt("%.3f", seed_link_ratio) << "x, " << seed_link_where << "); a seed beaten on both by one peer on "
       << dominated.size();
    if (!dominated.empty()) {
      md << ":";
      for (size_t k = 0; k < dominated.size(); ++k) md << (k ? "; " : " ") << dominated[k];
    }
    md << ".\n\n";
  }

  // (c) and the per-machine view of (a) and the spread.
  md << "**Per machine.** Verdicts: best or tied / trade-off, not dominated / faster / fails. Gap = hop-bytes / lower "
        "bound - 1, mean over the instances with a positive bound (\"best peer\": the lowest gap among the peers "
        "on each instance). Seed spread of the default, worst instance.\n\n"
     << "| machine | instances (recorded) | default | strong | mean gap: default | strong | best peer | "
        "seed spread: hop-bytes (> 1%) | max link load (> 5%) |\n"
     << "|---|---:|---|---|---:|---:|---:|---:|---:|\n";
  for (const std::string& m : machines) {
    int n = 0, rec = 0, bounded = 0, hop_o = 0, link_o = 0;
    double gap_def = 0, gap_strong = 0, gap_peer = 0;
    int n_def = 0, n_strong = 0, n_peer = 0;
    double w_hop = -1, w_link = -1;
    for (size_t i = 0; i < instances.size(); ++i) {
      if (instances[i].machine_title != m) continue;
      ++n;
      rec += instances[i].recorded();
      const auto& rs = runs[i].results;
      const Result* d = find_result(rs, kDefaultTool);
      const Result* s = find_result(rs, kStrongTool);
      bool any_bound = false;
      if (usable(d) && has_bound(d->metrics)) gap_def += d->metrics.gap_hop_bytes, ++n_def, any_bound = true;
      if (usable(s) && has_bound(s->metrics)) gap_strong += s->metrics.gap_hop_bytes, ++n_strong, any_bound = true;
      double best = INFINITY;
      for (const Result& r : rs) {
        const Tool* t = find_tool_info(r.tool);
        if (r.state == State::ok && t && !t->is_preset() && has_bound(r.metrics)) best = std::min(best, r.metrics.gap_hop_bytes);
      }
      if (std::isfinite(best)) gap_peer += best, ++n_peer, any_bound = true;
      bounded += any_bound;
      const Spread& sp = spreads[i];
      if (sp.hop_bytes >= 0) {
        w_hop = std::max(w_hop, sp.hop_bytes), w_link = std::max(w_link, sp.max_link);
        hop_o += sp.hop_bytes > kSpreadHop, link_o += sp.max_link > kSpreadLink;
      }
    }
    auto verdicts = [&](const std::vector<Verdict>& vs) {
      return std::to_string(count(vs, Outcome::best, m)) + " / " + std::to_string(count(vs, Outcome::tradeoff, m)) +
             " / " + std::to_string(count(vs, Outcome::faster, m)) + " / " + std::to_string(count(vs, Outcome::fails, m));
    };
    auto mean = [](double sum, int k) { return k ? percent(sum / k, "%.1f%%") : std::string("n/a"); };
    md << "| " << m << " | " << n << " (" << rec << ") | " << verdicts(def_v) << " | " << verdicts(strong_v) << " | "
       << mean(gap_def, n_def) << " | " << mean(gap_strong, n_strong) << " | " << mean(gap_peer, n_peer) << " | "
       << percent(w_hop) << " (" << hop_o << ") | " << percent(w_link) << " (" << link_o << ") |\n";
  }
  md << "\n";

  // (b) ratios against the references.
  md << "**Ratios** of each rankmap preset to a reference, over the instances where both produced a mapping: "
        "counts lower / tied / higher (tied: within "
     << kTie * 100 << "%), the worst (largest) ratio with its instance, and the geometric mean. Below 1 means "
        "the preset is better.\n\n"
     << "| preset | vs | instances | hop-bytes: lower / tied / higher | worst | mean | "
        "max link load: lower / tied / higher | worst | mean |\n"
     << "|---|---|---:|---|---|---:|---|---|---:|\n";
  for (const std::string& p : presets)
    for (const Reference& ref : references()) {
      RatioStats hop, link;
      for (size_t i = 0; i < instances.size(); ++i) {
        const Result* r = find_result(runs[i].results, p);
        if (!usable(r)) continue;
        const auto h = reference_value(runs[i].results, ref, metric_hop);
        const auto l = reference_value(runs[i].results, ref, metric_link);
        if (!h || !l) continue;
        const std::string where = instances[i].machine_title + ": " + instances[i].name();
        hop.add(metric_hop(*r), *h, where);
        link.add(metric_link(*r), *l, where);
      }
      md << "| " << p << " | " << ref.label << " | " << hop.instances << " | " << hop.counts() << " | "
         << hop.worst_text() << " | " << hop.mean_text() << " | " << link.counts() << " | " << link.worst_text()
         << " | " << link.mean_text() << " |\n";
    }
  md << "\n";

  // (a) per instance.
  md << "### Is the default best?\n\n"
     << "Per instance: `" << kDefaultTool << "` / best peer on bytes-only hop-bytes and on max link load (peers: "
        "every tool that is not a rankmap preset, block and paper included; the best peer is named where the "
        "default is more than "
     << kTie * 100 << "% above it), the verdicts of the default and of `" << kStrongTool
     << "` (best or tied on both; else *trade-off* when no tool's mapping is within " << kTie * 100
     << "% of the best on both and no peer dominates it on hop-bytes, max link load and predicted time, with "
        "what is known of a placement that would be: another preset's mapping, or up to "
     << kExactMaxRanks << " ranks an exact search for one, which may prove that none exists; "
        "*faster* when a peer is best on both but the bulk model predicts the preset at least "
     << kFasterGain * 100 << "% faster than it and no peer dominates it; else **fails**), and the default's seed "
        "spread (of its bulk model time too: n/a where the model did not run at every seed).\n\n"
     << "| machine | instance | hop-bytes / best peer | max link load / best peer | default | strong | "
        "seed spread: hop-bytes | max link load | bulk model |\n"
     << "|---|---|---|---|---|---|---:|---:|---:|\n";
  for (size_t i = 0; i < instances.size(); ++i) {
    const Verdict& v = def_v[i];
    const bool have = v.outcome != Outcome::no_result && v.outcome != Outcome::no_peer;
    auto mark = [](double s, double limit) { return s > limit ? "**" + percent(s) + "**" : percent(s); };
    md << "| " << short_machine(instances[i]) << " | " << instances[i].name() << " | "
       << (have ? ratio_to_best(v.hop_ratio, v.hop_best) : "") << " | "
       << (have ? ratio_to_best(v.link_ratio, v.link_best) : "") << " | " << verdict_text(v) << " | "
       << verdict_text(strong_v[i]) << " | " << mark(spreads[i].hop_bytes, kSpreadHop) << " | "
       << mark(spreads[i].max_link, kSpreadLink) << " | " << percent(spreads[i].bulk_time) << " |\n";
  }
  md << "\n";
}

// The bulk model's time in ms, "n/a" where it did not run (past its work cap).
std::string bulk_text(double seconds) {
  return std::isnan(seconds) ? std::string("n/a") : fmt("%.4g", seconds * 1e3);
}

void write_instance_tables(std::ostream& md, const std::vector<Instance>& instances,
                           const std::vector<InstanceRun>& runs) {
  std::string group;
  for (size_t i = 0; i < instances.size(); ++i) {
    const Instance& in = instances[i];
    if (in.group != group) {
      group = in.group;
      md << "### " << group << "\n\n"
         << "| instance | tool | hop-bytes (GB·hop) | vs default | bw-weighted (GB·hop/link) | max link load (ms) "
            "| vs default | comm time (ms) | vs default | bulk model (ms) | vs default | gap to bound | time (s) | note |\n"
         << "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
    }
    const Result* def = find_result(runs[i].results, kDefaultTool);
    const bool have_def = usable(def);
    bool first = true;
    for (const Result& r : runs[i].results) {
      md << "| " << (first ? in.name() : "") << " | " << r.tool << " | ";
      first = false;
      if (r.state != State::ok) {
        md << "| | | | | | | | | | | " << r.message << " |\n";
        continue;
      }
      const Metrics& m = r.metrics;
      std::string note;
      if (r.repaired > 0) note = "**repaired**: " + std::to_string(r.repaired) + " ranks moved to respect ppn";
      if (!r.capacity_ok) note += std::string(note.empty() ? "" : "; ") + "**capacity violated**";
      if (!r.finite) note += std::string(note.empty() ? "" : "; ") + "**non-finite score**";
      auto vs = [&](double Metrics::*f) { return have_def ? ratio(m.*f, def->metrics.*f) : std::string(); };
      md << fmt("%.4g", m.hop_bytes / 1e9) << " | " << vs(&Metrics::hop_bytes) << " | "
         << fmt("%.4g", m.weighted_cost / 1e9) << " | " << fmt("%.4g", m.max_link_relative * 1e3) << " | "
         << vs(&Metrics::max_link_relative) << " | " << fmt("%.4g", m.comm_time_max * 1e3) << " | "
         << vs(&Metrics::comm_time_max) << " | " << bulk_text(m.predicted_bulk_time) << " | "
         << (have_def && !std::isnan(m.predicted_bulk_time) && !std::isnan(def->metrics.predicted_bulk_time)
                 ? vs(&Metrics::predicted_bulk_time)
                 : std::string())
         << " | " << gap_text(m) << " | "
         << fmt(r.seconds < 0.01 ? "%.4f" : "%.2f", r.seconds) << " | " << note << " |\n";
    }
    if (i + 1 == instances.size() || instances[i + 1].group != group) md << "\n";
  }
}

void write_tables(std::ostream& md, const std::vector<Instance>& instances, const std::vector<InstanceRun>& runs) {
  write_summary(md, instances, runs);
  write_instance_tables(md, instances, runs);
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  const char* venv = std::getenv("RANKMAP_BENCH_VENV");
  opt.python = std::string(venv ? venv : "/opt/rankmap-bench-venv") + "/bin/python";
  CLI::App app{"rankmap_bench_peers: rankmap and peer mappers side by side, scored by rankmap's evaluator"};
  app.add_option("--suite", opt.suite,
                 "instances: full (the tori of docs/benchmarks.md), networks (fat-trees and a dragonfly), smoke "
                 "(one tiny instance) or recorded (only --recorded and --recorded-dir)")
      ->check(CLI::IsMember({"full", "networks", "smoke", "recorded"}));
  app.add_option("--filter", opt.filter, "only instances whose machine or name contains this text");
  app.add_option("--tool", opt.tools, "only these tools (repeatable; names as in the table)");
  app.add_option("--python", opt.python, "Python of the peer environment (default: $RANKMAP_BENCH_VENV/bin/python)");
  app.add_option("--peers-dir", opt.peers_dir, "directory of the peer adapters");
  app.add_option("--work", opt.work, "scratch directory for graph files (default: a fresh temporary directory)");
  app.add_option("--markdown", opt.markdown, "write the tables (markdown) to this file");
  app.add_option("--seed", opt.seed, "seed of the synthetic patterns and of every tool");
  app.add_option("--spread-seeds", opt.spread_seeds,
                 "run the default preset at this many seeds (--seed, --seed + 1, ...) per instance for its seed "
                 "spread; 1 turns the spread off")
      ->check(rankmap::cli::positive());
  app.add_flag("--check", opt.check,
               "exit 1 unless every produced mapping respects the capacity and has finite scores");
  app.add_flag("--keep", opt.keep, "keep the scratch directory");
  app.add_flag("--list", opt.list, "list the instances (after --filter) and exit");
  app.add_option("--timeout", opt.timeout, "seconds a peer may run on one instance (then reported as timed out)")
      ->check(rankmap::cli::positive());
  app.add_option("--recorded", opt.recorded,
                 "add a recorded profile NAME=PATH (commprof 1), on --recorded-machine at --recorded-ppn; repeatable");
  app.add_option("--recorded-machine", opt.recorded_machine,
                 "machine of the --recorded profiles (default desmos): a preset, key=value words or a machine file, "
                 "e.g. a torus none of the suite's groups has, to check the mapper where it was not tuned");
  app.add_option("--recorded-ppn", opt.recorded_ppn, "ranks per node of the --recorded profiles (default 4)")
      ->check(rankmap::cli::positive());
  std::string group_dirs;
  for (const MachineGroup& g : machine_groups()) group_dirs += (group_dirs.empty() ? "" : ", ") + std::string(g.dir);
  app.add_option("--recorded-dir", opt.recorded_dir,
                 "add every DIR/GROUP/NAME.prof as a recorded profile, GROUP one of " + group_dirs);
  // Usage errors exit 2 with one line on stderr, as every rankmap tool.
  if (auto status = rankmap::cli::parse(app, argc, argv, "rankmap_bench_peers")) return *status;
  for (const std::string& t : opt.tools)
    if (!find_tool_info(t)) {
      std::cerr << "rankmap_bench_peers: unknown --tool '" << t << "'\n";
      return 2;
    }

  const bool networks = opt.suite == "networks";
  if (networks && !opt.recorded.empty()) {
    std::cerr << "rankmap_bench_peers: --recorded runs on desmos; the networks suite takes its profiles from "
                 "--recorded-dir\n";
    return 2;
  }
  std::vector<Instance> instances;
  try {
    if (opt.suite == "smoke")
      instances = smoke_suite();
    else if (networks)
      instances = networks_suite(opt.recorded_dir);
    else if (opt.suite == "full")
      instances = full_suite();
  } catch (const std::exception& e) {
    std::cerr << "rankmap_bench_peers: " << e.what() << "\n";
    return 2;
  }
  // Recorded profiles: --recorded NAME=PATH runs on desmos at 4 ranks per
  // node; --recorded-dir holds one subdirectory per machine of the suite
  // (bench/profiles/), named by MachineGroup::dir.
  struct Recorded {
    std::string name, path;
    const MachineGroup* group;
  };
  std::vector<Recorded> recorded;
  // The group of --recorded: the suite's own where the machine and ppn are
  // one of its groups' (desmos at 4 per node by default), else one made here.
  const MachineGroup* recorded_group = nullptr;
  std::string own_title;
  MachineGroup own{};
  for (const MachineGroup& g : machine_groups())
    if (opt.recorded_machine == g.machine && opt.recorded_ppn == g.ppn) recorded_group = &g;
  if (!opt.recorded.empty() && !recorded_group) {
    auto machine = rankmap::load_machine(opt.recorded_machine);
    if (!machine) {
      std::cerr << "rankmap_bench_peers: --recorded-machine: " << machine.error().message << "\n";
      return 2;
    }
    auto platform = rankmap::Platform::from_machine(*machine);
    if (!platform) {
      std::cerr << "rankmap_bench_peers: --recorded-machine: " << platform.error().message << "\n";
      return 2;
    }
    own_title = opt.recorded_machine + ", " + std::to_string(opt.recorded_ppn) + " ranks per node";
    own = MachineGroup{"", own_title.c_str(), opt.recorded_machine.c_str(), platform->net().nodes(), opt.recorded_ppn};
    recorded_group = &own;
  }
  for (const std::string& r : opt.recorded) {
    const size_t eq = r.find('=');
    if (eq == std::string::npos) {
      std::cerr << "rankmap_bench_peers: --recorded wants NAME=PATH, got '" << r << "'\n";
      return 2;
    }
    recorded.push_back({r.substr(0, eq), r.substr(eq + 1), recorded_group});
  }
  if (!opt.recorded_dir.empty() && !networks)
    for (const MachineGroup& g : machine_groups()) {
      const fs::path dir = fs::path(opt.recorded_dir) / g.dir;
      if (!fs::is_directory(dir)) continue;
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().extension() == ".prof") files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      for (const fs::path& f : files) recorded.push_back({f.stem().string(), f.string(), &g});
    }
  for (const Recorded& rec : recorded) {
    auto profile = rankmap::read_profile(rec.path);
    if (!profile) {
      std::cerr << "rankmap_bench_peers: " << profile.error().message << "\n";
      return 2;
    }
    // A profile larger than its machine cannot be placed by any tool. One
    // smaller leaves slots free (the comparison otherwise runs every machine
    // full): it runs, named as such.
    const int slots = rec.group->nodes * rec.group->ppn;
    if (profile->ranks > slots) {
      std::cerr << "rankmap_bench_peers: " << rec.path << ": " << profile->ranks << " ranks, but " << rec.group->dir
                << " has " << slots << " slots (" << rec.group->nodes << " nodes x " << rec.group->ppn << ")\n";
      return 2;
    }
    Instance in;
    in.group = std::string(rec.group->title) + ", recorded profiles (`" + rec.group->machine + "`)";
    in.machine_title = rec.group->title;
    in.machine = rec.group->machine;
    in.ppn = rec.group->ppn;
    in.spec.ranks = profile->ranks;
    in.recorded_name = rec.name;
    in.recorded_path = rec.path;
    in.slots = slots;
    instances.push_back(in);
  }
  if (!opt.filter.empty())
    instances.erase(std::remove_if(instances.begin(), instances.end(),
                                   [&](const Instance& in) {
                                     return in.group.find(opt.filter) == std::string::npos &&
                                            in.name().find(opt.filter) == std::string::npos;
                                   }),
                    instances.end());
  if (opt.list) {
    int rec = 0;
    for (const Instance& in : instances) {
      std::cout << in.machine_title << "\t" << in.name() << "\n";
      rec += in.recorded();
    }
    std::cout << instances.size() << " instances, " << rec << " recorded\n";
    return 0;
  }
  fs::path dir = opt.work;
  bool made_dir = false;
  try {
    if (dir.empty()) {
      std::string tmpl = (fs::temp_directory_path() / "rankmap_bench_peers.XXXXXX").string();
      if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a scratch directory");
      dir = tmpl;
      made_dir = true;
    }
    fs::create_directories(dir);
    std::vector<InstanceRun> runs;
    const double start = now();
    for (const Instance& in : instances) {
      std::cerr << "[" << runs.size() + 1 << "/" << instances.size() << ", " << static_cast<long>(now() - start)
                << " s] " << in.group << ": " << in.name() << "\n";
      runs.push_back(run_instance(in, opt, dir, std::cerr));
    }
    std::cerr << "total " << now() - start << " s\n";
    std::ostringstream md;
    write_tables(md, instances, runs);
    if (opt.markdown.empty()) {
      std::cout << md.str();
    } else {
      std::ofstream f(opt.markdown);
      f << md.str();
      if (!f) throw std::runtime_error("cannot write " + opt.markdown);
    }
    if (made_dir && !opt.keep) fs::remove_all(dir);
    if (opt.check) {
      int bad = 0, produced = 0;
      for (size_t i = 0; i < instances.size(); ++i)
        for (const Result& r : runs[i].results) {
          if (r.state == State::failed) {
            std::cerr << "check: " << instances[i].name() << ": " << r.tool << ": " << r.message << "\n";
            ++bad;
          }
          if (r.state != State::ok) continue;
          ++produced;
          if (!r.capacity_ok || !r.finite) {
            std::cerr << "check: " << instances[i].name() << ": " << r.tool << ": "
                      << (!r.capacity_ok ? "capacity violated" : "non-finite score") << "\n";
            ++bad;
          }
        }
      if (produced == 0) {
        std::cerr << "check: no tool produced a mapping\n";
        return 1;
      }
      if (bad) return 1;
    }
  } catch (const std::exception& e) {
    std::cerr << "rankmap_bench_peers: " << e.what() << "\n";
    if (made_dir && !opt.keep) fs::remove_all(dir);
    return 2;
  }
  return 0;
}
