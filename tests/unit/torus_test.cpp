#include <catch2/catch.hpp>

#include <numeric>
#include <random>

#include "rankmap/machine.hpp"
#include "rankmap/torus.hpp"

using namespace rankmap;

namespace {

Torus make(const std::string& line) {
  auto m = parse_machine(line);
  REQUIRE(m.ok());
  auto t = m->torus();
  REQUIRE(t.ok());
  REQUIRE(t->check().ok());
  return std::move(*t);
}

// The machines the foundation issue names, both cablings of the Desmos shape.
const char* kRoutingMachines[] = {
    "torus=4x2x2x2 links=1x1x1x1", "torus=4x2x2x2", "torus=3x3x3", "torus=4x4", "torus=5x3 wrap=0x0",
    "torus=6x1x2 wrap=1x1x0",  // size-1 dimension, size-2 chain
    "torus=5x4x2 wrap=1x0x1",  // odd ring, chain walked both ways, size-2 ring
};

}  // namespace

TEST_CASE("every route has hop-distance length, direction order, and reaches the destination") {
  for (const char* line : kRoutingMachines) {
    INFO(line);
    const Torus t = make(line);
    std::vector<Hop> path;
    for (int a = 0; a < t.nodes(); ++a) {
      for (int b = 0; b < t.nodes(); ++b) {
        t.route(a, b, path);
        REQUIRE(static_cast<int>(path.size()) == t.hops(a, b));
        int at = a;
        bool negative_phase = false;
        int last_dim = -1;
        for (const Hop& h : path) {
          REQUIRE(h.from == at);
          REQUIRE(h.to == t.neighbor(at, h.dim, h.dir));
          REQUIRE(t.link_exists(h.link));
          REQUIRE(h.link == t.link_index(at, h.dim, h.dir));
          if (h.dir == Direction::minus && !negative_phase) {
            negative_phase = true;
            last_dim = -1;
          }
          REQUIRE((h.dir == Direction::minus) == negative_phase);  // no "+" after a "-"
          REQUIRE(h.dim >= last_dim);                              // dimension order within a phase
          last_dim = h.dim;
          at = h.to;
        }
        REQUIRE(at == b);
      }
    }
  }
}

TEST_CASE("routes follow the documented rules on hand-computed cases") {
  const Torus t = make("torus=4x4");
  // (0,0) -> (2,3): X is half a ring away (tie: positive), Y is one step back.
  auto path = t.route(t.node_at({0, 0}), t.node_at({2, 3}));
  REQUIRE(path.size() == 3);
  CHECK(path[0].dim == 0);
  CHECK(path[0].dir == Direction::plus);
  CHECK(path[1].dim == 0);
  CHECK(path[1].dir == Direction::plus);
  CHECK(path[2].dim == 1);
  CHECK(path[2].dir == Direction::minus);
  CHECK(path[2].from == t.node_at({2, 0}));
  CHECK(path[2].to == t.node_at({2, 3}));

  // (3,1) -> (0,0): X forward 1 (wraps), Y back 1: "+X" first, then "-Y".
  path = t.route(t.node_at({3, 1}), t.node_at({0, 0}));
  REQUIRE(path.size() == 2);
  CHECK((path[0].dim == 0 && path[0].dir == Direction::plus && path[0].to == t.node_at({0, 1})));
  CHECK((path[1].dim == 1 && path[1].dir == Direction::minus && path[1].to == t.node_at({0, 0})));

  // Negative moves in dimension order even when X is negative and Y positive.
  path = t.route(t.node_at({1, 0}), t.node_at({0, 1}));
  REQUIRE(path.size() == 2);
  CHECK((path[0].dim == 1 && path[0].dir == Direction::plus));
  CHECK((path[1].dim == 0 && path[1].dir == Direction::minus));

  // Along a size-2 ring every move goes "+", in both directions of travel.
  const Torus desmos = make("desmos");
  auto there = desmos.route(desmos.node_at({0, 0, 0, 0}), desmos.node_at({0, 1, 0, 0}));
  auto back = desmos.route(desmos.node_at({0, 1, 0, 0}), desmos.node_at({0, 0, 0, 0}));
  REQUIRE(there.size() == 1);
  REQUIRE(back.size() == 1);
  CHECK(there[0].dir == Direction::plus);
  CHECK(back[0].dir == Direction::plus);
  CHECK(there[0].link != back[0].link);  // full duplex: one connection per direction
}

