#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <sys/stat.h>

#include "rankmap/mapping.hpp"

using namespace rankmap;

namespace {
Mapping small_mapping() {
  Mapping m;
  m.machine = *parse_machine("torus=4 node=package:2,core:2");
  m.placement = {{0, 0}, {0, 3}, {2, 1}, {3, 0}, {1, 2}};
  return m;
}
}  // namespace

TEST_CASE("mapping: write, read back, exact text") {
  const Mapping m = small_mapping();
  REQUIRE(m.check().ok());
  const std::string text = format_mapping(m);
  CHECK(text ==
        "rankmap-mapping 1\n"
        "machine torus=4 wrap=1 links=1 node=package:2,core:2 bw=75Gbit/s t_inj=850ns t_hop=129ns\n"
        "ranks 5\n"
        "0 0 node-0 0\n"
        "1 0 node-0 3\n"
        "2 2 node-2 1\n"
        "3 3 node-3 0\n"
        "4 1 node-1 2\n");
  auto back = parse_mapping(text, "m.map");
  REQUIRE(back.ok());
  CHECK(back->placement == m.placement);
  CHECK(back->machine == m.machine);
}

TEST_CASE("mapping: bad input names file and line") {
  const std::string head =
      "rankmap-mapping 1\nmachine torus=4 node=package:2,core:2\nranks 2\n";
  struct Case {
    std::string text;
    const char* prefix;
    const char* needle;
  };
  const Case cases[] = {
      {"rankmap-mapping 7\n", "m:1:", "unsupported mapping version"},
      {"rankmap-mapping 1\nmachine torus=4 frobs=2\n", "m:2:", "frobs=2"},
      {head + "0 0 node-0 0\n", "m:", "truncated mapping"},
      {head + "1 0 node-0 0\n", "m:4:", "expected rank 0"},
      {head + "0 4 node-4 0\n", "m:4:", "node '4' out of range"},
      {head + "0 1 node-2 0\n", "m:4:", "host 'node-2' is not node 1"},
      {head + "0 1 node-1 4\n", "m:4:", "core '4' out of range 0..3"},
      {head + "0 4294967297 node-1 0\n", "m:4:", "node '4294967297' is not a node index"},
      {head + "0 1 node-1 x\n", "m:4:", "core 'x' is not a core index"},
      {head + "0 1 node-1 2\n1 1 node-1 2\n", "m:5:", "shares core 2 of node-1 with another rank"},
      {head + "0 1 node-1 2\n1 1 node-1 1\n2 0 node-0 0\n", "m:6:", "more rank lines"},
      // Limits: nothing is allocated from an announced count (docs/formats.md).
      {"rankmap-mapping 1\nmachine torus=4\nranks 16777217\n", "m:3:", "above the limit of 16777216 ranks"},
      {"rankmap-mapping 1\nmachine torus=4 node=core:4\nranks 17\n", "m:3:", "'ranks 17' but the machine has 16 cores"},
      {"rankmap-mapping 1\nmachine torus=1024 node=core:1024\nranks 1048576\n", "m:3:", "truncated mapping: 0 rank lines"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    auto m = parse_mapping(c.text, "m");
    REQUIRE_FALSE(m.ok());
    CHECK_THAT(m.error().message, Catch::StartsWith(c.prefix) && Catch::Contains(c.needle));
  }
}

TEST_CASE("mapping: written atomically, nothing written when invalid") {
  const std::string path = "mapping_test.map";
  std::remove(path.c_str());
  Mapping bad = small_mapping();
  bad.placement[1] = bad.placement[0];  // two ranks on one core
  REQUIRE_FALSE(write_mapping(path, bad).ok());
  struct stat st;
  CHECK(stat(path.c_str(), &st) != 0);
  REQUIRE(write_mapping(path, small_mapping()).ok());
  auto back = read_mapping(path);
  REQUIRE(back.ok());
  CHECK(back->placement == small_mapping().placement);
  std::remove(path.c_str());
}

TEST_CASE("mapping: the optional algorithm record is written after the machine and read back") {
  Mapping m = small_mapping();
  m.algorithm = "rankmap preset=default seed=7";
  const std::string text = format_mapping(m);
  CHECK(text.rfind(
            "rankmap-mapping 1\n"
            "machine torus=4 wrap=1 links=1 node=package:2,core:2 bw=75Gbit/s t_inj=850ns t_hop=129ns\n"
            "algorithm rankmap preset=default seed=7\n"
            "ranks 5\n0 0 node-0 0\n",
            0) == 0);
  auto back = parse_mapping(text, "m.map");
  REQUIRE(back.ok());
  CHECK(back->algorithm == "rankmap preset=default seed=7");
  CHECK(back->placement == m.placement);
  // Absent: empty, and nothing written.
  CHECK(parse_mapping(format_mapping(small_mapping()), "m")->algorithm.empty());
  // Once only, not empty, nothing that would not read back.
  const std::string head = "rankmap-mapping 1\nmachine torus=4 node=package:2,core:2\n";
  const std::string tail = "ranks 1\n0 0 node-0 0\n";
  auto twice = parse_mapping(head + "algorithm a\nalgorithm b\n" + tail, "m");
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.error().message == "m:4: a second 'algorithm' record");
  auto bare = parse_mapping(head + "algorithm\n" + tail, "m");
  REQUIRE_FALSE(bare.ok());
  CHECK(bare.error().message == "m:3: expected 'algorithm <name> [words]'");
  auto control = parse_mapping(head + "algorithm a\x01b\n" + tail, "m");
  REQUIRE_FALSE(control.ok());
  CHECK(control.error().message == "m:3: 'algorithm' record holds a control character or '#'");
  CHECK(parse_mapping(head + "algorithm x # a comment\n" + tail, "m")->algorithm == "x");
  m.algorithm = "a#b";
  CHECK_FALSE(m.check().ok());
}

