// The mapping algorithms: capacities, determinism, edge cases, optimality on
// a matching stencil, and the default's guarantee against paper and scotch.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "rankmap/mapper.hpp"
#include "rankmap/profile.hpp"

using namespace rankmap;
using test::platform_of;

namespace {

Traffic synth_traffic(const std::string& pattern, int ranks, std::uint64_t seed = 1, std::vector<int> shape = {}) {
  SynthSpec s;
  s.pattern = pattern;
  s.ranks = ranks;
  s.seed = seed;
  s.shape = shape;
  return test::synth_traffic(s);
}

// Random partners: `degree` per rank, drawn from `seed`.
Traffic random_traffic(int ranks, int degree, std::uint64_t seed) {
  SynthSpec s;
  s.pattern = "random";
  s.ranks = ranks;
  s.degree = degree;
  s.seed = seed;
  return test::synth_traffic(s);
}

std::vector<Placement> run(const Traffic& t, const Platform& pf, const std::string& algo, int ppn = 0,
                           std::vector<int> nodes = {}, std::uint64_t seed = 1, Preset preset = Preset::standard) {
  MapOptions o;
  o.preset = preset;
  o.algorithm = algo;
  o.ppn = ppn;
  o.nodes = nodes;
  o.seed = seed;
  auto r = map_ranks(t, pf, o);
  INFO(algo << ": " << (r.ok() ? "" : r.error().message));
  REQUIRE(r.ok());
  return r->placement;
}

// True if one of the mapper's notes contains `text`.
bool has(const std::vector<std::string>& notes, const std::string& text) {
  return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

std::vector<int> all_nodes(int n) {
  std::vector<int> all(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) all[i] = i;
  return all;
}

Metrics metrics(const Traffic& t, const Platform& pf, const std::vector<Placement>& pl, int ppn) {
  auto m = evaluate(t, pl, pf, EvaluateOptions{ppn, {}, true, nullptr});
  REQUIRE(m.ok());
  return *m;
}

// A profile recorded from a mini-app (tests/mapper/data, copied from
// bench/profiles), as the traffic the mapper sees.
Traffic recorded_traffic(const std::string& file) {
  auto profile = read_profile(std::string(RANKMAP_TEST_DATA) + "/" + file);
  REQUIRE(profile.ok());
  auto t = traffic_from_profile(*profile, CollectiveModel::model);
  REQUIRE(t.ok());
  return *t;
}

// Every run gave the first one's placement, notes and alternatives (names
// and placements): the default on several thread counts.
void same_outcomes(const std::vector<MapOutcome>& runs) {
  for (size_t i = 1; i < runs.size(); ++i) {
    CHECK(runs[i].placement == runs[0].placement);
    CHECK(runs[i].notes == runs[0].notes);
    REQUIRE(runs[i].alternatives.size() == runs[0].alternatives.size());
    for (size_t a = 0; a < runs[0].alternatives.size(); ++a) {
      CHECK(runs[i].alternatives[a].name == runs[0].alternatives[a].name);
      CHECK(runs[i].alternatives[a].placement == runs[0].alternatives[a].placement);
    }
  }
}

}  // namespace

TEST_CASE("algorithms: registry") {
  REQUIRE(algorithms().front().name == default_algorithm());
  std::set<std::string> names;
  for (const auto& a : algorithms()) names.insert(a.name);
  CHECK(names == std::set<std::string>{"rankmap", "block", "round-robin", "random", "paper", "scotch"});
  CHECK(find_algorithm("scotch") != nullptr);
  CHECK(find_algorithm("metis") == nullptr);
}

TEST_CASE("algorithms: block and round-robin are what launchers do") {
  const Platform pf = platform_of("torus=4 node=core:4");
  const Traffic t = synth_traffic("ring", 6);
  CHECK(run(t, pf, "block", 2) == std::vector<Placement>{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}});
  CHECK(run(t, pf, "round-robin", 2) == std::vector<Placement>{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}, {1, 1}});
  CHECK(run(t, pf, "block", 2, {3, 1, 2}) == std::vector<Placement>{{3, 0}, {3, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}});
}

TEST_CASE("algorithms: capacities always respected, every algorithm, random inputs") {
  // The default searches every shape in full at the first seed, and at the
  // others at `fast` (its starts, descent, relief and cores): in full, its
  // 2-5 s a run here took the test past the sanitizer pass's 15 minutes
  // (the presets' test below keeps their capacity in full too).
  const Platform pf = platform_of("torus=4x3x2 links=2x1x1 node=package:2,core:3");
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    for (int ranks : {1, 5, 37, 72}) {
      const Traffic t = ranks > 6 ? synth_traffic("random", ranks, seed) : synth_traffic("ring", ranks);
      for (const auto& a : algorithms())
        for (int ppn : {1, 3, 6}) {
          if (ranks > 24 * ppn) continue;
          INFO(a.name << " ranks " << ranks << " ppn " << ppn << " seed " << seed);
          const Preset preset = a.name == default_algorithm() && seed > 1 ? Preset::fast : Preset::standard;
          const auto pl = run(t, pf, a.name, ppn, {}, seed, preset);
          CHECK(check_placement(pl, ranks, pf, Allocation::uniform(pf.net().nodes(), all_nodes(24), ppn)).ok());
        }
    }
  }
}

TEST_CASE("algorithms: a node subset from the allocation is honoured") {
  const Platform pf = platform_of("torus=4x4 node=core:4");
  const Traffic t = synth_traffic("stencil2d", 24);
  const std::vector<int> nodes = {15, 2, 7, 8, 11, 12};
  for (const auto& a : algorithms()) {
    INFO(a.name);
    const auto pl = run(t, pf, a.name, 4, nodes);
    CHECK(check_placement(pl, 24, pf, Allocation::uniform(pf.net().nodes(), nodes, 4)).ok());
  }
}

TEST_CASE("algorithms: deterministic for a seed") {
  const Platform pf = platform_of("torus=4x2x2 node=package:2,core:2");
  const Traffic t = synth_traffic("random", 60, 3);
  for (const auto& a : algorithms()) {
    INFO(a.name);
    CHECK(run(t, pf, a.name, 4, {}, 11) == run(t, pf, a.name, 4, {}, 11));
  }
  CHECK_FALSE(run(t, pf, "random", 4, {}, 11) == run(t, pf, "random", 4, {}, 12));
}

TEST_CASE("algorithms: one group, one rank per group, fewer ranks than slots") {
  const Platform pf = platform_of("torus=4x4 node=core:8");
  // All ranks fit on one node: METIS would be asked for nparts = 1.
  const Traffic small = synth_traffic("ring", 6);
  for (const char* a : {"paper", "rankmap"}) {
    const auto pl = run(small, pf, a, 8);
    std::set<int> used;
    for (const auto& p : pl) used.insert(p.node);
    CHECK(used.size() == 1);
  }
  // ppn 1: nparts == vertices.
  const Traffic ring = synth_traffic("ring", 16);
  for (const char* a : {"paper", "rankmap", "scotch"}) CHECK(check_placement(run(ring, pf, a, 1), 16, pf, Allocation::uniform(pf.net().nodes(), all_nodes(16), 1)).ok());
}

TEST_CASE("algorithms: refuses more ranks than slots and ppn above the cores") {
  const Platform pf = platform_of("torus=2x2 node=core:2");
  const Traffic t = synth_traffic("ring", 9);
  MapOptions o;
  auto r = map_ranks(t, pf, o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "9 ranks do not fit on 4 nodes x 2 ranks per node (8 slots)");
  o.ppn = 3;
  r = map_ranks(synth_traffic("ring", 4), pf, o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "--ppn 3 exceeds the 2 cores of a node");
  o.ppn = 0;
  o.algorithm = "magic";
  r = map_ranks(synth_traffic("ring", 4), pf, o);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("unknown algorithm 'magic'"));
}