TEST_CASE("distances are symmetric and obey the triangle inequality") {
  for (const char* line : kRoutingMachines) {
    INFO(line);
    const Torus t = make(line);
    const auto table = t.all_pair_hops();
    const int n = t.nodes();
    for (int a = 0; a < n; ++a) {
      CHECK(table[a * n + a] == 0);
      for (int b = 0; b < n; ++b) {
        REQUIRE(table[a * n + b] == table[b * n + a]);
        REQUIRE(t.weighted_distance(a, b) == Approx(t.weighted_distance(b, a)));
        for (int c = 0; c < n; ++c) REQUIRE(table[a * n + c] <= table[a * n + b] + table[b * n + c]);
      }
    }
  }
}

TEST_CASE("desmos: diameter 5, mean hop distance 2.5, 160 directed connections") {
  const Torus t = make("desmos");
  CHECK(t.nodes() == 32);
  CHECK(t.diameter() == 5);
  CHECK(t.mean_hops() == 2.5);
  // Exhaustive mean over all 32 x 32 ordered pairs agrees with the closed form.
  const auto table = t.all_pair_hops();
  CHECK(std::accumulate(table.begin(), table.end(), 0.0) / static_cast<double>(table.size()) == 2.5);
  // X ring of 4: two directions per node; Y, Z, K size-2: one per direction per pair.
  CHECK(t.link_count() == 32 * (2 + 1 + 1 + 1));
}

TEST_CASE("bandwidth-weighted distance: single links cost more than doubled ones") {
  const Torus full = make("torus=4x2x2x2");          // default cabling: 2 links along Y, Z, K
  const Torus desmos = make("desmos");               // 1 link along Y, Z, K
  const int a = full.node_at({0, 0, 0, 0});
  const int b = full.node_at({2, 1, 1, 0});          // 2 X hops, 1 Y, 1 Z
  CHECK(full.hops(a, b) == 4);
  CHECK(desmos.hops(a, b) == 4);
  CHECK(full.weighted_distance(a, b) == 2 + 0.5 + 0.5);
  CHECK(desmos.weighted_distance(a, b) == 4.0);
  const int y_link = full.link_index(a, 1, Direction::plus);
  CHECK(full.link_capacity(y_link) == 2 * full.link_bw());
  CHECK(desmos.link_capacity(y_link) == desmos.link_bw());
}

TEST_CASE("link loads: sum of loads equals sum of bytes x hops") {
  for (const char* line : kRoutingMachines) {
    INFO(line);
    const Torus t = make(line);
    std::mt19937 rng(42);
    std::uniform_int_distribution<int> node(0, t.nodes() - 1);
    std::vector<NodeFlow> flows;
    double bytes_hops = 0;
    for (int i = 0; i < 500; ++i) {
      NodeFlow f{node(rng), node(rng), static_cast<double>(1 + rng() % 1000)};
      flows.push_back(f);
      bytes_hops += f.bytes * t.hops(f.src, f.dst);
    }
    const auto loads = t.link_loads(flows);
    const auto summary = t.summarize_loads(loads);
    CHECK(summary.total_bytes_on_links == Approx(bytes_hops));
    for (int l = 0; l < t.link_slots(); ++l)
      if (!t.link_exists(l)) REQUIRE(loads[l] == 0);
  }
}

TEST_CASE("link loads: hand-computed congestion on a ring") {
  const Torus t = make("torus=4 bw=1GB/s");
  // 0->2 is a tie: goes + over links 0->1, 1->2. 1->2 adds 100 bytes to 1->2.
  const auto loads = t.link_loads({{0, 2, 1000}, {1, 2, 100}, {3, 2, 10}});
  CHECK(loads[t.link_index(0, 0, Direction::plus)] == 1000);
  CHECK(loads[t.link_index(1, 0, Direction::plus)] == 1100);
  CHECK(loads[t.link_index(3, 0, Direction::minus)] == 10);
  const auto s = t.summarize_loads(loads);
  CHECK(s.max_load == 1100);
  CHECK(s.busiest_link == t.link_index(1, 0, Direction::plus));
  CHECK(s.max_relative == Approx(1100 / 1e9));
  CHECK(s.mean_relative == Approx((1000 + 1100 + 10) / 1e9 / 8));
}

