// Trace replay in SimGrid (issue 19): two placements of examples/halo3d that
// tie on the evaluator's static metrics run at different speeds in a replay,
// the replay is deterministic, and choose_by_replay picks the faster.
//
// The trace is recorded here with smpirun -trace-ti from the SMPI build of
// halo3d (128 ranks, 8x4x4 grid, x faces 32 KiB, y 24 KiB, z 16 KiB, 10
// iterations, communication only: the trace is then the same on every run).
// desmos: 32 nodes, 4 ranks per node. Two placements of 4 ranks per node:
//   line: a node holds 4 x-neighbours (x 0-3 or 4-7 of one (y, z) row);
//   xz:   a node holds a 2x2 block in x and z.
// Both keep 192 KiB per node and iteration on the node (6 x-faces against
// 4 x-faces + 4 z-faces) and put every inter-node partner one hop away, so
// hop-bytes, inter-node bytes and max link load are equal. In the line, the
// two middle ranks of a node exchange their largest faces on the node and
// run ahead (eager sends), which staggers the node's use of its links; in xz
// every rank has the same mix of partners and all stay in lock-step.
#include <catch2/catch.hpp>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <unistd.h>

#include "rankmap/comm_graph.hpp"
#include "rankmap/mapper.hpp"
#include "rankmap/replay.hpp"
#include "rankmap/replay_choice.hpp"
#include "rankmap/simgrid_platform.hpp"
#include "rankmap/smpi_run.hpp"
#include "scratch_dir.hpp"

using namespace rankmap;
namespace sim = rankmap::simulation;
namespace fs = std::filesystem;

namespace {

const std::string& scratch() {
  static test::ScratchDir dir("rankmap-replay-smpi");
  REQUIRE(!dir.path.empty());
  return dir.path;
}

Machine desmos() {
  auto m = load_machine("desmos");
  REQUIRE(m.ok());
  return *m;
}

constexpr int kPx = 8, kPy = 4, kPz = 4;

// Node index of torus coordinates on desmos (4x2x2x2, dimension 0 fastest),
// and a ring of 4 laid on the two size-2 dimensions Z and K (one hop a step).
int node_at(int x, int y, int z, int k) { return x + 4 * (y + 2 * (z + 2 * k)); }
constexpr std::array<std::array<int, 2>, 4> kGray = {{{0, 0}, {1, 0}, {1, 1}, {0, 1}}};

template <class NodeOf>
std::vector<Placement> placement_of(NodeOf node_of) {
  std::vector<Placement> p;
  std::map<int, int> used;
  for (int r = 0; r < kPx * kPy * kPz; ++r) {
    const int x = r % kPx, y = (r / kPx) % kPy, z = r / (kPx * kPy);  // halo3d numbers ranks x fastest
    const int node = node_of(x, y, z);
    p.push_back(Placement{node, used[node]++});
  }
  return p;
}

// 4 x-neighbours per node: y on X (ring of 4), the x half on Y, z on Z/K.
std::vector<Placement> line_placement() {
  return placement_of([](int x, int y, int z) { return node_at(y, x / 4, kGray[static_cast<size_t>(z)][0], kGray[static_cast<size_t>(z)][1]); });
}
// 2x2 in x and z per node: x pair on X, z pair on Y, y on Z/K.
std::vector<Placement> xz_placement() {
  return placement_of([](int x, int y, int z) { return node_at(x / 2, z / 2, kGray[static_cast<size_t>(y)][0], kGray[static_cast<size_t>(y)][1]); });
}

// The halo3d trace, recorded once per test process.
const sim::Trace& halo_trace() {
  static std::optional<sim::Trace> trace;
  if (trace) return *trace;
  const Machine machine = desmos();
  auto xml = sim::platform_xml(machine);
  REQUIRE(xml.ok());
  const std::string dir = scratch();
  std::ofstream(dir + "/platform.xml") << *xml;
  auto hosts = sim::hostfile(Mapping{machine, line_placement(), "line"});
  REQUIRE(hosts.ok());
  std::ofstream(dir + "/hosts.txt") << *hosts;
  sim::RunRequest req;
  req.smpirun = RANKMAP_SMPIRUN;
  req.platform_path = dir + "/platform.xml";
  req.hostfile_path = dir + "/hosts.txt";
  req.ranks = 128;
  req.extra_flags = {"-trace-ti", "-trace-file", dir + "/halo.txt"};
  req.command = {std::string(RANKMAP_SMPI_EXAMPLES_DIR) + "/halo3d", "--iters", "10"};
  auto run = sim::run_smpirun(req);
  REQUIRE(run.ok());
  INFO(run->output);
  REQUIRE(run->exit_status == 0);
  REQUIRE(run->output.find("check=ok messages=7680 total_bytes=188743680") != std::string::npos);
  auto t = sim::read_trace(dir + "/halo.txt");
  REQUIRE(t.ok());
  trace = std::move(*t);
  return *trace;
}

double replay_time(const std::vector<Placement>& placement, sim::ReplayMode mode = sim::ReplayMode::comm_only) {
  sim::ReplayOptions opt;
  opt.smpirun = RANKMAP_SMPIRUN;
  auto run = sim::replay(halo_trace(), Mapping{desmos(), placement, ""}, mode, opt);
  INFO((run.ok() ? "" : run.error().message));
  REQUIRE(run.ok());
  return run->simulated_seconds;
}

}  // namespace

