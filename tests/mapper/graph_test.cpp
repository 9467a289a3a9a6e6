// The communication graph, the collective model and the synthetic patterns.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "rankmap/comm_graph.hpp"
#include "rankmap/mpich_collectives.hpp"

using namespace rankmap;

namespace {

Profile bare_profile(int ranks) {
  Profile p;
  p.ranks = ranks;
  p.rank_info.assign(static_cast<size_t>(ranks), RankInfo{"h", -1, 0, 0});
  return p;
}

// Expanded flows of one collective as (src, dst) -> bytes, merged.
std::map<std::pair<int, int>, double> expand(const std::string& op, int n, int root, double bytes, double calls = 1) {
  std::vector<int> members(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) members[i] = i;
  std::vector<Flow> flows;
  REQUIRE(expand_collective(CollectiveRecord{0, op, root, static_cast<std::uint64_t>(calls), static_cast<std::uint64_t>(bytes)},
                            members, flows));
  std::map<std::pair<int, int>, double> out;
  for (const Flow& f : flows) out[{f.src, f.dst}] += f.bytes;
  return out;
}

using FlowMap = std::map<std::pair<int, int>, double>;

}  // namespace

TEST_CASE("graph: bytes and message equivalents summed over both directions") {
  Profile p = bare_profile(3);
  p.p2p = {{0, 1, 2, 100}, {1, 0, 1, 50}};
  p.one_sided = {{1, 2, 1, 10}, {0, 1, 1, 1}};
  auto t = traffic_from_profile(p, CollectiveModel::model);
  REQUIRE(t.ok());
  REQUIRE(t->check().ok());
  REQUIRE(t->flows.size() == 3);
  CHECK(t->flows[0].bytes == 101);  // p2p and one-sided of the same pair merged
  CHECK(t->flows[0].messages == 3);
  CHECK(t->total_bytes() == 161);

  const CommGraph g = build_comm_graph(*t, 8.0);
  REQUIRE(g.check().ok());
  CHECK(g.vertices == 3);
  CHECK(g.edges() == 2);
  CHECK(g.xadj == std::vector<std::int64_t>{0, 1, 3, 4});
  CHECK(g.adjncy == std::vector<int>{1, 0, 2, 1});
  // {0,1}: 151 bytes + 8 x 4 messages; {1,2}: 10 bytes + 8 x 1 message.
  CHECK(g.weight == std::vector<double>{183, 183, 18, 18});
  CHECK(g.total_weight() == 201);
}

TEST_CASE("graph: message byte-equivalent is t_inj x bw") {
  CHECK(message_byte_equivalent(LatencyModel{850e-9, 129e-9, 1e9}) == Approx(850));
  CHECK(message_byte_equivalent(LatencyModel{850e-9, 129e-9, 0}) == 0);
}

TEST_CASE("graph: check catches broken graphs") {
  CommGraph g;
  g.vertices = 2;
  g.xadj = {0, 1, 1};
  g.adjncy = {1};
  g.weight = {5};
  CHECK_FALSE(g.check().ok());  // not symmetric
  g.xadj = {0, 1, 2};
  g.adjncy = {1, 0};
  g.weight = {5, 4};
  CHECK_FALSE(g.check().ok());  // asymmetric weights
  g.weight = {5, 5};
  CHECK(g.check().ok());
}

TEST_CASE("collectives: binomial bcast, reduce, gather, scatter") {
  CHECK(expand("bcast", 8, 0, 10) ==
        FlowMap{{{0, 1}, 10}, {{0, 2}, 10}, {{0, 4}, 10}, {{2, 3}, 10}, {{4, 5}, 10}, {{4, 6}, 10}, {{6, 7}, 10}});
  // Root 3 of 4: relative ranks shift by the root.
  CHECK(expand("bcast", 4, 3, 10) == FlowMap{{{3, 0}, 10}, {{3, 1}, 10}, {{1, 2}, 10}});
  CHECK(expand("reduce", 4, 0, 10) == FlowMap{{{1, 0}, 10}, {{2, 0}, 10}, {{3, 2}, 10}});
  // Gather: the record has the whole gathered buffer (4 blocks of 10); a child
  // forwards its subtree's blocks (vr 2 holds 2 and 3).
  CHECK(expand("gather", 4, 0, 40) == FlowMap{{{1, 0}, 10}, {{2, 0}, 20}, {{3, 2}, 10}});
  CHECK(expand("scatter", 5, 0, 50) == FlowMap{{{0, 1}, 10}, {{0, 2}, 20}, {{2, 3}, 10}, {{0, 4}, 10}});
}

