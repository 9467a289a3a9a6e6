// rankmap-sim: SimGrid SMPI export and runs.
//   rankmap-sim platform -m desmos -o platform.xml [--routes-for m.map]
//   rankmap-sim hostfile m.map -o hosts.txt
//   rankmap-sim run m.map [--keep DIR] -- ./build/examples/smpi/ring --iters 100
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <unistd.h>

#include "rankmap/atomic_file.hpp"
#include "rankmap/cli.hpp"
#include "rankmap/mapping.hpp"
#include "rankmap/simgrid_platform.hpp"
#include "rankmap/smpi_run.hpp"

namespace {

using namespace rankmap;
namespace sim = rankmap::simulation;

// All-pairs routes grow as nodes^2: 512 nodes (262k routes) make an 85 MB
// file that smpirun loads in about 4 s and 250 MB; 4,096 nodes would be 64
// times that. Above this many nodes `run` writes routes only between the
// nodes the mapping uses (docs/simulation.md, "Limits").
constexpr int kAllRoutesMaxNodes = 512;

// Bad input ends the run here (printed by cli::run, exit 2).
int fail(const std::string& message) { cli::fail(message); }

void add_platform_options(CLI::App* cmd, sim::PlatformOptions& opt) {
  cmd->add_option("--host-speed", opt.host_speed, "core speed in flop/s (unused with simulate-computation:no)")
      ->check(cli::positive())
      ->capture_default_str();
  cmd->add_option("--loopback-bw", opt.loopback_bw, "intra-node bandwidth, bytes/s")->check(cli::positive())->capture_default_str();
  cmd->add_option("--loopback-lat", opt.loopback_lat, "intra-node latency, seconds")->check(cli::non_negative())->capture_default_str();
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

  if (auto status = cli::parse(app, argc, argv, "rankmap-sim")) return *status;

  if (*platform) {
    auto machine = load_machine(machine_spec);
    if (!machine) return fail(machine.error().message);
    std::vector<std::string> inputs = machine->files();
    inputs.push_back(machine_spec);
    if (!routes_for.empty()) {
      auto mapping = read_mapping(routes_for);
      if (!mapping) return fail(mapping.error().message);
      if (mapping->machine.sizes != machine->sizes) return fail(routes_for + ": mapping is for another torus");
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
    Status written = write_file_atomically(hostfile_out, sim::hostfile(*mapping));
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
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) return fail("cannot create directory " + dir + ": " + ec.message());
  } else {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/rankmap-sim-XXXXXX";
    if (!mkdtemp(pattern.data())) return fail("cannot create a temporary directory from " + pattern);
    dir = pattern;
  }
  sim::RunRequest request;
  request.smpirun = smpirun;
  request.platform_path = dir + "/platform.xml";
  request.hostfile_path = dir + "/hosts.txt";
  request.ranks = mapping->ranks();
  request.command = command;
  request.extra_flags = extra_flags;
  // Only --keep can name a directory that holds an input (the mapping, the
  // machine's files, the program itself).
  std::vector<std::string> inputs = mapping->machine.files();
  inputs.push_back(run_mapping);
  inputs.push_back(command.front());
  Status not_an_input = refuse_to_overwrite_inputs({request.platform_path, request.hostfile_path}, inputs);
  if (!not_an_input) return fail(not_an_input.error().message);
  for (const auto& [path, content] : {std::pair{request.platform_path, *xml}, std::pair{request.hostfile_path, sim::hostfile(*mapping)}}) {
    Status written = write_file_atomically(path, content);
    if (!written) return fail(written.error().message);
  }
  auto result = sim::run_smpirun(request);
  if (keep_dir.empty()) {
    std::remove(request.platform_path.c_str());
    std::remove(request.hostfile_path.c_str());
    rmdir(dir.c_str());
  }
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