TEST_CASE("the halo3d trace holds the program's traffic") {
  const sim::Trace& t = halo_trace();
  CHECK(t.ranks() == 128);
  CHECK(t.p2p_messages() == 7680);      // the program's own messages=
  CHECK(t.p2p_bytes() == 188743680);    // and total_bytes=
  CHECK(t.compute_actions == 0);
  CHECK(t.derived_datatype_actions == 0);
  CHECK(t.p2p.size() == 128 * 6);
}

TEST_CASE("line and xz tie on every static metric of the evaluator") {
  auto traffic = traffic_from_profile(sim::profile_from_trace(halo_trace()), CollectiveModel::ignore);
  REQUIRE(traffic.ok());
  auto platform = Platform::from_machine(desmos());
  REQUIRE(platform.ok());
  auto line = evaluate(*traffic, line_placement(), *platform);
  auto xz = evaluate(*traffic, xz_placement(), *platform);
  REQUIRE(line.ok());
  REQUIRE(xz.ok());
  CHECK(line->hop_bytes == 125829120);  // 10 iterations x 32 nodes x 2 x 192 KiB, all at one hop
  CHECK(xz->hop_bytes == line->hop_bytes);
  CHECK(xz->inter_node_bytes == line->inter_node_bytes);
  CHECK(xz->intra_node_bytes == line->intra_node_bytes);
  CHECK(xz->max_link_load == line->max_link_load);
  CHECK(xz->max_link_relative == line->max_link_relative);
  CHECK(xz->max_dilation == 1);
  CHECK(line->max_dilation == 1);
}

TEST_CASE("the replay tells them apart, deterministically") {
  const double line = replay_time(line_placement());
  const double xz = replay_time(xz_placement());
  CHECK(line == 0.000263782946);
  CHECK(xz == 0.000346669053);
  CHECK(line / xz == Approx(0.7609).epsilon(1e-4));
  CHECK(replay_time(line_placement()) == line);  // identical on re-run
}

TEST_CASE("choose_by_replay picks the faster, and the budget and the size limit keep the static choice") {
  const std::vector<sim::ReplayCandidate> candidates = {{"xz", xz_placement()}, {"line", line_placement()}};
  sim::ChoiceOptions opt;
  opt.replay.smpirun = RANKMAP_SMPIRUN;
  auto c = sim::choose_by_replay(halo_trace(), desmos(), candidates, opt);
  REQUIRE(c.ok());
  CHECK(c->by_replay);
  CHECK(c->chosen == 1);
  CHECK(c->mode == sim::ReplayMode::comm_only);
  CHECK(c->times[0].seconds == 0.000346669053);
  CHECK(c->times[1].seconds == 0.000263782946);
  CHECK(c->note == "chose 'line' by replay (comm-only 0.000263782946 s, 0.7609 x the static choice 'xz'; 2 of 2 candidates timed)");

  opt.budget_seconds = 1e-6;  // spent by the first replay
  c = sim::choose_by_replay(halo_trace(), desmos(), candidates, opt);
  REQUIRE(c.ok());
  CHECK_FALSE(c->by_replay);
  CHECK(c->chosen == 0);
  CHECK(c->times[1].note == "not replayed: budget");
  CHECK(c->note.find("kept the static choice 'xz'") != std::string::npos);

  opt.budget_seconds = 300;
  c = sim::choose_by_replay(halo_trace(), desmos(), {{"xz", xz_placement()}, {"xz again", xz_placement()}}, opt);
  REQUIRE(c.ok());
  CHECK_FALSE(c->by_replay);
  CHECK(c->times[1].seconds == c->times[0].seconds);
  CHECK(c->times[1].note == "same nodes as 'xz'");
  CHECK(c->note == "no other placement to compare (2 candidates on the same nodes): kept the static choice 'xz'");

  opt.max_ranks = 64;
  c = sim::choose_by_replay(halo_trace(), desmos(), candidates, opt);
  REQUIRE(c.ok());
  CHECK_FALSE(c->by_replay);
  CHECK(c->chosen == 0);
  CHECK_FALSE(c->times[0].seconds.has_value());
  CHECK(c->note.rfind("trace too large to replay (128 ranks", 0) == 0);
}

