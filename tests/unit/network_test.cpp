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
    REQUIRE(n.mean_hops() == Approx(std::accumulate(all.begin(), all.end(), 0.0) / all.size()));
  }
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
      const double bytes = 1 + rng() % 1000;
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
}