TEST_CASE("algorithms: a torus-shaped stencil, one rank per node, is mapped to the optimum") {
  // 4x4x4 7-point stencil with a scrambled rank order on a 4x4x4 torus: the
  // optimum puts every pair on neighbouring nodes, hop-bytes = bytes, which
  // is also the lower bound.
  const Platform pf = platform_of("torus=4x4x4 node=core:1");
  for (std::uint64_t seed : {1, 2}) {
    const Traffic t = synth_traffic("stencil3d-shuffled", 64, seed);
    const Metrics m = metrics(t, pf, run(t, pf, "rankmap", 1, {}, seed), 1);
    CHECK(m.lower_bound_hop_bytes == t.total_bytes());
    CHECK(m.hop_bytes == m.lower_bound_hop_bytes);
    CHECK(m.gap_hop_bytes == 0);
  }
}

TEST_CASE("algorithms: a ring is embedded along a Hamiltonian cycle of the nodes") {
  // 4 consecutive ranks per node and consecutive nodes one hop apart: every
  // inter-node edge is one hop and every directed link carries one flow,
  // the optimum of both cost and max link load.
  for (const char* machine : {"desmos", "torus=8x8 node=package:2,core:4"}) {
    INFO(machine);
    const Platform pf = platform_of(machine);
    const int ranks = 4 * pf.net().nodes();
    const Traffic t = synth_traffic("ring", ranks);
    const double pair_bytes = t.flows.front().bytes;
    const Metrics m = metrics(t, pf, run(t, pf, "rankmap", 4), 4);
    CHECK(m.max_dilation == 1);
    CHECK(m.hop_bytes == Approx(2.0 * pf.net().nodes() * pair_bytes).epsilon(1e-12));
    CHECK(m.max_link_relative == Approx(pair_bytes / test::torus_of(pf).link_bw()).epsilon(1e-12));
  }
}

TEST_CASE("algorithms: a 2D stencil shaped like the 2D torus, 4 ranks per node, gets 2x2 squares in torus order") {
  // 16x16 periodic stencil on 8x8 nodes: a 2x2 square per node has the fewest
  // cut edges (8), and squares laid out as the torus put each one hop from
  // its neighbours: 512 directed one-hop edges, and each directed link
  // carries the two flows of the two rank pairs across one side of a square.
  // (It relies on the row-major numbering, as Mt-KaHyPar's optimum does not.)
  const Platform pf = platform_of("torus=8x8 node=package:2,core:4");
  const Traffic t = synth_traffic("stencil2d", 256, 1, {16, 16});
  const double pair_bytes = t.flows.front().bytes;
  const Metrics m = metrics(t, pf, run(t, pf, "rankmap", 4), 4);
  CHECK(m.max_dilation == 1);
  CHECK(m.hop_bytes == Approx(512 * pair_bytes).epsilon(1e-12));
  CHECK(m.max_link_relative == Approx(2 * pair_bytes / test::torus_of(pf).link_bw()).epsilon(1e-12));
  // The triangle-free lower bound (a node keeps at most 4 of the edges of its
  // 4 ranks) is met exactly: the mapping is optimal and the bound tight.
  CHECK(m.lower_bound_weighted == Approx(m.weighted_cost).epsilon(1e-12));
}

TEST_CASE("algorithms: the default's max link load is no worse than block's on small cases") {
  struct Case {
    const char* machine;
    const char* pattern;
    int ranks;
    int ppn;
  };
  const Case cases[] = {{"desmos", "ring", 128, 4},
                        {"desmos", "stencil2d", 128, 4},
                        {"torus=8x8 node=package:2,core:4", "ring", 256, 4},
                        {"torus=8x8 node=package:2,core:4", "stencil2d", 256, 4},
                        {"torus=8x4x4 node=package:2,core:4", "ring", 256, 2}};
  for (const Case& c : cases) {
    INFO(c.machine << " " << c.pattern);
    const Platform pf = platform_of(c.machine);
    const Traffic t = synth_traffic(c.pattern, c.ranks);
    const Metrics best = metrics(t, pf, run(t, pf, "rankmap", c.ppn), c.ppn);
    const Metrics block = metrics(t, pf, run(t, pf, "block", c.ppn), c.ppn);
    CHECK(best.max_link_relative <= block.max_link_relative * (1 + 1e-12));
    CHECK(best.weighted_cost <= block.weighted_cost * (1 + 1e-12));
  }
}

TEST_CASE("algorithms: the default is never worse than block on cost nor beyond the tie on its busiest link, nor than paper or scotch on cost") {
  struct Case {
    const char* machine;
    const char* pattern;
    int ranks;
    int ppn;
  };
  const Case cases[] = {
      {"desmos", "stencil3d", 128, 4},   {"desmos", "stencil27", 128, 4},      {"desmos", "random", 128, 4},
      {"desmos", "ring", 100, 4},        {"torus=4x4x2 links=2x1x1 node=package:2,core:2", "stencil2d", 128, 4},
      {"torus=4x4x2 links=2x1x1 node=package:2,core:2", "stencil3d-shuffled", 120, 4},
  };
  for (const Case& c : cases) {
    INFO(c.machine << " " << c.pattern);
    const Platform pf = platform_of(c.machine);
    const Traffic t = synth_traffic(c.pattern, c.ranks);
    const Metrics best = metrics(t, pf, run(t, pf, "rankmap", c.ppn), c.ppn);
    const Metrics block = metrics(t, pf, run(t, pf, "block", c.ppn), c.ppn);
    CHECK(best.weighted_cost <= block.weighted_cost * (1 + 1e-12));
    CHECK(best.max_link_relative <= block.max_link_relative * (1 + 1e-3));  // the choice's tie
    for (const char* other : {"paper", "scotch"}) {
      // paper and scotch are candidates; the cost-first choice takes one of
      // them or something cheaper whenever it is no worse than block, and the
      // link relief after it may spend at most 1% of cost (docs/mapper.md).
      INFO(other);
      const Metrics m = metrics(t, pf, run(t, pf, other, c.ppn), c.ppn);
      if (m.weighted_cost <= block.weighted_cost && m.max_link_relative <= block.max_link_relative)
        CHECK(best.weighted_cost <= m.weighted_cost * 1.01);
    }
    CHECK(best.weighted_cost >= best.lower_bound_weighted * (1 - 1e-12));
    CHECK(block.weighted_cost >= block.lower_bound_weighted * (1 - 1e-12));
  }
}

TEST_CASE("algorithms: a grid numbered out of order gets the tiling its numbered twin gets") {
  // A 10x5x5 stencil, ranks shuffled, on a 5x5x5 torus at 2 per node: the
  // grid found in the graph is tiled by 2x1x1 blocks folded onto the torus,
  // the cost of the row-major numbered grid's mapping (the lower bound).
  const Platform pf = platform_of("torus=5x5x5 node=package:2,core:1");
  MapOptions o;
  o.algorithm = "rankmap";
  o.ppn = 2;
  const Traffic plain = synth_traffic("stencil3d", 250, 1, {10, 5, 5});
  const Traffic shuffled = synth_traffic("stencil3d-shuffled", 250, 1, {10, 5, 5});
  auto numbered = map_ranks(plain, pf, o);
  auto found = map_ranks(shuffled, pf, o);
  REQUIRE(numbered.ok());
  REQUIRE(found.ok());
  const Metrics a = metrics(plain, pf, numbered->placement, 2), b = metrics(shuffled, pf, found->placement, 2);
  CHECK(b.weighted_cost == Approx(a.weighted_cost).epsilon(1e-12));
  CHECK(b.weighted_cost == Approx(b.lower_bound_weighted).epsilon(1e-12));
  CHECK(has(found->notes, "chose grid["));
}

TEST_CASE("algorithms: intra-node placement keeps heavy pairs in one package") {
  // Two packages of two cores; ranks 0-3 on one node. Pairs {0,3} and {1,2}
  // talk heavily, so each pair must share a package: no heavy bytes cross.
  const Platform pf = platform_of("torus=2 node=package:2,core:2");
  Traffic t;
  t.ranks = 4;
  t.flows = {{0, 1, 1, 1}, {0, 3, 1, 1000}, {1, 2, 1, 1000}, {2, 3, 1, 1}};
  const auto pl = run(t, pf, "paper", 4);
  const Metrics m = metrics(t, pf, pl, 4);
  CHECK(m.cross_package_bytes == 2);
  const Metrics block = metrics(t, pf, run(t, pf, "block", 4), 4);
  CHECK(block.cross_package_bytes == 2000);
}