TEST_CASE("latency model and the published gain estimate") {
  LatencyModel model;  // 850 ns + 129 ns per hop
  CHECK(model.message_time(0, 0) == Approx(850e-9));
  CHECK(model.message_time(5, 0) == Approx(850e-9 + 5 * 129e-9));
  model.bw = 1e9;
  CHECK(model.message_time(2, 1000) == Approx(850e-9 + 2 * 129e-9 + 1e-6));
  // Desmos, d_net = 5, p_mpi = 1: 129 * 4 / (850 + 645) = 0.34515...
  CHECK(mapping_gain_estimate(1.0, LatencyModel{}, 5) == Approx(516.0 / 1495.0));
  CHECK(mapping_gain_estimate(0.5, LatencyModel{}, 5) == Approx(258.0 / 1495.0));
  CHECK(mapping_gain_estimate(1.0, LatencyModel{}, 1) == 0);
}

TEST_CASE("coordinates round-trip and neighbours respect mesh borders") {
  const Torus mesh = make("torus=5x3 wrap=0x0");
  CHECK(mesh.neighbor(mesh.node_at({4, 0}), 0, Direction::plus) == -1);
  CHECK(mesh.neighbor(mesh.node_at({0, 2}), 1, Direction::plus) == -1);
  CHECK(mesh.neighbor(mesh.node_at({0, 2}), 0, Direction::minus) == -1);
  CHECK(mesh.hops(mesh.node_at({0, 0}), mesh.node_at({4, 2})) == 6);
  CHECK(mesh.diameter() == 6);
  const Torus ring = make("torus=5x3");
  CHECK(ring.neighbor(ring.node_at({4, 0}), 0, Direction::plus) == ring.node_at({0, 0}));
  CHECK(ring.hops(ring.node_at({0, 0}), ring.node_at({4, 2})) == 2);
  CHECK(ring.diameter() == 3);
  // X varies fastest (Scotch and SimGrid order).
  CHECK(ring.node_at({1, 0}) == 1);
  CHECK(ring.node_at({0, 1}) == 5);
}

TEST_CASE("torus: the weighted distance table equals the sum over dimensions, below and above its size limit") {
  // 16x8x8 = 1,024 nodes is tabulated, 16x8x8x2 is computed: both must give
  // sum_d hops_d / links_d exactly (the mapper's costs must not depend on it).
  for (int k : {1, 2}) {
    std::vector<int> sizes = {16, 8, 8};
    if (k == 2) sizes.push_back(2);
    auto t = Torus::create(sizes, std::vector<bool>(sizes.size(), true), std::vector<int>(sizes.size(), 2), 1e9);
    REQUIRE(t.ok());
    INFO(t->nodes() << " nodes");
    for (int a = 0; a < t->nodes(); a += 37)
      for (int b = 0; b < t->nodes(); b += 11) {
        double w = 0;
        for (int d = 0; d < t->dims(); ++d) w += std::abs(t->dim_moves(a, b, d)) / 2.0;
        REQUIRE(t->weighted_distance(a, b) == w);
      }
  }
}

TEST_CASE("torus: above the table's size the weighted distance comes from tables over blocks of dimensions") {
  // 16x16x8x2 (blocks 16x16 and 8x2) with a chain and mixed links, and
  // 2000x3 (one dimension above the limit: computed): sum_d hops_d / links_d.
  struct Shape {
    std::vector<int> sizes;
    std::vector<bool> wrap;
    std::vector<int> links;
  };
  for (const Shape& s : {Shape{{16, 16, 8, 2}, {true, false, true, true}, {2, 1, 2, 1}},
                         Shape{{2000, 3}, {true, true}, {1, 2}}}) {
    auto t = Torus::create(s.sizes, s.wrap, s.links, 1e9);
    REQUIRE(t.ok());
    INFO(t->nodes() << " nodes");
    for (int a = 0; a < t->nodes(); a += 29)
      for (int b = 0; b < t->nodes(); b += 13) {
        double w = 0;
        for (int d = 0; d < t->dims(); ++d) w += std::abs(t->dim_moves(a, b, d)) / static_cast<double>(s.links[d]);
        REQUIRE(t->weighted_distance(a, b) == w);
      }
  }
}

