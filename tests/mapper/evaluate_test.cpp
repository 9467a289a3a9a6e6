// The evaluator on cases small enough to compute by hand, and the lower bound
// against brute force.
#include <catch2/catch.hpp>

#include "support.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "rankmap/mapper.hpp"
#include "../../mapper/src/detail.hpp"

using namespace rankmap;
using test::platform_of;

namespace {

Traffic traffic_of(int ranks, std::vector<Flow> flows) {
  Traffic t;
  t.ranks = ranks;
  t.flows = std::move(flows);
  REQUIRE(t.check().ok());
  return t;
}

// The optimum by brute force: every assignment of the ranks to the torus
// nodes with at most ppn per node (a base-`nodes` counter), scored by the
// evaluator. Returns {hop-bytes, bandwidth-weighted cost}.
std::pair<double, double> brute_force_optimum(const Traffic& t, const Platform& pf, int ppn) {
  const int nodes = pf.net().nodes();
  double best_hb = 1e300, best_w = 1e300;
  std::vector<int> node_of(static_cast<size_t>(t.ranks), 0);
  for (;;) {
    std::vector<int> load(static_cast<size_t>(nodes), 0);
    bool fits = true;
    for (int a : node_of) fits = fits && ++load[a] <= ppn;
    if (fits) {
      std::vector<Placement> pl;
      for (int a : node_of) pl.push_back({a, 0});
      auto m = evaluate(t, pl, pf, EvaluateOptions{ppn, {}, false, nullptr});
      REQUIRE(m.ok());
      best_hb = std::min(best_hb, m->hop_bytes);
      best_w = std::min(best_w, m->weighted_cost);
    }
    int i = 0;
    while (i < t.ranks && ++node_of[i] == nodes) node_of[i++] = 0;
    if (i == t.ranks) break;
  }
  return {best_hb, best_w};
}

}  // namespace

TEST_CASE("evaluate: every metric on a ring of four doubled links") {
  // Ring of 4 nodes, every link doubled (capacity 2 GB/s per direction), two
  // packages of two cores per node.
  const Platform pf = platform_of("torus=4 links=2 node=package:2,core:2 bw=1e9 t_inj=1us t_hop=100ns");
  // 0->1 stays on node 0 but crosses packages; 1->2 goes node 0 -> node 2
  // (half the ring: the tie goes +, over 0->1->2); 0->3 goes node 0 -> node 1.
  const Traffic t = traffic_of(4, {{0, 1, 1, 100}, {0, 3, 1, 50}, {1, 2, 2, 200}});
  const std::vector<Placement> placement = {{0, 0}, {0, 2}, {2, 0}, {1, 0}};
  EvaluateOptions opt;
  opt.ppn = 2;
  auto m = evaluate(t, placement, pf, opt);
  REQUIRE(m.ok());
  CHECK(m->ranks == 4);
  CHECK(m->nodes_used == 3);
  CHECK(m->total_bytes == 350);
  CHECK(m->intra_node_bytes == 100);
  CHECK(m->cross_package_bytes == 100);
  CHECK(m->inter_node_bytes == 250);
  CHECK(m->hop_bytes == 450);             // 200 x 2 + 50 x 1
  CHECK(m->weighted_cost == Approx(225)); // every hop costs 1/2
  CHECK(m->mean_dilation == Approx(1.8));
  CHECK(m->max_dilation == 2);
  CHECK(m->max_link_load == 250);         // link 0->1 carries both flows
  CHECK(m->max_link_relative == Approx(250 / 2e9));
  CHECK(m->mean_link_relative == Approx(450 / 2e9 / 8));
  // Rank 1: 2 messages x (1 us + 2 x 100 ns) + 200 B / 1 GB/s.
  CHECK(m->comm_time_max == Approx(2.6e-6));
  CHECK(m->comm_time_mean == Approx((2.6e-6 + 1.15e-6) / 4));
  // The time model: 0->3 (50 B, 1 hop, 1.1 us) and 1->2 (200 B, 2 hops,
  // 1.2 us) share link 0->1 (2 GB/s) in proportion 1/1.1 : 1/1.2; 0->1 is
  // intra-node across packages (500 ns, 100 B at 14.4 GB/s, the socket
  // defaults). 0->3 ends first, when it has sent 50 B and 1->2 has sent
  // 50 x 1.1 / 1.2 B; 1->2 ends when the link has carried both (250 B).
  const double t03 = (50 + 50 * 1.1 / 1.2) / 2e9, t12 = 250 / 2e9;
  CHECK(m->predicted_comm_time_max == Approx(2 * 1.2e-6 + t12));
  CHECK(m->predicted_comm_time_mean ==
        Approx((500e-9 + 1.1e-6 + std::max(100 / 14.4e9, t03) + 2 * 1.2e-6 + t12) / 4));
  // Bound: rank 0 keeps its 100 B partner on-node and has the 50 B one a hop
  // away; rank 1 keeps 200 B on-node and has 100 B a hop away: (50 + 100) / 2.
  CHECK(m->lower_bound_hop_bytes == Approx(75));
  CHECK(m->lower_bound_weighted == Approx(37.5));
  CHECK(m->gap_hop_bytes == Approx(450.0 / 75 - 1));
}

// The time model (docs/mapper.md, "Time model") on cases computed by hand:
// 1 GB/s links, t_inj 1 us, t_hop 100 ns; intra-node 300 ns + bytes / 20 GB/s.
TEST_CASE("time model: one flow gets the whole link") {
  const Platform pf = platform_of("torus=4 node=core:2 bw=1e9 t_inj=1us t_hop=100ns");
  const Traffic t = traffic_of(2, {{0, 1, 2, 1000}});
  auto m = evaluate(t, {{0, 0}, {1, 0}}, pf, EvaluateOptions{2, {}, false, nullptr});
  REQUIRE(m.ok());
  // 2 messages x (1 us + 1 hop x 100 ns) + 1000 B / 1 GB/s.
  CHECK(m->predicted_comm_time_max == Approx(3.2e-6));
  CHECK(m->predicted_comm_time_mean == Approx(1.6e-6));
  // The old model agrees when nothing is shared.
  CHECK(m->comm_time_max == Approx(3.2e-6));
}