TEST_CASE("algorithms: ties go to block, so a uniform all-to-all keeps the launcher's placement") {
  // Every full placement of a uniform all-to-all has the same cost and link
  // loads: nothing justifies moving ranks away from block.
  const Platform pf = platform_of("desmos");
  const Traffic t = synth_traffic("alltoall", 64);
  const auto chosen = run(t, pf, "rankmap", 2);
  const auto block = run(t, pf, "block", 2);
  CHECK(chosen == block);
  // The same through the tie rule after a full search (a replay's
  // shortlist skips the shortcut for uniform all-to-alls).
  MapOptions o;
  o.ppn = 2;
  o.alternatives = 2;
  auto searched = map_ranks(t, pf, o);
  REQUIRE(searched.ok());
  CHECK(searched->placement == block);
  CHECK(has(searched->notes, "no candidate beat block by more than 0.1%"));
  // A pattern with a real gain is still mapped away from block.
  const Traffic s = synth_traffic("stencil3d-shuffled", 64);
  CHECK(run(s, pf, "rankmap", 2) != run(s, pf, "block", 2));
}

namespace {

// 96 ranks at 3 per node on desmos, seed 5: the placement fits and is the same twice.
void check_preset_keeps_capacity_and_seed(const Traffic& t, const Platform& pf, Preset preset) {
  INFO(preset_name(preset));
  MapOptions o;
  o.ppn = 3;
  o.seed = 5;
  o.preset = preset;
  auto a = map_ranks(t, pf, o);
  auto b = map_ranks(t, pf, o);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(check_placement(a->placement, 96, pf, Allocation::uniform(pf.net().nodes(), all_nodes(32), 3)).ok());
  CHECK(a->placement == b->placement);
}

}  // namespace

TEST_CASE("algorithms: presets by name, and every preset keeps the capacity and its seed") {
  CHECK(parse_preset("fast").value() == Preset::fast);
  CHECK(parse_preset("default").value() == Preset::standard);
  CHECK(parse_preset("strong").value() == Preset::strong);
  CHECK(!parse_preset("quick").ok());
  CHECK(std::string(preset_name(Preset::standard)) == "default");
  const Platform pf = platform_of("desmos");
  const Traffic t = synth_traffic("random", 96, 3);
  for (Preset preset : {Preset::fast, Preset::standard}) check_preset_keeps_capacity_and_seed(t, pf, preset);
}

// Apart from the test above because the sanitizer pass (scripts/sanitize.sh)
// leaves it out: `strong` runs the default's code with 5x its budgets and
// the default itself at 4 seeds, which took 6-8 minutes there (Debug + ASan)
// of a 15-minute timeout.
TEST_CASE("algorithms: the strong preset keeps the capacity and its seed") {
  check_preset_keeps_capacity_and_seed(synth_traffic("random", 96, 3), platform_of("desmos"), Preset::strong);
}

TEST_CASE("algorithms: the strong preset weighs the default's mappings too, so it is never dearer unless predicted faster") {
  // Strong's longer searches can end in dearer basins than the default's
  // (recorded CG at 192 ranks on desmos at 6 per node, every seed measured):
  // the default's mapping at the same seed is one of its candidates, and so
  // are the default's at 3 more seeds.
  const Platform pf = platform_of("desmos");
  const Traffic t = synth_traffic("random", 96, 3);
  MapOptions o;
  o.ppn = 3;
  o.seed = 7;
  auto standard = map_ranks(t, pf, o);
  o.preset = Preset::strong;
  o.alternatives = 64;
  auto strong = map_ranks(t, pf, o);
  REQUIRE(standard.ok());
  REQUIRE(strong.ok());
  CHECK(std::any_of(strong->alternatives.begin(), strong->alternatives.end(),
                    [](const Alternative& a) { return a.name.rfind("default", 0) == 0; }));
  // Never dearer than the default but where the bulk model (docs/mapper.md,
  // step 4) predicts strong's placement faster: at this seed strong trades
  // 1.7% of cost over the default's mapping (its side lineage's, session
  // 44) for a busiest link 10% lighter, which the evaluator's bulk model
  // predicts 7.1% faster.
  const Metrics strong_m = metrics(t, pf, strong->placement, 3);
  const Metrics default_m = metrics(t, pf, standard->placement, 3);
  if (strong_m.weighted_cost > default_m.weighted_cost) {
    REQUIRE(std::isfinite(strong_m.predicted_bulk_time));
    REQUIRE(std::isfinite(default_m.predicted_bulk_time));
    CHECK(strong_m.predicted_bulk_time < default_m.predicted_bulk_time);
  }
}

TEST_CASE("algorithms: the strong preset is never beaten by scotch's own mapping on cost or busiest link") {
  // 32 ranks of random partners (degree 2) on an 8x2 torus at 2 per node:
  // the default's cheapest placement has a 25% busier link than Scotch's
  // own mapping (`scotch`, what a user would otherwise run), for 11% less
  // cost, a trade the default's objective makes. Strong's limits (docs/
  // mapper.md, step 4, *Limits*) are Scotch's cost and busiest link too:
  // the cheapest candidates are relieved under them, and its choice is no
  // worse than Scotch's on either metric.
  const Platform pf = platform_of("torus=8x2 node=package:2,core:4");
  const Traffic t = random_traffic(32, 2, 4);
  MapOptions o;
  o.ppn = 2;
  auto run = [&](const std::string& algorithm, Preset preset) {
    o.algorithm = algorithm;
    o.preset = preset;
    auto r = map_ranks(t, pf, o);
    REQUIRE(r.ok());
    return metrics(t, pf, r->placement, 2);
  };
  const Metrics scotch = run("scotch", Preset::standard);
  const Metrics standard = run("rankmap", Preset::standard);
  const Metrics strong = run("rankmap", Preset::strong);
  // The instance is one where the limits bind: the default's choice is
  // cheaper than Scotch's but has the busier link.
  REQUIRE(standard.weighted_cost < scotch.weighted_cost);
  REQUIRE(standard.max_link_relative > scotch.max_link_relative * 1.2);
  CHECK(strong.weighted_cost <= scotch.weighted_cost);
  CHECK(strong.max_link_relative <= scotch.max_link_relative * (1 + 1e-9));
  // ... and still cheaper than Scotch's and block's.
  CHECK(strong.weighted_cost < scotch.weighted_cost * 0.95);
}

TEST_CASE("algorithms: the strong preset weighs a busiest-link step dearer than the relief's 1% by the bulk model") {
  // 32 ranks of random partners (degree 4) on an 8x2 torus at 2 per node.
  // A busiest link carries whole 1 MiB flows, so it falls in steps of one
  // flow: from strong's static choice (8 MiB on the busiest link) the step
  // to 7 MiB costs 2.49%, which the relief's rate (1% of cost) never pays.
  // Strong relieves its choice at up to the bulk model's 3% too, and the
  // model takes that placement for the time it predicts (9.4% faster).
  const Platform pf = platform_of("torus=8x2 node=package:2,core:4");
  const Traffic t = random_traffic(32, 4, 1);
  MapOptions o;
  o.ppn = 2;
  o.preset = Preset::strong;
  o.bulk_model = false;
  auto fixed = map_ranks(t, pf, o);
  o.bulk_model = true;
  auto judged = map_ranks(t, pf, o);
  REQUIRE(fixed.ok());
  REQUIRE(judged.ok());
  const Metrics before = metrics(t, pf, fixed->placement, 2);
  const Metrics after = metrics(t, pf, judged->placement, 2);
  CHECK(before.weighted_cost == 189792256.0);
  CHECK(before.max_link_load == 8388608.0);
  CHECK(after.weighted_cost == 194510848.0);
  CHECK(after.max_link_load == 7340032.0);
  // The model's rate: at least 3% faster, no more cost than time saved.
  const double gain = 1 - after.predicted_bulk_time / before.predicted_bulk_time;
  CHECK(gain >= 0.03);
  CHECK(after.weighted_cost / before.weighted_cost - 1 <= gain);
}

