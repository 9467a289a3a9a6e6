// rankmap_bench_peers: rankmap's algorithms and the peer mappers (KaHIP process
// mapping, Mt-KaHyPar map_onto_graph, scotch_gmap on the plain and on a
// weighted torus target) side by side on the same instances, every result
// scored by rankmap's one evaluator. Peers run as separate programs (the
// adapters next to this file); they are benchmark dependencies only.
//
// What is compared is the inter-node placement: every result, ours included,
// gets its cores by the same rule (a node's ranks take cores 0, 1, ... in rank
// order), and a peer result that puts more than ppn ranks on a node is repaired
// minimally and the repair is flagged. Method and caveats: docs/benchmarks.md.
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
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "rankmap/comm_graph.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/mapper.hpp"
#include "rankmap/mapping.hpp"
#include "rankmap/profile.hpp"
#include "rankmap/text.hpp"
#include "rankmap/torus.hpp"

namespace fs = std::filesystem;

namespace {

using rankmap::CommGraph;
using rankmap::Metrics;
using rankmap::Placement;
using rankmap::Torus;

// ------------------------------------------------------------------ instances

struct Instance {
  std::string group;    // machine section of the table
  std::string machine;  // machine description (preset or key=value words)
  int ppn = 0;
  bool ppn_differs = false;  // ppn differs from the rest of the group
  rankmap::SynthSpec spec;
  std::string recorded_name;  // a profile recorded with libcommprof instead of a synthetic pattern
  std::string recorded_path;