TEST_CASE("time model: two flows on one link get half each") {
  const Platform pf = platform_of("torus=4 node=core:2 bw=1e9 t_inj=1us t_hop=100ns");
  // Ranks 0, 1 on node 0 send to ranks 2, 3 on node 1: both cross 0->1.
  const Traffic t = traffic_of(4, {{0, 2, 1, 1000}, {1, 3, 1, 1000}});
  const std::vector<Placement> placement = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  const auto times = predicted_rank_times(t, placement, pf);
  REQUIRE(times.size() == 4);
  CHECK(times[0] == Approx(1.1e-6 + 1000 / 0.5e9));
  CHECK(times[1] == Approx(1.1e-6 + 1000 / 0.5e9));
  CHECK(times[2] == 0);
  CHECK(times[3] == 0);
  auto m = evaluate(t, placement, pf, EvaluateOptions{2, {}, false, nullptr});
  REQUIRE(m.ok());
  CHECK(m->predicted_comm_time_max == Approx(3.1e-6));
  CHECK(m->comm_time_max == Approx(2.1e-6));  // the old model does not share
  // One rank sending both flows waits for the slower, not for their sum:
  // two messages of latency, 1000 B at half the link.
  const Traffic one_sender = traffic_of(4, {{0, 2, 1, 1000}, {0, 3, 1, 1000}});
  CHECK(predicted_rank_times(one_sender, placement, pf)[0] == Approx(2 * 1.1e-6 + 1000 / 0.5e9));
  // Opposite directions use different directed links: no sharing.
  const Traffic both_ways = traffic_of(4, {{0, 2, 1, 1000}, {3, 1, 1, 1000}});
  const auto apart = predicted_rank_times(both_ways, placement, pf);
  CHECK(apart[0] == Approx(2.1e-6));
  CHECK(apart[3] == Approx(2.1e-6));
}

TEST_CASE("time model: a ring, one flow per link, and the same ring doubled up") {
  const Platform pf = platform_of("torus=4 node=core:2 bw=1e9 t_inj=1us t_hop=100ns");
  // One rank per node, r -> r+1 around the ring: every link carries one flow.
  std::vector<Flow> ring;
  for (int r = 0; r < 4; ++r) ring.push_back({r, (r + 1) % 4, 1, 1000});
  const Traffic t = traffic_of(4, ring);
  auto m = evaluate(t, {{0, 0}, {1, 0}, {2, 0}, {3, 0}}, pf, EvaluateOptions{1, {}, false, nullptr});
  REQUIRE(m.ok());
  CHECK(m->predicted_comm_time_max == Approx(2.1e-6));
  CHECK(m->predicted_comm_time_mean == Approx(2.1e-6));
  // Ranks on nodes 0, 2, 1, 3: rank 0 (node 0) -> rank 1
  // (node 2) and rank 2 (node 1) -> rank 3 (node 3) go two hops, both over
  // link 1->2 (0->1->2 and 1->2->3); rank 1 (node 2) -> rank 2 (node 1) goes
  // 2->1 (one hop, "-"), rank 3 (node 3) -> rank 0 (node 0) goes 3->0 ("+").
  const std::vector<Placement> crossed = {{0, 0}, {2, 0}, {1, 0}, {3, 0}};
  const auto times = predicted_rank_times(t, crossed, pf);
  CHECK(times[0] == Approx(1.2e-6 + 1000 / 0.5e9));
  CHECK(times[2] == Approx(1.2e-6 + 1000 / 0.5e9));
  CHECK(times[1] == Approx(2.1e-6));
  CHECK(times[3] == Approx(2.1e-6));
}

TEST_CASE("time model: an intra-node pair at the node's speed") {
  const Platform pf = platform_of("torus=4 node=core:2 bw=1e9 t_inj=1us t_hop=100ns");
  const Traffic t = traffic_of(2, {{0, 1, 2, 20000}});
  const std::vector<Placement> placement = {{0, 0}, {0, 1}};
  auto m = evaluate(t, placement, pf, EvaluateOptions{2, {}, false, nullptr});
  REQUIRE(m.ok());
  // 2 x 300 ns + 20000 B / 20 GB/s.
  CHECK(m->predicted_comm_time_max == Approx(1.6e-6));
  CHECK(m->comm_time_max == 0);  // the old model left intra-node out
  // The machine's shm words set them.
  const Platform slower = platform_of("torus=4 node=core:2 bw=1e9 t_inj=1us t_hop=100ns shm-lat=1us shm-bw=10GB/s");
  CHECK(predicted_rank_times(t, placement, slower)[0] == Approx(2e-6 + 2e-6));
}

// Dual-socket nodes: 2 packages of 2 cores (cores 0, 1 in package 0; 2, 3 in
// package 1); socket link 1 us and 1 GB/s per direction, shared memory
// 300 ns and 20 GB/s.
TEST_CASE("time model: a cross-socket flow pays the socket link, a same-package flow shared memory") {
  const Platform pf = platform_of("torus=4 node=package:2,core:2 bw=1e9 t_inj=1us t_hop=100ns socket-lat=1us socket-bw=1GB/s");
  const std::vector<Placement> placement = {{0, 0}, {0, 1}, {0, 2}, {0, 3}};
  // 0 -> 2 crosses: 2 messages x 1 us + 1000 B / 1 GB/s.
  const Traffic cross = traffic_of(4, {{0, 2, 2, 1000}});
  CHECK(predicted_rank_times(cross, placement, pf)[0] == Approx(2e-6 + 1e-6));
  // 0 -> 1 stays in package 0: 2 x 300 ns + 1000 B / 20 GB/s, as before.
  const Traffic same = traffic_of(4, {{0, 1, 2, 1000}});
  CHECK(predicted_rank_times(same, placement, pf)[0] == Approx(600e-9 + 50e-9));
  // The same flows on one-package nodes do not see the socket words.
  const Platform one_package = platform_of("torus=4 node=core:4 bw=1e9 t_inj=1us t_hop=100ns socket-lat=1us socket-bw=1GB/s");
  CHECK(predicted_rank_times(cross, placement, one_package)[0] == Approx(600e-9 + 50e-9));
  auto m = evaluate(cross, placement, pf, EvaluateOptions{4, {}, false, nullptr});
  REQUIRE(m.ok());
  CHECK(m->cross_package_bytes == 1000);
  CHECK(m->predicted_comm_time_max == Approx(3e-6));
}

TEST_CASE("time model: on mixed nodes only the nodes of several packages have a socket link") {
  const Platform pf = platform_of("torus=2 node=package:2,core:2 nodes=1:core:4 bw=1e9 t_inj=1us t_hop=100ns socket-lat=1us socket-bw=1GB/s");
  // Rank 0 -> 1 on node 0 crosses its packages; rank 2 -> 3 on node 1 (one package) does not.
  const Traffic t = traffic_of(4, {{0, 1, 1, 1000}, {2, 3, 1, 1000}});
  const auto times = predicted_rank_times(t, {{0, 0}, {0, 2}, {1, 0}, {1, 3}}, pf);
  CHECK(times[0] == Approx(1e-6 + 1e-6));
  CHECK(times[2] == Approx(300e-9 + 50e-9));
}

