// rankmap: map MPI ranks onto a torus machine, evaluate mappings, write
// synthetic profiles. A thin main over rankmap::mapper; see docs/mapper.md.
//
// Exit status and flags: the shared command-line layer (rankmap/cli.hpp).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "rankmap/app_estimate.hpp"
#include "rankmap/atomic_file.hpp"
#include "rankmap/bulk_trace.hpp"
#include "rankmap/cli.hpp"
#include "rankmap/comm_graph.hpp"
#include "rankmap/limits.hpp"
#include "rankmap/mapper.hpp"
#include "rankmap/metrics.hpp"
#include "rankmap/replay_choice.hpp"
#include "rankmap/scratch_dir.hpp"
#include "rankmap/text.hpp"

namespace {

using namespace rankmap;
using cli::fail;
using cli::take;

struct Clock {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
};

CollectiveModel parse_collectives(const std::string& s) {
  if (s == "model") return CollectiveModel::model;
  if (s == "ignore") return CollectiveModel::ignore;
  fail("--collectives must be 'model' or 'ignore', not '" + text::excerpt(s) + "'");
}

// The profile's traffic, and its point-to-point traffic alone (what the
// bulk model replays: MapOptions::point_to_point). `p2p`: the profile's
// point-to-point records (map --replay-profile).
struct LoadedTraffic {
  Traffic traffic;
  std::optional<Traffic> without_collectives;  // when it differs from `traffic` and the bulk model runs
  const Traffic* point_to_point() const { return without_collectives ? &*without_collectives : &traffic; }
};
LoadedTraffic load_traffic(const std::string& path, CollectiveModel model, bool quiet, MpiFraction* p_mpi = nullptr,
                           std::vector<PairTraffic>* p2p = nullptr) {
  std::vector<std::string> warnings;
  Profile profile = take(read_profile(path, &warnings));
  LoadedTraffic loaded{take(traffic_from_profile(profile, model), path), {}};
  // (Only where the bulk model runs: a second copy of a 262,144-rank traffic would double the memory.)
  if (model == CollectiveModel::model && loaded.traffic.ranks <= kBulkModelMaxRanks)
    loaded.without_collectives = take(traffic_from_profile(profile, CollectiveModel::ignore), path);
  const Traffic& t = loaded.traffic;
  if (p_mpi) *p_mpi = mpi_fraction(profile);
  if (p2p) *p2p = profile.p2p;
  if (!quiet) {
    for (const auto& w : warnings) cli::print_warning("rankmap", w);
    for (const auto& n : t.notes) cli::print_note("rankmap", path + ": " + n);
  }
  return loaded;
}

// The text table and the JSON both print the metric catalogue
// (rankmap/metrics.hpp): values in base units, the unit in its own column.
void print_table(const std::vector<std::string>& names, const std::vector<Metrics>& ms, bool gain_column, bool bound) {
  std::printf("%-24s %-8s", "metric", "unit");
  for (const auto& n : names) std::printf(" %14s", n.c_str());
  if (gain_column) std::printf(" %9s", "change");
  std::printf("\n");
  // Without the bound (--no-bound) its rows say n/a, not a gap of 0.
  auto get = [bound](const MetricInfo& info, const Metrics& m) { return bound || !from_lower_bound(info) ? info.get(m) : NAN; };
  for (const MetricInfo& info : metric_catalogue()) {
    std::printf("%-24s %-8s", info.label, unit_symbol(info.unit));
    for (const Metrics& m : ms) {
      const double v = get(info, m);
      if (std::isfinite(v)) std::printf(" %14.6g", v);
      else std::printf(" %14s", "n/a");  // gap to a zero bound
    }
    if (gain_column && ms.size() == 2) {
      const double a = get(info, ms[0]), b = get(info, ms[1]);
      // Rows that are already changes or shares have no change of their own.
      if (info.unit == MetricUnit::fraction || info.unit == MetricUnit::share) std::printf(" %9s", "");
      else if (a != 0 && std::isfinite(a) && std::isfinite(b)) std::printf(" %+8.1f%%", 100.0 * (b - a) / a);
      else std::printf(" %9s", b == a ? "0" : "n/a");
    }
    std::printf("\n");
  }
}

// The outlook of every mapping but the baseline, first thing on stdout:
//   rankmap vs block: communication −18.2% (time model), application −0.9% at p_mpi 5%
//     not worth a relaunch: predicted application gain 0.9%, below 1% (...)
void print_outlooks(const std::vector<std::string>& names, const std::vector<Outlook>& outlooks) {
  for (size_t i = 1; i < outlooks.size(); ++i)
    std::printf("%s vs %s: %s\n  %s\n", names[i].c_str(), names[0].c_str(), outlook_headline(outlooks[i]).c_str(),
                relaunch_verdict(outlooks[i]).c_str());
}

// MPI time measured by the profile, as a note: how far p_mpi can be trusted.
void note_p_mpi(const std::string& path, const MpiFraction& f, int ranks, bool quiet) {
  if (quiet) return;
  if (!f.known()) {
    cli::print_note("rankmap", path + ": no MPI time in the profile (wall=0): the application change is n/a");
    return;
  }
  cli::print_note("rankmap", path + ": p_mpi " + text::human_percent(100 * f.mean) + " (ranks " +
                                 text::human_percent(100 * f.min) + " to " + text::human_percent(100 * f.max) + ", " +
                                 std::to_string(f.timed_ranks) + " of " + std::to_string(ranks) + " ranks timed)" +
                                 (f.yield ? "; waits through the yield shim" : ""));
  if (f.ranks_sharing_a_core > 0)
    cli::print_warning("rankmap", path + ": " + std::to_string(f.ranks_sharing_a_core) +
                                      " ranks started on a core another rank started on: an oversubscribed run, whose "
                                      "p_mpi counts waiting for descheduled partners; the application change assumes "
                                      "it is the real run's");
}

// Keys in catalogue order; whole numbers as integers; n/a as null. Every
// mapping but the baseline also carries its outlook in words.
nlohmann::ordered_json to_json(const std::string& name, const Metrics& m, bool bound, const Outlook* outlook = nullptr) {
  nlohmann::ordered_json j = {{"mapping", name}, {"ranks", m.ranks}, {"total_bytes", static_cast<long long>(m.total_bytes)}};
  if (outlook) {
    j["outlook"] = outlook_headline(*outlook);
    j["relaunch"] = relaunch_verdict(*outlook);
  }
  for (const MetricInfo& info : metric_catalogue()) {
    const double v = bound || !from_lower_bound(info) ? info.get(m) : NAN;
    if (!std::isfinite(v)) j[info.key] = nullptr;
    else if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) j[info.key] = static_cast<long long>(v);
    else j[info.key] = v;
  }
  return j;
}

