// Simulated runs under smpirun: the generated platform against SimGrid's
// built-in TORUS cluster. Where both models describe the same network the
// times must agree; where rankmap models what TORUS cannot (a full size-2
// dimension, two cables between the pair) they must differ by the cabling.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <unistd.h>

#include "rankmap/mapper.hpp"
#include "rankmap/simgrid_platform.hpp"
#include "rankmap/smpi_run.hpp"
#include "scratch_dir.hpp"

using namespace rankmap;
namespace sim = rankmap::simulation;

namespace {

// t_inj = 0: SimGrid's TORUS cluster has per-hop latency only, no injection.
// The loopback values are the PlatformOptions defaults.
const char* const kTorusCluster = R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="torus" prefix="node-" suffix="" radical="0-31" speed="1Gf" core="6" bw="9375000000Bps" lat="129ns"
           topology="TORUS" topo_parameters="4,2,2,2" loopback_bw="20e9Bps" loopback_lat="300ns"/>
</platform>
)";

// One scratch directory per test process, removed at exit.
std::string scratch_dir() {
  static test::ScratchDir dir("rankmap-smpi-test");
  REQUIRE(!dir.path.empty());
  return dir.path;
}

std::string write(const std::string& name, const std::string& content) {
  const std::string path = scratch_dir() + "/" + name;
  std::ofstream(path) << content;
  return path;
}

struct Timing {
  std::string program_time;  // the example's own "time=" (MPI_Wtime, 1 ns resolution)
  double simulated = 0;      // SimGrid's final clock
};

Timing run(const std::string& platform, const Mapping& mapping, std::vector<std::string> command,
           const std::string& program = "ring") {
  sim::RunRequest req;
  req.smpirun = RANKMAP_SMPIRUN;
  req.platform_path = platform;
  auto hosts = sim::hostfile(mapping);
  REQUIRE(hosts.ok());
  req.hostfile_path = write("hosts.txt", *hosts);
  req.ranks = mapping.ranks();
  command.insert(command.begin(), std::string(RANKMAP_SMPI_EXAMPLES_DIR) + "/" + program);
  req.command = command;
  auto result = sim::run_smpirun(req);
  REQUIRE(result.ok());
  INFO(result->output);
  REQUIRE(result->exit_status == 0);
  REQUIRE(result->simulated_time.has_value());
  std::smatch m;
  REQUIRE(std::regex_search(result->output, m, std::regex(" time=([0-9.]+) .*check=ok")));
  return Timing{m[1], *result->simulated_time};
}

std::string generated_platform(const Machine& machine, const std::string& name) {
  auto xml = sim::platform_xml(machine);
  REQUIRE(xml.ok());
  return write(name, *xml);
}

Machine machine_of(const std::string& line) {
  auto m = parse_machine(line);
  REQUIRE(m.ok());
  return *m;
}

// 12 ranks alternating between node 0 (0,0,0,0) and node 4 (0,1,0,0): every
// ring message crosses the Y pair, six at a time in each direction.
Mapping y_pair_mapping(const Machine& machine) {
  Mapping m;
  m.machine = machine;
  for (int r = 0; r < 12; ++r) m.placement.push_back({r % 2 == 0 ? 0 : 4, r / 2});
  REQUIRE(m.check().ok());
  return m;
}

}  // namespace

TEST_CASE("smpi: a partial size-2 dimension equals SimGrid's TORUS, a full one is twice as fast") {
  const std::string torus = write("torus.xml", kTorusCluster);
  const std::vector<std::string> ring = {"--iters", "5", "--bytes", "1000000"};
  const Machine partial = machine_of("desmos t_inj=0ns");
  const Machine full = machine_of("desmos t_inj=0ns links=1x2x1x1");

  const Timing builtin = run(torus, y_pair_mapping(partial), ring);
  const Timing ours_partial = run(generated_platform(partial, "partial.xml"), y_pair_mapping(partial), ring);
  const Timing ours_full = run(generated_platform(full, "full.xml"), y_pair_mapping(full), ring);

  // Same network: identical to the last printed digit.
  CHECK(ours_partial.program_time == builtin.program_time);
  CHECK(ours_partial.simulated == builtin.simulated);
  // Six 1 MB messages share one 9.375 GB/s direction per step: 640 us.
  CHECK(std::stod(ours_partial.program_time) == Approx(5 * 6 * 1e6 / 9.375e9).epsilon(0.01));
  // Doubling the Y cabling halves a bandwidth-bound step; TORUS cannot show it.
  CHECK(std::stod(builtin.program_time) / std::stod(ours_full.program_time) == Approx(2.0).epsilon(0.01));
}