TEST_CASE("time model: flows crossing the sockets one way share the link, the other way is free") {
  const Platform pf = platform_of("torus=4 node=package:2,core:2 bw=1e9 t_inj=1us t_hop=100ns socket-lat=1us socket-bw=1GB/s");
  const std::vector<Placement> placement = {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 2}};
  // 0 -> 2 and 1 -> 3 both go package 0 -> 1 of node 0: half the link each.
  const Traffic two = traffic_of(6, {{0, 2, 1, 1000}, {1, 3, 1, 1000}});
  const auto shared = predicted_rank_times(two, placement, pf);
  CHECK(shared[0] == Approx(1e-6 + 2e-6));
  CHECK(shared[1] == Approx(1e-6 + 2e-6));
  // 0 -> 2 and 3 -> 1 go opposite ways: the link is full duplex.
  const Traffic opposite = traffic_of(6, {{0, 2, 1, 1000}, {3, 1, 1, 1000}});
  const auto apart = predicted_rank_times(opposite, placement, pf);
  CHECK(apart[0] == Approx(2e-6));
  CHECK(apart[3] == Approx(2e-6));
  // Another node's socket link is another link: 0 -> 2 on node 0 and 4 -> 5
  // on node 1 do not share.
  const Traffic two_nodes = traffic_of(6, {{0, 2, 1, 1000}, {4, 5, 1, 1000}});
  const auto separate = predicted_rank_times(two_nodes, placement, pf);
  CHECK(separate[0] == Approx(2e-6));
  CHECK(separate[4] == Approx(2e-6));
  // A small flow ends first and leaves the link to the big one: 500 B and
  // 3000 B at half each until 1000 B have crossed (1 us), then 2500 B alone.
  const Traffic uneven = traffic_of(6, {{0, 2, 1, 500}, {1, 3, 1, 3000}});
  const auto ends = predicted_rank_times(uneven, placement, pf);
  CHECK(ends[0] == Approx(1e-6 + 1e-6));
  CHECK(ends[1] == Approx(1e-6 + 3.5e-6));
}

TEST_CASE("time model: a flow that ends leaves the link to the others") {
  const Platform pf = platform_of("torus=4 node=core:2 bw=1e9 t_inj=1us t_hop=100ns");
  // 1000 B and 3000 B over link 0->1: half each until the small one ends
  // (2000 B carried, 2 us), then the big one alone (4000 B in all, 4 us).
  const Traffic t = traffic_of(4, {{0, 2, 1, 1000}, {1, 3, 1, 3000}});
  const auto times = predicted_rank_times(t, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}, pf);
  CHECK(times[0] == Approx(1.1e-6 + 2e-6));
  CHECK(times[1] == Approx(1.1e-6 + 4e-6));
  // Zero-byte messages (barriers) pay latency only and take no bandwidth.
  const Traffic with_barrier = traffic_of(4, {{0, 2, 1, 1000}, {1, 3, 5, 0}});
  const auto barrier = predicted_rank_times(with_barrier, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}, pf);
  CHECK(barrier[0] == Approx(2.1e-6));
  CHECK(barrier[1] == Approx(5 * 1.1e-6));
}

// The bulk model: the traffic as rounds, each message its latency and then
// its bytes at its share of the links (tests/simulation/replay_cli.sh checks
// it against SimGrid's replay of the same program).
TEST_CASE("bulk model: one pair, one message a round, the receiver paces the rounds") {
  const Platform pf = platform_of("torus=4 node=core:2 bw=1e9 t_inj=1us t_hop=100ns");
  // 2 messages of 1000 B from node 0 to node 1: 2 rounds of 1.1 us + 1 us.
  // (The sender's eager sends end at once; the receiver posts its second
  // receive when the first message has arrived.)
  const Traffic t = traffic_of(2, {{0, 1, 2, 2000}});
  const std::vector<Placement> placement = {{0, 0}, {1, 0}};
  CHECK(predicted_bulk_time(t, placement, pf).value() == Approx(2 * 2.1e-6));
  // 40 messages: the program's rounds repeat (counts divided by 10, 4
  // rounds), and its time counts them 10 times: 40 x 2.1 us.
  const Traffic many = traffic_of(2, {{0, 1, 40, 40000}});
  CHECK(predicted_bulk_time(many, placement, pf).value() == Approx(40 * 2.1e-6));
  // evaluate reports it.
  auto m = evaluate(t, placement, pf, EvaluateOptions{2, {}, false, nullptr});
  REQUIRE(m.ok());
  CHECK(m->predicted_bulk_time == Approx(4.2e-6));
}

TEST_CASE("bulk model: messages crossing one link at once share it") {
  const Platform pf = platform_of("torus=4 node=core:2 bw=1e9 t_inj=1us t_hop=100ns");
  // Ranks 0, 1 on node 0 send 1000 B to ranks 2, 3 on node 1 over link
  // 0->1: half of it each after their latency, 1.1 us + 2 us.
  const std::vector<Placement> placement = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  CHECK(predicted_bulk_time(traffic_of(4, {{0, 2, 1, 1000}, {1, 3, 1, 1000}}), placement, pf).value() ==
        Approx(3.1e-6));
  // Opposite directions do not share: 2.1 us.
  CHECK(predicted_bulk_time(traffic_of(4, {{0, 2, 1, 1000}, {3, 1, 1, 1000}}), placement, pf).value() ==
        Approx(2.1e-6));
  // A ring, one message per rank and round on its own link: 3 rounds of 2.1 us.
  std::vector<Flow> ring;
  for (int r = 0; r < 4; ++r) ring.push_back({r, (r + 1) % 4, 3, 3000});
  CHECK(predicted_bulk_time(traffic_of(4, ring), {{0, 0}, {1, 0}, {2, 0}, {3, 0}}, pf).value() == Approx(3 * 2.1e-6));
  // The same ring with ranks 0, 1 on node 0 and 2, 3 on node 1: 1 -> 2 and
  // 3 -> 0 cross one link each way, 0 -> 1 and 2 -> 3 stay on their node
  // (300 ns + 1000 B / 20 GB/s): each round waits for the crossing, 2.1 us.
  CHECK(predicted_bulk_time(traffic_of(4, ring), placement, pf).value() == Approx(3 * 2.1e-6));
}