struct Common {
  std::string machine, profile, output, algorithm = default_algorithm(), nodes, collectives = "model", preset = "default",
              core_fill = "compact";
  int ppn = 0;
  std::uint64_t seed = 1;
  int threads = 0;       // map and evaluate --threads: 0 = the cores the process may use
  bool quiet = false, verbose = false, json = false, no_bound = false;
  std::vector<std::string> mappings;
  SynthSpec synth;
  std::string shape, bytes;
  std::string trace;     // map --trace: choose among the default's candidates by replay
  bool replay_profile = false;  // map --replay-profile: the same, replaying the profile's bulk-synchronous program
  bool no_bulk_model = false;   // map --no-bulk-model: the default keeps its static choice
  std::vector<std::string> candidates;  // map --candidate: more mappings to replay with --trace or --replay-profile
  double budget = 300;   // map --budget: wall seconds for those replays
};

// How many of the default's candidates `map --trace` replays (its choice,
// block, paper, scotch, then the cheapest others).
constexpr int kReplayCandidates = 8;
// The largest bulk-synchronous program `map --replay-profile` writes: ~20
// bytes an action in memory and on disk, and SimGrid's time grows with them
// (a 128-rank replay of 150k actions takes ~2.5 s here).
constexpr std::uint64_t kProfileReplayMaxActions = 5'000'000;
// Nor one of more partners per rank on average: every round posts every
// pair at once, and SimGrid's sharing of that many concurrent flows is what
// takes the time (an all-to-all of 128 ranks, 127 partners each: one replay
// of 10 rounds took over 5 minutes; hydro27, 26 partners: ~2 s).
constexpr std::size_t kProfileReplayMaxPartners = 32;