  std::string name() const {
    if (!recorded_path.empty()) return recorded_name + " " + std::to_string(spec.ranks) + " (recorded)";
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

// Every machine runs full (ranks = nodes x ppn), so no tool can win by
// spreading ranks over more nodes than another, and the capacity is exact.
std::vector<Instance> full_suite() {
  struct Group {
    std::string title;
    std::string machine;
    int nodes;
    int ppn;
  };
  const std::vector<Group> groups = {
      {"desmos, 4 ranks per node", "desmos", 32, 4},
      {"desmos, 6 ranks per node", "desmos", 32, 6},
      {"8x8 torus, 4 ranks per node", "torus=8x8 node=package:2,core:4", 64, 4},
      {"8x4x4x4 torus, 2 ranks per node", "torus=8x4x4x4 node=package:2,core:4", 512, 2},
  };
  std::vector<Instance> out;
  for (const Group& g : groups)
    for (const std::string& pattern : all_patterns()) {
      Instance in;
      in.group = g.title + " (`" + g.machine + "`)";
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
  in.machine = "desmos";
  in.ppn = 2;
  in.spec.pattern = "stencil3d-shuffled";
  in.spec.ranks = 64;
  return {in};
}

// ---------------------------------------------------------------------- tools

enum class ToolKind { ours, kahip_flat, kahip_tree, mtkahypar, scotch_torus, scotch_weighted };

struct Tool {
  std::string name;
  ToolKind kind;
  std::string algorithm;  // ours only
};

const std::vector<Tool>& all_tools() {
  static const std::vector<Tool> t = {
      {"rankmap (default)", ToolKind::ours, "rankmap"},
      {"paper", ToolKind::ours, "paper"},
      {"block", ToolKind::ours, "block"},
      {"scotch_gmap torusXD", ToolKind::scotch_torus, ""},
      {"scotch_gmap amk_grf", ToolKind::scotch_weighted, ""},
      {"Mt-KaHyPar", ToolKind::mtkahypar, ""},
      {"KaHIP flat", ToolKind::kahip_flat, ""},
      {"KaHIP torus tree", ToolKind::kahip_tree, ""},
  };
  return t;
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
PeerRun run_peer(const std::string& command, const fs::path& out, const fs::path& err, int ranks, int torus_nodes,
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
    if (end == line.c_str() || *end != '\0' || v < 0 || v >= torus_nodes) {
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
int repair_capacity(const CommGraph& g, const Torus& t, const std::vector<int>& nodes, int ppn,
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
std::vector<Placement> cores_in_rank_order(const std::vector<int>& node_of, int torus_nodes) {
  std::vector<int> next(static_cast<size_t>(torus_nodes), 0);
  std::vector<Placement> p(node_of.size());
  for (size_t r = 0; r < node_of.size(); ++r) p[r] = Placement{node_of[r], next[node_of[r]]++};
  return p;
}

// The evaluator's gap is cost / bound - 1, infinite when the bound is 0 (e.g.
// a ring at 3+ ranks per node: every rank's two partners fit on its node).
// That is a weak bound, not a broken score: the gap is only required finite
// when the bound is positive.
bool metrics_finite(const Metrics& m) {
  for (double v : {m.hop_bytes, m.weighted_cost, m.max_link_relative, m.mean_link_relative, m.lower_bound_weighted,
                   m.comm_time_max})
    if (!std::isfinite(v)) return false;
  if (m.lower_bound_weighted > 0 && !std::isfinite(m.gap_weighted)) return false;
  return true;
}

std::string gap_text(const Metrics& m) {
  if (!(m.lower_bound_weighted > 0)) return "n/a (bound 0)";
  return fmt("%.1f%%", m.gap_weighted * 100);
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
  std::string recorded_dir;           // every *.prof below it is a recorded instance
  std::uint64_t seed = 1;
  int timeout = 120;
  bool check = false;
  bool keep = false;
};

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<Result> run_instance(const Instance& in, const Options& opt, const fs::path& dir, std::ostream& log) {
  std::vector<Result> results;
  auto machine = rankmap::load_machine(in.machine);
  if (!machine) throw std::runtime_error(machine.error().message);
  auto platform = rankmap::Platform::from_machine(*machine);
  if (!platform) throw std::runtime_error(platform.error().message);
  rankmap::SynthSpec spec = in.spec;
  spec.seed = opt.seed;
  auto profile = in.recorded_path.empty() ? rankmap::synthesize(spec) : rankmap::read_profile(in.recorded_path);
  if (!profile) throw std::runtime_error(profile.error().message);
  auto traffic = rankmap::traffic_from_profile(*profile, rankmap::CollectiveModel::model);
  if (!traffic) throw std::runtime_error(traffic.error().message);
  const Torus& torus = platform->torus;
  const int ranks = traffic->ranks;
  std::vector<int> nodes(static_cast<size_t>(torus.nodes()));
  std::iota(nodes.begin(), nodes.end(), 0);

  // The peers get the graph rankmap optimises: bytes plus the byte-equivalent
  // of every message under the machine's latency model.
  const CommGraph graph = rankmap::build_comm_graph(*traffic, rankmap::message_byte_equivalent(platform->latency));
  const auto weights = integer_weights(graph);
  std::vector<std::int64_t> target_weights;
  const CommGraph target = torus_target_graph(torus, target_weights);
  const fs::path metis = dir / "graph.metis", grf = dir / "graph.grf";
  const fs::path target_metis = dir / "target.metis", target_grf = dir / "target.grf";
  if (!write_metis(metis, graph, weights) || !write_scotch_graph(grf, graph, weights) ||
      !write_metis(target_metis, target, target_weights) || !write_scotch_graph(target_grf, target, target_weights))
    throw std::runtime_error("cannot write graph files under " + dir.string());

  rankmap::EvaluateOptions eval_options;
  eval_options.ppn = in.ppn;
  for (const Tool& tool : all_tools()) {
    if (!opt.tools.empty() && std::find(opt.tools.begin(), opt.tools.end(), tool.name) == opt.tools.end()) continue;
    Result res;
    res.tool = tool.name;
    std::vector<int> node_of;
    log << "  " << tool.name << " ... " << std::flush;
    const double start = now();
    if (tool.kind == ToolKind::ours) {
      rankmap::MapOptions mo;
      mo.algorithm = tool.algorithm;
      mo.ppn = in.ppn;
      mo.seed = opt.seed;
      auto outcome = rankmap::map_ranks(*traffic, *platform, mo);
      res.seconds = now() - start;
      if (!outcome) {
        res.message = "failed: " + outcome.error().message;
      } else {
        res.state = State::ok;
        for (const Placement& p : outcome->placement) node_of.push_back(p.node);
      }
    } else {
      std::string command;
      const fs::path out = dir / "peer.vec", err = dir / "peer.err";
      const std::string py = "env PYTHONDONTWRITEBYTECODE=1 " + quote(opt.python) + " ";
      const std::string adapters = opt.peers_dir + "/";
      PeerRun pr;
      if (tool.kind != ToolKind::scotch_torus && tool.kind != ToolKind::scotch_weighted && !fs::exists(opt.python)) {
        pr.state = State::not_installed;
        pr.message = "not installed: no Python environment at " + opt.python + " (run bench/peers/setup.sh)";
      } else {
        switch (tool.kind) {
          case ToolKind::kahip_flat:
          case ToolKind::kahip_tree: {
            const auto [hierarchy, distances] = tool.kind == ToolKind::kahip_tree
                                                    ? kahip_torus_tree(torus)
                                                    : std::make_pair(std::to_string(torus.nodes()), std::string("1"));
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
            const auto tgt = scotch_torus_target(torus);
            if (!tgt) {
              pr.state = State::unsupported;
              pr.message = "N/A: Scotch's torusXD/meshXD target has at most 5 dimensions, uniform wrap";
            } else {
              command = quote(adapters + "peer_scotch.sh") + " --graph " + quote(grf.string()) + " --target " +
                        quote(*tgt) + " --out " + quote(out.string());
            }
            break;
          }
          case ToolKind::scotch_weighted:
            command = quote(adapters + "peer_scotch.sh") + " --graph " + quote(grf.string()) + " --target-graph " +
                      quote(target_grf.string()) + " --out " + quote(out.string());
            break;
          case ToolKind::ours:
            break;
        }
        if (!command.empty()) pr = run_peer(command, out, err, ranks, torus.nodes(), opt.timeout);
      }
      res.state = pr.state;
      res.message = pr.state == State::ok ? pr.note : pr.message;
      res.version = pr.version;
      res.seconds = pr.seconds;
      node_of = std::move(pr.node_of);
    }
    if (res.state == State::ok) {
      res.repaired = repair_capacity(graph, torus, nodes, in.ppn, node_of);
      const auto placement = cores_in_rank_order(node_of, torus.nodes());
      res.capacity_ok = res.repaired >= 0 &&
                        static_cast<bool>(rankmap::check_placement(placement, ranks, *platform, nodes, in.ppn));
      auto metrics = rankmap::evaluate(*traffic, placement, *platform, eval_options);
      if (!metrics) {
        res.state = State::failed;
        res.message = "evaluation failed: " + metrics.error().message;
      } else {
        res.metrics = *metrics;
        res.finite = metrics_finite(res.metrics);
      }
    }
    if (res.state == State::ok)
      log << rankmap::text::format_double(res.metrics.weighted_cost) << " B*hop/links, max link "
          << res.metrics.max_link_relative * 1e3 << " ms, " << res.seconds << " s"
          << (res.repaired ? ", repaired " + std::to_string(res.repaired) + " ranks" : "") << "\n";
    else
      log << res.message << "\n";
    results.push_back(std::move(res));
  }
  return results;
}

// ------------------------------------------------------------------- tables

// Relative tolerance under which two scores count as tied.
constexpr double kTie = 1e-3;

bool tied_or_better(double ours, double best) { return ours <= best * (1 + kTie) + 1e-300; }

const Result* find_tool(const std::vector<Result>& rs, const std::string& name) {
  for (const Result& r : rs)
    if (r.tool == name) return &r;
  return nullptr;
}

std::string ratio(double v, double ref) {
  if (ref <= 0) return v <= 0 ? "1.00" : "inf";
  return fmt("%.2f", v / ref);
}

struct Verdict {
  bool weighted_best = true;
  bool link_best = true;
  std::string weighted_winner, link_winner;  // best tool when the default is not best
  double weighted_margin = 0, link_margin = 0;  // how much lower the winner is, fraction of the default
};

Verdict judge(const std::vector<Result>& rs) {
  Verdict v;
  const Result* def = find_tool(rs, all_tools().front().name);
  if (!def || def->state != State::ok) {
    v.weighted_best = v.link_best = false;
    return v;
  }
  for (const Result& r : rs) {
    if (r.state != State::ok || &r == def) continue;
    if (!tied_or_better(def->metrics.weighted_cost, r.metrics.weighted_cost)) {
      const double margin = 1 - r.metrics.weighted_cost / def->metrics.weighted_cost;
      if (margin > v.weighted_margin) v.weighted_winner = r.tool, v.weighted_margin = margin;
      v.weighted_best = false;
    }
    if (!tied_or_better(def->metrics.max_link_relative, r.metrics.max_link_relative)) {
      const double margin = 1 - r.metrics.max_link_relative / def->metrics.max_link_relative;
      if (margin > v.link_margin) v.link_winner = r.tool, v.link_margin = margin;
      v.link_best = false;
    }
  }
  return v;
}

void write_tables(std::ostream& md, const std::vector<Instance>& instances,
                  const std::vector<std::vector<Result>>& results) {
  const std::string def_name = all_tools().front().name;
  // Summary first: the claim and where it fails.
  md << "### Is the default best?\n\n"
     << "Best or tied (within " << kTie * 100 << "%) among every tool that produced a mapping, "
     << "on the bandwidth-weighted cost and on the max link load.\n\n"
     << "| machine | instance | bw-weighted cost | max link load |\n|---|---|---|---|\n";
  for (size_t i = 0; i < instances.size(); ++i) {
    const Verdict v = judge(results[i]);
    auto say = [](bool best, const std::string& who, double margin) {
      return best ? std::string("best or tied")
                  : "**not best**: " + who + " is " + fmt("%.1f", margin * 100) + "% lower than the default";
    };
    md << "| " << instances[i].group.substr(0, instances[i].group.find(" (")) << " | " << instances[i].name()
       << " | " << say(v.weighted_best, v.weighted_winner, v.weighted_margin) << " | "
       << say(v.link_best, v.link_winner, v.link_margin) << " |\n";
  }
  md << "\n";

  std::string group;
  for (size_t i = 0; i < instances.size(); ++i) {
    const Instance& in = instances[i];
    if (in.group != group) {
      group = in.group;
      md << "### " << group << "\n\n"
         << "| instance | tool | hop-bytes (GB·hop) | bw-weighted (GB·hop/link) | vs default | max link load (ms) "
            "| vs default | gap to bound | time (s) | note |\n"
         << "|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
    }
    const Result* def = find_tool(results[i], def_name);
    bool first = true;
    for (const Result& r : results[i]) {
      md << "| " << (first ? in.name() : "") << " | " << r.tool << " | ";
      first = false;
      if (r.state != State::ok) {
        md << "| | | | | | | " << r.message << " |\n";
        continue;
      }
      const Metrics& m = r.metrics;
      const bool have_def = def && def->state == State::ok;
      std::string note;
      if (r.repaired > 0) note = "**repaired**: " + std::to_string(r.repaired) + " ranks moved to respect ppn";
      if (!r.capacity_ok) note += std::string(note.empty() ? "" : "; ") + "**capacity violated**";
      if (!r.finite) note += std::string(note.empty() ? "" : "; ") + "**non-finite score**";
      md << fmt("%.4g", m.hop_bytes / 1e9) << " | " << fmt("%.4g", m.weighted_cost / 1e9) << " | "
         << (have_def ? ratio(m.weighted_cost, def->metrics.weighted_cost) : "") << " | "
         << fmt("%.4g", m.max_link_relative * 1e3) << " | "
         << (have_def ? ratio(m.max_link_relative, def->metrics.max_link_relative) : "") << " | "
         << gap_text(m) << " | " << fmt(r.seconds < 0.01 ? "%.4f" : "%.2f", r.seconds)
         << " | " << note << " |\n";
    }
    if (i + 1 == instances.size() || instances[i + 1].group != group) md << "\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  const char* venv = std::getenv("RANKMAP_BENCH_VENV");
  opt.python = std::string(venv ? venv : "/opt/rankmap-bench-venv") + "/bin/python";
  CLI::App app{"rankmap_bench_peers: rankmap and peer mappers side by side, scored by rankmap's evaluator"};
  app.add_option("--suite", opt.suite, "instances: full (docs/benchmarks.md) or smoke (one tiny instance)")
      ->check(CLI::IsMember({"full", "smoke"}));
  app.add_option("--filter", opt.filter, "only instances whose machine or name contains this text");
  app.add_option("--tool", opt.tools, "only these tools (repeatable; names as in the table)");
  app.add_option("--python", opt.python, "Python of the peer environment (default: $RANKMAP_BENCH_VENV/bin/python)");
  app.add_option("--peers-dir", opt.peers_dir, "directory of the peer adapters");
  app.add_option("--work", opt.work, "scratch directory for graph files (default: a fresh temporary directory)");
  app.add_option("--markdown", opt.markdown, "write the tables (markdown) to this file");
  app.add_option("--seed", opt.seed, "seed of the synthetic patterns and of every tool");
  app.add_flag("--check", opt.check,
               "exit 1 unless every produced mapping respects the capacity and has finite scores");
  app.add_flag("--keep", opt.keep, "keep the scratch directory");
  app.add_option("--timeout", opt.timeout, "seconds a peer may run on one instance (then reported as timed out)")
      ->check(CLI::PositiveNumber);
  app.add_option("--recorded", opt.recorded,
                 "add a recorded profile NAME=PATH (commprof 1) on desmos with 4 ranks per node; repeatable");
  app.add_option("--recorded-dir", opt.recorded_dir,
                 "add every DIR/GROUP/NAME.prof as a recorded profile, GROUP one of desmos-4, desmos-6, 8x8-4, 8x4x4x4-2");
  CLI11_PARSE(app, argc, argv);

  std::vector<Instance> instances = opt.suite == "smoke" ? smoke_suite() : full_suite();
  // Profiles recorded from the example programs: --recorded NAME=PATH runs on
  // desmos at 4 ranks per node; --recorded-dir holds one subdirectory per
  // machine of the suite (bench/profiles/record.sh), named as below.
  struct RecordedGroup {
    const char* dir;
    const char* title;
    const char* machine;
    int ppn;
  };
  const RecordedGroup recorded_groups[] = {
      {"desmos-4", "desmos, 4 ranks per node", "desmos", 4},
      {"desmos-6", "desmos, 6 ranks per node", "desmos", 6},
      {"8x8-4", "8x8 torus, 4 ranks per node", "torus=8x8 node=package:2,core:4", 4},
      {"8x4x4x4-2", "8x4x4x4 torus, 2 ranks per node", "torus=8x4x4x4 node=package:2,core:4", 2},
  };
  struct Recorded {
    std::string name, path;
    const RecordedGroup* group;
  };
  std::vector<Recorded> recorded;
  for (const std::string& r : opt.recorded) {
    const size_t eq = r.find('=');
    if (eq == std::string::npos) {
      std::cerr << "rankmap_bench_peers: --recorded wants NAME=PATH, got '" << r << "'\n";
      return 2;
    }
    recorded.push_back({r.substr(0, eq), r.substr(eq + 1), &recorded_groups[0]});
  }
  if (!opt.recorded_dir.empty())
    for (const RecordedGroup& g : recorded_groups) {
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
    Instance in;
    in.group = std::string(rec.group->title) + ", profiles recorded from examples/ (`" + rec.group->machine + "`)";
    in.machine = rec.group->machine;
    in.ppn = rec.group->ppn;
    in.spec.ranks = profile->ranks;
    in.recorded_name = rec.name;
    in.recorded_path = rec.path;
    instances.push_back(in);
  }
  if (!opt.filter.empty())
    instances.erase(std::remove_if(instances.begin(), instances.end(),
                                   [&](const Instance& in) {
                                     return in.group.find(opt.filter) == std::string::npos &&
                                            in.name().find(opt.filter) == std::string::npos;
                                   }),
                    instances.end());
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
    std::vector<std::vector<Result>> results;
    const double start = now();
    for (const Instance& in : instances) {
      std::cerr << in.group << ": " << in.name() << "\n";
      results.push_back(run_instance(in, opt, dir, std::cerr));
    }
    std::cerr << "total " << now() - start << " s\n";
    std::ostringstream md;
    write_tables(md, instances, results);
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
        for (const Result& r : results[i]) {
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