TEST_CASE("smpi: the 128-rank ring on desmos with block placement matches TORUS, round-robin is slower") {
  const std::string torus = write("torus.xml", kTorusCluster);
  const Machine machine = machine_of("desmos t_inj=0ns");
  const std::string ours = generated_platform(machine, "desmos0.xml");
  Mapping block, round_robin;
  block.machine = round_robin.machine = machine;
  for (int r = 0; r < 128; ++r) {
    block.placement.push_back({r / 4, r % 4});
    round_robin.placement.push_back({r % 32, r / 32});
  }
  const std::vector<std::string> ring = {"--iters", "50", "--bytes", "65536"};
  const Timing builtin = run(torus, block, ring);
  const Timing generated = run(ours, block, ring);
  // The ring's routes coincide in both models (every move is "+" or along a
  // size-2 ring, so direction order and dimension order agree). The last
  // nanoseconds differ: SimGrid solves both with a 1e-9 precision
  // (surf/precision, set by smpirun), and the NIC links add constraints.
  CHECK(std::stod(generated.program_time) == Approx(std::stod(builtin.program_time)).epsilon(1e-5));
  CHECK(generated.simulated == Approx(builtin.simulated).epsilon(1e-5));
  const Timing rr = run(ours, round_robin, ring);
  CHECK(std::stod(rr.program_time) > 2 * std::stod(generated.program_time));
}

namespace {

// A ring and an all-to-all on `spread` take the same time, to the last
// printed digit, on SimGrid's built-in cluster and on our export of it.
void check_same_times(const std::string& builtin, const std::string& ours, const Mapping& spread) {
  const Timing ring_builtin = run(builtin, spread, {"--iters", "5", "--bytes", "1000000"});
  const Timing ring_ours = run(ours, spread, {"--iters", "5", "--bytes", "1000000"});
  CHECK(ring_ours.program_time == ring_builtin.program_time);
  CHECK(ring_ours.simulated == Approx(ring_builtin.simulated).epsilon(1e-9));
  const Timing a2a_builtin = run(builtin, spread, {"--iters", "2", "--bytes", "100000"}, "alltoall");
  const Timing a2a_ours = run(ours, spread, {"--iters", "2", "--bytes", "100000"}, "alltoall");
  CHECK(a2a_ours.program_time == a2a_builtin.program_time);
  CHECK(a2a_ours.simulated == Approx(a2a_builtin.simulated).epsilon(1e-9));
}

}  // namespace

// SimGrid's own fat-tree: 16 hosts under 4 leaves, each leaf one link to each
// of 2 spines (single cables: SimGrid routes a flow over one cable of a
// parallel group, rankmap lets it use the group, as on the torus).
const char* const kFatTreeCluster = R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="ft" prefix="node-" suffix="" radical="0-15" speed="1Gf" core="4" bw="9375000000Bps" lat="129ns"
           topology="FAT_TREE" topo_parameters="2;4,4;1,2;1,1" loopback_bw="20e9Bps" loopback_lat="300ns"/>
</platform>
)";

TEST_CASE("smpi: the fat-tree platform gives the times of SimGrid's FAT_TREE (ring and all-to-all, to the last digit)") {
  const std::string builtin = write("fattree.xml", kFatTreeCluster);
  const Machine machine = machine_of("fattree=2;4,4;1,2;1,1 node=core:4 t_inj=0ns");
  const std::string ours = generated_platform(machine, "fattree-ours.xml");
  // One rank per host, consecutive ranks on different leaves: every message
  // of the ring and most of the all-to-all cross the spines.
  Mapping spread;
  spread.machine = machine;
  for (int r = 0; r < 16; ++r) spread.placement.push_back({(r % 4) * 4 + r / 4, 0});
  REQUIRE(spread.check().ok());
  check_same_times(builtin, ours, spread);
}

// SimGrid's dragonfly with one chassis per group (its routes inside a group
// leave out the black hop when the source chassis is not 0, a SimGrid quirk
// rankmap does not copy; with one chassis there is none): 3 groups of 3
// routers, 2 hosts per router.
const char* const kDragonflyCluster = R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="df" prefix="node-" suffix="" radical="0-17" speed="1Gf" core="4" bw="9375000000Bps" lat="129ns"
           topology="DRAGONFLY" topo_parameters="3,1;1,1;3,1;2" loopback_bw="20e9Bps" loopback_lat="300ns"/>
</platform>
)";

TEST_CASE("smpi: the dragonfly platform gives the times of SimGrid's DRAGONFLY (ring and all-to-all, to the last digit)") {
  const std::string builtin = write("dragonfly.xml", kDragonflyCluster);
  const Machine machine = machine_of("dragonfly=3,1;1,1;3,1;2 node=core:4 t_inj=0ns");
  const std::string ours = generated_platform(machine, "dragonfly-ours.xml");
  // One rank per host, consecutive ranks in different groups, so the blue links carry the ring.
  Mapping spread;
  spread.machine = machine;
  for (int r = 0; r < 18; ++r) spread.placement.push_back({(r % 3) * 6 + r / 3, 0});
  REQUIRE(spread.check().ok());
  check_same_times(builtin, ours, spread);
}