// The replayed time of the chosen placement over block's (both replayed).
struct ReplayedRatio {
  double ratio = 1;
  bool whole_app = false;  // the trace had compute actions: the whole application was replayed
};

// map --trace and --replay-profile: replays the default's shortlist on the
// machine and returns the fastest placement (the static choice when the
// replay cannot decide, with a note saying why). Prints the replayed times
// under `what` (the trace); `replayed` gets the chosen one's ratio to block
// when both were replayed.
std::vector<Placement> choose_by_trace(const Common& o, const std::string& what, const simulation::Trace& trace,
                                       const Machine& machine,
                                       const MapOutcome& outcome, const std::vector<simulation::ReplayCandidate>& extra,
                                       const Clock& clock, std::optional<ReplayedRatio>& replayed) {
  std::vector<simulation::ReplayCandidate> candidates;
  for (const Alternative& a : outcome.alternatives) candidates.push_back({a.name, a.placement});
  if (candidates.empty()) candidates.push_back({o.algorithm, outcome.placement});
  candidates.insert(candidates.end(), extra.begin(), extra.end());
  simulation::ChoiceOptions co;
  co.budget_seconds = o.budget;
  if (!o.quiet)
    co.replay.progress = [&](const std::string& s) { std::fprintf(stderr, "rankmap: [%6.2f s] %s\n", clock.seconds(), s.c_str()); };
  simulation::ReplayChoice choice =
      take(simulation::choose_by_replay(trace, machine, candidates, co), o.replay_profile ? o.profile : o.trace);
  const auto block = std::find_if(choice.times.begin(), choice.times.end(), [](const simulation::CandidateTime& t) {
    return t.name == "block" && t.seconds && *t.seconds > 0;
  });
  if (block != choice.times.end() && choice.times[choice.chosen].seconds)
    replayed = ReplayedRatio{*choice.times[choice.chosen].seconds / *block->seconds,
                             choice.mode == simulation::ReplayMode::whole_app};
  if (!o.quiet) cli::print_note("rankmap", choice.note);
  // The JSON on stdout stays one document: with --json the table goes to
  // stderr, and -q (nothing on stderr but errors) drops it.
  if (o.json && o.quiet) return candidates[choice.chosen].placement;
  FILE* out = o.json ? stderr : stdout;
  std::fprintf(out, "replayed %s (%s), %d ranks:\n", what.c_str(), simulation::replay_mode_name(choice.mode), trace.ranks());
  int width = 22;
  for (const simulation::CandidateTime& t : choice.times) width = std::max(width, static_cast<int>(t.name.size()));
  std::fprintf(out, "  %-3s %-*s %18s %8s  %s\n", "#", width, "candidate", "simulated (s)", "ratio", "");
  for (size_t i = 0; i < choice.times.size(); ++i) {
    const simulation::CandidateTime& t = choice.times[i];
    std::fprintf(out, "  %-3zu %-*s", i + 1, width, t.name.c_str());
    if (t.seconds) std::fprintf(out, " %18.12g %8.4f", *t.seconds, *t.seconds / *choice.times[0].seconds);
    else std::fprintf(out, " %18s %8s", "-", "-");
    std::string mark = i == choice.chosen ? (choice.by_replay ? "<- chosen by replay" : "<- kept (static choice)") : "";
    if (!t.note.empty()) mark += (mark.empty() ? "" : "; ") + t.note;
    std::fprintf(out, "  %s\n", mark.c_str());
  }
  return candidates[choice.chosen].placement;
}