TEST_CASE("bulk model: a message that ends leaves the link to the others; zero bytes pay latency") {
  const Platform pf = platform_of("torus=4 node=core:2 bw=1e9 t_inj=1us t_hop=100ns");
  const std::vector<Placement> placement = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  // 1000 B and 3000 B over link 0->1: half each for 2 us, then the big one
  // alone: the last arrives at 1.1 us + 4 us.
  CHECK(predicted_bulk_time(traffic_of(4, {{0, 2, 1, 1000}, {1, 3, 1, 3000}}), placement, pf).value() ==
        Approx(5.1e-6));
  // Barriers (no bytes): one latency a round.
  CHECK(predicted_bulk_time(traffic_of(4, {{1, 3, 5, 0}}), placement, pf).value() == Approx(5 * 1.1e-6));
  // Inside one package: 300 ns + 1000 B / 20 GB/s a round, unshared.
  CHECK(predicted_bulk_time(traffic_of(4, {{0, 1, 2, 2000}, {1, 0, 2, 2000}}), placement, pf).value() ==
        Approx(2 * 350e-9));
}

TEST_CASE("bulk model: nothing past its work cap") {
  const Platform pf = platform_of("torus=4 node=core:2 bw=1e9 t_inj=1us t_hop=100ns");
  const Traffic t = traffic_of(4, {{0, 2, 1, 1000}, {1, 3, 1, 1000}});
  BulkModelOptions capped;
  capped.max_work = 0;
  CHECK_FALSE(predicted_bulk_time(t, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}, pf, capped).has_value());
  // A hostile profile's 2^53 bytes in one message next to a small one: the
  // clock runs far ahead of the last steps, and the run still ends (it
  // looped once the remaining bytes fell below the clock's precision).
  const Traffic huge = traffic_of(4, {{0, 2, 1, 0x1p53}, {1, 3, 3, 3000}});
  CHECK(predicted_bulk_time(huge, {{0, 0}, {0, 1}, {1, 0}, {1, 1}}, pf).value() == Approx(1.1e-6 + 0x1p53 / 1e9));
}

TEST_CASE("evaluate: rejects placements that do not fit the traffic or machine") {
  const Platform pf = platform_of("torus=4 node=core:2");
  const Traffic t = traffic_of(2, {{0, 1, 1, 10}});
  CHECK_FALSE(evaluate(t, {{0, 0}}, pf).ok());
  CHECK_FALSE(evaluate(t, {{0, 0}, {4, 0}}, pf).ok());
  CHECK_FALSE(evaluate(t, {{0, 0}, {1, 2}}, pf).ok());
}

TEST_CASE("evaluate_each: evaluate's results in order, on any thread count, an error where it fails") {
  // A pair of 10 B, 4 messages, on a line of 4 nodes: 1, 2 and 3 hops apart,
  // and a placement off the machine in the middle.
  const Platform pf = platform_of("torus=4 wrap=0 node=core:2");
  const Traffic t = traffic_of(2, {{0, 1, 4, 10}});
  const std::vector<std::vector<Placement>> placements = {
      {{0, 0}, {1, 0}}, {{0, 0}, {2, 0}}, {{0, 0}, {9, 0}}, {{0, 0}, {3, 0}}};
  const auto memo = make_lower_bound_memo();
  std::vector<EvaluationJob> jobs;
  for (const auto& placement : placements) jobs.push_back({&placement, &pf, EvaluateOptions{1, {}, true, memo}});
  for (int threads : {1, 3}) {
    const std::vector<Result<Metrics>> got = evaluate_each(t, jobs, threads);
    REQUIRE(got.size() == 4);
    CHECK_FALSE(got[2].ok());
    for (size_t i : {0, 1, 3}) {
      REQUIRE(got[i].ok());
      const auto alone = evaluate(t, placements[i], pf, EvaluateOptions{1, {}, true, nullptr});
      REQUIRE(alone.ok());
      CHECK(got[i]->hop_bytes == alone->hop_bytes);
      CHECK(got[i]->predicted_bulk_time == alone->predicted_bulk_time);
      CHECK(got[i]->lower_bound_hop_bytes == alone->lower_bound_hop_bytes);
    }
    CHECK(got[0]->hop_bytes == 10);
    CHECK(got[1]->hop_bytes == 20);
    CHECK(got[3]->hop_bytes == 30);
  }
}

TEST_CASE("lower bound: never above the brute-force optimum, tight on a ring") {
  // All placements of 6 ranks onto a 3x2 torus with one rank per node,
  // random weights: the bound must not exceed the best one.
  const Platform pf = platform_of("torus=3x2 links=2x1 node=core:1");
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    std::vector<Flow> flows;
    std::uint64_t x = seed * 2654435761u;
    for (int a = 0; a < 6; ++a)
      for (int b = a + 1; b < 6; ++b) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        if ((x >> 60) % 3 != 0) flows.push_back({a, b, 1, static_cast<double>((x >> 33) % 1000 + 1)});
      }
    const Traffic t = traffic_of(6, flows);
    std::vector<int> perm(6);
    std::iota(perm.begin(), perm.end(), 0);
    double best_hb = 1e300, best_w = 1e300;
    do {
      std::vector<Placement> pl;
      for (int r = 0; r < 6; ++r) pl.push_back({perm[r], 0});
      auto m = evaluate(t, pl, pf, EvaluateOptions{1, {}, false, nullptr});
      REQUIRE(m.ok());
      best_hb = std::min(best_hb, m->hop_bytes);
      best_w = std::min(best_w, m->weighted_cost);
    } while (std::next_permutation(perm.begin(), perm.end()));
    const LowerBound lb = cost_lower_bound(build_comm_graph(t, 0), pf.net(), 1, {});
    CHECK(lb.hop_bytes <= best_hb + 1e-9);
    CHECK(lb.weighted <= best_w + 1e-9);
    CHECK(lb.hop_bytes > 0);
  }
  // A ring on a ring, one rank per node: every rank has its two partners at
  // distance 1, which the identity achieves: bound == optimum.
  const Platform ring = platform_of("torus=8 node=core:1");
  std::vector<Flow> flows;
  for (int r = 0; r < 8; ++r) flows.push_back({r, (r + 1) % 8, 1, 10});
  const Traffic t = traffic_of(8, [&] {
    std::sort(flows.begin(), flows.end(), [](auto& a, auto& b) { return a.src != b.src ? a.src < b.src : a.dst < b.dst; });
    return flows;
  }());
  std::vector<Placement> identity;
  for (int r = 0; r < 8; ++r) identity.push_back({r, 0});
  auto m = evaluate(t, identity, ring, EvaluateOptions{1, {}, true, nullptr});
  REQUIRE(m.ok());
  CHECK(m->hop_bytes == 80);
  CHECK(m->lower_bound_hop_bytes == 80);
  CHECK(m->gap_hop_bytes == 0);
}

