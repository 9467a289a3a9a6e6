// Properties every Network promises, checked on machines of each kind
// through the interface only (what the mapper, evaluator and report see).
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>

#include "rankmap/machine.hpp"
#include "rankmap/network.hpp"

using namespace rankmap;

namespace {

std::shared_ptr<const Network> make(const std::string& line) {
  auto m = parse_machine(line);
  REQUIRE(m.ok());
  auto n = m->network();
  REQUIRE(n.ok());
  REQUIRE((*n)->check().ok());
  return *n;
}

const char* kMachines[] = {
    "desmos", "torus=4x2x2x2", "torus=3x3x3", "torus=5x3 wrap=0x0", "torus=6x1x2 wrap=1x1x0 links=2x1x3",
    "fattree=2;4,4;1,2;1,2", "fattree=3;2,3,2;2,2,3;1,2,1", "fattree=1;5;1;1", "fattree=2;4,4;1,2;1,2;taper=2",
    "fattree=2;3,1;1,2;2,1", "dragonfly=3,4;4,3;5,1;2", "dragonfly=2,1;2,2;3,1;2", "dragonfly=1,1;1,1;1,1;4",
};

}  // namespace

TEST_CASE("network: distances are a metric and routes have their length") {
  for (const char* line : kMachines) {
    INFO(line);
    const auto net = make(line);
    const Network& n = *net;
    std::vector<Hop> path;
    for (int a = 0; a < n.nodes(); ++a)
      for (int b = 0; b < n.nodes(); ++b) {
        n.route(a, b, path);
        REQUIRE(static_cast<int>(path.size()) == n.hops(a, b));
        REQUIRE((a == b) == (n.hops(a, b) == 0));
        REQUIRE(n.hops(a, b) == n.hops(b, a));
        REQUIRE(n.weighted_distance(a, b) == Approx(n.weighted_distance(b, a)));
        for (const Hop& h : path) {
          REQUIRE(n.link_exists(h.link));
          REQUIRE(n.link_capacity(h.link) > 0);
        }
        for (int c = 0; c < n.nodes(); ++c) {
          REQUIRE(n.hops(a, c) <= n.hops(a, b) + n.hops(b, c));
          REQUIRE(n.weighted_distance(a, c) <= n.weighted_distance(a, b) + n.weighted_distance(b, c) + 1e-9);
        }
      }
    const auto all = n.all_pair_hops();
    REQUIRE(n.diameter() == *std::max_element(all.begin(), all.end()));
    REQUIRE(n.mean_hops() == Approx(std::accumulate(all.begin(), all.end(), 0.0) / static_cast<double>(all.size())));
  }
}

TEST_CASE("network: a row of the distance table is the distances from its node") {
  for (const char* line : kMachines) {
    INFO(line);
    const auto net = make(line);
    for (int a = 0; a < net->nodes(); ++a) {
      const double* row = net->weighted_row(a);
      REQUIRE(row != nullptr);
      for (int b = 0; b < net->nodes(); ++b) REQUIRE(row[b] == net->weighted_distance(a, b));
    }
  }
  // Above Network::kDistanceTableNodes there is no table, so no row.
  const auto big = make("torus=32x32x2");
  REQUIRE(big->nodes() > Network::kDistanceTableNodes);
  CHECK(big->weighted_row(0) == nullptr);
}

TEST_CASE("network: the sum of link loads is the sum of bytes x hops") {
  for (const char* line : kMachines) {
    INFO(line);
    const auto net = make(line);
    std::mt19937 rng(7);
    std::vector<NodeFlow> flows;
    double bytes_hops = 0;
    for (int i = 0; i < 200; ++i) {
      const int a = static_cast<int>(rng() % net->nodes()), b = static_cast<int>(rng() % net->nodes());
      const double bytes = 1 + static_cast<double>(rng() % 1000);
      flows.push_back({a, b, bytes});
      bytes_hops += bytes * net->hops(a, b);
    }
    const auto loads = net->link_loads(flows);
    REQUIRE(static_cast<int>(loads.size()) == net->link_slots());
    const LinkLoadSummary s = net->summarize_loads(loads);
    REQUIRE(s.total_bytes_on_links == Approx(bytes_hops));
    for (int l = 0; l < net->link_slots(); ++l)
      if (!net->link_exists(l)) REQUIRE(loads[l] == 0);
  }
}