// map --replay-profile: the profile's bulk-synchronous program, or why it is
// not replayed (too large, as a trace would be: simulation::ChoiceOptions;
// too dense; more actions than kProfileReplayMaxActions).
Result<simulation::BulkTrace> replayable_program(int ranks, const std::vector<PairTraffic>& p2p) {
  const int max_ranks = simulation::ChoiceOptions{}.max_ranks;
  if (ranks > max_ranks) return make_error("more than " + std::to_string(max_ranks) + " ranks");
  const auto pairs = static_cast<size_t>(
      std::count_if(p2p.begin(), p2p.end(), [](const PairTraffic& t) { return t.messages > 0; }));
  if (pairs > kProfileReplayMaxPartners * static_cast<size_t>(ranks))
    return make_error(std::to_string(pairs) + " communicating pairs, more than " + std::to_string(kProfileReplayMaxPartners) +
                      " partners per rank on average (a replay of every pair at once would take minutes)");
  simulation::BulkTraceOptions options;
  options.max_actions = kProfileReplayMaxActions;
  return simulation::bulk_trace(ranks, p2p, options);
}

// What the replay table calls that program.
std::string program_title(const simulation::BulkTrace& bulk) {
  std::string rounds = std::to_string(bulk.rounds) + (bulk.rounds == 1 ? " round" : " rounds");
  if (bulk.divisor > 1)
    rounds += (bulk.exact ? ", each standing for " : ", each standing for about ") + std::to_string(bulk.divisor);
  return "the profile's traffic as a bulk-synchronous program (" + rounds + "; collectives left out)";
}

// Checked here, before the mapper, so that the message can say what to write
// on the command line: these are errors of --machine and --ppn, not of the
// profile.
void check_capacity(const Common& o, const Machine& machine, const Platform& platform, int ranks,
                    const std::vector<int>& node_list) {
  const std::string name = "machine '" + text::excerpt(o.machine) + "'";
  const NodeKinds& kinds = platform.node_kinds;
  const int cores = kinds.max_cores();
  const bool default_node = machine.node_xml.empty() && machine.node == Machine{}.node && kinds.uniform();
  auto per_node = [&](long long n) {
    return (kinds.uniform() ? "" : "at most ") + std::to_string(n) + (n == 1 ? " core per node" : " cores per node");
  };
  const std::string node_word = default_node ? " (no node=)" : machine.node_xml.empty() && kinds.uniform() ? " (node=" + text::excerpt(machine.node) + ")" : "";
  if (o.ppn > cores)
    fail("--machine/--ppn: " + name + " has " + per_node(cores) + node_word + ", fewer than --ppn " + std::to_string(o.ppn) +
         "; add node=core:" + std::to_string(o.ppn) + " or node-xml=FILE" + (default_node ? "" : ", or lower --ppn"));
  const Allocation allocation = take(make_allocation(platform, node_list, o.ppn));
  const long long nodes = allocation.size();
  if (ranks <= allocation.total_slots()) return;
  const long long need = (ranks + nodes - 1) / nodes;
  const std::string what = std::to_string(ranks) + " ranks do not fit on " + std::to_string(nodes) + " nodes";
  if (!kinds.uniform())
    fail("--machine/--ppn: " + what + " (" + std::to_string(allocation.total_slots()) + " slots) of " + name +
         ", whose nodes have " + std::to_string(kinds.min_cores()) + " to " + std::to_string(cores) + " cores" +
         (o.ppn > 0 ? "; raise --ppn or use more nodes" : "; use more nodes"));
  if (need <= cores)
    fail("--machine/--ppn: " + what + " x --ppn " + std::to_string(o.ppn) + "; raise --ppn to " + std::to_string(need) + " (" +
         name + " has " + per_node(cores) + ")");
  fail("--machine/--ppn: " + what + " of " + name + ", which has " + per_node(cores) + node_word + "; add node=core:" +
       std::to_string(need) + " or node-xml=FILE, or use a larger torus=");
}