TEST_CASE("collectives: allreduce by recursive doubling and Rabenseifner") {
  // Short: every step exchanges the whole vector.
  CHECK(expand("allreduce", 4, -1, 100) == FlowMap{{{0, 1}, 100}, {{1, 0}, 100}, {{2, 3}, 100}, {{3, 2}, 100},
                                                   {{0, 2}, 100}, {{2, 0}, 100}, {{1, 3}, 100}, {{3, 1}, 100}});
  // Three ranks: 0 folds into 1, then 1 and 2 exchange; 1 returns the result to 0.
  CHECK(expand("allreduce", 3, -1, 100) == FlowMap{{{0, 1}, 100}, {{1, 0}, 100}, {{1, 2}, 100}, {{2, 1}, 100}});
  // Long (4096 B > 2048): MPICH's recursive halving starts at distance 1
  // (m/2 each way), then distance 2 (m/4); the allgather retraces them.
  const double m = 4096;
  CHECK(expand("allreduce", 4, -1, m) == FlowMap{{{0, 1}, m}, {{1, 0}, m}, {{2, 3}, m}, {{3, 2}, m},
                                                 {{0, 2}, m / 2}, {{2, 0}, m / 2}, {{1, 3}, m / 2}, {{3, 1}, m / 2}});
  // Eight ranks: distances 1, 2, 4 carry m, m/2, m/4 each way.
  const FlowMap eight = expand("allreduce", 8, -1, m);
  CHECK(eight.size() == 24);
  for (int r = 0; r < 8; ++r) {
    CHECK(eight.at({r, r ^ 1}) == m);
    CHECK(eight.at({r, r ^ 2}) == m / 2);
    CHECK(eight.at({r, r ^ 4}) == m / 4);
  }
  // Six ranks: 0 folds into 1 and 2 into 3 (m each way, the result back);
  // survivors 1, 3, 4, 5 are new ranks 0-3: (1,3) and (4,5) at distance 1
  // carry m, (1,4) and (3,5) at distance 2 carry m/2.
  CHECK(expand("allreduce", 6, -1, m) == FlowMap{{{0, 1}, m},     {{1, 0}, m},     {{2, 3}, m},     {{3, 2}, m},
                                                 {{1, 3}, m},     {{3, 1}, m},     {{4, 5}, m},     {{5, 4}, m},
                                                 {{1, 4}, m / 2}, {{4, 1}, m / 2}, {{3, 5}, m / 2}, {{5, 3}, m / 2}});
  // calls scale both messages and bytes; bytes is the sum over calls.
  std::vector<Flow> flows;
  REQUIRE(expand_collective(CollectiveRecord{0, "allreduce", -1, 3, 300}, {5, 9}, flows));
  REQUIRE(flows.size() == 2);
  CHECK(flows[0].src == 5);
  CHECK(flows[0].dst == 9);
  CHECK(flows[0].messages == 3);
  CHECK(flows[0].bytes == 300);
}

TEST_CASE("collectives: allgather shapes by size") {
  // The record has the whole gathered buffer (n blocks of 10 B).
  // Power of two, short: recursive doubling, 2^k blocks at step k.
  CHECK(expand("allgather", 4, -1, 40) == FlowMap{{{0, 1}, 10}, {{1, 0}, 10}, {{2, 3}, 10}, {{3, 2}, 10},
                                                  {{0, 2}, 20}, {{2, 0}, 20}, {{1, 3}, 20}, {{3, 1}, 20}});
  // Not a power of two, short: Bruck, step 1 one block to i-1, step 2 two blocks to i-2.
  CHECK(expand("allgather", 3, -1, 30) ==
        FlowMap{{{0, 2}, 10}, {{1, 0}, 10}, {{2, 1}, 10}, {{0, 1}, 10}, {{1, 2}, 10}, {{2, 0}, 10}});
  // Long: ring, n-1 blocks to the right neighbour.
  CHECK(expand("allgather", 4, -1, 4 << 20) ==
        FlowMap{{{0, 1}, 3 << 20}, {{1, 2}, 3 << 20}, {{2, 3}, 3 << 20}, {{3, 0}, 3 << 20}});
}

