#include <catch2/catch.hpp>

#include "rankmap/limits.hpp"
#include "rankmap/profile.hpp"

using namespace rankmap;

namespace {
const char* kRing3 =
    "commprof 1\n"
    "ranks 3\n"
    "rank 0 host=cn1 core=0 wall=1.5 mpi=0.25\n"
    "rank 1 host=cn1 core=1 wall=1.5 mpi=0.5\n"
    "rank 2 host=cn2 core=0 wall=1.5 mpi=0.125\n"
    "p2p 0 1 10 8000\n"
    "p2p 1 2 10 8000\n"
    "p2p 2 0 10 8000\n";
}  // namespace

TEST_CASE("profile: version 1 reads and writes back byte for byte") {
  auto p = parse_profile(kRing3, "ring.prof");
  REQUIRE(p.ok());
  REQUIRE(p->check().ok());
  CHECK(p->ranks == 3);
  CHECK(p->rank_info[2].host == "cn2");
  CHECK(p->rank_info[1].mpi == 0.5);
  REQUIRE(p->p2p.size() == 3);
  CHECK(p->p2p[1] == PairTraffic{1, 2, 10, 8000});
  CHECK(format_profile(*p) == kRing3);
}

TEST_CASE("profile: extension records round-trip; unknown records are skipped with a warning") {
  const std::string text = std::string(kRing3) +
                           "osc 2 1 4 4096\n"
                           "comm 0 world\n"
                           "comm 5 2 2 0\n"
                           "coll 0 allreduce -1 100 800\n"
                           "coll 5 bcast 1 3 3000\n"
                           "hist 0 1 2 3\n";
  std::vector<std::string> warnings;
  auto p = parse_profile(text, "x.prof", &warnings);
  REQUIRE(p.ok());
  REQUIRE(p->check().ok());
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::StartsWith("x.prof:14: ") && Catch::Contains("hist"));
  CHECK(p->one_sided == std::vector<PairTraffic>{{2, 1, 4, 4096}});
  CHECK(p->communicators[0].world_ranks == std::vector<int>{0, 1, 2});
  CHECK(p->communicators[1].world_ranks == std::vector<int>{2, 0});
  CHECK(p->collectives[1] == CollectiveRecord{5, "bcast", 1, 3, 3000});
  auto again = parse_profile(format_profile(*p), "again");
  REQUIRE(again.ok());
  CHECK(again->one_sided == p->one_sided);
  CHECK(again->communicators == p->communicators);
  CHECK(again->collectives == p->collectives);
}

TEST_CASE("profile: a collective with a long name is written on one line and reads back") {
  // The name has no length limit: 300 letters once overflowed the line
  // buffer of format_profile, which cut the newline and fused two records.
  const std::string op(300, 'p');
  const std::string text = std::string(kRing3) + "comm 0 world\ncoll 0 " + op + " -1 3 24\ncoll 0 " + op +
                           "q 2 1 8\n";
  auto p = parse_profile(text, "x.prof");
  REQUIRE(p.ok());
  const std::string written = format_profile(*p);
  CHECK_THAT(written, Catch::EndsWith("coll 0 " + op + " -1 3 24\ncoll 0 " + op + "q 2 1 8\n"));
  auto again = parse_profile(written, "again");
  REQUIRE(again.ok());
  CHECK(again->collectives == p->collectives);
}