int run_map(const Common& o) {
  Clock clock;
  const bool progress = !o.quiet;
  // A machine file's errors already say file:line; a one-line description's
  // are named after the option.
  const std::string machine_where = cli::where_of("--machine", o.machine);
  Machine machine = take(load_machine(o.machine), machine_where);
  std::vector<std::string> inputs = machine.files();
  inputs.insert(inputs.end(), {o.profile, o.machine});
  if (!o.trace.empty()) inputs.push_back(o.trace);
  inputs.insert(inputs.end(), o.candidates.begin(), o.candidates.end());
  take(refuse_to_overwrite_inputs({o.output}, inputs));
  Platform platform = take(Platform::from_machine(machine), machine_where);
  MpiFraction p_mpi;
  std::vector<PairTraffic> p2p;
  const LoadedTraffic loaded = load_traffic(o.profile, parse_collectives(o.collectives), o.quiet, &p_mpi, &p2p);
  const Traffic& traffic = loaded.traffic;
  MapOptions opt;
  opt.point_to_point = loaded.point_to_point();
  opt.bulk_model = !o.no_bulk_model;
  opt.algorithm = o.algorithm;
  opt.ppn = o.ppn;
  opt.seed = o.seed;
  opt.threads = o.threads;
  opt.preset = take(parse_preset(o.preset), "--preset");
  opt.core_fill = take(parse_core_fill(o.core_fill), "--cores");
  if (!o.nodes.empty()) opt.nodes = take(parse_node_list(o.nodes, machine));
  if (progress && (o.verbose || traffic.ranks >= 4096))
    opt.progress = [&](const std::string& s) { std::fprintf(stderr, "rankmap: [%6.2f s] %s\n", clock.seconds(), s.c_str()); };
  if (!find_algorithm(o.algorithm)) {
    std::string names;
    for (const auto& a : algorithms()) names += (names.empty() ? "" : ", ") + a.name;
    fail("unknown algorithm '" + text::excerpt(o.algorithm) + "' (known: " + names + ")");
  }
  check_capacity(o, machine, platform, traffic.ranks, opt.nodes);
  std::optional<simulation::Trace> trace;
  std::string trace_name = o.trace;  // what the replay table calls it
  ScratchDir scratch;
  if (o.replay_profile) {
    if (!o.trace.empty()) fail("--trace and --replay-profile both choose by replay; give one");
    if (o.algorithm != default_algorithm())
      fail("--replay-profile chooses among the default algorithm's candidates; it does not combine with --algorithm " +
           o.algorithm);
    // The profile's point-to-point traffic as a bulk-synchronous program
    // (rankmap/bulk_trace.hpp), written to a scratch directory for smpirun;
    // where it is not replayable the static choice stays, with a note.
    auto bulk = replayable_program(traffic.ranks, p2p);
    if (bulk && bulk->rounds == 0) fail(o.profile + ": no point-to-point traffic to replay (--replay-profile)");
    if (!bulk) {
      if (!o.quiet)
        cli::print_note("rankmap", "--replay-profile: " + bulk.error().message + ": not replayed, the static choice is kept");
    } else {
      scratch = take(ScratchDir::make("rankmap-profile-replay"));
      trace = take(simulation::read_trace(take(simulation::write_action_files(scratch.path() + "/trace", bulk->texts))));
      trace_name = program_title(*bulk);
      opt.alternatives = kReplayCandidates;
    }
  }
  if (!o.trace.empty()) {
    // Read and checked before mapping: a bad trace fails before any work.
    if (o.algorithm != default_algorithm())
      fail("--trace chooses among the default algorithm's candidates; it does not combine with --algorithm " + o.algorithm);
    trace = take(simulation::read_trace(o.trace));  // messages name the file
    if (trace->ranks() != traffic.ranks)
      fail(o.trace + ": the trace has " + std::to_string(trace->ranks()) + " ranks but the profile " + o.profile + " has " +
           std::to_string(traffic.ranks));
    opt.alternatives = kReplayCandidates;
    if (!o.quiet && trace->derived_datatype_actions > 0)
      cli::print_warning("rankmap", o.trace + ": " + std::to_string(trace->derived_datatype_actions) +
                                        " actions use derived datatypes (id -1), which SimGrid replays as 0 bytes");
  }
  if (!o.candidates.empty() && !trace)
    fail("--candidate needs --trace or --replay-profile (the candidates are compared by replay)");
  // --candidate: another tool's mapping (stock Scotch, the current rankfile)
  // replayed with the default's candidates; it must obey the same machine,
  // nodes and --ppn, since it may become the written mapping.
  std::vector<simulation::ReplayCandidate> extra;
  for (const std::string& path : o.candidates) {
    Mapping m = take(read_mapping(path), path);
    if (!m.machine.same_network(machine)) fail(path + ": mapping is for another network than --machine");
    if (m.ranks() != traffic.ranks)
      fail(path + ": places " + std::to_string(m.ranks()) + " ranks but the profile " + o.profile + " has " +
           std::to_string(traffic.ranks));
    take(check_placement(m.placement, traffic.ranks, platform, take(make_allocation(platform, opt.nodes, opt.ppn))), path);
    extra.push_back({path.substr(path.find_last_of('/') + 1), m.placement});
  }
  // After every input was checked: bad input gives one line on stderr.
  note_p_mpi(o.profile, p_mpi, traffic.ranks, o.quiet);
  MapOutcome chosen = take(map_ranks(traffic, platform, opt), o.profile);
  if (!o.quiet)
    for (const auto& n : chosen.notes) cli::print_note("rankmap", n);
  std::optional<ReplayedRatio> replayed;
  if (trace) chosen.placement = choose_by_trace(o, trace_name, *trace, machine, chosen, extra, clock, replayed);
  // The bulk program orders placements, but its times are not the
  // application's (every message of a round at once): the outlook stays the
  // time model's.
  if (o.replay_profile) replayed.reset();
  const double map_seconds = clock.seconds();
  // The record names what made the mapping (reports label columns with it).
  std::string made_by = opt.algorithm;
  if (opt.algorithm == default_algorithm())
    made_by += std::string(" preset=") + preset_name(opt.preset) + " seed=" + std::to_string(opt.seed);
  if (opt.core_fill == CoreFill::spread) made_by += " cores=spread";
  if (opt.algorithm == default_algorithm() && !opt.bulk_model) made_by += " bulk-model=off";
  if (trace) made_by += o.replay_profile ? " chosen-by=profile-replay" : " chosen-by=trace";
  Mapping mapping{machine, chosen.placement, made_by};
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
  eo.bound_memo = make_lower_bound_memo();  // one bound for both
  eo.point_to_point = loaded.point_to_point();
  // The default's bulk model timed its choice already, unless a trace
  // replay chose another placement.
  EvaluateOptions eo_chosen = eo;
  if (!trace) eo_chosen.bulk_time = chosen.bulk_time;
  // Block and the choice side by side (--threads): each may replay its bulk
  // model to the evaluator's cap (~1 s at 1,024 ranks).
  std::vector<Result<Metrics>> scored =
      evaluate_each(traffic, {{&block.placement, &platform, eo}, {&chosen.placement, &platform, eo_chosen}}, opt.threads);
  Metrics mb = take(std::move(scored[0]), "internal", 1);
  Metrics mc = take(std::move(scored[1]), "internal", 1);
  // The outlook against block: the replay's ratio when the trace was
  // replayed on both, else the time model's.
  Outlook outlook = time_model_outlook(mb, mc, p_mpi.mean);
  if (replayed && replayed->whole_app) {
    outlook.app_ratio = replayed->ratio;
    outlook.app_replayed = true;
  } else if (replayed) {
    outlook = estimate_outlook(replayed->ratio, "replay", p_mpi.mean);
  }
  set_outlook(mb, time_model_outlook(mb, mb, p_mpi.mean));
  if (outlook.app_replayed) mb.predicted_app_change = 0;  // block against itself, replayed too
  set_outlook(mc, outlook);
  if (o.json) {
    std::cout << nlohmann::ordered_json::array({to_json("block", mb, !o.no_bound), to_json(o.algorithm, mc, !o.no_bound, &outlook)})
                     .dump(2)
              << "\n";
  } else {
    std::printf("mapped %d ranks with '%s' in %.2f s -> %s\n", traffic.ranks, o.algorithm.c_str(), map_seconds,
                o.output.c_str());
    print_outlooks({"block", o.algorithm}, {Outlook{}, outlook});
    print_table({"block", o.algorithm}, {mb, mc}, true, !o.no_bound);
  }
  return 0;
}

