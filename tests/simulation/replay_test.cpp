// Trace reading without SimGrid: what read_trace accepts, what it counts, and
// that every kind of bad input is refused with file:line before any replay.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "rankmap/replay.hpp"
#include "rankmap/smpi_run.hpp"
#include "scratch_dir.hpp"

using namespace rankmap;
namespace sim = rankmap::simulation;
namespace fs = std::filesystem;

namespace {

// A trace in a fresh directory: one action file per rank (relative names in
// the index, as a moved trace would have), returns the index path.
std::string write_trace(const test::ScratchDir& dir, const std::vector<std::string>& files, const std::string& index_extra = "") {
  std::string index;
  for (size_t r = 0; r < files.size(); ++r) {
    const std::string name = "rank-" + std::to_string(r) + ".txt";
    std::ofstream(dir.path + "/" + name) << files[r];
    index += name + "\n";
  }
  std::ofstream(dir.path + "/trace.txt") << index << index_extra;
  return dir.path + "/trace.txt";
}

const std::string kRank0 =
    "0 init\n"
    "0 compute 1000000\n"
    "0 isend 1 7 1000 0\n"    // 1000 doubles
    "0 send 1 8 16 1\n"       // 16 ints
    "0 wait 0 1 7\n"
    "\n"
    "# a comment line\n"
    "0 sendRecv 10 1 10 1 6 6\n"  // 10 bytes each way
    "0 allreduce 1 0 0\n"
    "0 finalize\n";
const std::string kRank1 =
    "1 init\n"
    "1 irecv 0 7 1000 0\n"
    "1 recv 0 8 16 1\n"
    "1 waitall 1\n"
    "1 sendRecv 10 0 10 0 6 6\n"
    "1 allreduce 1 0 0\n"
    "1 finalize\n";

std::string error_of(const std::string& index) {
  auto t = sim::read_trace(index);
  REQUIRE_FALSE(t.ok());
  return t.error().message;
}

}  // namespace

TEST_CASE("a good trace: ranks, counts and point-to-point bytes per pair") {
  test::ScratchDir dir("rankmap-replay-test");
  const std::string index = write_trace(dir, {kRank0, kRank1});
  auto t = sim::read_trace(index);
  REQUIRE(t.ok());
  CHECK(t->ranks() == 2);
  CHECK(t->rank_files[1] == dir.path + "/rank-1.txt");  // relative to the index, made absolute
  CHECK(t->actions == 8 + 7);
  CHECK(t->compute_actions == 1);
  CHECK(t->compute_flops == 1e6);
  CHECK(t->collective_actions == 2);
  CHECK(t->derived_datatype_actions == 0);
  REQUIRE(t->p2p.size() == 2);
  CHECK(t->p2p[0] == PairTraffic{0, 1, 3, 8000 + 64 + 10});
  CHECK(t->p2p[1] == PairTraffic{1, 0, 1, 10});
  CHECK(t->p2p_bytes() == 8084);
  CHECK(t->p2p_messages() == 4);

  const Profile p = sim::profile_from_trace(*t);
  CHECK(p.ranks == 2);
  CHECK(p.rank_info.size() == 2);
  CHECK(p.p2p == t->p2p);
  CHECK(p.check().ok());
}

TEST_CASE("action files given as text: the same checks and counts as from files") {
  auto t = sim::parse_action_texts({kRank0, kRank1}, {"a.txt", "b.txt"});
  REQUIRE(t.ok());
  CHECK(t->ranks() == 2);
  CHECK(t->rank_files == std::vector<std::string>{"a.txt", "b.txt"});
  CHECK(t->actions == 8 + 7);
  CHECK(t->compute_flops == 1e6);
  CHECK(t->collective_actions == 2);
  REQUIRE(t->p2p.size() == 2);
  CHECK(t->p2p[0] == PairTraffic{0, 1, 3, 8000 + 64 + 10});
  CHECK(t->p2p[1] == PairTraffic{1, 0, 1, 10});

  // Errors name the given file and line.
  auto bad = sim::parse_action_texts({kRank0, "1 init\n1 isend 5 0 8 6\n"}, {"a.txt", "b.txt"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "b.txt:2: partner 5 is not a rank of this 2-rank trace");
  // Bytes a profile cannot hold (the mapper computes in doubles) are refused.
  auto huge = sim::parse_action_texts({"0 init\n0 isend 1 0 1e15 0\n0 isend 1 0 1e15 0\n", "1 init\n"}, {"a.txt", "b.txt"});
  REQUIRE_FALSE(huge.ok());
  CHECK(huge.error().message ==
        "a.txt:3: the bytes sent to rank 1 pass 2^53 = 9007199254740992, the largest count a profile holds");
  auto none = sim::parse_action_texts({}, {});
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().message == "trace: no action files");
}

