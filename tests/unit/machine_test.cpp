#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>

#include "rankmap/machine.hpp"

using namespace rankmap;

TEST_CASE("the desmos preset expands to the documented machine") {
  auto m = parse_machine("desmos");
  REQUIRE(m.ok());
  CHECK(m->sizes == std::vector<int>{4, 2, 2, 2});
  CHECK(m->wrap == std::vector<bool>{true, true, true, true});
  CHECK(m->links == std::vector<int>{1, 1, 1, 1});
  CHECK(m->node == "package:1,core:6");
  CHECK(m->t_inj == 850e-9);
  CHECK(m->t_hop == 129e-9);
  CHECK(m->host_name(0) == "node-0");
  CHECK(m->host_name(31) == "node-31");
  CHECK(to_string(*m) == "torus=4x2x2x2 wrap=1x1x1x1 links=1x1x1x1 node=package:1,core:6 bw=75Gbit/s t_inj=850ns t_hop=129ns");
}

TEST_CASE("default links: 2 along size-2 rings, 1 elsewhere") {
  auto m = parse_machine("torus=4x2x2x2");
  REQUIRE(m.ok());
  CHECK(m->links == std::vector<int>{1, 2, 2, 2});
  auto mesh = parse_machine("torus=4x2 wrap=1x0");
  REQUIRE(mesh.ok());
  CHECK(mesh->links == std::vector<int>{1, 1});
  // A preset's per-dimension words give way to a new shape.
  auto bigger = parse_machine("desmos torus=8x4x4x4");
  REQUIRE(bigger.ok());
  CHECK(bigger->links == std::vector<int>{1, 1, 1, 1});
  auto two_d = parse_machine("desmos torus=8x8");
  REQUIRE(two_d.ok());
  CHECK(two_d->links == std::vector<int>{1, 1});
  CHECK(two_d->node == "package:1,core:6");
}

TEST_CASE("machine strings round-trip through parse and print") {
  const char* lines[] = {
      "desmos",
      "torus=4x2x2x2",
      "torus=8x4x4x4 links=1x1x1x1 node=package:2,core:4 bw=12.5GB/s",
      "torus=16x16x8x2 node=package:2,l3cache:1,core:4 t_inj=1.2us t_hop=90ns",
      "torus=5x3 wrap=0x1 links=2x1",
      "torus=2x2x2x2x2x2x2x2",
      "torus=7 bw=100Gbit/s t_hop=0.5ns",
      "desmos node=package:2,core:6 socket-lat=1us socket-bw=9.6GB/s",
      "torus=4x4 node=package:2,core:4 shm-lat=250ns shm-bw=12GB/s socket-lat=0ns",
  };
  for (const char* line : lines) {
    INFO(line);
    auto m = parse_machine(line);
    REQUIRE(m.ok());
    const std::string canonical = to_string(*m);
    auto again = parse_machine(canonical);
    REQUIRE(again.ok());
    CHECK(*again == *m);
    CHECK(to_string(*again) == canonical);
  }
}