int run_evaluate(const Common& o) {
  MpiFraction p_mpi;
  const LoadedTraffic loaded = load_traffic(o.profile, parse_collectives(o.collectives), o.quiet, &p_mpi);
  const Traffic& traffic = loaded.traffic;
  std::vector<Metrics> ms;
  std::vector<std::string> names;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  // Mappings of one machine share its Platform, so that the lower bound
  // (the same for all of them) is computed once.
  std::vector<std::pair<Machine, std::shared_ptr<const Platform>>> platforms;
  const auto bound_memo = make_lower_bound_memo();
  std::vector<Mapping> mappings;  // read and checked first, then scored at once
  std::vector<EvaluationJob> jobs;
  mappings.reserve(o.mappings.size());
  for (const std::string& path : o.mappings) {
    mappings.push_back(take(read_mapping(path)));
    const Mapping& mapping = mappings.back();
    if (mapping.ranks() != traffic.ranks)
      fail(path + ": maps " + std::to_string(mapping.ranks()) + " ranks but profile " + o.profile + " has " +
                           std::to_string(traffic.ranks));
    auto known = std::find_if(platforms.begin(), platforms.end(), [&](const auto& m) { return m.first == mapping.machine; });
    if (known == platforms.end()) {
      platforms.emplace_back(mapping.machine, std::make_shared<const Platform>(take(Platform::from_machine(mapping.machine), path)));
      known = platforms.end() - 1;
    }
    const Platform& platform = *known->second;
    // --ppn only shapes the lower bound here; above the cores it means nothing.
    if (o.ppn > platform.node_kinds.max_cores())
      fail("--ppn " + std::to_string(o.ppn) + ": the machine of " + path + " has " +
           std::to_string(platform.node_kinds.max_cores()) + " cores per node; use --ppn " +
           std::to_string(platform.node_kinds.max_cores()) + " or less");
    EvaluateOptions eo;
    eo.ppn = o.ppn;
    eo.lower_bound = !o.no_bound;
    eo.bound_memo = bound_memo;
    eo.point_to_point = loaded.point_to_point();
    if (!o.nodes.empty()) eo.nodes = take(parse_node_list(o.nodes, mapping.machine));
    jobs.push_back({&mapping.placement, &platform, eo});
    names.push_back(path.substr(path.find_last_of('/') + 1));
  }
  std::vector<Result<Metrics>> scored = evaluate_each(traffic, jobs, o.threads);
  for (size_t i = 0; i < scored.size(); ++i) ms.push_back(take(std::move(scored[i]), o.mappings[i]));
  note_p_mpi(o.profile, p_mpi, traffic.ranks, o.quiet);
  // Every mapping against the first (the placement the profile was recorded
  // on, normally block), by the time model.
  std::vector<Outlook> outlooks;
  for (Metrics& m : ms) {
    outlooks.push_back(time_model_outlook(ms[0], m, p_mpi.mean));
    set_outlook(m, outlooks.back());
  }
  for (size_t i = 0; i < ms.size(); ++i)
    all.push_back(to_json(o.mappings[i], ms[i], !o.no_bound, i > 0 ? &outlooks[i] : nullptr));
  if (o.json) {
    std::cout << all.dump(2) << "\n";
  } else {
    print_outlooks(names, outlooks);
    print_table(names, ms, ms.size() == 2, !o.no_bound);
  }
  return 0;
}