TEST_CASE("algorithms: a 3D stencil on a 2D torus gets 1x1x4 columns laid out as the torus (every preset)") {
  // 8x8x4 periodic stencil, rank = x + 8y + 64z, on 8x8 nodes at 4 per node:
  // 2x2x1 squares and 1x1x4 columns cut equally many edges, but only the
  // columns' group graph is the 8x8 torus itself. Columns keep all 256 z
  // edges inside and put every x and y edge one hop apart: 512 undirected
  // edges x 2 directions at one hop, which the triangle-free bound proves
  // optimal. The matching start with ties to the highest index merges along
  // z first and finds it from the rank numbering.
  const Platform pf = platform_of("torus=8x8 node=package:2,core:4");
  const Traffic t = synth_traffic("stencil3d", 256, 1, {8, 8, 4});
  const double pair_bytes = t.flows.front().bytes;
  for (Preset preset : {Preset::fast, Preset::standard}) {
    INFO(preset_name(preset));
    MapOptions o;
    o.ppn = 4;
    o.preset = preset;
    auto r = map_ranks(t, pf, o);
    REQUIRE(r.ok());
    const Metrics m = metrics(t, pf, r->placement, 4);
    CHECK(m.hop_bytes == Approx(1024 * pair_bytes).epsilon(1e-12));
    CHECK(m.lower_bound_weighted == Approx(m.weighted_cost).epsilon(1e-12));
    CHECK(m.max_dilation == 1);
  }
}

TEST_CASE("algorithms: where every search ends at one cost, the default tries starts from a graph-built target") {
  // The mini-app CG at 64 ranks (8x8 process grid: recursive doubling along
  // the rows, the transpose exchange, allreduces), recorded for a 4x4 torus
  // at 4 per node (bench/profiles/4x4-4/cg.prof). Every start of the default
  // and every search from them ends at one cost, the cost `fast` reaches;
  // Scotch on the decomposition-defined target built from the torus graph
  // leads to a cheaper basin: 2.70-2.89e8 against 3.00e8 at 20 of 20 seeds
  // with 32 runs of it (at seed 2 none of 8 runs found one).
  const Traffic t = recorded_traffic("cg64-4x4.prof");
  const Platform pf = platform_of("torus=4x4 node=package:2,core:4");
  MapOptions o;
  o.ppn = 4;
  o.preset = Preset::fast;
  auto fast = map_ranks(t, pf, o);
  REQUIRE(fast.ok());
  const double basin = metrics(t, pf, fast->placement, 4).weighted_cost;
  o.preset = Preset::standard;
  for (std::uint64_t seed : {1, 2}) {
    o.seed = seed;
    auto r = map_ranks(t, pf, o);
    REQUIRE(r.ok());
    CHECK(metrics(t, pf, r->placement, 4).weighted_cost < 0.97 * basin);
  }
}

TEST_CASE("algorithms: the regrouping search takes recorded CG 64 on 4x4 to one placement cost at every seed") {
  // The same CG: the cheaper basins Scotch's graph-built target leads to
  // ended at 2.70-2.89e8 by seed (6.9% apart, busiest link 0.80-1.20 ms);
  // the regrouping search, which places every node group anew after each
  // kick, ends at 2.70168e8 and 0.8006 ms at every one of seeds 1-15.
  const Traffic t = recorded_traffic("cg64-4x4.prof");
  const Platform pf = platform_of("torus=4x4 node=package:2,core:4");
  MapOptions o;
  o.ppn = 4;
  for (std::uint64_t seed : {2, 4, 5}) {  // the seeds that ended at 2.889e8 before
    INFO("seed " << seed);
    o.seed = seed;
    auto r = map_ranks(t, pf, o);
    REQUIRE(r.ok());
    const Metrics m = metrics(t, pf, r->placement, 4);
    CHECK(m.weighted_cost == Approx(2.70168e8).epsilon(1e-5));
    CHECK(m.max_link_relative == Approx(8.006e-4).epsilon(1e-3));
  }
}

TEST_CASE("algorithms: where the tabu search finds nothing, another start family gets one") {
  // The mini-app ADI at 128 ranks recorded for desmos at 4 per node
  // (bench/profiles/desmos-4/adi.prof). At seed 2 the tabu search from the
  // cheapest placement ends where it started, 2.381e8; the cheapest
  // placement of another start family leads to 2.356e8, where the other
  // seeds end too.
  // (The choice then takes a dearer placement the time model predicts
  // faster: the next test. The cheaper one is among the alternatives.)
  const Traffic t = recorded_traffic("adi128-desmos4.prof");
  const Platform pf = platform_of("desmos");
  MapOptions o;
  o.ppn = 4;
  o.seed = 2;
  o.alternatives = 8;
  auto r = map_ranks(t, pf, o);
  REQUIRE(r.ok());
  double cheapest = 1e300;
  for (const Alternative& a : r->alternatives) cheapest = std::min(cheapest, metrics(t, pf, a.placement, 4).weighted_cost);
  CHECK(cheapest < 2.37e8);
}

TEST_CASE("algorithms: on a mesh a ring in rank order becomes a Hamiltonian cycle") {
  // 128 ranks on an 8x8 mesh at 2 per node: the snake ends 7 hops from its
  // first node; the cycle start puts every one of the 64 inter-node ring
  // edges (2 MiB each, both directions) on one hop, the optimum.
  const Traffic t = synth_traffic("ring", 128);
  const Platform pf = platform_of("torus=8x8 wrap=0x0 node=package:2,core:4");
  const Metrics m = metrics(t, pf, run(t, pf, "rankmap", 2), 2);
  CHECK(m.weighted_cost == Approx(64.0 * 2 * 1048576).epsilon(1e-9));
}

TEST_CASE("algorithms: under block's light busiest link the default still goes far below block's cost") {
  // Recorded ADI at 128 ranks on an 8x8 mesh at 2 per node. Block's busiest
  // link (0.450 ms) is lighter than that of every cheaper placement the
  // searches found (the cheapest, 4.79e8, at 0.513 ms), so at seed 1 the
  // choice fell back on block itself, 5.93e8. Relieved under block's
  // busiest link, a candidate 16% cheaper than block is no heavier.
  const Traffic t = recorded_traffic("adi128-desmos4.prof");
  const Platform pf = platform_of("torus=8x8 wrap=0x0 node=package:2,core:4");
  const Metrics blk = metrics(t, pf, run(t, pf, "block", 2), 2);
  const Metrics m = metrics(t, pf, run(t, pf, "rankmap", 2), 2);
  CHECK(m.weighted_cost < 0.85 * blk.weighted_cost);
  CHECK(m.max_link_relative <= blk.max_link_relative);
}

TEST_CASE("algorithms: of placements tied on cost and busiest link, the one that keeps more bytes on nodes") {
  // Recorded NAS FT at 128 ranks on a 4x32 process grid on desmos at 4 per
  // node (bench/peers/heldout.sh): a transpose within every row of 32
  // consecutive ranks, then within every column of 4 (ranks c, c+32, c+64,
  // c+96). Block's quarter rows and whole columns on nodes tie on cost and
  // busiest link; the columns leave 40% fewer bytes to the network (their
  // transposes stay on the nodes), and SimGrid runs them 0.62x as long. The
  // default used to keep block there (a tie).
  const Platform pf = platform_of("desmos");
  const Traffic t = recorded_traffic("ft128-4x32-desmos4.prof");
  const auto chosen = run(t, pf, "rankmap", 4);
  const Metrics blk = metrics(t, pf, run(t, pf, "block", 4), 4);
  const Metrics m = metrics(t, pf, chosen, 4);
  CHECK(m.weighted_cost <= blk.weighted_cost * 1.001);
  CHECK(m.max_link_relative <= blk.max_link_relative * 1.001);
  CHECK(m.inter_node_bytes < 0.6 * blk.inter_node_bytes);
  // Every node holds one whole column.
  std::vector<std::set<int>> columns(32);
  for (int r = 0; r < 128; ++r) columns[static_cast<size_t>(chosen[static_cast<size_t>(r)].node)].insert(r % 32);
  for (const auto& c : columns) CHECK(c.size() == 1);
}