TEST_CASE("profile: malformed input is rejected with file:line") {
  struct Case {
    std::string text;
    const char* prefix;
    const char* needle;
  };
  const std::string head = "commprof 1\nranks 2\nrank 0 host=a core=0 wall=1 mpi=0\nrank 1 host=a core=1 wall=1 mpi=0\n";
  const Case cases[] = {
      {"", "p:", "empty"},
      {"mapping 1\n", "p:1:", "not a commprof profile"},
      {"commprof 2\n", "p:1:", "unsupported profile version"},
      {"commprof 1\nrank 0 host=a core=0 wall=1 mpi=0\n", "p:2:", "before the 'ranks' line"},
      {"commprof 1\nranks 2\nrank 1 host=a core=0 wall=1 mpi=0\n", "p:3:", "rank order"},
      {"commprof 1\nranks 2\nrank 0 host=a core=0 wall=1\n", "p:3:", "needs host="},
      {"commprof 1\nranks 2\nrank 0 host=a core=0 wall=1 mpi=0\n", "p:3:", "truncated"},
      {head + "p2p 0 2 1 8\n", "p:5:", "destination rank '2' out of range"},
      {head + "p2p 0 1 x 8\n", "p:5:", "bad count"},
      {head + "p2p 0 1 1\n", "p:5:", "expected 'p2p <src> <dst>"},
      {head + "p2p 0 1 1 8\np2p 0 1 1 8\n", "p:6:", "second 'p2p' line"},
      {head + "p2p 0 1 0 0\n", "p:5:", "no traffic"},
      {head + "coll 3 bcast 0 1 8\n", "p:5:", "undefined communicator"},
      {head + "comm 1 3 0 1 1\n", "p:5:", "bad communicator size"},
      {head + "comm 1 2 0 0\n", "p:5:", "listed twice"},
      {head + "comm 1 world\ncoll 1 bcast 2 1 8\n", "p:6:", "outside communicator"},
      // Limits: nothing is allocated from an announced count (docs/formats.md).
      {"commprof 1\nranks 16777217\n", "p:2:", "above the limit of 16777216 ranks"},
      {"commprof 1\nranks 16777216\n", "p:2:", "truncated profile: 0 'rank' lines for 16777216 ranks"},
      {"commprof 1\nranks 16777216\ncomm 0 world\n", "p:3:", "communicators list 16777216 members in all"},
      // Accepted before, wrong: self pairs, counts a double cannot hold, wrapping numbers.
      {head + "p2p 1 1 5 80\n", "p:5:", "'p2p' line from rank 1 to itself"},
      {head + "osc 0 0 5 80\n", "p:5:", "'osc' line from rank 0 to itself"},
      {head + "p2p 0 1 1 18446744073709551615\n", "p:5:", "count '18446744073709551615' is above 2^53"},
      {head + "p2p 0 1 9007199254740993 1\n", "p:5:", "count '9007199254740993' is above 2^53"},
      {head + "comm 0 world\ncoll 0 bcast 0 9007199254740993 1\n", "p:6:", "above 2^53"},
      {head + "comm 0 world\ncoll 4294967296 bcast 0 1 8\n", "p:6:", "undefined communicator '4294967296'"},
      {"commprof 1\nranks 1\nrank 0 host=a core=4294967296 wall=1 mpi=0\n", "p:3:", "bad core '4294967296'"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    auto p = parse_profile(c.text, "p");
    REQUIRE_FALSE(p.ok());
    CHECK_THAT(p.error().message, Catch::StartsWith(c.prefix) && Catch::Contains(c.needle));
  }
  // 2^53 itself is exact, and accepted.
  CHECK(parse_profile(head + "p2p 0 1 9007199254740992 9007199254740992\n", "p").ok());
  // An unknown record is skipped, and quoted short.
  std::vector<std::string> warnings;
  REQUIRE(parse_profile(head + std::string(100000, 'h') + " 1\n", "p", &warnings).ok());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "p:5: unknown record type '" + std::string(40, 'h') + "... (100000 bytes)' skipped");
  // check() holds what the reader holds.
  auto good = parse_profile(head + "p2p 0 1 1 8\n", "p");
  REQUIRE(good.ok());
  Profile self = *good;
  self.p2p.push_back(PairTraffic{1, 1, 1, 8});
  CHECK_FALSE(self.check().ok());
  Profile huge = *good;
  huge.p2p[0].bytes = limits::kMaxTrafficCount + 1;
  CHECK_FALSE(huge.check().ok());
  auto missing = read_profile("/nonexistent/app.prof");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::StartsWith("/nonexistent/app.prof: "));
}