TEST_CASE("derived datatypes are counted: SimGrid replays them as 0 bytes") {
  test::ScratchDir dir("rankmap-replay-test");
  const std::string index = write_trace(dir, {"0 init\n0 sendRecv 1 1 1 1 -1 -1\n", "1 init\n1 sendRecv 1 0 1 0 -1 -1\n"});
  auto t = sim::read_trace(index);
  REQUIRE(t.ok());
  CHECK(t->derived_datatype_actions == 4);
  CHECK(t->p2p_bytes() == 0);
}

TEST_CASE("all-to-all blocks are pair traffic, as a libcommprof profile records them") {
  test::ScratchDir dir("rankmap-replay-test");
  // 3 ranks: alltoall of 2 doubles per block (16 bytes to each other rank);
  // alltoallv with per-rank counts (zero blocks are no message), in ints,
  // then one without datatypes (the default, bytes after a bare "init").
  std::vector<std::string> files;
  for (int r = 0; r < 3; ++r) {
    const std::string R = std::to_string(r) + " ";
    std::string counts;
    for (int j = 0; j < 3; ++j) counts += " " + std::to_string(j == (r + 1) % 3 ? 0 : r + j + 1);
    files.push_back(R + "init\n" + R + "alltoall 2 2 0 0\n" + R + "alltoallv 9" + counts + " 9" + counts + " 1 1\n" + R +
                    "alltoallv 9" + counts + " 9" + counts + "\n" + R + "finalize\n");
  }
  auto t = sim::read_trace(write_trace(dir, files));
  REQUIRE(t.ok());
  CHECK(t->collective_actions == 9);
  // 0 -> 1: the alltoallv block is zero; 0 -> 2: 3 ints and 3 bytes; 1 -> 0: 2 ints, 2 bytes; ...
  const std::vector<PairTraffic> expected = {{0, 1, 1, 16}, {0, 2, 3, 16 + 12 + 3}, {1, 0, 3, 16 + 8 + 2},
                                             {1, 2, 1, 16},  {2, 0, 1, 16},          {2, 1, 3, 16 + 16 + 4}};
  CHECK(t->p2p == expected);
}

TEST_CASE("a sub-communicator's collective written as its messages: a collective, p2p only for all-to-alls") {
  // libcommprof's markers (docs/formats.md, "Trace"): a broadcast 0 -> 1 of
  // 100 bytes and an all-to-all of 8-byte blocks, each between comment lines.
  const std::string r0 =
      "0 init\n# commprof-collective bcast 2\n0 isend 1 30001 100 6\n0 wait 0 1 30001\n# commprof-collective end\n"
      "# commprof-collective alltoall 2\n0 irecv 1 30001 8 6\n0 isend 1 30001 8 6\n0 wait 1 0 30001\n"
      "0 wait 0 1 30001\n# commprof-collective end\n0 send 1 0 5 6\n0 finalize\n";
  const std::string r1 =
      "1 init\n# commprof-collective bcast 2\n1 irecv 0 30001 100 6\n1 wait 0 1 30001\n# commprof-collective end\n"
      "# commprof-collective alltoall 2\n1 irecv 0 30001 8 6\n1 isend 0 30001 8 6\n1 wait 0 1 30001\n"
      "1 wait 1 0 30001\n# commprof-collective end\n1 recv 0 0 5 6\n1 finalize\n";
  auto t = sim::parse_action_texts({r0, r1}, {"a.txt", "b.txt"});
  REQUIRE(t.ok());
  CHECK(t->collective_actions == 4);
  // The broadcast's 100 bytes are not pair traffic; the all-to-all's block
  // and the program's own send are.
  const std::vector<PairTraffic> expected = {{0, 1, 2, 8 + 5}, {1, 0, 1, 8}};
  CHECK(t->p2p == expected);
}