TEST_CASE("algorithms: the bulk model takes MG's runs of the process grid, which the time model ranks second") {
  // The mini-app MG at 128 ranks recorded for desmos at 4 per node
  // (bench/profiles/desmos-4/mg.prof, an 8x4x4 grid). The static choice is
  // Scotch's 2x1x2 node blocks (2.38503e8); 4x1x1 runs along the heaviest
  // axis cost 2.7% more on the same busiest link, the time model predicts
  // them 6.6% slower, the bulk model 3.9% faster, and SimGrid runs the
  // program on them 0.82x as long (docs/benchmarks.md, "The bulk model's
  // choice against the static choice").
  const Traffic t = recorded_traffic("mg128-desmos4.prof");
  auto profile = read_profile(std::string(RANKMAP_TEST_DATA) + "/mg128-desmos4.prof");
  REQUIRE(profile.ok());
  auto p2p = traffic_from_profile(*profile, CollectiveModel::ignore);
  REQUIRE(p2p.ok());
  const Platform pf = platform_of("desmos");
  MapOptions o;
  o.ppn = 4;
  o.point_to_point = &*p2p;
  auto bulk = map_ranks(t, pf, o);
  o.bulk_model = false;
  auto fixed = map_ranks(t, pf, o);
  REQUIRE(bulk.ok());
  REQUIRE(fixed.ok());
  const Metrics a = metrics(t, pf, bulk->placement, 4), b = metrics(t, pf, fixed->placement, 4);
  CHECK(b.weighted_cost == Approx(2.38503e8).epsilon(1e-5));
  CHECK(a.weighted_cost == Approx(2.45048e8).epsilon(1e-5));
  CHECK(a.max_link_relative <= b.max_link_relative * 1.001);
  CHECK(std::any_of(bulk->notes.begin(), bulk->notes.end(),
                    [](const std::string& n) { return n.find("the bulk model predicts 3.9% faster") != std::string::npos; }));
  CHECK(predicted_bulk_time(*p2p, bulk->placement, pf).value() <=
        0.97 * predicted_bulk_time(*p2p, fixed->placement, pf).value());
  CHECK(a.predicted_comm_time_max > b.predicted_comm_time_max);  // the time model disagrees
  // The time it judged by is the mapping's (the tool's table reuses it);
  // without the step there is none.
  CHECK(bulk->bulk_time == predicted_bulk_time(*p2p, bulk->placement, pf).value());
  CHECK(std::isnan(fixed->bulk_time));
}

TEST_CASE("algorithms: a busiest link within the tie of block's meets block's limit") {
  // The 2D stencil recorded at 256 ranks (bench/profiles/8x8-4), on a
  // quarter of 8x4x4x4 at 2 per node (128 of 512 nodes). Its Cartesian
  // tiling is 0.23% above the lower bound and 14% below block's cost, but
  // the recorded halos are not quite symmetric and its busiest link is
  // 0.02% heavier than block's: held to block's exactly, the choice fell
  // back on block itself. Within the tie (0.1%) it meets the limit.
  const Traffic t = recorded_traffic("stencil2d256-8x8.prof");
  const Platform pf = platform_of("torus=8x4x4x4 node=package:2,core:4");
  const Metrics m = metrics(t, pf, run(t, pf, "rankmap", 2), 2);
  const Metrics blk = metrics(t, pf, run(t, pf, "block", 2), 2);
  CHECK(m.weighted_cost <= 0.86 * blk.weighted_cost);
  CHECK(m.weighted_cost <= m.lower_bound_weighted * 1.003);
  CHECK(m.max_link_relative <= blk.max_link_relative * 1.001);
  CHECK(m.max_link_relative > blk.max_link_relative);  // the instance's point: not under block's exactly
}

TEST_CASE("algorithms: a choice busier than scotch's on its busiest link says so, with both differences") {
  // Recorded CG at 256 ranks on 8x8 at 4 per node (bench/profiles/8x8-4),
  // seed 1: cost first takes a placement 10% cheaper than the `scotch`
  // reference with a 20% busier link, which SimGrid runs 1.14x as long as
  // scotch's (CG exchanges with one row partner at a time; docs/mapper.md,
  // step 4, "Why"): the note says so and points to --trace. `fast` takes
  // scotch's own start there: no note.
  const Traffic t = recorded_traffic("cg256-8x8.prof");
  const Platform pf = platform_of("torus=8x8 node=package:2,core:4");
  MapOptions o;
  o.ppn = 4;
  o.algorithm = "scotch";
  auto ref = map_ranks(t, pf, o);
  o.algorithm = "rankmap";
  auto chosen = map_ranks(t, pf, o);
  REQUIRE(ref.ok());
  REQUIRE(chosen.ok());
  const Metrics r = metrics(t, pf, ref->placement, 4), c = metrics(t, pf, chosen->placement, 4);
  CHECK(c.weighted_cost == Approx(2.16112e9).epsilon(1e-5));
  CHECK(r.weighted_cost == Approx(2.40145e9).epsilon(1e-5));
  REQUIRE(c.max_link_relative > r.max_link_relative * 1.001);
  char expected[160];
  std::snprintf(expected, sizeof expected,
                "chose the lower cost over the lower max link load of scotch (busiest link %.1f%% busier, cost %.1f%% lower)",
                100 * (c.max_link_relative / r.max_link_relative - 1), 100 * (1 - c.weighted_cost / r.weighted_cost));
  CHECK(std::string(expected).find("(busiest link 20.0% busier, cost 10.0% lower)") != std::string::npos);
  auto has_note = [&](const MapOutcome& out) {
    return std::any_of(out.notes.begin(), out.notes.end(), [&](const std::string& n) {
      return n.rfind(expected, 0) == 0 && n.find("`rankmap map --trace` replays both") != std::string::npos;
    });
  };
  CHECK(has_note(*chosen));
  o.preset = Preset::fast;
  auto fast = map_ranks(t, pf, o);
  REQUIRE(fast.ok());
  CHECK(metrics(t, pf, fast->placement, 4).max_link_relative <= r.max_link_relative * 1.001);
  CHECK_FALSE(std::any_of(fast->notes.begin(), fast->notes.end(),
                          [](const std::string& n) { return n.find("lower max link load") != std::string::npos; }));
}

TEST_CASE("algorithms: the default buys predicted time with at most 2% of cost, where the links say so too") {
  // The same ADI profile. Its searches end at 2.3559e8 (seed 1: busiest link
  // 0.372 ms; seed 2: 0.259 ms); the Cartesian tiling of its 8x16 grid in
  // 2x2 blocks costs 2.3808e8 (+1.06%) with a busiest link of 0.230 ms, and
  // the time model predicts its slowest rank 31% (seed 1) and 15% (seed 2)
  // faster with the latencies in turn, 35% and 9.5% overlapped. SimGrid ran
  // the program 0.79x as long on it as on seed 1's cheapest (0.993x seed 2's).
  const Traffic t = recorded_traffic("adi128-desmos4.prof");
  const Platform pf = platform_of("desmos");
  MapOptions o;
  o.ppn = 4;
  std::vector<Placement> first;
  for (std::uint64_t seed : {1, 2}) {
    INFO("seed " << seed);
    o.seed = seed;
    o.alternatives = 8;
    auto r = map_ranks(t, pf, o);
    REQUIRE(r.ok());
    const Metrics chosen = metrics(t, pf, r->placement, 4);
    CHECK(chosen.weighted_cost == Approx(2.38081056e8));
    CHECK(chosen.max_link_relative == Approx(2.30176e-4).epsilon(1e-5));
    // Against the cheapest alternative it passed over: within 2% of its
    // cost, at least 5% lighter on the busiest link and 5% faster predicted.
    const Alternative* cheapest = nullptr;
    double cheapest_cost = 1e300;
    for (const Alternative& a : r->alternatives) {
      const double c = metrics(t, pf, a.placement, 4).weighted_cost;
      if (c < cheapest_cost) {
        cheapest = &a;
        cheapest_cost = c;
      }
    }
    REQUIRE(cheapest != nullptr);
    const Metrics other = metrics(t, pf, cheapest->placement, 4);
    CHECK(other.weighted_cost < chosen.weighted_cost);
    CHECK(chosen.weighted_cost <= other.weighted_cost * 1.02);
    CHECK(chosen.max_link_relative <= other.max_link_relative * 0.95);
    CHECK(chosen.predicted_comm_time_max <= other.predicted_comm_time_max * 0.95);
    if (first.empty()) first = r->placement;
    else CHECK(r->placement == first);  // the same placement at both seeds
  }
}