TEST_CASE("collectives: reduce_scatter halves the vector, barrier sends only messages") {
  // Whole vector 4 x 10 B, under 512 KiB: recursive halving, the partner at
  // distance 2 gets half (20), then distance 1 a quarter.
  CHECK(expand("reduce_scatter_block", 4, -1, 40) == FlowMap{{{0, 2}, 20}, {{2, 0}, 20}, {{1, 3}, 20}, {{3, 1}, 20},
                                                             {{0, 1}, 10}, {{1, 0}, 10}, {{2, 3}, 10}, {{3, 2}, 10}});
  std::vector<Flow> flows;
  REQUIRE(expand_collective(CollectiveRecord{0, "barrier", -1, 2, 0}, {0, 1, 2}, flows));
  REQUIRE(flows.size() == 6);  // dissemination: steps 1 and 2, three ranks each
  for (const Flow& f : flows) {
    CHECK(f.bytes == 0);
    CHECK(f.messages == 2);
  }
}

TEST_CASE("collectives: the shapes of MPICH's default algorithms, as trace mode writes them") {
  // A power of two between 80 and 512 KiB in all: recursive doubling, not Bruck.
  CHECK(expand("allgather", 4, -1, 4 * 25600) == FlowMap{{{0, 1}, 25600}, {{1, 0}, 25600}, {{2, 3}, 25600},
                                                         {{3, 2}, 25600}, {{0, 2}, 51200}, {{2, 0}, 51200},
                                                         {{1, 3}, 51200}, {{3, 1}, 51200}});
  // allgatherv, its total split evenly, switches as allgather does.
  CHECK(expand("allgatherv", 4, -1, 40) == expand("allgather", 4, -1, 40));
  CHECK(expand("allgatherv", 3, -1, 30) == expand("allgather", 3, -1, 30));
  CHECK(expand("allgatherv", 4, -1, 4 << 20) == expand("allgather", 4, -1, 4 << 20));
  CHECK(expand("allgatherv", 4, -1, 40) != expand("allgather", 4, -1, 4 << 20));
  // gatherv and scatterv are linear: every member exchanges its block with the root.
  CHECK(expand("gatherv", 4, 1, 40) == FlowMap{{{0, 1}, 10}, {{2, 1}, 10}, {{3, 1}, 10}});
  CHECK(expand("scatterv", 4, 1, 40) == FlowMap{{{1, 0}, 10}, {{1, 2}, 10}, {{1, 3}, 10}});
  // scan: partners rank ^ 2^k that exist, no folding (rank 2 has no partner at distance 1).
  CHECK(expand("scan", 3, -1, 8) == FlowMap{{{0, 1}, 8}, {{1, 0}, 8}, {{0, 2}, 8}, {{2, 0}, 8}});
  // reduce_scatter on 3, under 512 KiB: 0 folds its whole vector into 1,
  // which halves with 2 (1 keeps blocks 0-1, 2 keeps block 2) and hands 0
  // its block at the end.
  CHECK(expand("reduce_scatter", 3, -1, 30) == FlowMap{{{0, 1}, 30}, {{1, 2}, 10}, {{2, 1}, 20}, {{1, 0}, 10}});
  // 512 KiB in all or more on a power of two: the pairwise exchange too.
  CHECK(expand("reduce_scatter_block", 2, -1, 1 << 20) == FlowMap{{{0, 1}, 1 << 19}, {{1, 0}, 1 << 19}});
  // The pairwise exchange up to 1,024 members, every member to every other;
  // above, the ring (the same bytes leave every member: n (n - 1) flows would
  // be a complete graph of a million edges and more).
  for (const int members : {1024, 1025}) {
    std::vector<int> world(static_cast<size_t>(members));
    for (int i = 0; i < members; ++i) world[static_cast<size_t>(i)] = i;
    std::vector<Flow> flows;
    const std::uint64_t whole = static_cast<std::uint64_t>(members) * 1024;  // 1 KiB blocks: 1 MiB in all
    REQUIRE(expand_collective(CollectiveRecord{0, "reduce_scatter_block", -1, 1, whole}, world, flows));
    double sent_by_0 = 0;
    for (const Flow& f : flows)
      if (f.src == 0) sent_by_0 += f.bytes;
    CHECK(sent_by_0 == 1024.0 * (members - 1));
    CHECK(flows.size() == (members == 1024 ? size_t{1024} * 1023 : size_t{1025}));
  }
  // A long broadcast: the scatter and the ring's closed form (9 members) and
  // the doubling (8) carry what every member's rounds send.
  for (const int members : {8, 9})
    for (const double bytes : {20000.0, 600000.0}) {
      FlowMap rounds_sum;
      for (int me = 0; me < members; ++me)
        for (const rankmap::mpich::Round& r : rankmap::mpich::bcast(members, me, 2, static_cast<std::uint64_t>(bytes)))
          for (const rankmap::mpich::Message& m : r.sends)
            if (m.bytes > 0) rounds_sum[{me, m.peer}] += static_cast<double>(m.bytes);
      FlowMap model = expand("bcast", members, 2, bytes);
      for (auto it = model.begin(); it != model.end();) it = it->second > 0 ? std::next(it) : model.erase(it);
      CHECK(model == rounds_sum);
    }
  // A fractional mean payload (calls of different sizes) keeps the record's bytes:
  // 3 calls, 301 bytes, from root 0 to 1.
  const FlowMap fractional = expand("bcast", 2, 0, 301, 3);
  REQUIRE(fractional.size() == 1);
  CHECK(fractional.at({0, 1}) == Approx(301));
}