int run_synth(Common o) {
  if (!o.shape.empty()) {
    o.synth.shape.clear();
    for (const auto& s : text::split(o.shape, 'x')) {
      auto v = text::parse_int(s);
      if (!v || *v < 1 || *v > (1 << 24)) fail("--shape: bad side '" + text::excerpt(s) + "' in '" + text::excerpt(o.shape) + "'");
      o.synth.shape.push_back(static_cast<int>(*v));
    }
  }
  if (!o.bytes.empty()) {
    auto v = text::parse_uint64(o.bytes);
    if (!v || *v > limits::kMaxTrafficCount)
      fail("--bytes: expected a byte count from 0 to " + std::to_string(limits::kMaxTrafficCount) + ", not '" +
                           text::excerpt(o.bytes) + "'");
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
  return cli::run("rankmap", [&] {
    CLI::App app{"rankmap: topology-aware placement of MPI ranks on torus machines"};
    cli::setup(app, "rankmap");
    app.require_subcommand(1);
    app.footer(app.get_footer() + "\nDetails: docs/mapper.md");
    Common o;
    std::string algos;
    for (const auto& a : algorithms()) algos += "\n    " + a.name + ": " + a.summary;

    auto add_common = [&](CLI::App* sub) {
      cli::add_profile(*sub, o.profile);
      sub->add_option("--collectives", o.collectives, "collective records: 'model' (MPICH algorithms) or 'ignore'")
          ->capture_default_str();
      sub->add_option("--ppn", o.ppn, "ranks per node (default: cores per node)")->check(cli::positive());
      sub->add_option("--nodes", o.nodes, "allocated nodes: indices, ranges and host names, e.g. 0-15,20,node-31");
      sub->add_flag("--json", o.json, "print metrics as JSON (names and units: rankmap/metrics.hpp)");
      sub->add_flag("--no-bound", o.no_bound, "skip the lower bound");
      cli::add_quiet(*sub, o.quiet, "no notes or progress on stderr");
    };
    CLI::App* map = app.add_subcommand("map", "map a profile onto a machine; write the mapping; compare with block");
    add_common(map);
    cli::add_machine(*map, o.machine);
    cli::add_output(*map, o.output, "mapping file to write (atomically)")->required();
    map->add_option("--algorithm", o.algorithm, "mapping algorithm:" + algos)->capture_default_str();
    map->add_option("--seed", o.seed, "seed for every randomised step")->check(cli::unsigned_integer())->capture_default_str();
    map->add_option("--threads", o.threads,
                    "threads for the default's independent steps (0: the cores this process may use); the mapping "
                    "does not depend on it")
        ->check(cli::unsigned_integer(1024))
        ->capture_default_str();
    map->add_option("--preset", o.preset,
                    "how hard the default searches: fast, default (~1 s up to 1,024 ranks), strong (~10 s)")
        ->capture_default_str();
    map->add_option("--cores", o.core_fill,
                    "cores of a node that is not full (default and paper): compact (one package first: close pairs) "
                    "or spread (as many in every package: memory bandwidth)")
        ->capture_default_str();
    cli::add_verbose(*map, o.verbose, "progress on stderr (always on from 4096 ranks)");
    map->add_option("--trace", o.trace,
                    "time-independent trace of the application (smpirun -trace-ti index file): choose among the "
                    "default's candidates by replaying each in SimGrid (docs/simulation.md)");
    map->add_flag("--no-bulk-model", o.no_bulk_model,
                  "the default keeps its static choice: its bulk model does not judge between its candidates "
                  "(docs/mapper.md, step 4; to compare the two)");
    map->add_flag("--replay-profile", o.replay_profile,
                  "without a trace: choose among the default's candidates by replaying the profile's point-to-point "
                  "traffic as a bulk-synchronous program in SimGrid (docs/simulation.md, \"Replaying a profile\")");
    map->add_option("--candidate", o.candidates,
                    "with --trace or --replay-profile: also replay this mapping, e.g. another tool's (repeatable; it "
                    "may be chosen)");
    map->add_option("--budget", o.budget,
                    "wall seconds for the --trace or --replay-profile replays; past it the fastest so far is kept")
        ->check(cli::positive())
        ->capture_default_str();

    CLI::App* ev = app.add_subcommand("evaluate", "score mapping files (any origin) against a profile");
    add_common(ev);
    cli::add_mappings(*ev, o.mappings, "mapping files (rankmap-mapping 1)");
    ev->add_option("--threads", o.threads, "mappings scored at once (0: the cores this process may use)")
        ->check(cli::unsigned_integer(1024))
        ->capture_default_str();

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
    cli::add_output(*sy, o.output, "profile file to write")->required();
    cli::add_quiet(*sy, o.quiet, "no summary on stderr");

    if (auto status = cli::parse(app, argc, argv, "rankmap")) return *status;
    if (*map) return run_map(o);
    if (*ev) return run_evaluate(o);
    return run_synth(o);
  });
}