TEST_CASE("lower bound: the component bound covers partners that fit on one node") {
  // Ring of 8 (20 B per edge both ways) on a ring of 4 nodes.
  const Platform pf = platform_of("torus=4 node=core:4");
  std::vector<Flow> flows;
  for (int r = 0; r < 8; ++r) {
    flows.push_back({r, (r + 1) % 8, 1, 10});
    flows.push_back({(r + 1) % 8, r, 1, 10});
  }
  std::sort(flows.begin(), flows.end(), [](auto& a, auto& b) { return a.src != b.src ? a.src < b.src : a.dst < b.dst; });
  const CommGraph g = build_comm_graph(traffic_of(8, flows), 0);
  // ppn 4: both partners fit on a rank's node (per-rank bound 0), but 8 ranks
  // need 2 nodes, so at least one edge (20 B) is a hop long (component
  // bound: 20). The densest group of 4 is a path (3 edges, 60 B, 15 per
  // rank): nodes keep at most 8 x 15 = 120 of the 160 B, so 40 leave, which
  // the optimum (two neighbouring nodes, two cut edges) meets.
  CHECK(cost_lower_bound(g, pf.net(), 4, {}).hop_bytes == 40);
  // ppn 2: the per-rank bound (one partner on-node, one a hop away: 8 x 20 / 2)
  // beats the component bound (3 edges).
  CHECK(cost_lower_bound(g, pf.net(), 2, {}).hop_bytes == 80);
  // A single node holds everything: no bound from either side.
  CHECK(cost_lower_bound(g, pf.net(), 8, {}).hop_bytes == 0);
}

TEST_CASE("lower bound: a node subset and a mesh use the worst-placed profile") {
  // Mesh of 4 in a line, allocation {0, 3}: the only other allocated node is
  // 3 hops away, so a pair split across nodes costs at least 3 hops.
  const Platform pf = platform_of("torus=4 wrap=0 node=core:1");
  const Traffic t = traffic_of(2, {{0, 1, 1, 10}});
  const LowerBound lb = cost_lower_bound(build_comm_graph(t, 0), pf.net(), 1, {0, 3});
  CHECK(lb.hop_bytes == 30);
  const LowerBound all = cost_lower_bound(build_comm_graph(t, 0), pf.net(), 1, {});
  CHECK(all.hop_bytes == 10);
}

TEST_CASE("lower bound: a shared memo gives every mapping the bound it would get alone") {
  // Two pairs of 10 B on a line of 4 nodes of 2 cores. At 1 rank per node
  // each pair is split (bound 20 B x hop); a mapping with both ranks of a
  // pair on one node widens the bound to 2 per node (bound 0): the memo must
  // not hand it the bound of the first mapping, nor the first the second's.
  const Platform pf = platform_of("torus=4 wrap=0 node=core:2");
  const Traffic t = traffic_of(4, {{0, 1, 1, 10}, {2, 3, 1, 10}});
  const std::vector<Placement> spread = {{0, 0}, {1, 0}, {2, 0}, {3, 0}};
  const std::vector<Placement> paired = {{0, 0}, {0, 1}, {2, 0}, {2, 1}};
  EvaluateOptions o{1, {}, true, nullptr};
  o.bound_memo = make_lower_bound_memo();
  for (int round = 0; round < 2; ++round) {
    auto a = evaluate(t, spread, pf, o);
    auto b = evaluate(t, paired, pf, o);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(a->lower_bound_hop_bytes == 20);
    CHECK(b->lower_bound_hop_bytes == 0);
  }
  // Another traffic with the same memo: its own bound (a pair of 30 B).
  const Traffic heavier = traffic_of(4, {{0, 1, 1, 30}});
  auto c = evaluate(heavier, spread, pf, o);
  REQUIRE(c.ok());
  CHECK(c->lower_bound_hop_bytes == 30);
}

TEST_CASE("lower bound: a memo shared by evaluations on several threads gives each its own bound") {
  // The mappings of the test above, evaluated at once on 8 threads sharing
  // one memo (as `rankmap map` scores block and its choice): each gets the
  // bound it gets alone, and every metric is the sequential one.
  const Platform pf = platform_of("torus=4 wrap=0 node=core:2");
  const Traffic t = traffic_of(4, {{0, 1, 1, 10}, {2, 3, 1, 10}});
  const std::vector<std::vector<Placement>> mappings = {{{0, 0}, {1, 0}, {2, 0}, {3, 0}}, {{0, 0}, {0, 1}, {2, 0}, {2, 1}}};
  EvaluateOptions alone{1, {}, true, nullptr};
  std::vector<Metrics> expected;
  for (const auto& m : mappings) expected.push_back(*evaluate(t, m, pf, alone));
  EvaluateOptions shared = alone;
  shared.bound_memo = make_lower_bound_memo();
  std::vector<EvaluationJob> jobs;
  for (size_t i = 0; i < 8; ++i) jobs.push_back({&mappings[i % 2], &pf, shared});
  const std::vector<Result<Metrics>> got = evaluate_each(t, jobs, 8);
  REQUIRE(got.size() == 8);
  for (size_t i = 0; i < got.size(); ++i) {
    REQUIRE(got[i].ok());
    CHECK(got[i]->lower_bound_hop_bytes == expected[i % 2].lower_bound_hop_bytes);
    CHECK(got[i]->hop_bytes == expected[i % 2].hop_bytes);
    CHECK(got[i]->gap_hop_bytes == expected[i % 2].gap_hop_bytes);
  }
  CHECK(expected[0].lower_bound_hop_bytes == 20);
  CHECK(expected[1].lower_bound_hop_bytes == 0);
}