TEST_CASE("bad traces are refused with file:line") {
  test::ScratchDir dir("rankmap-replay-test");
  const std::string r0 = dir.path + "/rank-0.txt:";
  auto bad0 = [&](const std::string& rank0) { return error_of(write_trace(dir, {rank0, kRank1})); };

  CHECK(error_of(dir.path + "/none.txt") == dir.path + "/none.txt: cannot open file: No such file or directory");
  CHECK(bad0("0 init\n1 send 1 0 8 6\n") == r0 + "2: action of rank 1 in rank 0's file (line 1 of the index)");
  CHECK(bad0("0 init\n0 teleport 1\n") == r0 + "2: unknown action 'teleport' (not one SimGrid 3.32 replays)");
  CHECK(bad0("0 init\n0 isend 1 0\n") == r0 + "2: 'isend' takes 3 to 4 arguments, not 2");
  CHECK(bad0("0 init\n0 isend 2 0 8 6\n") == r0 + "2: partner 2 is not a rank of this 2-rank trace");
  CHECK(bad0("0 init\n0 isend 1 0 lots 6\n") == r0 + "2: count: expected a count, not 'lots'");
  CHECK(bad0("0 init\n0 isend 1 0 8 99\n") == r0 + "2: unknown datatype id 99 (SimGrid 3.32 knows -1 to 59)");
  CHECK(bad0("0 isend 1 0 8 6\n") == r0 + "1: the first action must be 'init', not 'isend'");
  CHECK(bad0("0 init\n0 compute -0.5\n") == r0 + "2: compute: negative amount '-0.5'");
  CHECK(bad0("0 init\n0 compute -5\n") == r0 + "2: flops: expected a count, not '-5'");
  CHECK(bad0("0 init\n0 gatherv 8 8\n") == r0 + "2: 'gatherv' takes at least 3 arguments, not 2");
  CHECK(bad0("0 init\n0 bcast 8 5\n") == r0 + "2: root 5 is not a rank of this 2-rank trace");
  CHECK(bad0("0 init\r\n") == r0 + "1: carriage return in an action line");
  CHECK(bad0("# nothing\n") == dir.path + "/rank-0.txt: no actions (an action file starts with '<rank> init')");

  // The index: a missing action file is named with the index line.
  {
    test::ScratchDir d2("rankmap-replay-test");
    const std::string index = write_trace(d2, {kRank0, kRank1}, "rank-2.txt\n");
    CHECK(error_of(index) == index + ":3: rank 2's action file " + d2.path + "/rank-2.txt does not exist");
  }
  {
    test::ScratchDir d3("rankmap-replay-test");
    std::ofstream(d3.path + "/empty.txt") << "\n# no files\n";
    CHECK(error_of(d3.path + "/empty.txt") ==
          d3.path + "/empty.txt: empty trace index (expected one action file per rank, as smpirun -trace-ti writes)");
  }
}

TEST_CASE("the replay command line and its clock") {
  const sim::RunRequest comm = sim::replay_request("smpirun", "p.xml", "h.txt", "t.txt", 4, sim::ReplayMode::comm_only, 1e9, {});
  std::vector<std::string> argv = sim::smpirun_argv(comm);
  const size_t defaults = sim::default_smpirun_flags().size();
  REQUIRE(argv.size() == 1 + defaults + 1 + 8);
  CHECK(argv[1] == "--cfg=smpi/simulate-computation:no");
  CHECK(argv[1 + defaults] == "--log=smpi_utils.fmt:[%.12d]%e%m%n");
  CHECK(std::vector<std::string>(argv.end() - 8, argv.end()) ==
        std::vector<std::string>{"-np", "4", "-platform", "p.xml", "-hostfile", "h.txt", "-replay", "t.txt"});

  const sim::RunRequest app = sim::replay_request("smpirun", "p.xml", "h.txt", "t.txt", 4, sim::ReplayMode::whole_app, 2.5e9, {"--cfg=x:y"});
  CHECK(app.extra_flags == std::vector<std::string>{"--log=smpi_utils.fmt:[%.12d]%e%m%n", "--cfg=smpi/simulate-computation:yes",
                                                    "--cfg=smpi/host-speed:2500000000f", "--cfg=x:y"});

  CHECK(sim::parse_replay_clock("x\n[0.000263782946] Simulated time: 0.000263783 seconds. \n") == 0.000263782946);
  CHECK_FALSE(sim::parse_replay_clock("Simulated time: 0.000263783 seconds.").has_value());
  CHECK_FALSE(sim::parse_replay_clock("[abc] Simulated time: 1 seconds.").has_value());
}