TEST_CASE("torus: moves, diameter and mean hops need no per-dimension table") {
  // The documented rule, written out independently: the shorter way round a
  // ring, positive on a tie; the plain difference along a chain.
  auto reference_move = [](int n, bool ring, int a, int b) {
    if (!ring) return b - a;
    const int forward = ((b - a) % n + n) % n;
    const int backward = n - forward;
    return forward == 0 ? 0 : (forward <= backward ? forward : -backward);
  };
  for (const char* line : {"torus=1x2x3x4 wrap=1x1x1x1", "torus=5x6x7 wrap=0x1x0", "torus=2x2 wrap=0x1", "torus=13 wrap=0", "torus=16"}) {
    INFO(line);
    const Torus t = make(line);
    int diameter = 0;
    long long hop_sum = 0;
    for (int a = 0; a < t.nodes(); ++a)
      for (int b = 0; b < t.nodes(); ++b) {
        for (int d = 0; d < t.dims(); ++d) {
          const int n = t.size(d);
          REQUIRE(t.dim_moves(a, b, d) == reference_move(n, t.wraps(d), t.coord(a, d), t.coord(b, d)));
        }
        diameter = std::max(diameter, t.hops(a, b));
        hop_sum += t.hops(a, b);
      }
    CHECK(t.diameter() == diameter);
    CHECK(t.mean_hops() == Approx(static_cast<double>(hop_sum) / (static_cast<double>(t.nodes()) * t.nodes())).epsilon(1e-14));
  }
  // One long dimension costs memory linear in its size (a table was 7 GB at 30,000).
  const Torus ring = make("torus=30000");
  CHECK(ring.diameter() == 15000);
  CHECK(ring.mean_hops() == 7500);
  CHECK(ring.dim_moves(0, 15000, 0) == 15000);
  CHECK(ring.dim_moves(0, 15001, 0) == -14999);
  const Torus chain = make("torus=1048576 wrap=0");
  CHECK(chain.diameter() == 1048575);
  CHECK(chain.hops(0, 1048575) == 1048575);
}

TEST_CASE("torus: at most 1,048,576 nodes") {
  CHECK(parse_machine("torus=1024x1024").ok());
  auto big = parse_machine("torus=1024x1025");
  REQUIRE_FALSE(big.ok());
  CHECK_THAT(big.error().message, Catch::Contains("more than 1048576 nodes, the limit"));
  auto dim = parse_machine("torus=1048577");
  REQUIRE_FALSE(dim.ok());
  CHECK_THAT(dim.error().message, Catch::Contains("each 1 to 1048576"));
}

TEST_CASE("torus: the distance cuts price every pair at exactly its distance") {
  struct Shape {
    std::vector<int> sizes;
    std::vector<bool> wrap;
    std::vector<int> links;
    size_t cuts;
  };
  const std::vector<Shape> shapes = {
      {{4, 2, 2, 2}, {true, true, true, true}, {1, 1, 1, 1}, 2 + 1 + 1 + 1},  // desmos: halvings
      {{8, 4}, {true, true}, {2, 1}, 4 + 2},
      {{5, 3}, {true, true}, {1, 2}, 5 + 3},  // odd rings: every near-halving, at half price
      {{4, 3}, {false, true}, {1, 1}, 3 + 3},  // a chain: a cut at each of its 3 positions
      {{6, 1, 2}, {false, true, true}, {3, 1, 2}, 5 + 1},
  };
  for (const Shape& s : shapes) {
    auto t = Torus::create(s.sizes, s.wrap, s.links, 1e9);
    REQUIRE(t.ok());
    REQUIRE(t->check().ok());  // Network::check verifies the prices never overcharge
    CHECK(t->distance_cuts() == static_cast<int>(s.cuts));
    for (int a = 0; a < t->nodes(); ++a)
      for (int b = 0; b < t->nodes(); ++b) {
        const CutPrice price = t->separation_price(a, b);
        INFO("nodes " << a << " and " << b);
        CHECK(price.hops == Approx(t->hops(a, b)).margin(1e-12));
        CHECK(price.weighted == Approx(t->weighted_distance(a, b)).margin(1e-12));
      }
  }
  // On a ring of 5 the near-halvings cut link positions p and p + 2: two
  // neighbours are separated by the 2 that cut their link (half price each),
  // nodes 2 steps apart by the 4 that cut one of their two links.
  auto five = Torus::create({5}, {true}, {1}, 1e9);
  REQUIRE(five.ok());
  CHECK(five->separation_price(0, 1).hops == 1.0);
  CHECK(five->separation_price(0, 2).hops == 2.0);
}