TEST_CASE("lower bound: the triangle-free bound, against brute force and by hand") {
  // Random bipartite graphs (hence triangle-free) of 8 ranks, every
  // assignment of the ranks to 4 nodes of a 2x2 torus at ppn 2 and to 3 nodes
  // of a ring at ppn 3: the bound never exceeds the best placement.
  struct Machine {
    const char* line;
    int ppn;
  };
  for (const Machine& mc : {Machine{"torus=2x2 links=2x1 node=core:2", 2}, Machine{"torus=3 node=core:3", 3}}) {
    const Platform pf = platform_of(mc.line);
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
      std::vector<Flow> flows;
      std::uint64_t x = seed * 2654435761u;
      for (int a = 0; a < 4; ++a)
        for (int b = 4; b < 8; ++b) {
          x = x * 6364136223846793005ULL + 1442695040888963407ULL;
          if ((x >> 60) % 4 != 0) flows.push_back({a, b, 1, static_cast<double>((x >> 33) % 1000 + 1)});
        }
      const Traffic t = traffic_of(8, flows);
      const auto [best_hb, best_w] = brute_force_optimum(t, pf, mc.ppn);
      const LowerBound lb = cost_lower_bound(build_comm_graph(t, 0), pf.net(), mc.ppn, {});
      INFO(mc.line << " seed " << seed);
      CHECK(lb.hop_bytes <= best_hb + 1e-9);
      CHECK(lb.weighted <= best_w + 1e-9);
    }
  }
  // By hand: a 4-cycle (20 B per edge, both ways) at ppn 2 on 2 nodes one hop
  // apart. A node keeps at most floor(2^2 / 4) = 1 edge, so 2 of the 4 edges
  // leave: 40, which the optimum ({0,1}, {2,3}) meets.
  const Platform two = platform_of("torus=2 node=core:2");
  std::vector<Flow> cyc;
  for (int r = 0; r < 4; ++r) {
    cyc.push_back({r, (r + 1) % 4, 1, 10});
    cyc.push_back({(r + 1) % 4, r, 1, 10});
  }
  std::sort(cyc.begin(), cyc.end(), [](auto& a, auto& b) { return a.src != b.src ? a.src < b.src : a.dst < b.dst; });
  CHECK(cost_lower_bound(build_comm_graph(traffic_of(4, cyc), 0), two.net(), 2, {}).hop_bytes == 40);
}

TEST_CASE("lower bound: the densest-groups bound, against brute force and by hand") {
  // Random graphs with triangles (any pair may talk), 8 ranks, every
  // assignment at ppn 2 (2x2 torus), 3 (ring of 3) and 4 (2 nodes): the bound
  // never exceeds the best placement.
  struct Machine {
    const char* line;
    int ppn;
  };
  for (const Machine& mc : {Machine{"torus=2x2 links=2x1 node=core:2", 2}, Machine{"torus=3 node=core:3", 3},
                            Machine{"torus=2 node=core:4", 4}}) {
    const Platform pf = platform_of(mc.line);
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      std::vector<Flow> flows;
      std::uint64_t x = seed * 2654435761u + 17;
      for (int a = 0; a < 8; ++a)
        for (int b = a + 1; b < 8; ++b) {
          x = x * 6364136223846793005ULL + 1442695040888963407ULL;
          if ((x >> 60) % 2 == 0) flows.push_back({a, b, 1, static_cast<double>((x >> 33) % 1000 + 1)});
        }
      const Traffic t = traffic_of(8, flows);
      const auto [best_hb, best_w] = brute_force_optimum(t, pf, mc.ppn);
      const LowerBound lb = cost_lower_bound(build_comm_graph(t, 0), pf.net(), mc.ppn, {});
      INFO(mc.line << " seed " << seed << " bound " << lb.hop_bytes << " optimum " << best_hb);
      CHECK(lb.hop_bytes <= best_hb * (1 + 1e-12));
      CHECK(lb.weighted <= best_w * (1 + 1e-12));
    }
  }
  // By hand: a 4x2 grid, x periodic (8 x edges of 3 B per direction, 6 both
  // ways) and 4 y edges (1 B per direction), 4 ranks per node on 2 nodes one
  // hop apart. The densest group of 4 is an x ring (4 edges, 24 B, 6 per
  // rank), so nodes keep at most 8 x 6 = 48 of the 56 B: the 8 B of y edges
  // leave, which is the optimum (each x ring on its own node).
  const Platform two = platform_of("torus=2 node=core:4");
  std::vector<Flow> grid;
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 4; ++x) {
      const int r = x + 4 * y, right = (x + 1) % 4 + 4 * y, up = x + 4 * ((y + 1) % 2);
      grid.push_back({r, right, 1, 3});
      grid.push_back({right, r, 1, 3});
      if (y == 0) {
        grid.push_back({r, up, 1, 1});
        grid.push_back({up, r, 1, 1});
      }
    }
  std::sort(grid.begin(), grid.end(), [](auto& a, auto& b) { return a.src != b.src ? a.src < b.src : a.dst < b.dst; });
  // Optimum: each x ring on its own node; the 4 y edges (2 B each) cross one hop: 8.
  CHECK(cost_lower_bound(build_comm_graph(traffic_of(8, grid), 0), two.net(), 4, {}).hop_bytes == 8);
}