namespace {

// Ranks on the cores of node 0, in rank order.
Mapping on_node_0(const Machine& machine, const std::vector<int>& cores) {
  Mapping m;
  m.machine = machine;
  for (int c : cores) m.placement.push_back({0, c});
  REQUIRE(m.check().ok());
  return m;
}

// The ring's traffic as the profiler would see it: r -> r+1, `iters`
// messages of `bytes`.
Traffic ring_traffic(int ranks, int iters, double bytes) {
  Traffic t;
  t.ranks = ranks;
  for (int r = 0; r < ranks; ++r) t.flows.push_back({r, (r + 1) % ranks, static_cast<double>(iters), iters * bytes});
  REQUIRE(t.check().ok());
  return t;
}

double model_time(const Mapping& mapping, const Traffic& traffic) {
  auto platform = Platform::from_machine(mapping.machine);
  REQUIRE(platform.ok());
  const std::vector<double> times = predicted_rank_times(traffic, mapping.placement, *platform);
  return *std::max_element(times.begin(), times.end());
}

}  // namespace

// Dual-socket nodes: cores 0, 1 in package 0, cores 2, 3 in package 1; shared
// memory 300 ns and 20 GB/s (the defaults), the socket link 1 us and 10 GB/s.
const char* const kDualSocket = "torus=2 node=package:2,core:2 t_inj=0ns socket-lat=1us socket-bw=10GB/s";

// The ring's time= is its slowest rank's clock from the barrier on. The
// barrier lets one rank out a message latency before its neighbour, and that
// rank waits for the neighbour's first message: one latency more than the
// steps themselves, which is all the time model sees. Besides, SMPI charges
// 10 ns per MPI_Wtime and rounds to 1 ns per step (smpirun's surf/precision):
// the margin.
constexpr double kSmpiMargin = 30e-9;

TEST_CASE("smpi: a cross-socket pair is slower than a same-package pair by the socket link's cost") {
  const Machine machine = machine_of(kDualSocket);
  const std::string platform = generated_platform(machine, "dual.xml");
  const std::vector<std::string> ring = {"--iters", "5", "--bytes", "1000000"};
  // Two ranks exchange 1 MB each step, both ways at once (a full-duplex link).
  const Timing same = run(platform, on_node_0(machine, {0, 1}), ring);
  const Timing cross = run(platform, on_node_0(machine, {0, 2}), ring);
  // Steps: 5 x (300 ns + 1 MB / 20 GB/s) = 251.5 us and 5 x (1 us + 1 MB / 10 GB/s)
  // = 505 us; plus the barrier's latency.
  const double same_steps = 5 * (300e-9 + 1e6 / 20e9), cross_steps = 5 * (1e-6 + 1e6 / 10e9);
  CHECK(std::stod(same.program_time) == Approx(same_steps + 300e-9).epsilon(0).margin(kSmpiMargin));
  CHECK(std::stod(cross.program_time) == Approx(cross_steps + 1e-6).epsilon(0).margin(kSmpiMargin));
  // The time model predicts the steps.
  const Traffic traffic = ring_traffic(2, 5, 1e6);
  CHECK(model_time(on_node_0(machine, {0, 1}), traffic) == Approx(same_steps));
  CHECK(model_time(on_node_0(machine, {0, 2}), traffic) == Approx(cross_steps));
}

TEST_CASE("smpi: the model and SimGrid agree on a four-rank ring inside a dual-socket node") {
  const Machine machine = machine_of(kDualSocket);
  const std::string platform = generated_platform(machine, "dual4.xml");
  const std::vector<std::string> ring = {"--iters", "5", "--bytes", "1000000"};
  const Traffic traffic = ring_traffic(4, 5, 1e6);
  // Packages alternate: every message crosses, two flows each way share the
  // socket link: 5 x (1 us + 2 MB / 10 GB/s) = 1005 us.
  const Mapping alternating = on_node_0(machine, {0, 2, 1, 3});
  const Timing shared = run(platform, alternating, ring);
  CHECK(std::stod(shared.program_time) == Approx(5 * (1e-6 + 2e6 / 10e9) + 1e-6).epsilon(0).margin(kSmpiMargin));
  CHECK(model_time(alternating, traffic) == Approx(std::stod(shared.program_time) - 1e-6).epsilon(0).margin(kSmpiMargin));
  // Two ranks per package: 1 -> 2 and 3 -> 0 cross, one each way, and each
  // step waits for them: 5 x (1 us + 1 MB / 10 GB/s) = 505 us.
  const Mapping paired = on_node_0(machine, {0, 1, 2, 3});
  const Timing alone = run(platform, paired, ring);
  CHECK(std::stod(alone.program_time) == Approx(5 * (1e-6 + 1e6 / 10e9) + 1e-6).epsilon(0).margin(kSmpiMargin));
  CHECK(model_time(paired, traffic) == Approx(std::stod(alone.program_time) - 1e-6).epsilon(0).margin(kSmpiMargin));
}
