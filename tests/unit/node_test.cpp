#include <catch2/catch.hpp>

#include "rankmap/node.hpp"

using namespace rankmap;

TEST_CASE("synthetic node descriptions: cores, packages, distances") {
  auto one = NodeTopology::from_synthetic("package:1,core:6");
  REQUIRE(one.ok());
  CHECK(one->cores() == 6);
  CHECK(one->packages() == 1);
  CHECK(one->core_distance(0, 0) == 0);
  CHECK(one->core_distance(0, 5) == 1);

  auto two = NodeTopology::from_synthetic("package:2 core:6");
  REQUIRE(two.ok());
  CHECK(two->cores() == 12);
  CHECK(two->packages() == 2);
  CHECK(two->package_of_core(5) == 0);
  CHECK(two->package_of_core(6) == 1);
  CHECK(two->core_distance(0, 5) < two->core_distance(0, 6));
  CHECK(two->core_distance(7, 11) == two->core_distance(0, 1));
  CHECK(two->core_in_package(7) == 1);
  CHECK(two->pus_of_core(7) == std::vector<int>{7});

  auto smt = NodeTopology::from_synthetic("package:2,core:2,pu:2");
  REQUIRE(smt.ok());
  CHECK(smt->cores() == 4);
  CHECK(smt->pus_of_core(3) == std::vector<int>{6, 7});
  CHECK(smt->os_index_of_core(3) == 6);
  CHECK(smt->core_in_package(3) == 1);
  CHECK(smt->package_of_core(3) == 1);

  // Shared L3 inside a package is closer than the package; private L2 does not count.
  auto caches = NodeTopology::from_synthetic("package:2,l3cache:2,l2cache:2,core:1");
  REQUIRE(caches.ok());
  CHECK(caches->cores() == 8);
  CHECK(caches->core_distance(0, 1) < caches->core_distance(0, 2));
  CHECK(caches->core_distance(0, 2) < caches->core_distance(0, 4));
  CHECK(caches->core_distance(0, 1) == 1);
  CHECK(caches->max_core_distance() == 3);
}

TEST_CASE("large nodes: distances computed without a table equal the tabulated rule") {
  // 2 packages of 2 L3 of 150 cores: 600 cores, above the 256-core table.
  auto big = NodeTopology::from_synthetic("package:2,l3cache:2,core:150");
  REQUIRE(big.ok());
  REQUIRE(big->cores() == 600);
  CHECK(big->max_core_distance() == 3);
  CHECK(big->core_distance(0, 0) == 0);
  CHECK(big->core_distance(0, 149) == 1);   // same L3
  CHECK(big->core_distance(0, 150) == 2);   // same package
  CHECK(big->core_distance(0, 300) == 3);   // other package
  CHECK(big->core_distance(599, 450) == 1);
  // The same shape, small enough for the table, gives the same distances.
  auto small = NodeTopology::from_synthetic("package:2,l3cache:2,core:3");
  REQUIRE(small.ok());
  CHECK(small->core_distance(0, 2) == 1);
  CHECK(small->core_distance(0, 3) == 2);
  CHECK(small->core_distance(0, 6) == 3);
  CHECK(small->max_core_distance() == 3);
}

TEST_CASE("node descriptions above the limits are refused before hwloc loads them") {
  for (const char* d : {"core:1025", "core:100000", "package:1000,core:1000", "package:8,core:1024", "core:4294967296",
                        "core:2,pu:2049", "package:2,core:1024,pu:4"}) {
    INFO(d);
    auto n = NodeTopology::from_synthetic(d);
    REQUIRE_FALSE(n.ok());
    CHECK_THAT(n.error().message, Catch::Contains("the limit"));
  }
  auto at_limit = NodeTopology::from_synthetic("package:4,core:1024");
  REQUIRE(at_limit.ok());
  CHECK(at_limit->cores() == 4096);
}

TEST_CASE("bad node descriptions are rejected") {
  CHECK_FALSE(NodeTopology::from_synthetic("package:two,core:6").ok());
  auto missing = NodeTopology::from_xml("/nonexistent/node.xml");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("/nonexistent/node.xml"));
}