namespace {

// Both directions of every listed pair, `bytes` each way, sorted as Traffic wants.
Traffic symmetric_traffic(int ranks, const std::vector<std::pair<int, int>>& pairs, const std::vector<double>& bytes) {
  std::vector<Flow> flows;
  for (size_t i = 0; i < pairs.size(); ++i) {
    flows.push_back({pairs[i].first, pairs[i].second, 1, bytes[i]});
    flows.push_back({pairs[i].second, pairs[i].first, 1, bytes[i]});
  }
  std::sort(flows.begin(), flows.end(), [](auto& a, auto& b) { return a.src != b.src ? a.src < b.src : a.dst < b.dst; });
  return traffic_of(ranks, flows);
}

// One rank per node, every node used: the optimum over all permutations.
std::pair<double, double> brute_force_permutations(const Traffic& t, const Platform& pf) {
  std::vector<int> perm(static_cast<size_t>(t.ranks));
  std::iota(perm.begin(), perm.end(), 0);
  double best_hb = 1e300, best_w = 1e300;
  do {
    std::vector<Placement> pl;
    for (int node : perm) pl.push_back({node, 0});
    auto m = evaluate(t, pl, pf, EvaluateOptions{1, {}, false, nullptr});
    REQUIRE(m.ok());
    best_hb = std::min(best_hb, m->hop_bytes);
    best_w = std::min(best_w, m->weighted_cost);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return {best_hb, best_w};
}

}  // namespace

TEST_CASE("lower bound: the cut bound by hand") {
  // A 4x2 grid of ranks on a 4x2 torus, one per node: x edges of 2 B (both
  // ways), y edges of 10 B. The Laplacian's eigenvalues are those of the x
  // ring (0, 4, 4, 8) plus those of the y pair (0, 20): 0, 4, 4, 8, 20, ...
  // The torus has three cuts (two halvings of the ring of 4, one of the pair),
  // whose centred sides are orthogonal, each of squared length 8 x 1/4 = 2:
  // the trace bound pairs them with 4, 4 and 8, so 2 x (4 + 4 + 8) = 32 B x
  // hop (each cut alone with lambda_2 = 4 would give 24).
  const Platform grid = platform_of("torus=4x2 node=core:1");
  std::vector<std::pair<int, int>> pairs;
  std::vector<double> bytes;
  for (int x = 0; x < 4; ++x) {
    pairs.push_back({x, (x + 1) % 4});
    pairs.push_back({4 + x, 4 + (x + 1) % 4});
    pairs.push_back({x, 4 + x});
    bytes.insert(bytes.end(), {1, 1, 5});
  }
  const Traffic t = symmetric_traffic(8, pairs, bytes);
  const CommGraph g = build_comm_graph(t, 0);
  const std::vector<int> all = {0, 1, 2, 3, 4, 5, 6, 7};
  const LowerBound cut = detail::cut_lower_bound(g, grid.net(), 1, all, kCutBoundMaxRanks);
  CHECK(cut.hop_bytes == Approx(32).epsilon(1e-12));
  // The pair's two links (the default on a size-2 ring) halve its cut's
  // weighted price: squared lengths 2, 2 and 1 against 4, 4 and 8.
  CHECK(cut.weighted == Approx(24).epsilon(1e-12));
  CHECK(detail::cut_lower_bound(g, grid.net(), 1, all, 7).hop_bytes == 0);  // past its size limit: nothing
  const auto [best_hb, best_w] = brute_force_permutations(t, grid);
  CHECK(cost_lower_bound(g, grid.net(), 1, {}).hop_bytes >= cut.hop_bytes);
  CHECK(cut.hop_bytes <= best_hb);

  // All-to-all of 6 ranks (2 B per pair) on a ring of 4 nodes at ppn 2: 6 of
  // the 8 slots, so each cut alone: lambda_2 = 6 x 2 = 12, and a halving's
  // sides hold 4 slots each, so 2 to 4 of the ranks on one side, at least
  // 2 x 4 / 6 x 12 = 16 B across each of the two halvings: 32. Three nodes
  // of two ranks in a row meet it (4 pairs one hop apart twice, 4 two hops
  // apart: 16 pair-hops of 2 B); the per-rank bound sees only 24.
  const Platform ring = platform_of("torus=4 node=core:2");
  std::vector<std::pair<int, int>> every;
  for (int a = 0; a < 6; ++a)
    for (int b = a + 1; b < 6; ++b) every.push_back({a, b});
  const Traffic k6 = symmetric_traffic(6, every, std::vector<double>(every.size(), 1));
  const CommGraph gk = build_comm_graph(k6, 0);
  CHECK(detail::cut_lower_bound(gk, ring.net(), 2, {0, 1, 2, 3}, kCutBoundMaxRanks).hop_bytes == Approx(32).epsilon(1e-12));
  CHECK(cost_lower_bound(gk, ring.net(), 2, {}, 4'000'000, 0).hop_bytes == 24);  // without the cut part
  CHECK(cost_lower_bound(gk, ring.net(), 2, {}).hop_bytes == Approx(32).epsilon(1e-12));
  CHECK(brute_force_optimum(k6, ring, 2).first == 32);
}

TEST_CASE("lower bound: the cut bound never exceeds the brute-force optimum") {
  // Graphs that expand: unions of three random perfect matchings of 8 ranks
  // (about 3 partners each, 500-999 B a pair), on full machines (the trace
  // bound: a ring of 8 nodes at ppn 1, a ring of 4 at ppn 2, a cube with one
  // doubled dimension) and on 8 of the 12 slots of a chain of
  // 4 nodes (each cut alone). The cut part alone must stay below the
  // optimum on every one; at 8 ranks it is rarely the largest part (a
  // rank's few partners fit near it), which it is at scale (below).
  struct Machine {
    const char* line;
    int ppn;
  };
  for (const Machine& mc : {Machine{"torus=8 node=core:1", 1}, Machine{"torus=4 node=core:2", 2},
                            Machine{"torus=2x2x2 links=2x1x1 node=core:1", 1},
                            Machine{"torus=4 wrap=0 node=core:3", 3}}) {
    const Platform pf = platform_of(mc.line);
    std::vector<int> all(static_cast<size_t>(pf.net().nodes()));
    std::iota(all.begin(), all.end(), 0);
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      std::mt19937_64 rng(seed);
      std::map<std::pair<int, int>, double> weight;
      for (int m = 0; m < 3; ++m) {
        std::vector<int> order(8);
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        for (int i = 0; i < 8; i += 2)
          weight[{std::min(order[i], order[i + 1]), std::max(order[i], order[i + 1])}] += 500 + static_cast<double>(rng() % 500);
      }
      std::vector<std::pair<int, int>> pairs;
      std::vector<double> bytes;
      for (const auto& [pair, w] : weight) {
        pairs.push_back(pair);
        bytes.push_back(w);
      }
      const Traffic t = symmetric_traffic(8, pairs, bytes);
      const CommGraph g = build_comm_graph(t, 0);
      const auto [best_hb, best_w] = mc.ppn == 1 ? brute_force_permutations(t, pf) : brute_force_optimum(t, pf, mc.ppn);
      const LowerBound cut = detail::cut_lower_bound(g, pf.net(), mc.ppn, all, kCutBoundMaxRanks);
      const LowerBound lb = cost_lower_bound(g, pf.net(), mc.ppn, {});
      INFO(mc.line << " seed " << seed << " cut part " << cut.hop_bytes << " bound " << lb.hop_bytes << " optimum "
                   << best_hb);
      CHECK(cut.hop_bytes > 0);
      CHECK(cut.hop_bytes <= best_hb * (1 + 1e-12));
      CHECK(cut.weighted <= best_w * (1 + 1e-12));
      CHECK(lb.hop_bytes <= best_hb * (1 + 1e-12));
      CHECK(lb.weighted <= best_w * (1 + 1e-12));
    }
  }

  // By hand: the complete bipartite graph K(4,4) (1 B each way) on a ring of
  // 4 nodes at ppn 2. Its Laplacian's eigenvalues are 0, 4 (six times) and
  // 8; the ring's two halvings, orthogonal, of squared length 8 x 1/4 = 2:
  // 2 x 4 + 2 x 4 = 16. Nodes of two of a kind, the kinds alternating, give
  // every pair one hop: 16 pairs x 2 B x 1 hop... of 1 B each way: 16 x 2 /
  // 2 per pair counted once = 16 as weight x hops of the undirected edges.
  // The other parts reach 12 (a node keeps at most one edge of a bipartite
  // graph; the per-rank bound puts a partner on the rank's node).
  std::vector<std::pair<int, int>> bipartite;
  for (int a = 0; a < 4; ++a)
    for (int b = 4; b < 8; ++b) bipartite.push_back({a, b});
  const Traffic k44 = symmetric_traffic(8, bipartite, std::vector<double>(bipartite.size(), 0.5));
  const Platform ring = platform_of("torus=4 node=core:2");
  const CommGraph gk = build_comm_graph(k44, 0);
  CHECK(cost_lower_bound(gk, ring.net(), 2, {}, 4'000'000, 0).hop_bytes == 12);
  CHECK(cost_lower_bound(gk, ring.net(), 2, {}).hop_bytes == Approx(16).epsilon(1e-12));
  CHECK(brute_force_optimum(k44, ring, 2).first == 16);
}

