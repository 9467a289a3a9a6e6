// A profile as a bulk-synchronous program (rankmap/bulk_trace.hpp): the exact
// action files, the division of repeated rounds, the round limit, and that
// the trace reader reads back the profile's traffic.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>

#include "rankmap/bulk_trace.hpp"
#include "rankmap/replay.hpp"
#include "scratch_dir.hpp"

using namespace rankmap;
namespace sim = rankmap::simulation;

namespace {

std::vector<PairTraffic> sorted(std::vector<PairTraffic> p) {
  std::sort(p.begin(), p.end(), [](const PairTraffic& a, const PairTraffic& b) {
    return std::pair(a.src, a.dst) < std::pair(b.src, b.dst);
  });
  return p;
}

}  // namespace

TEST_CASE("bulk trace: rounds of receives, sends and one waitall, repeated rounds written once") {
  // Message counts 4, 2 and 6: every count is a multiple of 2, so the
  // program is twice the program of counts 2, 1 and 3. Sizes are those of
  // the pair's first messages: 10 bytes in 4 messages are 3, 3, 2, 2.
  const std::vector<PairTraffic> p2p = {{2, 0, 6, 600}, {0, 1, 4, 10}, {1, 0, 2, 7}};
  auto t = sim::bulk_trace(3, p2p, sim::BulkTraceOptions{0, 1});
  REQUIRE(t);
  CHECK(t->rounds == 3);
  CHECK(t->divisor == 2);
  CHECK(t->exact);
  REQUIRE(t->texts.size() == 3);
  CHECK(t->texts[0] ==
        "0 init\n"
        "0 irecv 1 0 4 6\n0 irecv 2 0 100 6\n0 isend 1 0 3 6\n0 waitall 3\n"
        "0 irecv 2 0 100 6\n0 isend 1 0 3 6\n0 waitall 2\n"
        "0 irecv 2 0 100 6\n0 waitall 1\n"
        "0 finalize\n");
  CHECK(t->texts[1] ==
        "1 init\n"
        "1 irecv 0 0 3 6\n1 isend 0 0 4 6\n1 waitall 2\n"
        "1 irecv 0 0 3 6\n1 waitall 1\n"
        "1 finalize\n");
  CHECK(t->texts[2] ==
        "2 init\n"
        "2 isend 0 0 100 6\n2 waitall 1\n"
        "2 isend 0 0 100 6\n2 waitall 1\n"
        "2 isend 0 0 100 6\n2 waitall 1\n"
        "2 finalize\n");
}

TEST_CASE("bulk trace: the division keeps at least min_rounds rounds") {
  // Counts 40 and 20 share 20, but 40 / 20 = 2 rounds: the largest divisor
  // leaving 10 rounds is 4 (40 / 5 = 8 would be too few).
  const std::vector<PairTraffic> p2p = {{0, 1, 40, 400}, {1, 0, 20, 200}};
  auto t = sim::bulk_trace(2, p2p);
  REQUIRE(t);
  CHECK(t->divisor == 4);
  CHECK(t->rounds == 10);
  CHECK(t->exact);
  auto one = sim::bulk_trace(2, p2p, sim::BulkTraceOptions{0, 1});
  REQUIRE(one);
  CHECK(one->divisor == 20);
  CHECK(one->rounds == 2);
  // Fewer messages than min_rounds: nothing divided.
  auto few = sim::bulk_trace(2, {{0, 1, 6, 60}, {1, 0, 3, 30}});
  REQUIRE(few);
  CHECK(few->divisor == 1);
  CHECK(few->rounds == 6);
}

TEST_CASE("bulk trace: without a common divisor every pair sends exactly its traffic, as the reader counts it") {
  // Counts 3, 2 and 5 share no divisor: every message is written, and the
  // bytes are split so that each pair's sum is exact (7 = 3 + 2 + 2).
  const std::vector<PairTraffic> p2p = {{0, 1, 3, 7}, {1, 2, 2, 1000001}, {2, 0, 5, 5}, {3, 0, 1, 42}};
  auto t = sim::bulk_trace(4, p2p);
  REQUIRE(t);
  CHECK(t->divisor == 1);
  CHECK(t->rounds == 5);
  std::vector<std::string> names;
  for (int r = 0; r < 4; ++r) names.push_back("r" + std::to_string(r) + ".txt");
  auto read = sim::parse_action_texts(t->texts, names);
  REQUIRE(read);
  CHECK(sorted(read->p2p) == sorted({{0, 1, 3, 7}, {1, 2, 2, 1000001}, {2, 0, 5, 5}, {3, 0, 1, 42}}));
  CHECK(read->collective_actions == 0);
}