TEST_CASE("malformed machine strings are rejected naming the bad word") {
  struct Case {
    const char* line;
    const char* needle;
  };
  const Case cases[] = {
      {"torus=4x0x2", "torus=4x0x2"},
      {"torus=4xx2", "torus=4xx2"},
      {"torus=4x2 links=1x1x1", "links= has 3 dimensions"},
      {"torus=4x2 wrap=1x2", "wrap=1x2"},
      {"torus=4x2 bw=fast", "bw=fast"},
      {"torus=4x2 t_hop=12parsecs", "t_hop=12parsecs"},
      {"torus=4x2 colour=blue", "colour=blue"},
      {"torus=4x2 shm-lat=-1ns", "shm-lat=-1ns"},
      {"torus=4x2 shm-bw=0", "shm-bw=0"},
      {"torus=4x2 socket-lat=soon", "socket-lat=soon"},
      {"torus=4x2 socket-bw=-3GB/s", "socket-bw=-3GB/s"},
      {"desmoss", "desmoss"},
      {"links=1x1", "no torus= word"},
      {"torus=4x2 node=package:2,gadget:3", "gadget"},
      {"torus=2x2x2x2x2x2x2x2x2", "torus=2x2x2x2x2x2x2x2x2"},
      {"torus=4 bw=", "bw="},
      {"torus=4 hosts=/nonexistent/hosts.txt", "/nonexistent/hosts.txt"},
      // A ring of two nodes has one or two cables; more is a chain with links=N.
      {"torus=4x2 links=1x3", "dimension Y is a ring of 2 nodes, which has 1 or 2 links"},
      {"desmos links=1x1x1x4", "dimension K is a ring of 2 nodes"},
      {"torus=4x2 links=1x65", "links=1x65"},
      // A long word is quoted short.
      {"torus=4 colour=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "bbb... (79 bytes)"},
  };
  for (const Case& c : cases) {
    INFO(c.line);
    auto m = parse_machine(c.line, "test");
    REQUIRE_FALSE(m.ok());
    CHECK_THAT(m.error().message, Catch::Contains(c.needle));
    CHECK(m.error().message.find('\n') == std::string::npos);
  }
}

TEST_CASE("intra-node costs: documented defaults, overridable, printed only when not the defaults") {
  auto m = parse_machine("desmos node=package:2,core:6");
  REQUIRE(m.ok());
  CHECK(m->intra_node.shm_lat == 300e-9);
  CHECK(m->intra_node.shm_bw == 20e9);
  CHECK(m->intra_node.socket_lat == 500e-9);
  CHECK(m->intra_node.socket_bw == 14.4e9);
  CHECK(to_string(*m) == "torus=4x2x2x2 wrap=1x1x1x1 links=1x1x1x1 node=package:2,core:6 bw=75Gbit/s t_inj=850ns t_hop=129ns");
  auto slow = parse_machine("desmos node=package:2,core:6 socket-bw=10GB/s shm-lat=0.2us");
  REQUIRE(slow.ok());
  CHECK(slow->intra_node.socket_bw == 10e9);
  CHECK(slow->intra_node.shm_lat == 200e-9);
  CHECK(slow->intra_node.socket_lat == 500e-9);
  CHECK(*slow != *m);
  CHECK(to_string(*slow) ==
        "torus=4x2x2x2 wrap=1x1x1x1 links=1x1x1x1 node=package:2,core:6 bw=75Gbit/s t_inj=850ns t_hop=129ns shm-lat=200ns socket-bw=10GB/s");
}

TEST_CASE("links above 2 are for chains and longer rings") {
  CHECK(parse_machine("torus=4x2 wrap=1x0 links=1x3").ok());
  CHECK(parse_machine("torus=4x3 links=3x3").ok());
  CHECK(parse_machine("torus=4x2 links=1x2").ok());
  CHECK(parse_machine("torus=4x2 links=1x1").ok());
}

TEST_CASE("machine files: words one per line with comments, errors name file:line") {
  const std::string path = "machine_test.machine";
  {
    std::ofstream f(path);
    f << "# the Desmos cluster\n"
      << "torus=4x2x2x2   # X Y Z K\n"
      << "links=1x1x1x1\n\n"
      << "node=package:1,core:6\n";
  }
  auto m = load_machine(path);
  REQUIRE(m.ok());
  CHECK(*m == *parse_machine("desmos"));
  {
    std::ofstream f(path);
    f << "torus=4x2x2x2\n# ok so far\nlinks=1x1x1x1 t_inj=fast\n";
  }
  auto bad = load_machine(path);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::StartsWith(path + ":3: ") && Catch::Contains("t_inj=fast"));
  std::remove(path.c_str());
  auto missing = load_machine("no-such-machine-file");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("no-such-machine-file"));
}

TEST_CASE("hosts files name the nodes by coordinates") {
  const std::string path = "machine_test.hosts";
  {
    std::ofstream f(path);
    f << "# name x y\n";
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 3; ++x) f << "cn" << (10 * y + x) << " " << x << " " << y << "\n";
  }
  auto m = parse_machine("torus=3x2 hosts=" + path);
  REQUIRE(m.ok());
  CHECK(m->host_name(0) == "cn0");
  CHECK(m->host_name(4) == "cn11");
  CHECK(m->node_of_host("cn12") == 5);
  CHECK(m->node_of_host("node-0") == -1);
  CHECK(to_string(*m) == "torus=3x2 wrap=1x1 links=1x2 node=core:1 bw=75Gbit/s t_inj=850ns t_hop=129ns hosts=" + path);
  {
    std::ofstream f(path);
    f << "cn0 0 0\ncn1 1 0\ncn2 2 0\ncn3 0 1\ncn4 1 1\ncn5 2 7\n";
  }
  auto bad = parse_machine("torus=3x2 hosts=" + path);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::StartsWith(path + ":6: "));
  {
    std::ofstream f(path);
    f << "cn0 0 0\ncn1 1 0\n";
  }
  auto short_file = parse_machine("torus=3x2 hosts=" + path);
  REQUIRE_FALSE(short_file.ok());
  CHECK_THAT(short_file.error().message, Catch::Contains("every torus node needs a line"));
  std::remove(path.c_str());
}