TEST_CASE("network: neighbours, split and representative") {
  for (const char* line : kMachines) {
    INFO(line);
    const auto net = make(line);
    const Network& n = *net;
    for (int a = 0; a < n.nodes(); ++a)
      for (int b : n.neighbors(a)) {
        REQUIRE(b != a);
        REQUIRE(b >= 0);
        REQUIRE(b < n.nodes());
      }
    // Recursive split down to single nodes: parts are non-empty, disjoint and cover the set.
    std::vector<std::vector<int>> todo{std::vector<int>(static_cast<size_t>(n.nodes()))};
    std::iota(todo[0].begin(), todo[0].end(), 0);
    std::vector<int> seen(static_cast<size_t>(n.nodes()), 0);
    while (!todo.empty()) {
      std::vector<int> set = std::move(todo.back());
      todo.pop_back();
      const int rep = n.representative(set);
      REQUIRE(std::find(set.begin(), set.end(), rep) != set.end());
      if (set.size() == 1) {
        ++seen[set[0]];
        continue;
      }
      std::vector<int> sorted = set;
      size_t half = 0;
      n.split(set, half);
      REQUIRE(half > 0);
      REQUIRE(half < set.size());
      std::vector<int> after = set;
      std::sort(sorted.begin(), sorted.end());
      std::sort(after.begin(), after.end());
      REQUIRE(after == sorted);
      todo.emplace_back(set.begin(), set.begin() + static_cast<long>(half));
      todo.emplace_back(set.begin() + static_cast<long>(half), set.end());
    }
    REQUIRE(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
    std::vector<std::string> labels;
    for (int a = 0; a < n.nodes(); ++a) labels.push_back(n.node_label(a));
    std::sort(labels.begin(), labels.end());
    REQUIRE(std::unique(labels.begin(), labels.end()) == labels.end());
  }
}

TEST_CASE("network: only a torus answers as_torus") {
  REQUIRE(make("desmos")->as_torus() != nullptr);
  REQUIRE(make("desmos")->kind() == "torus");
  REQUIRE(make("fattree=2;4,4;1,2;1,2")->as_torus() == nullptr);
  REQUIRE(make("fattree=2;4,4;1,2;1,2")->kind() == "fattree");
}

TEST_CASE("fattree: SimGrid's 2;4,4;1,2;1,2 -- 16 hosts, 4 leaves, 2 spines, d-mod-k up") {
  const auto t = make("fattree=2;4,4;1,2;1,2 bw=1GB/s");
  REQUIRE(t->nodes() == 16);
  // Each host one up/down pair to its leaf, each leaf two pairs (one per spine).
  REQUIRE(t->link_count() == 2 * (16 * 1 + 4 * 2));
  REQUIRE(t->hops(0, 3) == 2);  // same leaf
  REQUIRE(t->hops(0, 4) == 4);  // over a spine
  REQUIRE(t->diameter() == 4);
  // Host -> leaf links carry one cable, leaf -> spine two.
  const auto path = t->route(0, 4);
  REQUIRE(path.size() == 4);
  REQUIRE(t->link_capacity(path[0].link) == Approx(1e9));
  REQUIRE(t->link_capacity(path[1].link) == Approx(2e9));
  REQUIRE(path[0].dir == Direction::plus);
  REQUIRE(path[3].dir == Direction::minus);
  REQUIRE(t->weighted_distance(0, 4) == Approx(2 * 1.0 + 2 * 0.5));
  // d-mod-k: destinations 4 and 5 leave leaf 0 towards different spines.
  REQUIRE(t->route(0, 4)[1].to != t->route(0, 5)[1].to);
  REQUIRE(t->route(0, 4)[1].to == t->route(1, 4)[1].to);
  // Splitting all hosts separates whole leaves.
  std::vector<int> all(16);
  std::iota(all.begin(), all.end(), 0);
  size_t half = 0;
  t->split(all, half);
  REQUIRE(half == 8);
  REQUIRE(t->node_label(6) == "(2,1)");
  std::vector<int> near;
  t->neighbors(6, near);
  REQUIRE(near == std::vector<int>{4, 5, 7});
}

TEST_CASE("fattree: taper divides the bandwidth between switch levels") {
  const auto t = make("fattree=2;4,4;1,2;1,2;taper=4 bw=1GB/s");
  const auto path = t->route(0, 4);
  REQUIRE(t->link_capacity(path[0].link) == Approx(1e9));
  REQUIRE(t->link_capacity(path[1].link) == Approx(0.5e9));
}

TEST_CASE("fattree: the distance cuts (every subtree below the top) price every pair at exactly its distance") {
  // Two and three levels, tapered, with parallel cables: the cuts are the
  // hosts (level 0) and the subtrees under each switch level but the top.
  const std::vector<std::pair<std::string, int>> trees = {{"fattree=2;4,4;1,2;1,2 bw=1GB/s", 16 + 4},
                                                          {"fattree=2;4,4;1,2;1,2;taper=4 bw=1GB/s", 16 + 4},
                                                          {"fattree=3;2,3,2;1,2,2;2,1,3 bw=1GB/s", 12 + 6 + 2}};
  for (const auto& [words, cuts] : trees) {
    INFO(words);
    const auto t = make(words);
    REQUIRE(t->check().ok());  // Network::check: the prices never overcharge
    REQUIRE(t->distance_cuts() == cuts);
    for (int a = 0; a < t->nodes(); ++a)
      for (int b = 0; b < t->nodes(); ++b) {
        const CutPrice price = t->separation_price(a, b);
        INFO("hosts " << a << " and " << b);
        CHECK(price.hops == Approx(t->hops(a, b)).margin(1e-12));
        CHECK(price.weighted == Approx(t->weighted_distance(a, b)).margin(1e-12));
      }
  }
  // By hand on the tapered tree: hosts 0 and 4 (different leaves) are
  // separated by their own two host cuts (1 each weighted: host links of
  // 1 GB/s) and their two leaves' subtrees (2 each: two cables of 1 GB/s
  // tapered 4x weigh 2): 4 hops, weighted 1 + 1 + 2 + 2.
  const auto tapered = make("fattree=2;4,4;1,2;1,2;taper=4 bw=1GB/s");
  REQUIRE(tapered->weighted_distance(0, 4) == Approx(6.0));
  REQUIRE(tapered->distance_cut_side(0, 0) == 1);   // host 0's own cut
  REQUIRE(tapered->distance_cut_side(16, 3) == 1);  // leaf 0's subtree holds hosts 0-3
  REQUIRE(tapered->distance_cut_side(16, 4) == 0);
  REQUIRE(tapered->distance_cut_price(16).weighted == Approx(2.0));
}

TEST_CASE("fattree: machine words round-trip and bad ones are refused") {
  auto m = parse_machine("fattree=2;4,4;1,2;1,2 node=package:1,core:4");
  REQUIRE(m.ok());
  REQUIRE(m->nodes() == 16);
  REQUIRE_FALSE(m->torus().ok());
  auto again = parse_machine(to_string(*m));
  REQUIRE(again.ok());
  REQUIRE(*again == *m);
  REQUIRE(parse_machine("desmos fattree=2;4,4;1,2;1,2").ok());  // a preset's torus gives way
  for (const char* bad : {"fattree=2;4;1,2;1,2", "fattree=0;;;", "fattree=2;4,4;1,0;1,2", "fattree=2;4,4;1,2",
                          "fattree=2;4,4;1,2;1,2;taper=0.5", "fattree=2;4,4;1,2;1,2 torus=4x4", "fattree=5;2,2,2,2,2;1,1,1,1,1;1,1,1,1,1"}) {
    INFO(bad);
    REQUIRE_FALSE(parse_machine(bad).ok());
  }
}

TEST_CASE("dragonfly: SimGrid's 3,4;4,3;5,1;2 -- 120 hosts, minimal routing through the group gateways") {
  const auto t = make("dragonfly=3,4;4,3;5,1;2 bw=1GB/s");
  REQUIRE(t->nodes() == 120);
  REQUIRE(t->kind() == "dragonfly");
  // Host numbering: host fastest, then blade (router), chassis, group.
  REQUIRE(t->node_label(0) == "(0,0,0,0)");
  REQUIRE(t->node_label(1 + 2 * (3 + 5 * (1 + 4 * 2))) == "(2,1,3,1)");
  auto host = [](int g, int c, int b, int n) { return n + 2 * (b + 5 * (c + 4 * g)); };
  REQUIRE(t->hops(host(0, 0, 0, 0), host(0, 0, 0, 1)) == 2);  // same router
  REQUIRE(t->hops(host(0, 1, 0, 0), host(0, 1, 4, 0)) == 3);  // green
  REQUIRE(t->hops(host(0, 1, 2, 0), host(0, 3, 2, 0)) == 3);  // black
  REQUIRE(t->hops(host(0, 1, 2, 0), host(0, 3, 4, 0)) == 4);  // green, black
  // To group 2: green to blade 2, black to chassis 0, blue to (2,0,0), green, black.
  const auto path = t->route(host(0, 1, 3, 0), host(2, 3, 4, 1));
  REQUIRE(path.size() == 7);
  std::vector<int> dims;
  for (const Hop& h : path) dims.push_back(h.dim);
  REQUIRE(dims == std::vector<int>{0, 1, 2, 3, 1, 2, 0});
  REQUIRE(t->link_capacity(path[1].link) == Approx(1e9));  // green: 1 cable
  REQUIRE(t->link_capacity(path[2].link) == Approx(3e9));  // black: 3 cables
  REQUIRE(t->link_capacity(path[3].link) == Approx(4e9));  // blue: 4 cables
  // The gateway of group 0 towards group 2 is its router (chassis 0, blade 2):
  // a host there reaches group 2 over the blue link first.
  REQUIRE(t->route(host(0, 0, 2, 0), host(2, 0, 0, 0))[1].dim == 3);
  REQUIRE(t->hops(host(0, 0, 2, 0), host(2, 0, 0, 0)) == 3);
  REQUIRE(t->diameter() == 7);
  REQUIRE_FALSE(parse_machine("dragonfly=6,1;1,1;5,1;1").ok());  // 6 groups need 6 routers per chassis
  REQUIRE_FALSE(parse_machine("dragonfly=3,4;4,3;5,1").ok());
  REQUIRE_FALSE(parse_machine("dragonfly=3,4;4;5,1;2").ok());
  REQUIRE_FALSE(parse_machine("dragonfly=3,4;4,3;5,1;0").ok());
}