TEST_CASE("collectives: unknown operations are reported, ignore drops all") {
  Profile p = bare_profile(4);
  p.communicators = {{0, {0, 1, 2, 3}}, {1, {3, 1}}};
  p.collectives = {{1, "bcast", 0, 2, 200}, {0, "frobnicate", -1, 1, 8}};
  auto t = traffic_from_profile(p, CollectiveModel::model);
  REQUIRE(t.ok());
  REQUIRE(t->flows.size() == 1);  // bcast on {3, 1} from communicator rank 0 = world 3
  CHECK(t->flows[0].src == 3);
  CHECK(t->flows[0].dst == 1);
  CHECK(t->flows[0].bytes == 200);
  CHECK(t->flows[0].messages == 2);
  REQUIRE(t->notes.size() == 1);
  CHECK_THAT(t->notes[0], Catch::Contains("frobnicate"));
  auto ignored = traffic_from_profile(p, CollectiveModel::ignore);
  REQUIRE(ignored.ok());
  CHECK(ignored->flows.empty());
}

TEST_CASE("synth: pattern sizes and shapes") {
  CHECK(balanced_shape(64, 3) == std::vector<int>{4, 4, 4});
  CHECK(balanced_shape(128, 3) == std::vector<int>{8, 4, 4});
  CHECK(balanced_shape(128, 2) == std::vector<int>{16, 8});
  CHECK(balanced_shape(32768, 3) == std::vector<int>{32, 32, 32});
  auto count = [](const std::string& pattern, int ranks, std::vector<int> shape = {}) {
    SynthSpec s;
    s.pattern = pattern;
    s.ranks = ranks;
    s.shape = shape;
    auto p = synthesize(s);
    REQUIRE(p.ok());
    REQUIRE(p->check().ok());
    return p->p2p.size();
  };
  CHECK(count("stencil3d", 64) == 64 * 6);
  CHECK(count("stencil2d", 64) == 64 * 4);
  CHECK(count("stencil27", 64) == 64 * 26);
  CHECK(count("stencil3d", 8, {4, 2, 1}) == 8 * 3);  // +-1 coincide on a side of 2; a side of 1 adds nothing
  CHECK(count("ring", 5) == 10);
  CHECK(count("alltoall", 6) == 30);
  CHECK(count("random", 50) == 50 * 6);
  CHECK(count("stencil3d-shuffled", 64) == 64 * 6);
  SynthSpec bad;
  bad.pattern = "stencil3d";
  bad.ranks = 10;
  bad.shape = {3, 3, 1};
  CHECK_FALSE(synthesize(bad).ok());
  bad.pattern = "spiral";
  CHECK_THAT(synthesize(bad).error().message, Catch::Contains("unknown pattern"));
}

TEST_CASE("synth: seeded patterns are deterministic and seed-dependent") {
  SynthSpec s;
  s.pattern = "random";
  s.ranks = 40;
  s.seed = 7;
  auto a = synthesize(s), b = synthesize(s);
  s.seed = 8;
  auto c = synthesize(s);
  REQUIRE((a.ok() && b.ok() && c.ok()));
  CHECK(a->p2p == b->p2p);
  CHECK_FALSE(a->p2p == c->p2p);
}