TEST_CASE("whole-application replay adds the compute actions at the host speed") {
  // Two ranks on neighbouring nodes: rank 0 computes 1e6 flops, then sends
  // 8000 bytes; at 1 Gflop/s the whole run is 1 ms longer than its
  // communication, and the message alone costs t_inj + t_hop + 8000 / bw.
  const std::string dir = scratch() + "/compute";
  fs::create_directories(dir);
  std::ofstream(dir + "/r0.txt") << "0 init\n0 compute 1000000\n0 send 1 0 8000 6\n0 finalize\n";
  std::ofstream(dir + "/r1.txt") << "1 init\n1 recv 0 0 8000 6\n1 finalize\n";
  std::ofstream(dir + "/trace.txt") << "r0.txt\nr1.txt\n";
  auto trace = sim::read_trace(dir + "/trace.txt");
  REQUIRE(trace.ok());
  const Mapping m{desmos(), {Placement{0, 0}, Placement{1, 0}}, ""};
  sim::ReplayOptions opt;
  opt.smpirun = RANKMAP_SMPIRUN;
  auto comm = sim::replay(*trace, m, sim::ReplayMode::comm_only, opt);
  auto app = sim::replay(*trace, m, sim::ReplayMode::whole_app, opt);
  REQUIRE(comm.ok());
  REQUIRE(app.ok());
  // 1.834 us against 1.8323 us: SimGrid resolves event times to
  // surf/precision = 1e-9 (smpirun's setting), a few ns here.
  CHECK(comm->simulated_seconds == Approx(850e-9 + 129e-9 + 8000 / 9.375e9).epsilon(2e-3));
  CHECK(app->simulated_seconds - comm->simulated_seconds == Approx(1e-3).epsilon(1e-9));
  opt.platform.host_speed = 2e9;  // the same flops at twice the speed
  auto fast = sim::replay(*trace, m, sim::ReplayMode::whole_app, opt);
  REQUIRE(fast.ok());
  CHECK(fast->simulated_seconds - comm->simulated_seconds == Approx(0.5e-3).epsilon(1e-9));

  // With compute actions the choice is made on the whole application.
  sim::ChoiceOptions co;
  co.replay.smpirun = RANKMAP_SMPIRUN;
  const std::vector<sim::ReplayCandidate> candidates = {{"apart", {Placement{0, 0}, Placement{1, 0}}},
                                                        {"together", {Placement{0, 0}, Placement{0, 1}}}};
  auto c = sim::choose_by_replay(*trace, desmos(), candidates, co);
  REQUIRE(c.ok());
  CHECK(c->mode == sim::ReplayMode::whole_app);
  CHECK(c->chosen == 1);  // the loopback (300 ns, 20 GB/s) beats one hop
  CHECK(c->times[0].seconds == app->simulated_seconds);
  CHECK(*c->times[1].seconds == Approx(1e-3 + 300e-9 + 8000 / 20e9).epsilon(1e-5));
}

TEST_CASE("a replay that deadlocks is an error, not a time") {
  // SimGrid's sendRecv sends and receives with tag 0: against an irecv and a
  // send with tag 5 on the other side, nothing matches.
  const std::string dir = scratch() + "/deadlock";
  fs::create_directories(dir);
  std::ofstream(dir + "/r0.txt") << "0 init\n0 sendRecv 10 1 10 1 6 6\n0 finalize\n";
  std::ofstream(dir + "/r1.txt") << "1 init\n1 irecv 0 5 10 6\n1 send 0 5 10 6\n1 wait 0 1 5\n1 finalize\n";
  std::ofstream(dir + "/trace.txt") << "r0.txt\nr1.txt\n";
  auto trace = sim::read_trace(dir + "/trace.txt");
  REQUIRE(trace.ok());
  sim::ReplayOptions opt;
  opt.smpirun = RANKMAP_SMPIRUN;
  auto run = sim::replay(*trace, Mapping{desmos(), {Placement{0, 0}, Placement{1, 0}}, ""}, sim::ReplayMode::comm_only, opt);
  REQUIRE_FALSE(run.ok());
  CHECK(run.error().message.find("deadlocked") != std::string::npos);
}