TEST_CASE("algorithms: on part of a machine the default spreads the job where the time model says so") {
  // The CG profile of the test above, 64 ranks, on a 4x4x4 torus at 2 per
  // node: half of its 128 slots. Packed, the cheapest placements fill 32
  // nodes; spread, one rank on each of the 64 nodes costs 28.6% more but
  // loads the busiest link a third less, and the time model predicts the
  // slowest rank 14-15% faster (30% with overlapped latencies). SimGrid ran
  // the program 0.777x as long on it (docs/mapper.md, step 4, "Spread").
  const Traffic t = recorded_traffic("cg64-4x4.prof");
  const Platform pf = platform_of("torus=4x4x4 node=package:2,core:4");
  MapOptions o;
  o.ppn = 2;
  o.alternatives = 8;
  for (std::uint64_t seed : {1, 2}) {
    INFO("seed " << seed);
    o.seed = seed;
    auto r = map_ranks(t, pf, o);
    REQUIRE(r.ok());
    CHECK(has(r->notes, "spread the job over every allocated node (at most 1 rank each)"));
    const Metrics chosen = metrics(t, pf, r->placement, 2);
    CHECK(chosen.nodes_used == 64);
    // At seed 1 every search ends at one cost, where the side lineage does
    // not run; its placement, 0.005% cheaper (within the choice's tie), was
    // chosen there in session 44.
    CHECK(chosen.weighted_cost == Approx(seed == 1 ? 5.4028e8 : 5.40252e8).epsilon(1e-5));
    // The packed placement it passed over is the cheapest alternative.
    double cheapest_cost = 1e300;
    Metrics packed;
    for (const Alternative& a : r->alternatives) {
      const Metrics m = metrics(t, pf, a.placement, 2);
      if (m.weighted_cost < cheapest_cost) {
        cheapest_cost = m.weighted_cost;
        packed = m;
      }
    }
    CHECK(packed.nodes_used == 32);
    CHECK(chosen.weighted_cost > packed.weighted_cost * 1.2);
    CHECK(chosen.max_link_relative <= packed.max_link_relative * 0.95);
    CHECK(chosen.predicted_comm_time_max <= packed.predicted_comm_time_max * 0.95);
  }
  // On the full machine (2 per node on 32 nodes of a 4x4x2 torus) there is
  // nothing to spread over.
  o.seed = 1;
  auto full = map_ranks(t, platform_of("torus=4x4x2 node=package:2,core:4"), o);
  REQUIRE(full.ok());
  CHECK_FALSE(has(full->notes, "spread the job"));
}

TEST_CASE("algorithms: the default keeps the job packed where spreading is not predicted faster") {
  // A ring of 128 ranks on half of an 8x8 torus: packed, every inter-node
  // edge is one hop and every directed link carries one flow; spread, the
  // flows stay one per link, so nothing is gained for the extra cost.
  // A replay still gets the spread job among the alternatives, after the
  // references: it may see what the model does not.
  const Traffic t = synth_traffic("ring", 128);
  const Platform pf = platform_of("torus=8x8 node=package:2,core:4");
  MapOptions o;
  o.ppn = 4;
  o.alternatives = 8;
  auto r = map_ranks(t, pf, o);
  REQUIRE(r.ok());
  CHECK_FALSE(has(r->notes, "spread the job"));
  CHECK(metrics(t, pf, r->placement, 4).nodes_used == 32);
  REQUIRE(r->alternatives.size() >= 5);
  CHECK(r->alternatives[1].name == "block");
  CHECK(r->alternatives[4].name == "spread(default)");
  CHECK(metrics(t, pf, r->alternatives[4].placement, 4).nodes_used == 64);
}

TEST_CASE("algorithms: the default says when only the latency assumption keeps a job packed") {
  // A 3D stencil of 128 ranks on half of an 8x8 torus, 1,000 messages of
  // 64 KiB per neighbour pair. Spread over all 64 nodes its busiest link is
  // a quarter lighter, and the time model predicts the slowest rank faster
  // with its latencies overlapped, slower with them in turn (7 partners,
  // 7,000 messages each): the default keeps it packed and says why, and
  // that a replay can tell. With 100 messages of 1 MiB both assumptions
  // agree, and it spreads.
  SynthSpec s;
  s.pattern = "stencil3d";
  s.ranks = 128;
  s.bytes = 65536;
  s.messages = 1000;
  const Traffic many_small = test::synth_traffic(s);
  const Platform pf = platform_of("torus=8x8 node=package:2,core:4");
  MapOptions o;
  o.ppn = 4;
  auto r = map_ranks(many_small, pf, o);
  REQUIRE(r.ok());
  CHECK_FALSE(has(r->notes, "spread the job"));
  CHECK(metrics(many_small, pf, r->placement, 4).nodes_used == 32);
  CHECK(has(r->notes,
            "kept the job on 32 of 64 allocated nodes; spread over all of them (at most 2 ranks each) the time model "
            "predicts the slowest rank 13.8% slower with its latencies in turn but 11.1% faster with them overlapped "
            "(busiest link 25.0% lighter, 40.0% more cost), and the profile cannot tell which holds: `rankmap map "
            "--trace` replays both"));
  auto big = map_ranks(synth_traffic("stencil3d", 128), pf, o);
  REQUIRE(big.ok());
  CHECK(has(big->notes, "spread the job over every allocated node (at most 2 ranks each)"));
  CHECK_FALSE(has(big->notes, "kept the job"));
  // A replay is offered the spread job anyway: no note then.
  o.alternatives = 8;
  auto replayed = map_ranks(many_small, pf, o);
  REQUIRE(replayed.ok());
  CHECK_FALSE(has(replayed->notes, "kept the job"));
}

TEST_CASE("algorithms: a grid no tiling folds onto the torus reaches one placement whatever the seed") {
  // A 20x10 5-point stencil at 4 per node on an 8x8 torus: its 2x2 blocks
  // form a 10x5 grid that fits no box of nodes, and before the scaled grid
  // start the searches ended 7.8% apart by seed (5.788e8 at seed 1, 5.369e8
  // at seeds 2-5). From the grid laid onto the torus in proportion they all
  // end at the lower.
  const Traffic t = synth_traffic("stencil2d", 200, 1, {20, 10});
  const Platform pf = platform_of("torus=8x8 node=package:2,core:4");
  MapOptions o;
  o.ppn = 4;
  for (std::uint64_t seed : {1, 2}) {
    INFO("seed " << seed);
    o.seed = seed;
    auto r = map_ranks(t, pf, o);
    REQUIRE(r.ok());
    CHECK(metrics(t, pf, r->placement, 4).weighted_cost == Approx(5.36871e8).epsilon(1e-5));
  }
}