TEST_CASE("bulk trace: the round limit scales message counts, rounded, at least one per pair") {
  // 1000 and 3 messages at most 10 rounds: counts divided by 100, 1000 -> 10
  // and 3 -> 1 (not 0): no longer exact.
  auto t = sim::bulk_trace(2, {{0, 1, 1000, 1000}, {1, 0, 3, 30}}, sim::BulkTraceOptions{10});
  REQUIRE(t);
  CHECK(t->divisor == 100);
  CHECK(t->rounds == 10);
  CHECK_FALSE(t->exact);
  CHECK(std::count(t->texts[0].begin(), t->texts[0].end(), '\n') == 1 + 10 + 1 + 10 + 1);  // init, 10 isend + 1 irecv, 10 waitall, finalize
  // No limit: every message.
  auto all = sim::bulk_trace(2, {{0, 1, 1000, 1000}, {1, 0, 3, 30}}, sim::BulkTraceOptions{0});
  REQUIRE(all);
  CHECK(all->divisor == 1);
  CHECK(all->rounds == 1000);
  CHECK(all->exact);
}

TEST_CASE("bulk trace: a message above an int's count goes as doubles, never past the profile's bytes") {
  // 2^31 + 5 bytes in one message: 268435456 doubles (rounded down).
  auto t = sim::bulk_trace(2, {{0, 1, 1, (1ull << 31) + 5}});
  REQUIRE(t);
  CHECK(t->texts[0] == "0 init\n0 isend 1 0 268435456 0\n0 waitall 1\n0 finalize\n");
  CHECK(t->texts[1] == "1 init\n1 irecv 0 0 268435456 0\n1 waitall 1\n1 finalize\n");
  // The most a profile holds, 2^53 bytes, in 9 messages of ~10^15 (found by
  // fuzz/fuzz_profile.cpp: rounded up, the trace reader refused the pair).
  auto most = sim::bulk_trace(4, {{0, 1, 10, 8000}, {3, 2, 9, 9007199254740992ull}});
  REQUIRE(most);
  auto read = sim::parse_action_texts(most->texts, {"r0", "r1", "r2", "r3"});
  REQUIRE(read);
  CHECK(read->p2p_bytes() <= 9007199254740992ull + 8000);
}

TEST_CASE("bulk trace: pairs outside the ranks and self pairs are refused") {
  CHECK_FALSE(sim::bulk_trace(2, {{0, 2, 1, 8}}));
  CHECK_FALSE(sim::bulk_trace(2, {{-1, 0, 1, 8}}));
  CHECK_FALSE(sim::bulk_trace(2, {{1, 1, 1, 8}}));
  CHECK_FALSE(sim::bulk_trace(0, {}));
  // No traffic at all: an empty program (init, finalize), zero rounds.
  auto none = sim::bulk_trace(2, {{0, 1, 0, 0}});
  REQUIRE(none);
  CHECK(none->rounds == 0);
  CHECK(none->texts[1] == "1 init\n1 finalize\n");
}

TEST_CASE("bulk trace files: a new directory, complete or absent, that read_trace reads") {
  test::ScratchDir dir("rankmap-bulk-trace-test");
  REQUIRE_FALSE(dir.path.empty());
  auto t = sim::bulk_trace(3, {{0, 1, 2, 64}, {1, 2, 2, 64}, {2, 0, 2, 64}});
  REQUIRE(t);
  auto index = sim::write_action_files(dir.path + "/trace", t->texts);
  REQUIRE(index);
  CHECK(*index == dir.path + "/trace/index.txt");
  auto read = sim::read_trace(*index);
  REQUIRE(read);
  CHECK(read->ranks() == 3);
  CHECK(read->p2p_messages() == 6);  // 2 rounds: fewer than min_rounds, nothing divided
  CHECK(read->p2p_bytes() == 192);
  // A trailing slash names the same directory.
  auto slash = sim::write_action_files(dir.path + "/trace2/", t->texts);
  REQUIRE(slash);
  CHECK(*slash == dir.path + "/trace2/index.txt");
  std::filesystem::remove_all(dir.path + "/trace2");
  // An existing directory is refused, and nothing is left beside it.
  auto again = sim::write_action_files(dir.path + "/trace", t->texts);
  REQUIRE_FALSE(again);
  CHECK(again.error().message.find("exists") != std::string::npos);
  size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path)) entries += e.path().filename() == "trace" ? 0 : 1;
  CHECK(entries == 0);
}

TEST_CASE("bulk trace: hostile message counts stay bounded") {
  // 10^18 messages on one pair: divided to 10 rounds at once.
  auto huge = sim::bulk_trace(2, {{0, 1, 1'000'000'000'000'000'000ull, 8}});
  REQUIRE(huge);
  CHECK(huge->rounds == 10);
  CHECK(huge->divisor == 100'000'000'000'000'000ull);
  // A prime count has no divisor but itself: the round limit rounds it.
  auto prime = sim::bulk_trace(2, {{0, 1, 1'000'000'007, 8}, {1, 0, 3, 8}});
  REQUIRE(prime);
  CHECK(prime->rounds == 1000);
  CHECK_FALSE(prime->exact);
  // Every message asked for: refused before anything is written.
  auto whole = sim::bulk_trace(2, {{0, 1, 1'000'000'000'000'000'000ull, 8}},
                               sim::BulkTraceOptions{0, std::numeric_limits<std::uint64_t>::max()});
  REQUIRE_FALSE(whole);
  CHECK(whole.error().message.find("more than 50000000: limit its rounds") != std::string::npos);
}
