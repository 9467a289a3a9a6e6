// rankmap-sim: SimGrid SMPI export and runs.
//   rankmap-sim platform -m desmos -o platform.xml [--routes-for m.map]
//   rankmap-sim hostfile m.map -o hosts.txt
//   rankmap-sim run m.map [--keep DIR] -- ./build/examples/smpi/ring --iters 100
//   rankmap-sim replay --trace t.txt -m desmos a.map [b.map ...]
//   rankmap-sim profile --trace t.txt -o app.prof
//   rankmap-sim bulk-trace -p app.prof -o DIR
//   rankmap-sim compare block.map a.map [--record t.txt -- ./app | --trace t.txt] [-p app.prof]
#include <CLI/CLI.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <limits>
#include <unistd.h>

#include "rankmap/app_estimate.hpp"
#include "rankmap/atomic_file.hpp"
#include "rankmap/bulk_trace.hpp"
#include "rankmap/cli.hpp"
#include "rankmap/compare.hpp"
#include "rankmap/mapping.hpp"
#include "rankmap/profile.hpp"
#include "rankmap/replay.hpp"
#include "rankmap/scratch_dir.hpp"
#include "rankmap/simgrid_platform.hpp"
#include "rankmap/smpi_run.hpp"

namespace {

using namespace rankmap;
namespace sim = rankmap::simulation;

using sim::kAllRoutesMaxNodes;  // above it, `run` routes only the nodes the mapping uses

// Bad input ends the run here (printed by cli::run, exit 2).
int fail(const std::string& message) { cli::fail(message); }

void add_platform_options(CLI::App* cmd, sim::PlatformOptions& opt) {
  cmd->add_option("--host-speed", opt.host_speed, "core speed in flop/s (unused with simulate-computation:no)")
      ->check(cli::positive())
      ->capture_default_str();
}

// rankmap-sim replay: every input is read and checked before the first
// replay, so bad input fails at once (exit 2) and nothing is written.
int run_replay(const std::string& trace_path, const std::string& machine_spec, const std::vector<std::string>& mapping_paths,
               bool comm_only, const std::string& keep_dir, bool quiet, sim::ReplayOptions options) {
  const std::string machine_where = cli::where_of("--machine", machine_spec);
  Machine machine = cli::take(load_machine(machine_spec), machine_where);
  sim::Trace trace = cli::take(sim::read_trace(trace_path));
  std::vector<Mapping> mappings;
  for (const std::string& path : mapping_paths) {
    Mapping m = cli::take(read_mapping(path), path);
    if (!m.machine.same_network(machine)) fail(path + ": mapping is for another network than --machine");
    if (m.ranks() != trace.ranks())
      fail(path + ": places " + std::to_string(m.ranks()) + " ranks but the trace " + trace_path + " has " +
           std::to_string(trace.ranks()));
    m.machine = machine;  // the platform is --machine's (bandwidths, latencies)
    mappings.push_back(std::move(m));
  }
  if (!quiet && trace.derived_datatype_actions > 0)
    cli::print_warning("rankmap-sim", trace_path + ": " + std::to_string(trace.derived_datatype_actions) +
                                          " actions use derived datatypes (id -1), which SimGrid replays as 0 bytes");
  const bool whole_app = !comm_only && trace.compute_actions > 0;
  std::printf("trace %s: %d ranks, %llu actions, %llu point-to-point messages, %llu bytes, %llu collectives, %llu compute "
              "actions (%.6g flops)\n",
              trace_path.c_str(), trace.ranks(), static_cast<unsigned long long>(trace.actions),
              static_cast<unsigned long long>(trace.p2p_messages()), static_cast<unsigned long long>(trace.p2p_bytes()),
              static_cast<unsigned long long>(trace.collective_actions),
              static_cast<unsigned long long>(trace.compute_actions), trace.compute_flops);
  std::fflush(stdout);
  const std::vector<sim::ReplayMode> modes =
      whole_app ? std::vector<sim::ReplayMode>{sim::ReplayMode::comm_only, sim::ReplayMode::whole_app}
                : std::vector<sim::ReplayMode>{sim::ReplayMode::comm_only};
  std::vector<std::vector<double>> times(mappings.size());
  const size_t total = mappings.size() * modes.size();
  size_t done = 0;
  for (size_t i = 0; i < mappings.size(); ++i) {
    for (sim::ReplayMode mode : modes) {
      if (!keep_dir.empty()) options.work_dir = keep_dir + "/" + std::to_string(i) + "-" + sim::replay_mode_name(mode);
      ++done;
      if (!quiet)
        std::fprintf(stderr, "rankmap-sim: [%zu/%zu] replaying %s (%s) ...\n", done, total, mapping_paths[i].c_str(),
                     sim::replay_mode_name(mode));
      sim::ReplayRun run = cli::take(sim::replay(trace, mappings[i], mode, options), mapping_paths[i]);
      if (!quiet)
        std::fprintf(stderr, "rankmap-sim: [%zu/%zu] %s (%s): %.12g s simulated, %.1f s wall\n", done, total,
                     mapping_paths[i].c_str(), sim::replay_mode_name(mode), run.simulated_seconds, run.wall_seconds);
      times[i].push_back(run.simulated_seconds);
    }
  }
  size_t width = 7;
  for (const std::string& p : mapping_paths) width = std::max(width, p.size());
  std::printf("%-*s %18s %7s", static_cast<int>(width), "mapping", "comm-only (s)", "ratio");
  if (whole_app) std::printf(" %18s %7s", "whole-app (s)", "ratio");
  std::printf("\n");
  for (size_t i = 0; i < mappings.size(); ++i) {
    std::printf("%-*s", static_cast<int>(width), mapping_paths[i].c_str());
    for (size_t k = 0; k < modes.size(); ++k) std::printf(" %18.12g %7.4f", times[i][k], times[i][k] / times[0][k]);
    std::printf("\n");
  }
  if (!whole_app)
    std::printf("whole-app: %s\n", comm_only ? "not replayed (--comm-only)"
                                              : "same as comm-only (the trace has no compute actions)");
  return 0;
}

// rankmap-sim compare: the whole application, deterministically. The trace
// (with its computation) is recorded once on the first mapping, or given;
// every mapping replays it comm-only and whole-application; the table puts
// the p_mpi estimate, (1 - p) + p x comm-only ratio, next to the replayed
// whole-application ratio.
struct CompareArgs {
  std::vector<std::string> mappings;
  std::string trace, record, profile;
  bool comm_only = false, quiet = false, no_computation = false;
  std::string keep;
  std::vector<std::string> command;
};

int run_compare(const CompareArgs& a, sim::ReplayOptions options) {
  if (a.trace.empty() == a.record.empty())
    return fail("compare needs either --trace INDEX (a recorded trace) or --record INDEX -- PROGRAM [ARGS...]");
  if (!a.record.empty() && a.command.empty()) return fail("--record needs the program after --: --record INDEX -- PROGRAM [ARGS...]");
  if (!a.trace.empty() && !a.command.empty()) return fail("--trace replays a recorded trace: no program after -- (use --record to record one)");
  std::vector<std::pair<std::string, Mapping>> placements;
  for (const std::string& path : a.mappings) {
    Mapping m = cli::take(read_mapping(path), path);
    if (!placements.empty()) {
      const Mapping& first = placements.front().second;
      if (!m.machine.same_network(first.machine)) fail(path + ": mapping is for another network than " + a.mappings.front());
      if (m.ranks() != first.ranks())
        fail(path + ": places " + std::to_string(m.ranks()) + " ranks but " + a.mappings.front() + " places " +
             std::to_string(first.ranks()));
      m.machine = first.machine;  // one platform: the first mapping's machine
    }
    placements.emplace_back(path, std::move(m));
  }
  MpiFraction p_mpi;
  if (!a.profile.empty()) {
    Profile profile = cli::take(read_profile(a.profile), a.profile);
    p_mpi = mpi_fraction(profile);
    if (!p_mpi.known()) fail(a.profile + ": the profile has no MPI time (wall=0 on every rank)");
  }
  auto progress = [&](const std::string& s) {
    if (!a.quiet) std::fprintf(stderr, "rankmap-sim: %s\n", s.c_str());
  };
  std::string index = a.trace;
  if (!a.record.empty()) {
    std::vector<std::string> inputs = a.mappings;
    inputs.push_back(a.command.front());
    if (!a.profile.empty()) inputs.push_back(a.profile);
    cli::take(refuse_to_overwrite_inputs({a.record, a.record + ".platform.xml", a.record + ".hosts.txt"}, inputs));
    sim::RecordRequest request;
    request.smpirun = options.smpirun;
    request.mapping = placements.front().second;
    request.command = a.command;
    request.index_path = a.record;
    request.platform = options.platform;
    request.computation = !a.no_computation;
    request.extra_flags = options.extra_flags;
    progress("recording " + a.record + " on " + a.mappings.front() + (a.no_computation ? " (communication only)" : " (with computation)") + " ...");
    const auto start = std::chrono::steady_clock::now();
    // A program that fails under smpirun ends the run with 1, as in `run`.
    sim::RunResult recorded = cli::take(sim::record_trace(request), "", 1);
    char line[160];
    std::snprintf(line, sizeof line, "recorded %s: the recording run took %.9g s simulated, %.1f s wall", a.record.c_str(),
                  recorded.simulated_time ? *recorded.simulated_time : NAN,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    progress(line);
    index = a.record;
  }
  sim::Trace trace = cli::take(sim::read_trace(index));
  for (const auto& [path, m] : placements)
    if (m.ranks() != trace.ranks())
      fail(path + ": places " + std::to_string(m.ranks()) + " ranks but the trace " + index + " has " +
           std::to_string(trace.ranks()));
  if (!a.quiet && trace.derived_datatype_actions > 0)
    cli::print_warning("rankmap-sim", index + ": " + std::to_string(trace.derived_datatype_actions) +
                                          " actions use derived datatypes (id -1), which SimGrid replays as 0 bytes");
  std::printf("trace %s: %d ranks, %llu actions, %llu point-to-point messages, %llu bytes, %llu collectives, %llu compute "
              "actions (%.6g flops)\n",
              index.c_str(), trace.ranks(), static_cast<unsigned long long>(trace.actions),
              static_cast<unsigned long long>(trace.p2p_messages()), static_cast<unsigned long long>(trace.p2p_bytes()),
              static_cast<unsigned long long>(trace.collective_actions),
              static_cast<unsigned long long>(trace.compute_actions), trace.compute_flops);
  std::fflush(stdout);
  options.progress = progress;
  options.work_dir = a.keep;
  sim::Comparison c = cli::take(sim::compare(trace, placements, a.comm_only, options));

  // The estimate's p: the profile's p_mpi when given, else the baseline's
  // communication share of its replayed whole-application time.
  const double p = p_mpi.known() ? p_mpi.mean : c.p_comm();
  const std::string p_source = p_mpi.known() ? "p_mpi of " + a.profile : "comm-only / whole-app of " + a.mappings.front();
  size_t width = 7;
  for (const std::string& path : a.mappings) width = std::max(width, path.size());
  std::printf("%-*s %18s %7s %18s %7s %9s\n", static_cast<int>(width), "mapping", "comm-only (s)", "ratio", "whole-app (s)",
              "ratio", "estimate");
  for (size_t i = 0; i < c.placements.size(); ++i) {
    const sim::ComparedPlacement& row = c.placements[i];
    std::printf("%-*s %18.12g %7.4f", static_cast<int>(width), row.name.c_str(), row.comm_only_seconds, c.comm_ratio(i));
    if (c.whole_app) std::printf(" %18.12g %7.4f", row.whole_app_seconds, c.app_ratio(i));
    else std::printf(" %18s %7s", "-", "-");
    const double estimate = app_time_ratio(p, c.comm_ratio(i));
    if (std::isfinite(estimate)) std::printf(" %9.4f\n", estimate);
    else std::printf(" %9s\n", "-");
  }
  if (std::isfinite(p))
    std::printf("estimate: (1 - p) + p x comm-only ratio, p = %.4f (%s)\n", p, p_source.c_str());
  else
    std::printf("estimate: none (%s; give -p PROFILE for its p_mpi)\n",
                c.whole_app ? "no communication share" : a.comm_only ? "--comm-only" : "the trace has no compute actions");
  for (size_t i = 1; i < c.placements.size(); ++i) {
    Outlook o = estimate_outlook(c.comm_ratio(i), "replay", p);
    if (c.whole_app) {
      o.app_ratio = c.app_ratio(i);
      o.app_replayed = true;
    }
    std::printf("%s vs %s: %s\n", c.placements[i].name.c_str(), c.placements[0].name.c_str(), outlook_headline(o).c_str());
  }
  return 0;
}

int sim_main(int argc, char** argv) {
  CLI::App app{"rankmap-sim: SimGrid platform and hostfile of a machine and mapping, and simulated runs"};
  cli::setup(app, "rankmap-sim");
  app.require_subcommand(1);
  sim::PlatformOptions options;

  std::string machine_spec, platform_out, routes_for;
  CLI::App* platform = app.add_subcommand("platform", "write the SimGrid platform of a machine");
  cli::add_machine(*platform, machine_spec);
  cli::add_output(*platform, platform_out, "platform XML file")->required();
  platform->add_option("--routes-for", routes_for, "write routes only between the nodes this mapping uses");
  add_platform_options(platform, options);

  std::string mapping_path, hostfile_out;
  CLI::App* hostfile = app.add_subcommand("hostfile", "write the SMPI hostfile of a mapping (one host per rank)");
  cli::add_mapping(*hostfile, mapping_path);
  cli::add_output(*hostfile, hostfile_out, "hostfile")->required();

  std::string run_mapping, keep_dir, smpirun = "smpirun", routes = "auto";
  std::vector<std::string> command, extra_flags;
  CLI::App* run = app.add_subcommand("run", "run an smpicc-built program on the mapping's machine and placement");
  cli::add_mapping(*run, run_mapping, true)->description("mapping file (its machine line gives the platform)");
  run->add_option("--keep", keep_dir, "write platform.xml and hosts.txt into this directory and keep them");
  run->add_option("--smpirun", smpirun, "smpirun to use")->capture_default_str();
  run->add_option("--routes", routes, "routes between all nodes, only the used ones, or auto (all up to " +
                                           std::to_string(kAllRoutesMaxNodes) + " nodes)")
      ->check(CLI::IsMember({"all", "used", "auto"}))
      ->capture_default_str();
  run->add_option("--flag", extra_flags, "extra smpirun flag, e.g. --flag=--cfg=smpi/host-speed:1Gf (repeatable)");
  run->add_option("command", command, "program and arguments (after --)");
  add_platform_options(run, options);

  std::string trace_path, replay_machine, replay_keep;
  std::vector<std::string> replay_mappings;
  bool comm_only = false, replay_quiet = false;
  sim::ReplayOptions replay_options;
  CLI::App* replay = app.add_subcommand(
      "replay", "replay a time-independent trace (smpirun -trace-ti) on the machine once per mapping; print the times");
  replay->add_option("--trace", trace_path, "trace index file (one action file per rank)")->required();
  cli::add_machine(*replay, replay_machine)->required();
  // Mappings are positional in every tool; --mapping (repeatable) is how
  // replay first took them.
  replay->add_option("mappings,--mapping", replay_mappings, "mappings to replay on (ratios are to the first)")->required();
  replay->add_flag("--comm-only", comm_only, "skip the whole-application replays (compute actions kept)");
  replay->add_option("--keep", replay_keep, "write each replay's platform, hostfile and index into DIR/<i> and keep them");
  replay->add_option("--smpirun", replay_options.smpirun, "smpirun to use")->capture_default_str();
  replay->add_option("--flag", replay_options.extra_flags, "extra smpirun flag (repeatable)");
  cli::add_quiet(*replay, replay_quiet, "no progress on stderr");
  add_platform_options(replay, replay_options.platform);

  std::string profile_trace, profile_out;
  CLI::App* profile = app.add_subcommand("profile", "write the point-to-point traffic of a trace as a profile (commprof 1)");
  profile->add_option("--trace", profile_trace, "trace index file")->required();
  cli::add_output(*profile, profile_out, "profile to write")->required();

  std::string bulk_profile, bulk_out;
  sim::BulkTraceOptions bulk_options;
  bool bulk_whole = false;
  CLI::App* bulk = app.add_subcommand(
      "bulk-trace", "write a profile's point-to-point traffic as a bulk-synchronous program (a trace for replay)");
  cli::add_profile(*bulk, bulk_profile);
  cli::add_output(*bulk, bulk_out, "directory to create: index.txt and one action file per rank")->required();
  bulk->add_option("--max-rounds", bulk_options.max_rounds,
                   "at most this many rounds (0: no limit); above it message counts are scaled down")
      ->check(cli::unsigned_integer())
      ->capture_default_str();
  bulk->add_option("--min-rounds", bulk_options.min_rounds,
                   "repeated rounds are written once, but at least this many rounds are kept")
      ->check(cli::unsigned_integer())
      ->capture_default_str();
  bulk->add_flag("--whole", bulk_whole, "every message of the profile: no round written once, no limit");
  bulk->footer("Details: docs/simulation.md, \"Replaying a profile\"");

  CompareArgs compare_args;
  sim::ReplayOptions compare_options;
  CLI::App* compare = app.add_subcommand(
      "compare", "whole-application comparison: record a trace with computation once (or take one), replay it on "
                 "every mapping, comm-only and whole-application, next to the p_mpi estimate");
  compare->footer(
      "Record and compare: rankmap-sim compare block.map other.map --record app.txt -- PROGRAM [ARGS...]\n"
      "Re-run on the recorded trace (same numbers): rankmap-sim compare block.map other.map --trace app.txt\n"
      "Details: docs/simulation.md, \"Whole-application comparison\"");
  compare->add_option("mappings", compare_args.mappings, "mappings to compare; the first is the baseline and the recording's placement")
      ->required();
  compare->add_option("--trace", compare_args.trace, "a recorded trace index to replay (deterministic: same numbers on re-run)");
  compare->add_option("--record", compare_args.record,
                      "record the program given after -- (PROGRAM [ARGS...]) on the first mapping into this trace "
                      "index (<INDEX>_files/ holds the action files), then replay it");
  compare->add_flag("--no-computation", compare_args.no_computation,
                    "with --record: simulate-computation:no (a trace without compute actions: communication only)");
  cli::add_profile(*compare, compare_args.profile)->required(false)->description(
      "profile of the application: the estimate uses its p_mpi (default: the baseline's comm-only / whole-app share)");
  compare->add_flag("--comm-only", compare_args.comm_only, "skip the whole-application replays");
  compare->add_option("--keep", compare_args.keep, "keep each replay's platform, hostfile and index in DIR/<i>-<mode>");
  compare->add_option("--smpirun", compare_options.smpirun, "smpirun to use")->capture_default_str();
  compare->add_option("--flag", compare_options.extra_flags, "extra smpirun flag for the recording and the replays (repeatable)");
  cli::add_quiet(*compare, compare_args.quiet, "no progress on stderr");
  add_platform_options(compare, compare_options.platform);

  // compare's mappings are a list of positionals, which would also swallow
  // the program after --: it is split off here.
  if (argc > 1 && std::string(argv[1]) == "compare") {
    for (int i = 2; i < argc; ++i) {
      if (std::string(argv[i]) != "--") continue;
      compare_args.command.assign(argv + i + 1, argv + argc);
      argc = i;
      break;
    }
  }
  if (auto status = cli::parse(app, argc, argv, "rankmap-sim")) return *status;
  if (*compare) return run_compare(compare_args, compare_options);
  if (*profile) {
    sim::Trace trace = cli::take(sim::read_trace(profile_trace));
    std::vector<std::string> inputs = trace.rank_files;
    inputs.push_back(profile_trace);
    cli::take(refuse_to_overwrite_inputs({profile_out}, inputs));
    cli::take(write_profile(profile_out, sim::profile_from_trace(trace)), profile_out);
    return 0;
  }
  if (*bulk) {
    if (bulk_whole) bulk_options = {0, std::numeric_limits<std::uint64_t>::max()};
    Profile p = cli::take(read_profile(bulk_profile));
    sim::BulkTrace trace = cli::take(sim::bulk_trace(p.ranks, p.p2p, bulk_options), bulk_profile);
    const std::string index = cli::take(sim::write_action_files(bulk_out, trace.texts));
    std::printf("%s: %d ranks, %llu rounds, message counts divided by %llu%s\n", index.c_str(), p.ranks,
                static_cast<unsigned long long>(trace.rounds), static_cast<unsigned long long>(trace.divisor),
                trace.exact ? "" : " (rounded: the pairs' shares of the traffic are approximate)");
    return 0;
  }
  if (*replay) {
    return run_replay(trace_path, replay_machine, replay_mappings, comm_only, replay_keep, replay_quiet, replay_options);
  }

  if (*platform) {
    auto machine = load_machine(machine_spec);
    if (!machine) cli::take(std::move(machine), cli::where_of("--machine", machine_spec));
    std::vector<std::string> inputs = machine->files();
    inputs.push_back(machine_spec);
    if (!routes_for.empty()) {
      auto mapping = read_mapping(routes_for);
      if (!mapping) return fail(mapping.error().message);
      if (!mapping->machine.same_network(*machine)) return fail(routes_for + ": mapping is for another network");
      options.route_nodes = sim::used_nodes(*mapping);
      inputs.push_back(routes_for);
    }
    Status not_an_input = refuse_to_overwrite_inputs({platform_out}, inputs);
    if (!not_an_input) return fail(not_an_input.error().message);
    auto xml = sim::platform_xml(*machine, options);
    if (!xml) return fail(xml.error().message);
    Status written = write_file_atomically(platform_out, *xml);
    if (!written) return fail(written.error().message);
    return 0;
  }
  if (*hostfile) {
    auto mapping = read_mapping(mapping_path);
    if (!mapping) return fail(mapping.error().message);
    std::vector<std::string> inputs = mapping->machine.files();
    inputs.push_back(mapping_path);
    Status not_an_input = refuse_to_overwrite_inputs({hostfile_out}, inputs);
    if (!not_an_input) return fail(not_an_input.error().message);
    auto hosts = sim::hostfile(*mapping);
    if (!hosts) return fail(hosts.error().message);
    Status written = write_file_atomically(hostfile_out, *hosts);
    if (!written) return fail(written.error().message);
    return 0;
  }

  // run
  if (command.empty())
    return fail("run needs a mapping and a program: rankmap-sim run MAPPING -- PROGRAM [ARGS...] (see rankmap-sim --help)");
  auto mapping = read_mapping(run_mapping);
  if (!mapping) return fail(mapping.error().message);
  const bool all_routes = routes == "all" || (routes == "auto" && mapping->machine.nodes() <= kAllRoutesMaxNodes);
  if (!all_routes) options.route_nodes = sim::used_nodes(*mapping);
  auto xml = sim::platform_xml(mapping->machine, options);
  if (!xml) return fail(xml.error().message);

  std::string dir = keep_dir;
  ScratchDir scratch;  // without --keep: removed when the run is over
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return fail("cannot create directory " + dir + ": " + ec.message());
  } else {
    scratch = cli::take(ScratchDir::make("rankmap-sim"));
    dir = scratch.path();
  }
  sim::RunRequest request;
  request.smpirun = smpirun;
  request.platform_path = dir + "/platform.xml";
  request.hostfile_path = dir + "/hosts.txt";
  request.ranks = mapping->ranks();
  request.command = command;
  // SMPI's own host-speed (the flop rate that turns measured CPU time into
  // flops) follows --host-speed, so that a run with simulate-computation:yes
  // (--flag) computes at the platform's speed; a --flag given later wins.
  char speed[64];
  std::snprintf(speed, sizeof speed, "%.17gf", options.host_speed);
  request.extra_flags = {std::string("--cfg=smpi/host-speed:") + speed};
  request.extra_flags.insert(request.extra_flags.end(), extra_flags.begin(), extra_flags.end());
  // Only --keep can name a directory that holds an input (the mapping, the
  // machine's files, the program itself).
  std::vector<std::string> inputs = mapping->machine.files();
  inputs.push_back(run_mapping);
  inputs.push_back(command.front());
  Status not_an_input = refuse_to_overwrite_inputs({request.platform_path, request.hostfile_path}, inputs);
  if (!not_an_input) return fail(not_an_input.error().message);
  auto hosts = sim::hostfile(*mapping);
  if (!hosts) return fail(hosts.error().message);
  for (const auto& [path, content] : {std::pair{request.platform_path, *xml}, std::pair{request.hostfile_path, *hosts}}) {
    Status written = write_file_atomically(path, content);
    if (!written) return fail(written.error().message);
  }
  auto result = sim::run_smpirun(request);
  if (!result) return fail(result.error().message);
  std::cout << result->output;
  if (result->exit_status != 0) {
    cli::print_error("rankmap-sim", "smpirun exited with status " + std::to_string(result->exit_status));
    return 1;
  }
  if (!result->simulated_time) return fail("smpirun printed no simulated time");
  std::printf("simulated_time=%.9g ranks=%d nodes_used=%zu routes=%s\n", *result->simulated_time, mapping->ranks(),
              sim::used_nodes(*mapping).size(), all_routes ? "all" : "used");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return rankmap::cli::run("rankmap-sim", [&] { return sim_main(argc, argv); });
}