TEST_CASE("algorithms: the default's mapping does not depend on its thread count") {
  // Its independent steps run on several threads (Scotch's runs beside the
  // other starts, the searches from each start, the second tabu search
  // beside the first, the recombination's next child, the plateau walk
  // beside the paired search, the tied reliefs, the regrouping searches);
  // each writes its own slot and takes its own seed. Recorded ADI at 128
  // ranks on desmos: at seed 2 the second tabu search is kept (test above),
  // at seed 1 it is not; recorded CG at 64 ranks on 4x4 takes the
  // graph-built target's starts and the regrouping search's result (above). Among these runs the early walk is used (the paired search
  // found nothing) and made again (it found something). The side lineage
  // cut by cut applies in all three: made once, at its own step on one
  // thread, on a thread the tabu search leaves idle on more.
  struct Case {
    const char* profile;
    const char* machine;
    int ppn;
    std::uint64_t seed;
  };
  for (const Case& c : {Case{"adi128-desmos4.prof", "desmos", 4, 1}, Case{"adi128-desmos4.prof", "desmos", 4, 2},
                        Case{"cg64-4x4.prof", "torus=4x4 node=package:2,core:4", 4, 1}}) {
    INFO(c.profile << " seed " << c.seed);
    const Traffic t = recorded_traffic(c.profile);
    const Platform pf = platform_of(c.machine);
    MapOptions o;
    o.ppn = c.ppn;
    o.seed = c.seed;
    o.alternatives = 8;
    std::vector<std::string> said;
    o.progress = [&](const std::string& s) { said.push_back(s); };
    std::vector<MapOutcome> runs;
    for (int threads : {1, 2, 4}) {
      INFO("threads " << threads);
      said.clear();
      o.threads = threads;
      auto r = map_ranks(t, pf, o);
      REQUIRE(r.ok());
      runs.push_back(std::move(*r));
      auto at = [&](const std::string& step) {
        return std::find(said.begin(), said.end(), step) - said.begin();
      };
      const std::string lineage = "the side lineage cut by cut along the network's distance cuts";
      CHECK(std::count(said.begin(), said.end(), lineage) == 1);
      const auto paired = at("tabu search of paired ranks");
      REQUIRE(paired < static_cast<std::ptrdiff_t>(said.size()));
      if (threads == 1)
        CHECK(at(lineage) > paired);
      else
        CHECK(at(lineage) < paired);
    }
    same_outcomes(runs);
  }
}

TEST_CASE("algorithms: on large jobs the steps made beside Scotch's runs are the ones used, on any thread count") {
  // Above 8,192 ranks the default searches its cheapest start only and
  // relieves the tied candidates. The lane of the other starts makes those
  // steps as it ends, unless Scotch's start is the cheapest
  // (StartLanes). On this 2D stencil a Cartesian folding is the cheapest
  // start, and the relief of the tied candidates swaps (at a higher cost):
  // both results are made on that lane and used, whatever the thread count
  // and whichever lane ends first; the mapping, notes and alternatives must
  // be the same on 1, 2 and 4 threads, and the search made once. The
  // alternatives' costs and loads are those of the code before (commit
  // c39942a, which made both steps after the starts), the relieved one last.
  const Traffic t = synth_traffic("stencil2d", 10240, 1, {128, 80});
  const Platform pf = platform_of("torus=16x8x10 node=package:2,core:4");
  MapOptions o;
  o.ppn = 8;
  o.alternatives = 8;
  std::vector<std::string> said;
  o.progress = [&](const std::string& s) { said.push_back(s); };
  std::vector<MapOutcome> runs;
  for (int threads : {1, 2, 4}) {
    INFO("threads " << threads);
    said.clear();
    o.threads = threads;
    auto r = map_ranks(t, pf, o);
    REQUIRE(r.ok());
    runs.push_back(std::move(*r));
    std::vector<std::string> searches;
    for (const std::string& s : said)
      if (s.rfind("local search from", 0) == 0) searches.push_back(s);
    CHECK(searches == std::vector<std::string>{"local search from cartesian[80x128/1x8]-folded (beside Scotch's runs)"});
  }
  struct Expected {
    const char* name;
    double weighted_cost, max_link_relative;
  };
  const std::vector<Expected> before{{"cartesian[80x128/1x8]-folded", 2.4159191e+10, 0.000894784853},
                                     {"block", 2.68435456e+10, 0.000894784853},
                                     {"scotch", 2.81941115e+10, 0.00201326592},
                                     {"matching-in-order", 2.98634445e+10, 0.00134217728},
                                     {"matching-in-order-last", 3.59032422e+10, 0.00268435456},
                                     {"snake", 1.10058537e+11, 0.0144284058},
                                     {"cartesian[80x128/8x1]-folded", 2.4159191e+10, 0.000894784853},
                                     {"cartesian[80x128/1x8]-folded+links", 2.41843569e+10, 0.000894784853}};
  REQUIRE(runs[0].alternatives.size() == before.size());
  for (size_t a = 0; a < before.size(); ++a) {
    INFO(before[a].name);
    CHECK(runs[0].alternatives[a].name == before[a].name);
    const Metrics m = metrics(t, pf, runs[0].alternatives[a].placement, 8);
    CHECK(m.weighted_cost == Approx(before[a].weighted_cost).epsilon(1e-8));
    CHECK(m.max_link_relative == Approx(before[a].max_link_relative).epsilon(1e-8));
  }
  CHECK(runs[0].placement == runs[0].alternatives[0].placement);
  same_outcomes(runs);
}

TEST_CASE("algorithms: a start within 0.1% of the lower bound ends the search") {
  // The 16x16 stencil on the 8x8 torus (above): a tiling start meets the
  // triangle-free bound exactly, so no iterated, recombining or tabu search
  // runs (none of their candidates in the shortlist) and a note says why.
  const Platform pf = platform_of("torus=8x8 node=package:2,core:4");
  MapOptions o;
  o.ppn = 4;
  o.alternatives = 8;
  auto searched = [](const MapOutcome& r) {
    return std::any_of(r.alternatives.begin(), r.alternatives.end(), [](const Alternative& a) {
      return a.name.find("+ils") != std::string::npos || a.name.find("+tabu") != std::string::npos ||
             a.name.find("recombined") != std::string::npos;
    });
  };
  const Traffic stencil = synth_traffic("stencil2d", 256, 1, {16, 16});
  auto r = map_ranks(stencil, pf, o);
  REQUIRE(r.ok());
  CHECK(has(r->notes, "of the lower bound: no further search"));
  CHECK_FALSE(searched(*r));
  const Metrics m = metrics(stencil, pf, r->placement, 4);
  CHECK(m.weighted_cost == Approx(m.lower_bound_weighted).epsilon(1e-12));
  // Random partners: far from the bound, the searches run.
  const Traffic random = synth_traffic("random", 256, 3);
  r = map_ranks(random, pf, o);
  REQUIRE(r.ok());
  CHECK_FALSE(has(r->notes, "of the lower bound"));
  CHECK(searched(*r));
}

TEST_CASE("algorithms: the bound's cut part ends the search on a 27-point stencil") {
  // 64 ranks of a 4x4x4 27-point stencil on desmos at 2 per node: every
  // rank has 26 partners, which the per-rank and densest-groups parts price
  // at one hop apart from the one on its node (12.5% below the best
  // placement); the cut part (the torus's halvings against the Laplacian's
  // eigenvalues) meets a start exactly, so the search ends there, with the
  // mapping the whole search found before.
  const Platform desmos = platform_of("desmos");
  const Traffic stencil = synth_traffic("stencil27", 64, 1, {4, 4, 4});
  MapOptions at_two;
  at_two.ppn = 2;
  auto mapped = map_ranks(stencil, desmos, at_two);
  REQUIRE(mapped.ok());
  CHECK(has(mapped->notes, "of the lower bound: no further search"));
  const Metrics m = metrics(stencil, desmos, mapped->placement, 2);
  CHECK(m.weighted_cost == Approx(m.lower_bound_weighted).epsilon(1e-9));
  CHECK(m.weighted_cost == Approx(3.0199e9).epsilon(1e-4));
}

TEST_CASE("algorithms: a grid start folded into a box of nodes meets the bound on a quarter of the torus") {
  // 256 ranks of an 8x8x4 periodic stencil on 8x4x4x4 at 2 per node: 128
  // of the 512 nodes. Blocks of 2 ranks tile it into a grid of 128 blocks,
  // which folds into an 8x4x4 box (one coordinate of the fourth dimension)
  // with every grid edge one hop: the bound, from a start, so the search
  // stops there (before boxes the fold needed the whole torus, and only the
  // search got there, in 5x the time). The choice then spreads the job over
  // all 256 nodes, one rank each (20% more cost, busiest link halved,
  // predicted 30% faster; a bulk-synchronous replay of the traffic in
  // SimGrid ran 0.54x as long): the folded placement is its alternative.
  const Platform pf = platform_of("torus=8x4x4x4 node=package:2,core:4");
  MapOptions o;
  o.ppn = 2;
  o.alternatives = 8;
  const Traffic stencil = synth_traffic("stencil3d", 256, 1, {8, 8, 4});
  auto r = map_ranks(stencil, pf, o);
  REQUIRE(r.ok());
  CHECK(has(r->notes, "-folded is within 0.1% of the lower bound"));
  CHECK(has(r->notes, "spread the job over every allocated node (at most 1 rank each)"));
  const Metrics chosen = metrics(stencil, pf, r->placement, 2);
  CHECK(chosen.nodes_used == 256);
  CHECK(chosen.weighted_cost == Approx(1.2 * chosen.lower_bound_weighted).epsilon(1e-12));
  const auto folded = std::find_if(r->alternatives.begin(), r->alternatives.end(),
                                   [](const Alternative& a) { return a.name.find("-folded") != std::string::npos; });
  REQUIRE(folded != r->alternatives.end());
  const Metrics m = metrics(stencil, pf, folded->placement, 2);
  CHECK(m.weighted_cost == Approx(m.lower_bound_weighted).epsilon(1e-12));
  CHECK(m.nodes_used == 128);
}