TEST_CASE("lower bound: the cut part lifts the bound where the graph expands") {
  // Random partners (6 per rank) at 128 ranks on desmos at 4 per node: the
  // other parts price nearly every edge at one hop; no placement comes near
  // that. The cut part is larger, and still below the default's mapping.
  SynthSpec spec;
  spec.pattern = "random";
  spec.ranks = 128;
  const Traffic traffic = test::synth_traffic(spec);
  const Platform desmos = platform_of("desmos");
  const CommGraph g = build_comm_graph(traffic, 0);
  const LowerBound lb = cost_lower_bound(g, desmos.net(), 4, {});
  const LowerBound without = cost_lower_bound(g, desmos.net(), 4, {}, 4'000'000, 0);
  CHECK(lb.hop_bytes > 1.2 * without.hop_bytes);
  MapOptions o;
  o.ppn = 4;
  o.preset = Preset::fast;
  auto mapped = map_ranks(traffic, desmos, o);
  REQUIRE(mapped.ok());
  auto m = evaluate(traffic, mapped->placement, desmos, EvaluateOptions{4, {}, true, nullptr});
  REQUIRE(m.ok());
  CHECK(m->lower_bound_hop_bytes == lb.hop_bytes);
  CHECK(m->hop_bytes >= lb.hop_bytes);
}

TEST_CASE("exact search: finds a placement within both limits exactly where brute force does") {
  // Every placement of the ranks (a base-`nodes` counter over the
  // allocation), its hop-bytes and busiest link as the evaluator computes
  // them; then, for limits on a grid of the values met (and just below
  // them), the search must answer as the enumeration does, and a placement
  // it returns must meet both limits under the evaluator.
  struct Case {
    std::string machine;
    std::vector<int> nodes, slots;
    int ranks;
    std::vector<Flow> flows;
  };
  const std::vector<Case> cases = {
      // 4x2 torus (halfway round the ring of 4, single links along y), 2 slots each.
      {"torus=4x2 node=core:2 bw=1e9", {0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2, 2, 2, 2, 2, 2}, 5,
       {{0, 1, 1, 700}, {0, 3, 1, 300}, {1, 0, 1, 650}, {1, 2, 1, 410}, {2, 1, 1, 90}, {2, 4, 1, 520},
        {3, 0, 1, 300}, {3, 4, 1, 260}, {4, 2, 1, 515}, {4, 3, 1, 275}}},
      // Part of a 3x3 torus with doubled x links and unequal slots; rank 5 has no traffic.
      {"torus=3x3 links=2x1 node=core:2 bw=1e9", {0, 1, 2, 4, 5, 7}, {2, 1, 1, 2, 1, 1}, 6,
       {{0, 1, 1, 100}, {0, 2, 1, 30}, {1, 0, 1, 100}, {1, 3, 1, 80}, {2, 0, 1, 30}, {2, 4, 1, 55},
        {3, 1, 1, 80}, {3, 4, 1, 120}, {4, 2, 1, 60}, {4, 3, 1, 110}}},
  };
  for (const Case& c : cases) {
    INFO(c.machine);
    const Platform pf = platform_of(c.machine);
    const Network& net = pf.net();
    const Allocation alloc(net.nodes(), c.nodes, c.slots);
    const Traffic t = traffic_of(c.ranks, c.flows);
    std::vector<std::pair<double, double>> met;  // (hop-bytes, busiest link) of every placement
    std::vector<int> index(static_cast<size_t>(c.ranks), 0);
    const int m = alloc.size();
    for (;;) {
      std::vector<int> load(static_cast<size_t>(m), 0);
      bool fits = true;
      for (int i : index) fits = fits && ++load[i] <= alloc.slots(c.nodes[i]);
      if (fits) {
        std::vector<Placement> pl;
        for (int i : index) pl.push_back({c.nodes[i], 0});
        auto e = evaluate(t, pl, pf, EvaluateOptions{0, c.nodes, false, nullptr});
        REQUIRE(e.ok());
        met.push_back({e->hop_bytes, e->max_link_relative});
      }
      int i = 0;
      while (i < c.ranks && ++index[i] == m) index[i++] = 0;
      if (i == c.ranks) break;
    }
    auto grid = [&](bool hop) {
      std::vector<double> v;
      for (const auto& p : met) v.push_back(hop ? p.first : p.second);
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      std::vector<double> out;
      for (size_t k = 0; k < 10; ++k) {
        const double x = v[k * (v.size() - 1) / 9];
        out.push_back(x);
        out.push_back(x * (1 - 1e-6));
      }
      return out;
    };
    int found = 0, none = 0;
    for (double h : grid(true))
      for (double l : grid(false)) {
        const bool exists = std::any_of(met.begin(), met.end(), [&](const auto& p) {
          return p.first <= h * (1 + 1e-12) && p.second <= l * (1 + 1e-12);
        });
        const detail::PlacementSearch s = detail::find_placement_within(t, net, alloc, h, l, 1'000'000);
        INFO("limits " << h << " B x hop, " << l << " s");
        REQUIRE(s.outcome != detail::PlacementSearch::Outcome::gave_up);
        CHECK((s.outcome == detail::PlacementSearch::Outcome::found) == exists);
        if (s.outcome != detail::PlacementSearch::Outcome::found) {
          ++none;
          continue;
        }
        ++found;
        std::vector<Placement> pl;
        std::vector<int> held(static_cast<size_t>(net.nodes()), 0);
        for (int node : s.node_of) {
          pl.push_back({node, 0});
          CHECK(++held[node] <= alloc.slots(node));
        }
        auto e = evaluate(t, pl, pf, EvaluateOptions{0, c.nodes, false, nullptr});
        REQUIRE(e.ok());
        CHECK(e->hop_bytes <= h * (1 + 1e-12));
        CHECK(e->max_link_relative <= l * (1 + 1e-12));
      }
    // Both answers occur (the grid spans the cheapest and the dearest placements).
    CHECK(found > 0);
    CHECK(none > 0);
  }
}
