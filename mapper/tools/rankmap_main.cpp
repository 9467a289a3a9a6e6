// rankmap: map MPI ranks onto a torus machine, evaluate mappings, write
// synthetic profiles. A thin main over rankmap::mapper; see docs/mapper.md.
//
// Exit status: 0 success, 2 bad input (message "rankmap: file:line: ..." on
// stderr, no output file), 1 internal error.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "rankmap/atomic_file.hpp"
#include "rankmap/cli.hpp"
#include "rankmap/comm_graph.hpp"
#include "rankmap/limits.hpp"
#include "rankmap/mapper.hpp"
#include "rankmap/text.hpp"

namespace {

using namespace rankmap;

// Errors are values until here; this is the one place that prints and exits.
struct Failure {
  int status;
  std::string message;
};

template <class T>
T take(Result<T> r, const std::string& where = "", int status = 2) {
  if (!r) {
    const std::string& m = r.error().message;
    throw Failure{status, where.empty() || m.rfind(where, 0) == 0 ? m : where + ": " + m};
  }
  return std::move(*r);
}

struct Clock {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

CollectiveModel parse_collectives(const std::string& s) {
  if (s == "model") return CollectiveModel::model;
  if (s == "ignore") return CollectiveModel::ignore;
  throw Failure{2, "--collectives must be 'model' or 'ignore', not '" + s + "'"};
}

Traffic load_traffic(const std::string& path, CollectiveModel model, bool quiet) {
  std::vector<std::string> warnings;
  Profile profile = take(read_profile(path, &warnings));
  Traffic t = take(traffic_from_profile(profile, model), path);
  if (!quiet) {
    for (const auto& w : warnings) std::cerr << "rankmap: warning: " << w << "\n";
    for (const auto& n : t.notes) std::cerr << "rankmap: " << path << ": " << n << "\n";
  }
  return t;
}

struct Row {
  const char* label;
  const char* unit;
  double Metrics::*field;
};

const std::vector<Row>& metric_rows() {
  static const std::vector<Row> rows = {
      {"inter-node bytes", "B", &Metrics::inter_node_bytes},
      {"hop-bytes", "B*hop", &Metrics::hop_bytes},
      {"bw-weighted cost", "B*hop/links", &Metrics::weighted_cost},
      {"  lower bound", "B*hop/links", &Metrics::lower_bound_weighted},
      {"  gap to bound", "ratio-1", &Metrics::gap_weighted},
      {"hop-bytes lower bound", "B*hop", &Metrics::lower_bound_hop_bytes},
      {"mean dilation", "hops", &Metrics::mean_dilation},
      {"max link load", "s", &Metrics::max_link_relative},
      {"mean link load", "s", &Metrics::mean_link_relative},
      {"comm time, max rank", "s", &Metrics::comm_time_max},
      {"comm time, mean rank", "s", &Metrics::comm_time_mean},
      {"intra-node bytes", "B", &Metrics::intra_node_bytes},
      {"cross-package bytes", "B", &Metrics::cross_package_bytes},
  };
  return rows;
}

void print_table(const std::vector<std::string>& names, const std::vector<Metrics>& ms, bool gain_column) {
  std::printf("%-22s %-12s", "metric", "unit");
  for (const auto& n : names) std::printf(" %14s", n.c_str());
  if (gain_column) std::printf(" %9s", "change");
  std::printf("\n");
  auto line = [&](const char* label, const char* unit, auto get) {
    std::printf("%-22s %-12s", label, unit);
    for (const Metrics& m : ms) {
      const double v = static_cast<double>(get(m));
      if (std::isfinite(v)) std::printf(" %14.6g", v);
      else std::printf(" %14s", "n/a");  // gap to a zero bound
    }
    if (gain_column && ms.size() == 2) {
      const double a = get(ms[0]), b = get(ms[1]);
      if (a != 0) std::printf(" %+8.1f%%", 100.0 * (b - a) / a);
      else std::printf(" %9s", b == 0 ? "0" : "n/a");
    }
    std::printf("\n");
  };
  line("nodes used", "", [](const Metrics& m) { return m.nodes_used; });
  for (const Row& r : metric_rows()) line(r.label, r.unit, [&](const Metrics& m) { return m.*(r.field); });
  line("max dilation", "hops", [](const Metrics& m) { return m.max_dilation; });
}

nlohmann::json to_json(const std::string& name, const Metrics& m) {
  return {{"mapping", name},
          {"ranks", m.ranks},
          {"nodes_used", m.nodes_used},
          {"total_bytes", m.total_bytes},
          {"inter_node_bytes", m.inter_node_bytes},
          {"hop_bytes", m.hop_bytes},
          {"weighted_cost", m.weighted_cost},
          {"mean_dilation", m.mean_dilation},
          {"max_dilation", m.max_dilation},
          {"max_link_load_bytes", m.max_link_load},
          {"max_link_load_seconds", m.max_link_relative},
          {"mean_link_load_seconds", m.mean_link_relative},
          {"comm_time_max", m.comm_time_max},
          {"comm_time_mean", m.comm_time_mean},
          {"lower_bound_hop_bytes", m.lower_bound_hop_bytes},
          {"lower_bound_weighted", m.lower_bound_weighted},
          {"gap_hop_bytes", m.gap_hop_bytes},
          {"gap_weighted", m.gap_weighted},
          {"intra_node_bytes", m.intra_node_bytes},
          {"cross_package_bytes", m.cross_package_bytes}};
}

struct Common {
  std::string machine, profile, output, algorithm = default_algorithm(), nodes, collectives = "model", preset = "default";
  int ppn = 0;
  std::uint64_t seed = 1;
  bool quiet = false, verbose = false, json = false, no_bound = false;
  std::vector<std::string> mappings;
  SynthSpec synth;
  std::string shape, bytes;
};

int run_map(const Common& o) {
  Clock clock;
  const bool progress = !o.quiet;
  // A machine file's errors already say file:line; a one-line description's
  // are named after the option.
  const std::string machine_where = std::ifstream(o.machine).good() ? o.machine : "--machine";
  Machine machine = take(load_machine(o.machine), machine_where);
  std::vector<std::string> inputs = machine.files();
  inputs.insert(inputs.end(), {o.profile, o.machine});
  take(refuse_to_overwrite_inputs({o.output}, inputs));
  Platform platform = take(Platform::from_machine(machine), machine_where);
  Traffic traffic = load_traffic(o.profile, parse_collectives(o.collectives), o.quiet);
  MapOptions opt;
  opt.algorithm = o.algorithm;
  opt.ppn = o.ppn;
  opt.seed = o.seed;
  opt.preset = take(parse_preset(o.preset), "--preset");
  if (!o.nodes.empty()) opt.nodes = take(parse_node_list(o.nodes, machine));
  if (progress && (o.verbose || traffic.ranks >= 4096))
    opt.progress = [&](const std::string& s) { std::fprintf(stderr, "rankmap: [%6.2f s] %s\n", clock.seconds(), s.c_str()); };
  if (!find_algorithm(o.algorithm)) {
    std::string names;
    for (const auto& a : algorithms()) names += (names.empty() ? "" : ", ") + a.name;
    throw Failure{2, "unknown algorithm '" + o.algorithm + "' (known: " + names + ")"};
  }
  MapOutcome chosen = take(map_ranks(traffic, platform, opt), o.profile);
  const double map_seconds = clock.seconds();
  if (!o.quiet)
    for (const auto& n : chosen.notes) std::cerr << "rankmap: " << n << "\n";
  Mapping mapping{machine, chosen.placement};
  take(mapping.check(), "internal", 1);
  take(write_mapping(o.output, mapping), o.output);

  MapOptions block_opt = opt;
  block_opt.algorithm = "block";
  block_opt.progress = nullptr;
  MapOutcome block = take(map_ranks(traffic, platform, block_opt), o.profile);
  EvaluateOptions eo;
  eo.ppn = opt.ppn;
  eo.nodes = opt.nodes;
  eo.lower_bound = !o.no_bound;
  Metrics mb = take(evaluate(traffic, block.placement, platform, eo), "internal", 1);
  Metrics mc = take(evaluate(traffic, chosen.placement, platform, eo), "internal", 1);
  if (o.json) {
    std::cout << nlohmann::json::array({to_json("block", mb), to_json(o.algorithm, mc)}).dump(2) << "\n";
  } else {
    std::printf("mapped %d ranks with '%s' in %.2f s -> %s\n", traffic.ranks, o.algorithm.c_str(), map_seconds,
                o.output.c_str());
    print_table({"block", o.algorithm}, {mb, mc}, true);
  }
  return 0;
}

int run_evaluate(const Common& o) {
  Traffic traffic = load_traffic(o.profile, parse_collectives(o.collectives), o.quiet);
  std::vector<Metrics> ms;
  std::vector<std::string> names;
  nlohmann::json all = nlohmann::json::array();
  for (const std::string& path : o.mappings) {
    Mapping mapping = take(read_mapping(path));
    if (mapping.ranks() != traffic.ranks)
      throw Failure{2, path + ": maps " + std::to_string(mapping.ranks()) + " ranks but profile " + o.profile + " has " +
                           std::to_string(traffic.ranks)};
    Platform platform = take(Platform::from_machine(mapping.machine), path);
    EvaluateOptions eo;
    eo.ppn = o.ppn;
    eo.lower_bound = !o.no_bound;
    if (!o.nodes.empty()) eo.nodes = take(parse_node_list(o.nodes, mapping.machine));
    ms.push_back(take(evaluate(traffic, mapping.placement, platform, eo), path));
    names.push_back(path.substr(path.find_last_of('/') + 1));
    all.push_back(to_json(path, ms.back()));
  }
  if (o.json) std::cout << all.dump(2) << "\n";
  else print_table(names, ms, ms.size() == 2);
  return 0;
}

int run_synth(Common o) {
  if (!o.shape.empty()) {
    o.synth.shape.clear();
    for (const auto& s : text::split(o.shape, 'x')) {
      auto v = text::parse_int(s);
      if (!v || *v < 1 || *v > (1 << 24)) throw Failure{2, "--shape: bad side '" + s + "' in '" + o.shape + "'"};
      o.synth.shape.push_back(static_cast<int>(*v));
    }
  }
  if (!o.bytes.empty()) {
    auto v = text::parse_uint64(o.bytes);
    if (!v || *v > limits::kMaxTrafficCount)
      throw Failure{2, "--bytes: expected a byte count from 0 to " + std::to_string(limits::kMaxTrafficCount) + ", not '" +
                           text::excerpt(o.bytes) + "'"};
    o.synth.bytes = *v;
  }
  o.synth.seed = o.seed;
  Profile p = take(synthesize(o.synth), "synth");
  take(write_profile(o.output, p), o.output);
  if (!o.quiet)
    std::fprintf(stderr, "rankmap: wrote %s: %s, %d ranks, %zu pairs\n", o.output.c_str(), o.synth.pattern.c_str(),
                 p.ranks, p.p2p.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rankmap: topology-aware placement of MPI ranks on torus machines"};
  app.require_subcommand(1);
  app.footer("Exit status: 0 success, 2 bad input (one line on stderr, no output file), 1 internal error.\n"
             "Details: docs/mapper.md");
  Common o;
  std::string algos;
  for (const auto& a : algorithms()) algos += "\n    " + a.name + ": " + a.summary;

  auto add_common = [&](CLI::App* sub) {
    sub->add_option("-p,--profile", o.profile, "communication profile (commprof 1)")->required();
    sub->add_option("--collectives", o.collectives, "collective records: 'model' (MPICH algorithms) or 'ignore'")
        ->capture_default_str();
    sub->add_option("--ppn", o.ppn, "ranks per node (default: cores per node)")->check(cli::positive());
    sub->add_option("--nodes", o.nodes, "allocated nodes: indices, ranges and host names, e.g. 0-15,20,node-31");
    sub->add_flag("--json", o.json, "print metrics as JSON");
    sub->add_flag("--no-bound", o.no_bound, "skip the lower bound");
    sub->add_flag("-q,--quiet", o.quiet, "no notes or progress on stderr");
  };
  CLI::App* map = app.add_subcommand("map", "map a profile onto a machine; write the mapping; compare with block");
  add_common(map);
  map->add_option("-m,--machine", o.machine, "machine: preset (desmos), key=value words, or a machine file")->required();
  map->add_option("-o,--output", o.output, "mapping file to write (atomically)")->required();
  map->add_option("--algorithm", o.algorithm, "mapping algorithm:" + algos)->capture_default_str();
  map->add_option("--seed", o.seed, "seed for every randomised step")->check(cli::unsigned_integer())->capture_default_str();
  map->add_option("--preset", o.preset,
                  "how hard the default searches: fast, default (<= ~1 s up to 1,024 ranks), strong (<= ~10 s)")
      ->capture_default_str();
  map->add_flag("-v,--verbose", o.verbose, "progress on stderr (always on from 4096 ranks)");

  CLI::App* ev = app.add_subcommand("evaluate", "score mapping files (any origin) against a profile");
  add_common(ev);
  ev->add_option("mappings", o.mappings, "mapping files (rankmap-mapping 1)")->required();

  CLI::App* sy = app.add_subcommand("synth", "write a synthetic profile");
  std::string patterns;
  for (const auto& p : synth_patterns()) patterns += (patterns.empty() ? "" : ", ") + p;
  sy->add_option("--pattern", o.synth.pattern, "pattern: " + patterns)->required();
  sy->add_option("--ranks", o.synth.ranks, "number of ranks")
      ->required()
      ->check(CLI::Range(1, limits::kMaxRanks));
  sy->add_option("--shape", o.shape, "grid of stencils, e.g. 8x4x4 (default: most cubic)");
  sy->add_option("--bytes", o.bytes, "bytes per communicating ordered pair (default 1048576)");
  sy->add_option("--messages", o.synth.messages, "messages per communicating ordered pair")
      ->check(cli::unsigned_integer(limits::kMaxTrafficCount))
      ->capture_default_str();
  sy->add_option("--degree", o.synth.degree, "partners per rank (random)")->check(cli::positive())->capture_default_str();
  sy->add_option("--seed", o.seed, "seed (random, stencil3d-shuffled)")->check(cli::unsigned_integer())->capture_default_str();
  sy->add_option("-o,--output", o.output, "profile file to write")->required();
  sy->add_flag("-q,--quiet", o.quiet, "no summary on stderr");

  if (auto status = cli::parse(app, argc, argv, "rankmap")) return *status;
  try {
    if (*map) return run_map(o);
    if (*ev) return run_evaluate(o);
    if (*sy) return run_synth(o);
  } catch (const Failure& f) {
    std::cerr << "rankmap: " << f.message << "\n";
    return f.status;
  } catch (const std::exception& e) {
    std::cerr << "rankmap: internal error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