TEST_CASE("algorithms: the default returns its shortlist when asked, the choice first, the references next") {
  const Platform pf = platform_of("torus=4x4 node=core:4");
  const Traffic t = synth_traffic("random", 64, 5);
  MapOptions o;
  o.ppn = 4;
  o.alternatives = 5;
  auto r = map_ranks(t, pf, o);
  REQUIRE(r.ok());
  REQUIRE(r->alternatives.size() == 5);
  CHECK(r->alternatives[0].placement == r->placement);
  // A random graph: every reference differs from the choice, in this order.
  CHECK(r->alternatives[1].name == "block");
  CHECK(r->alternatives[1].placement == run(t, pf, "block", 4));
  CHECK(r->alternatives[2].name == "paper");
  CHECK(r->alternatives[2].placement == run(t, pf, "paper", 4));
  CHECK(r->alternatives[3].name == "scotch");
  CHECK(r->alternatives[3].placement == run(t, pf, "scotch", 4));
  // Distinct placements (the shortlist skips equal node assignments).
  for (size_t i = 0; i < r->alternatives.size(); ++i)
    for (size_t j = i + 1; j < r->alternatives.size(); ++j) CHECK(r->alternatives[i].placement != r->alternatives[j].placement);
  // The mapping itself does not depend on whether alternatives were asked.
  CHECK(run(t, pf, "rankmap", 4) == r->placement);
  // Not asked: none; other algorithms: none.
  o.alternatives = 0;
  CHECK(map_ranks(t, pf, o)->alternatives.empty());
  o.alternatives = 5;
  o.algorithm = "scotch";
  CHECK(map_ranks(t, pf, o)->alternatives.empty());
}

TEST_CASE("algorithms: mixed nodes, each node holds at most its own slots") {
  // Two kinds: nodes 0-1 with 4 cores (two packages), nodes 2-3 with 2.
  const Platform pf = platform_of("torus=4 node=package:2,core:2 nodes=2-3:core:2");
  auto all = make_allocation(pf, {}, 0);
  REQUIRE(all.ok());
  CHECK(all->total_slots() == 12);
  CHECK(all->slots(0) == 4);
  CHECK(all->slots(3) == 2);
  CHECK_FALSE(all->uniform());
  auto capped = make_allocation(pf, {3, 0}, 3);
  REQUIRE(capped.ok());
  CHECK(capped->nodes() == std::vector<int>{3, 0});
  CHECK(capped->slots(0) == 3);
  CHECK(capped->slots(3) == 2);
  CHECK(capped->slots(1) == 0);
  CHECK(capped->total_slots() == 5);

  // block fills each node to its own slots, round-robin skips full nodes.
  const Traffic ring = synth_traffic("ring", 11);
  CHECK(run(ring, pf, "block") == std::vector<Placement>{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 1}, {1, 2}, {1, 3},
                                                         {2, 0}, {2, 1}, {3, 0}});
  CHECK(run(ring, pf, "round-robin") == std::vector<Placement>{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {0, 1}, {1, 1}, {2, 1},
                                                               {3, 1}, {0, 2}, {1, 2}, {0, 3}});
  CHECK(run(synth_traffic("ring", 10), pf, "block", 3) ==
        std::vector<Placement>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {2, 0}, {2, 1}, {3, 0}, {3, 1}});

  // Every algorithm, jobs that fill the machine's slots and jobs that do not.
  for (int ranks : {7, 10, 12})
    for (const auto& a : algorithms())
      for (int ppn : {0, 3}) {
        if (ppn == 3 && ranks > 10) continue;
        INFO(a.name << " ranks " << ranks << " ppn " << ppn);
        const Traffic t = synth_traffic("random", ranks, 2);
        const auto pl = run(t, pf, a.name, ppn);
        auto allocation = make_allocation(pf, {}, ppn);
        REQUIRE(allocation.ok());
        CHECK(check_placement(pl, ranks, pf, *allocation).ok());
      }

  // More ranks than the slots of the mixed nodes.
  MapOptions o;
  auto r = map_ranks(synth_traffic("ring", 13), pf, o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "13 ranks do not fit on 4 nodes (12 slots)");
  o.ppn = 5;
  r = map_ranks(synth_traffic("ring", 4), pf, o);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "--ppn 5 exceeds the 4 cores of the largest node");
}

TEST_CASE("algorithms: angara-k1, every algorithm within each node's cores") {
  // 36 nodes: 24 of two 6-core packages, 12 of one 8-core package (384 cores).
  const Platform pf = platform_of("angara-k1");
  const Traffic t = synth_traffic("stencil3d", 384, 1, {8, 8, 6});
  for (const auto& a : algorithms()) {
    INFO(a.name);
    const auto pl = run(t, pf, a.name);
    auto allocation = make_allocation(pf, {}, 0);
    REQUIRE(allocation.ok());
    CHECK(check_placement(pl, 384, pf, *allocation).ok());
  }
  const Metrics block = metrics(t, pf, run(t, pf, "block"), 0);
  const Metrics best = metrics(t, pf, run(t, pf, "rankmap"), 0);
  CHECK(best.hop_bytes <= block.hop_bytes);
  CHECK(best.lower_bound_hop_bytes <= best.hop_bytes);
}

TEST_CASE("algorithms: a uniform all-to-all on full nodes is kept in block order at once") {
  // 32 ranks on a 4x2x2 torus at 2 per node: every pair exchanges 1 MiB in
  // 4 messages. Every placement gives every node pair the same traffic, so
  // the default keeps block's nodes and says why, without a search.
  const Platform pf = platform_of("torus=4x2x2 node=package:2,core:2");
  std::vector<Flow> flows;
  for (int a = 0; a < 32; ++a)
    for (int b = 0; b < 32; ++b)
      if (a != b) flows.push_back({a, b, 4, 1 << 20});
  auto traffic_of = [](std::vector<Flow> f) {
    Traffic t;
    t.ranks = 32;
    t.flows = std::move(f);
    return t;
  };
  MapOptions o;
  o.ppn = 2;
  const std::vector<Placement> block = run(traffic_of(flows), pf, "block", 2);
  auto r = map_ranks(traffic_of(flows), pf, o);
  REQUIRE(r.ok());
  CHECK(has(r->notes, "every placement ties (a uniform all-to-all on full nodes): kept block"));
  REQUIRE(r->placement.size() == block.size());
  for (size_t i = 0; i < block.size(); ++i) CHECK(r->placement[i].node == block[i].node);
  // Not when one pair sends more, nor when nodes have free slots (a placement
  // may then leave a node's slots empty), nor for a replay's shortlist.
  std::vector<Flow> uneven = flows;
  uneven[5].bytes *= 2;
  r = map_ranks(traffic_of(uneven), pf, o);
  REQUIRE(r.ok());
  CHECK_FALSE(has(r->notes, "every placement ties"));
  MapOptions roomy = o;
  roomy.ppn = 4;
  r = map_ranks(traffic_of(flows), pf, roomy);
  REQUIRE(r.ok());
  CHECK_FALSE(has(r->notes, "every placement ties"));
  MapOptions shortlist = o;
  shortlist.alternatives = 4;
  r = map_ranks(traffic_of(flows), pf, shortlist);
  REQUIRE(r.ok());
  CHECK_FALSE(has(r->notes, "every placement ties"));
}