TEST_CASE("mixed nodes: nodes= gives node kinds per node index, printed canonically") {
  auto k1 = parse_machine("angara-k1");
  REQUIRE(k1.ok());
  CHECK(k1->sizes == std::vector<int>{3, 3, 4});
  CHECK(to_string(*k1) ==
        "torus=3x3x4 wrap=1x1x1 links=1x1x1 node=package:2,core:6 nodes=24-35:package:1,core:8 bw=75Gbit/s t_inj=850ns t_hop=129ns");
  auto kinds = k1->node_kinds();
  REQUIRE(kinds.ok());
  CHECK(kinds->count() == 2);
  CHECK_FALSE(kinds->uniform());
  CHECK(kinds->cores(0) == 12);
  CHECK(kinds->of(23).packages() == 2);
  CHECK(kinds->cores(24) == 8);
  CHECK(kinds->of(35).packages() == 1);
  CHECK(kinds->max_cores() == 12);
  CHECK(kinds->min_cores() == 8);

  // Later words win per node; kinds equal to node= are dropped; members
  // print as ranges, kinds in order of their first node.
  auto m = parse_machine("torus=8 node=core:2 nodes=5-7:core:4;0,2:core:4 nodes=6:core:2;1:package:2,core:2");
  REQUIRE(m.ok());
  CHECK(to_string(*m) == "torus=8 wrap=1 links=1 node=core:2 nodes=0,2,5,7:core:4;1:package:2,core:2 bw=75Gbit/s t_inj=850ns t_hop=129ns");
  REQUIRE(m->node_groups.size() == 2);
  CHECK(m->node_groups[0].members == std::vector<int>{0, 2, 5, 7});
  auto again = parse_machine(to_string(*m));
  REQUIRE(again.ok());
  CHECK(*again == *m);
  CHECK(*again != *parse_machine("torus=8 node=core:2 nodes=0,2,5:core:4;1:package:2,core:2"));
  auto mk = m->node_kinds();
  REQUIRE(mk.ok());
  const std::vector<int> cores = {4, 4, 4, 2, 2, 4, 2, 4};
  for (int n = 0; n < 8; ++n) CHECK(mk->cores(n) == cores[static_cast<size_t>(n)]);
  CHECK(mk->cores(1) == 4);  // package:2,core:2

  // Every node given another kind: node= covers none, min/max over the rest.
  auto all = parse_machine("torus=2 node=core:16 nodes=0-1:core:3");
  REQUIRE(all.ok());
  CHECK(all->node_kinds()->max_cores() == 3);
  CHECK(all->node_kinds()->min_cores() == 3);

  // A preset's nodes= gives way to an explicit torus= (its indices were for
  // the preset's shape); one given explicitly is checked against the shape.
  auto smaller = parse_machine("angara-k1 torus=3x3x2");
  REQUIRE(smaller.ok());
  CHECK(smaller->node_groups.empty());
  CHECK(parse_machine("angara-k1 nodes=0-3:core:4").ok());
}

TEST_CASE("mixed nodes: bad nodes= words are refused naming the word") {
  auto error_of = [](const std::string& line) {
    auto m = parse_machine(line, "m.txt:3");
    REQUIRE_FALSE(m.ok());
    return m.error().message;
  };
  CHECK(error_of("torus=4 nodes=0-3") ==
        "m.txt:3: bad machine word 'nodes=0-3': expected node lists with their node kind, like "
        "nodes=0-23:package:2,core:6;24-35:core:8");
  CHECK(error_of("torus=4 nodes=a:core:2") ==
        "m.txt:3: bad machine word 'nodes=a:core:2': 'a' is not a list of node indices and ranges like 0-3,8");
  CHECK(error_of("torus=4 nodes=0-9:core:2") == "m.txt:3: nodes=: node 0-9 out of range 0..3");
  CHECK(error_of("torus=4 nodes=3-1:core:2") == "m.txt:3: nodes=: '3-1' is not a node index or a range like 0-3");
  CHECK(error_of("torus=4 nodes=1:core:0x2").find("is not a level like core:4") != std::string::npos);
  CHECK(error_of("torus=4 nodes=1:core:2;;2:core:3").find("expected node lists") != std::string::npos);
  std::string many = "torus=100 nodes=";
  for (int i = 0; i < 70; ++i) many += (i ? ";" : "") + std::to_string(i) + ":core:" + std::to_string(i + 2);
  CHECK(error_of(many) == "m.txt:3: nodes=: more than 64 kinds of node, the limit");
  std::string lists = "torus=4 nodes=";
  for (int i = 0; i < 300; ++i) lists += (i ? ";" : "") + std::string("0-3:core:2");
  CHECK(error_of(lists).find("more than 256 node lists in nodes= words, the limit") != std::string::npos);
}

TEST_CASE("same_network compares the network, not the nodes or latencies") {
  auto m = [](const std::string& line) {
    auto r = parse_machine(line);
    REQUIRE(r.ok());
    return *r;
  };
  CHECK(m("desmos").same_network(m("desmos node=package:2,core:6 t_hop=200ns nodes=0-3:core:4")));
  CHECK_FALSE(m("desmos").same_network(m("desmos links=1x2x2x2")));
  CHECK_FALSE(m("fattree=2;4,4;1,2;1,2").same_network(m("fattree=2;4,4;1,2;1,1")));
  CHECK(m("fattree=2;4,4;1,2;1,2").same_network(m("fattree=2;4,4;1,2;1,2 node=core:4")));
  CHECK_FALSE(m("torus=16").same_network(m("fattree=2;4,4;1,2;1,2")));
}
