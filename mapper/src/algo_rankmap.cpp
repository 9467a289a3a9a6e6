// rankmap, the default (docs/mapper.md, "The default"). It minimises the
// bytes-only cost sum(bytes x weighted distance), then the max link load:
//   ties         a uniform all-to-all on full nodes: every placement scores
//                the same, block is kept at once
//   starts       (default_starts.cpp) references paper and scotch (as the
//                stand-alone algorithms),
//                block, snake (cycle on a mesh), heavy-edge matching with
//                ties to the lowest and to the highest index (placed by
//                bisection / in order),
//                tilings of a row-major rank grid by blocks of ppn ranks
//                (placed by bisection / folded onto the torus: no seed),
//                and per seed (1, 3 or 8 by preset and size) METIS groups,
//                the dual recursive bisection and Scotch (default; strict
//                unless the graph is dense)
//   search       one pass of group and rank swaps for every start, the full
//                search for the best few (refine.cpp); where the cheapest
//                is within 0.1% of the lower bound, the steps below that
//                only lower the cost are skipped
//   ILS          iterated local search from the best candidate of each of
//                the cheapest start families (iterated_search.cpp), then
//                three more runs from the start of the cheapest result;
//                when all ended at one cost, starts from Scotch on a
//                graph-built target first
//   recombine    up to 256 ranks, the cheapest distinct placements are
//                recombined (recombine.cpp)
//   tabu         up to 1,024 ranks, a tabu search from the cheapest
//                placement (tabu_search.cpp); where it finds nothing (up to
//                256 ranks), one from another family's cheapest; then of
//                ranks paired inside their nodes (paired_search.cpp)
//   walk         up to 256 ranks, a tabu search from the cheapest placement
//                keeps the least loaded placement it passes at a tied cost
//                (TiedLoadWatch; the first tabu search is watched too)
//   relief       the cheapest tied candidates and the chosen one get the
//                link relief (link_relief.cpp), the chosen one then a tabu
//                search of single ranks on its links at the same rate;
//                where every candidate cheaper than the choice's fallback is
//                heavier than block, the cheapest two are relieved under it
//   choice       lowest cost among candidates no worse than block on both
//                metrics, load bought at 1% of cost for 5%; ties to block
// Budgets are counted in work, not seconds: one seed, one mapping. Starts
// that need no seed are searched with fixed seeds (seed_free below).
// Independent steps run on p.threads threads (parallel.hpp), each into its
// own slot with its own seed: the mapping does not depend on the count.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>

#include "detail.hpp"
#include "default_pipeline.hpp"
#include "parallel.hpp"

namespace rankmap {

using detail::Candidate;
using detail::derived_seed;
using detail::family_of;
using detail::kHugeRanks;
using detail::kSearchAllStartsUpTo;
using detail::kSeedFreeSeed;
using detail::kRelieveMinLoadGain;
using detail::kTieShare;
using detail::numbered;
using detail::seed_free;

namespace {

constexpr int kManySeedsUpTo = 256;         // ranks: every preset but fast runs 8 seeds
constexpr size_t kDenseArcsPerRank = 64;     // above: one seed only
// On dense graphs one pass of the search costs ~0.1 s per start at 1,024
// ranks (17 starts of an all-to-all: 1.9 s, all ending within 0.01%, and
// their full searches 0.5 s more): only the two cheapest are searched.
constexpr size_t kDenseSearchedStarts = 2;
// Up to this many ranks the extra searches and the recombination cost
// 0.15-0.3 s (0.3-0.7 s in all at 192-256 ranks); at 512 ranks 0.5 s more,
// past the default's 1 s.
constexpr int kRecombineUpTo = 256;
constexpr int kExtraSearchRuns = 3;         // more ILS runs from the best start, at other seeds
constexpr int kRecombineParents = 6;        // cheapest distinct placements recombined
// The recombination's budget, in iterated searches' budgets: its mean cost
// over 5 seeds kept falling up to 3 (by 1-3% more on the recorded CG, ADI
// and sparse patterns at 192-256 ranks than at 1), for 0.1-0.2 s.
constexpr std::int64_t kRecombineWork = 3;
// The tabu search's budget, in iterated searches' budgets, and its reach:
// at 4 the mean cost over 5 seeds fell 1.5-3% on random graphs, recorded
// sparse patterns and the shuffled stencil at 1,024 ranks (0.25-0.45 s more).
constexpr std::int64_t kTabuWork = 4;
// At most ~2 s of it: strong, whose budget was 10x the default's (5x since
// session 28), stays within its 10 s (4.5 s more at 1,024 ranks at 10x
// without the cap).
constexpr std::int64_t kTabuMaxWork = 800'000'000;
constexpr int kTabuUpTo = 1024;  // ranks
// The side lineage cut by cut (below): up to this many ranks, its tabu
// search with kSideTabuWork edge visits per unit of the iterated search's
// budget (half the main tabu search's: the same result on recorded ADI at
// 192 ranks on desmos, 0.2 s instead of 0.3).
constexpr int kSideLineageUpTo = 256;
constexpr std::int64_t kSideTabuWork = 2;
// The plateau walk's budget, in iterated searches' budgets, and its reach:
// 0.45 s more at 1,024 ranks (random partners, the shuffled stencil), past
// the default's 1 s; 0.1-0.2 s at 128-256 ranks.
constexpr std::int64_t kWalkWork = 2;
constexpr int kWalkUpTo = 256;  // ranks
// Where that tabu search found nothing (its start lies in a basin deeper
// than its reach), the cheapest placement of another start family and cost
// gets one too, up to this many ranks. Measured at 10 seeds: recorded ADI
// at 128 ranks on desmos at 4 per node, spread 1.06% -> 0 (every seed at
// the cheaper of its two basins); on 4x4x4 at 2 per node mean 0.9% lower,
// at 192 ranks on desmos at 6 per node 0.6% lower; recorded CG, sparse and
// the random graphs at 64-256 ranks within 0.1% (most never stall). It
// costs 0.1-0.25 s at 128-256 ranks, also where the first search found
// nothing because it started at the optimum (stencils: the price of not
// knowing it; skipping it where two start families reach exactly the
// cheapest cost saved that but lost a 3% lighter busiest link at equal cost
// on recorded hydro27 at 128 ranks on desmos), and 0.4 s at 1,024 ranks,
// past the default's 1 s.
constexpr int kSecondTabuUpTo = 256;  // ranks
// Then the paired ranks' search (paired_search.cpp), where nodes hold 4 or
// more ranks: cycles of a tabu search of the pairs with the iterated
// search's budget each (at most kPairedMaxWork: strong's stays within its
// 10 s). Measured at 5 seeds on recorded CG at 192 ranks, desmos at 6 per
// node: 2 cycles took the mean cost 3.2-3.5% lower and the spread from 5.8% to
// 2.2-3.9% for ~0.15 s (two versions of the pairing); 3 cycles and 4
// gave means within 1% of it for 0.1-0.15 s more; random graphs, recorded
// sparse, MG, hydro27 and ADI: no change.
constexpr int kPairedCycles = 2;
constexpr std::int64_t kPairedMaxWork = 200'000'000;
// Scotch runs on the graph-built target where every search ended at one cost
// (up to kManySeedsUpTo ranks; above, one per seed). Nothing else is left
// to spend the budget on there, and a run and its search cost ~1 ms at 64
// ranks. Recorded CG at 64 ranks on a 4x4 torus at 4 per node: with 8 runs
// 4 of 20 seeds stayed at the tie (3.00e8, above scotch_gmap's 2.93e8 on an
// amk_grf target), with 16 one, with 32 none (2.70-2.89e8); the other
// instances where every search ties (recorded ADI, CG, LU at 2 and 4 per
// node on desmos, CG on 4x4x4) end where they did, 0.01-0.05 s later.
constexpr int kSecondChanceRuns = 32;
// The regrouping search (after the plateau walk): from the 4 cheapest
// placements of distinct cost, each with the iterated search's budget (at
// ~2 ns a unit, 0.04 s each at 64 ranks on 16 nodes), up to 16 allocated
// nodes. Recorded CG at 64 ranks on 4x4 at 4 per node: 2.70-2.89e8 at
// seeds 1-15 before; with 4 searches 2.70e8 at all 15, with 3 or 2 (1.5x
// each) 2 of 15 one edge-hop above (2.74e8). At 32
// nodes (recorded CG, ADI and sparse on desmos at 4 and 6 per node, 10
// seeds) the means moved by 0.03-0.22% and the spreads stayed, for 0.25 s
// more CPU; at 64 (8x8, 4x4x4) a kick costs ~1 ms and it found nothing.
constexpr int kRegroupMaxNodes = 16;
constexpr int kRegroupStarts = 4;
constexpr std::int64_t kRegroupWork = 1;
// The lower bound's densest-groups part (evaluate.cpp), in rank sets
// enumerated per rank and try: 0.01-0.06 s at 192-1,024 ranks (27-point
// stencils and random partners at 8 per node included). 100 did not prove
// the recorded 3D stencil and multigrid at 128 ranks optimal; 300 did, and
// 1,000 and 3,000 proved no more of the recorded profiles.
constexpr std::int64_t kBoundSetsPerRank = 300;
// Its cut part (the graph's Laplacian eigenvalues, a dense solve) up to 256
// ranks: ~4 ms there, 0.16 s at 1,024. It proves 27-point stencils optimal
// where the other parts cannot (the synthetic one and recorded hydro27 at
// 64 ranks on desmos at 2 per node and on 4x4 at 4: searched for 0.5-1 s
// before, for the same mappings).
constexpr int kBoundCutRanks = 256;
// Runs of the whole default that join strong's candidates: at the user's
// seed, then at seeds mixed from it (docs/mapper.md, "Presets"); one above
// kSearchAllStartsUpTo ranks, where the default itself runs one seed.
constexpr int kStrongDefaultRuns = 4;
constexpr int kTiedRelief = 4;              // cheapest candidates each given the link relief
constexpr size_t kUnderBlockRelief = 2;     // cheapest candidates relieved under block's busiest link
constexpr double kRelieveCostShare = 0.01;    // cost the link relief may spend
constexpr double kTimeCostShare = 0.02;  // cost the time model's choice may spend
constexpr double kTimeMinGain = 0.05;    // predicted time it must save for that
constexpr int kTimeShortlist = 8;        // distinct cheapest candidates it predicts
// The bulk model's rate (step 4): the predicted time it must save, the
// cost over the cheapest it may spend at most (and never more than the
// time it saves), and how many candidates it replays besides the choice.
constexpr double kBulkMinGain = 0.03;
constexpr double kBulkCostShare = 0.03;
constexpr int kBulkShortlist = 8;
// strong: the bulk model's work cap is this many times BulkModelOptions'
// (its replays of 1,024 ranks pass the default's), and the choice's link
// relief at up to kBulkCostShare of cost joins the model's shortlist.
constexpr std::int64_t kStrongBulkWork = 25;
// Each relief step prices every swap around the busiest links: ~1,200 rank
// swaps and ~10 ms a step at 32k ranks of the random pattern (all 32,768
// neighbouring node pairs, ~0.1 s, on the 27-point stencil, whose links are
// all at the max), hence fewer steps there.
constexpr int kRelieveMaxSwaps = 64;
constexpr int kRelieveMaxSwapsLarge = 16;  // above kSearchAllStartsUpTo ranks
// The tabu relief of the choice (relieve_rank_links with a tenure): ranks
// moved stay put for 8-15 steps; it ends 150 steps after its last new best,
// or at 600. Under 10 ms at 1,024 ranks (it stops where every move is above
// its budget).
constexpr int kLoadTabuTenure = 8;
constexpr int kLoadTabuPatience = 150;
constexpr int kLoadTabuSteps = 600;

// Costs apart by more than rounding: distinct placements, most likely.
bool distinct_costs(const Candidate& a, const Candidate& b) {
  return std::abs(a.score.weighted_cost - b.score.weighted_cost) > 1e-9 * std::max(1.0, b.score.weighted_cost);
}

std::string describe(const Candidate& c) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s (weighted cost %.6g, max link load %.6g s)", c.name.c_str(), c.score.weighted_cost,
                c.score.max_link_relative);
  return buf;
}

// What each preset spends (docs/mapper.md, "Presets"). Seeds: how many
// seeds each randomised start (METIS, the bisection, Scotch) runs with.
// ILS: edge visits of the iterated local search, `ils_work_per_arc` per
// entry of the graph's adjacency (so a small graph is not searched for a
// second) up to `ils_work` (about 5-10 ns per visit here), shared by the best
// `ils_starts` searched candidates.
struct PresetPlan {
  int seeds;
  int full_search_starts;  // starts searched to the end (the others: one pass)
  std::int64_t ils_work_per_arc;
  std::int64_t ils_work;
  int ils_starts;
};

PresetPlan plan_for(Preset preset) {
  switch (preset) {
    case Preset::fast: return {1, 1000, 0, 0, 0};
    case Preset::standard: return {3, 8, 40'000, 30'000'000, 4};
    case Preset::strong: return {8, 1000, 200'000, 200'000'000, 8};
  }
  return {3, 8, 40'000, 30'000'000, 4};
}

// True when every placement scores the same on every metric: every ordered
// pair of distinct ranks exchanges the same bytes in the same number of
// messages (a uniform all-to-all) and the job fills every slot of its
// nodes. Then node a and node b exchange slots(a) x slots(b) times one
// pair's traffic whatever the placement (and a node's ranks split into
// packages alike), so no placement can beat block.
bool every_placement_ties(const Traffic& traffic, const Allocation& allocation) {
  const auto n = static_cast<std::int64_t>(traffic.ranks);
  if (n < 2 || allocation.total_slots() != n || static_cast<std::int64_t>(traffic.flows.size()) != n * (n - 1))
    return false;
  const Flow& first = traffic.flows.front();
  return std::all_of(traffic.flows.begin(), traffic.flows.end(), [&](const Flow& f) {
    return f.bytes == first.bytes && f.messages == first.messages;
  });
}

// The job spread over every allocated node: each node holds at most s ranks,
// s the least that still seats them all (ceil(ranks / nodes) on uniform
// nodes), or nothing when that is no fewer than the allocation already
// allows (a full machine, or too few free slots to thin any node).
std::optional<Allocation> spread_allocation(const Allocation& allocation, int ranks) {
  if (allocation.total_slots() <= ranks) return std::nullopt;
  auto seats = [&](int s) {
    long long total = 0;
    for (int n : allocation.nodes()) total += std::min(allocation.slots(n), s);
    return total;
  };
  int s = 1;
  while (seats(s) < ranks) ++s;
  if (s >= allocation.max_slots()) return std::nullopt;
  std::vector<int> slots;
  for (int n : allocation.nodes()) slots.push_back(std::min(allocation.slots(n), s));
  return Allocation(allocation.network_nodes(), allocation.nodes(), slots);
}

// The side lineage's candidates (below), once made: seed-free, so strong's
// runs of the default at other seeds share one.
struct SideLineage {
  bool made = false;
  std::vector<Candidate> cands;
};

Result<MapOutcome> map_default(const MapProblem& p, SideLineage* shared_lineage);

}  // namespace

Result<MapOutcome> map_rankmap(const MapProblem& p) { return map_default(p, nullptr); }

namespace {

Result<MapOutcome> map_default(const MapProblem& p, SideLineage* shared_lineage) {
  const Network& torus = p.platform->net();
  // The search minimises bytes x distance, the evaluator's cost; message
  // byte-equivalents enter only through the reference starts below (what
  // `paper` and `scotch` optimise). A profile with messages but no bytes
  // falls back to the message-weighted graph.
  const CommGraph& g = (p.bytes_graph && p.bytes_graph->edges() > 0) ? *p.bytes_graph : *p.graph;
  const PresetPlan plan = plan_for(p.preset);
  // Seed of the i-th randomised step applied to a candidate: from its start.
  auto seed_for = [&](const std::string& name, int i) { return derived_seed(seed_free(name) ? kSeedFreeSeed : p.seed, i); };
  // Steps run on several threads (parallel.hpp) report from each.
  std::mutex say_mutex;
  auto say = [&](const std::string& s) {
    if (!p.progress) return;
    const std::lock_guard<std::mutex> lock(say_mutex);
    p.progress(s);
  };
  MapOutcome out;
  std::vector<Candidate> cands;
  const std::vector<int>& nodes = p.allocation.nodes();
  if (p.alternatives == 0 && every_placement_ties(*p.traffic, p.allocation)) {
    // Nothing to search (a replay, which sees who waits for whom, still
    // gets the candidates: MPI's collectives pair ranks in rank order).
    Candidate blk{"block", detail::fill_in_order(nodes, p.allocation, p.ranks()), {}};
    blk.score = detail::network_score(*p.traffic, torus, blk.node_of);
    out.notes.push_back("every placement ties (a uniform all-to-all on full nodes): kept block");
    out.notes.push_back("chose " + describe(blk));
    out.placement = detail::cores_by_topology(g, blk.node_of, p.platform->node_kinds, torus.nodes(), p.core_fill, p.threads);
    return out;
  }
  const int ppn = p.allocation.max_slots();
  const bool large = p.ranks() > kSearchAllStartsUpTo;
  // Above kHugeRanks paper and scotch cost minutes (METIS k-way into 65,536
  // groups took 2 minutes at 262,144 ranks): there only the structure
  // starts run.
  const bool huge = p.ranks() > kHugeRanks;
  // Small jobs can afford the strong preset's seeds within the default's
  // budget (a seed costs ~10 ms at 256 ranks), and seeds are what the result
  // depends on most there (which Scotch run lands on a low-load optimum).
  // Dense traffic (all-to-all) makes every seed cost seconds for nothing:
  // on a full torus all its placements tie anyway.
  const bool dense = g.adjncy.size() > kDenseArcsPerRank * static_cast<size_t>(p.ranks());
  const int seeds = huge ? 0 : (large || dense ? 1 : (p.ranks() <= kManySeedsUpTo && p.preset != Preset::fast ? std::max(plan.seeds, 8) : plan.seeds));

  // The link relief (docs/mapper.md, step 5): whole node contents between
  // torus neighbours, then single ranks, together spending at most
  // kRelieveCostShare of the cost and never above cost_cap.
  const int relieve_swaps = large ? kRelieveMaxSwapsLarge : kRelieveMaxSwaps;
  // Reliefs made so far: the placement, the budget it had and what came of
  // it (a relief is a function of the two). From the same placement a
  // relief with no more budget than one that made no swap makes none either
  // (its first step's options are a subset: only the cost limit depends on
  // the budget), so the final relief of a chosen candidate that was
  // relieved in vain among the tied ones is not run again (0.25 s at 32k
  // ranks of the 27-point stencil, whose relief tries every pair of
  // neighbouring nodes); one that did swap is reused at the same budget
  // (made beside Scotch's runs on large jobs, below). Reliefs of different
  // placements may run at once (the tied ones below).
  struct Relief {
    std::vector<int> from;
    double budget;
    std::optional<Candidate> made;  // none: no swap
  };
  std::vector<Relief> reliefs;
  std::mutex reliefs_mutex;
  // The greedy relief of c within `budget` of cost in all: node swaps, then
  // single ranks; c.score follows (scores of an unchanged placement are its
  // own: network_score is a function of the placement, so no rescoring
  // after a step in vain). Returns the swaps made.
  auto greedy_relief = [&](Candidate& c, double budget) {
    const double start_cost = c.score.weighted_cost;
    const int node_swaps = detail::relieve_links(*p.traffic, torus, p.allocation, c.node_of, relieve_swaps, budget);
    const double spent =
        node_swaps == 0 ? 0.0 : detail::network_score(*p.traffic, torus, c.node_of).weighted_cost - start_cost;
    // Its trials on the job's threads on large jobs only: below, a step's
    // trials take about as long as starting a thread (recorded sparse at
    // 128 ranks: the same CPU time either way).
    const int swaps = node_swaps + detail::relieve_rank_links(*p.traffic, torus, p.allocation, c.node_of, relieve_swaps,
                                                              std::max(0.0, budget - spent), {}, large ? p.threads : 1);
    if (swaps > 0) c.score = detail::network_score(*p.traffic, torus, c.node_of);
    return swaps;
  };
  // The tabu relief of c (single ranks, uphill too) within `budget` of cost,
  // seeded by the step: c.score follows. Whether it moved c.
  auto tabu_relief = [&](Candidate& c, double budget, int seed_index) {
    const detail::RankReliefTabu tabu{kLoadTabuTenure, kLoadTabuPatience, derived_seed(p.seed, seed_index)};
    if (detail::relieve_rank_links(*p.traffic, torus, p.allocation, c.node_of, kLoadTabuSteps, budget, tabu) == 0)
      return false;
    c.score = detail::network_score(*p.traffic, torus, c.node_of);
    return true;
  };
  auto relieve = [&](const Candidate& from, double cost_cap) {
    Candidate c{from.name + "+links", from.node_of, from.score};
    const double budget = std::max(0.0, std::min(kRelieveCostShare * from.score.weighted_cost,
                                                 cost_cap - from.score.weighted_cost));
    {
      const std::lock_guard<std::mutex> lock(reliefs_mutex);
      for (const Relief& r : reliefs)
        if ((r.made ? budget == r.budget : budget <= r.budget) && r.from == from.node_of) {
          if (r.made) {
            c.node_of = r.made->node_of;
            c.score = r.made->score;
          }
          return c;
        }
    }
    const int swaps = greedy_relief(c, budget);
    {
      const std::lock_guard<std::mutex> lock(reliefs_mutex);
      reliefs.push_back(Relief{from.node_of, budget, swaps == 0 ? std::nullopt : std::optional<Candidate>(c)});
    }
    return c;
  };
  // The local search of a start (step 2). Large jobs: two passes per level,
  // not four. At 32k ranks the third and fourth passes cost ~0.8 s and
  // gained 0.3% (random pattern; nothing on the stencils, whose best start
  // is already a local optimum).
  // With `stop`: an empty node_of if it was set before the search ended.
  auto search_start = [&](const Candidate& from, const std::atomic<bool>* stop) {
    Candidate c{from.name + "+search", from.node_of, {}};
    if (!detail::refine(g, torus, p.allocation, c.node_of, large ? 2 : 1, stop)) return Candidate{c.name, {}, {}};
    c.score = detail::network_score(*p.traffic, torus, c.node_of);
    return c;
  };
  // Placements of (nearly) equal cost can differ a lot in max link load
  // (regular graphs have many optima), and the relief is greedy: each of
  // the kTiedRelief lowest-load candidates within kTieShare of the lowest
  // cost is relieved (step 5), so the choice sees the best of several.
  // tied_of: those within the tie, least loaded first (stable);
  // to_relieve_of: of them the first kTiedRelief of distinct (cost, load),
  // most likely distinct placements.
  auto tied_of = [](const std::vector<const Candidate*>& among) {
    double lowest = std::numeric_limits<double>::infinity();
    for (const Candidate* c : among) lowest = std::min(lowest, c->score.weighted_cost);
    std::vector<size_t> tied;
    for (size_t i = 0; i < among.size(); ++i)
      if (among[i]->score.weighted_cost <= lowest * (1 + kTieShare)) tied.push_back(i);
    std::stable_sort(tied.begin(), tied.end(), [&](size_t a, size_t b) {
      return among[a]->score.max_link_relative < among[b]->score.max_link_relative;
    });
    return tied;
  };
  auto to_relieve_of = [](const std::vector<const Candidate*>& among, const std::vector<size_t>& tied) {
    std::vector<size_t> picked;
    std::vector<detail::NetworkScore> seen;
    for (size_t i : tied) {
      if (static_cast<int>(picked.size()) == kTiedRelief) break;
      const detail::NetworkScore& sc = among[i]->score;
      if (std::any_of(seen.begin(), seen.end(), [&](const detail::NetworkScore& o) {
            return o.weighted_cost == sc.weighted_cost && o.max_link_relative == sc.max_link_relative;
          }))
        continue;
      seen.push_back(sc);
      picked.push_back(i);
    }
    return picked;
  };
  // Large jobs search only their cheapest start and relieve the tied
  // candidates (below), and Scotch's reference run, the longest start there
  // (0.9-1.2 s at 32k ranks), has a lane of its own. So the steps are made
  // on the lanes as they end: Scotch's lane scores its runs; the other
  // scores the other starts and, unless Scotch's start is known to be the
  // cheapest, searches the cheapest of them and relieves the tied ones,
  // stopping as soon as Scotch's start is found the cheapest (a search from
  // a poor start can take seconds: 3.3 s from the matching of random
  // partners at 32k ranks). Those steps end, and are used, exactly where
  // Scotch's start is not the cheapest (the grid codes, whose Cartesian
  // foldings win): the steps below find their results made (the search's
  // here, the reliefs in `reliefs`), the same placements from the same
  // inputs, on any number of threads. On one thread this is the order below.
  struct LaneRace {
    std::mutex mutex;
    bool scotch_known = false, others_known = false;
    std::vector<detail::NetworkScore> scotch_scores;  // Scotch's runs, in run order
    std::vector<size_t> scotch_slots;
    size_t cheapest_other = 0;
    double cheapest_other_cost = std::numeric_limits<double>::infinity();
    std::atomic<bool> scotch_cheapest{false};
    // Both lanes known: is a Scotch start the cheapest start (the lowest
    // cost, the lowest slot among equals, as the sort below takes it)?
    void decide() {
      for (size_t r = 0; r < scotch_scores.size(); ++r) {
        const double c = scotch_scores[r].weighted_cost;
        if (c < cheapest_other_cost || (c == cheapest_other_cost && scotch_slots[r] < cheapest_other))
          scotch_cheapest = true;
      }
    }
  } race;
  std::vector<char> scored;
  std::optional<std::pair<size_t, Candidate>> searched_ahead;  // (start, its search)
  detail::StartLanes lanes;
  if (large) {
    lanes.after_scotch = [&](const std::vector<const std::vector<int>*>& runs) {
      std::vector<detail::NetworkScore> scores;
      for (const std::vector<int>* node_of : runs) {
        detail::NetworkScore sc;
        sc.weighted_cost = std::numeric_limits<double>::infinity();  // a failed run
        if (!node_of->empty()) sc = detail::network_score(*p.traffic, torus, *node_of);
        scores.push_back(sc);
      }
      const std::lock_guard<std::mutex> lock(race.mutex);
      race.scotch_scores = std::move(scores);
      race.scotch_known = true;
      if (race.others_known) race.decide();
    };
    lanes.after_others = [&](std::vector<Candidate>& made, const std::vector<size_t>& scotch_slots) {
      scored.assign(made.size(), 0);
      std::vector<size_t> ready;
      for (size_t i = 0; i < made.size(); ++i)
        if (!made[i].node_of.empty()) ready.push_back(i);
      for (size_t i : ready) {
        made[i].score = detail::network_score(*p.traffic, torus, made[i].node_of);
        scored[i] = 1;
      }
      if (ready.empty()) return;
      size_t cheapest = ready[0];
      for (size_t i : ready)
        if (made[i].score.weighted_cost < made[cheapest].score.weighted_cost) cheapest = i;
      {
        const std::lock_guard<std::mutex> lock(race.mutex);
        race.scotch_slots = scotch_slots;
        race.cheapest_other = cheapest;
        race.cheapest_other_cost = made[cheapest].score.weighted_cost;
        race.others_known = true;
        if (race.scotch_known) race.decide();
      }
      if (race.scotch_cheapest) return;
      say("local search from " + made[cheapest].name + " (beside Scotch's runs)");
      Candidate searched = search_start(made[cheapest], &race.scotch_cheapest);
      if (searched.node_of.empty()) return;  // Scotch's start is the cheapest
      searched_ahead.emplace(cheapest, std::move(searched));
      std::vector<const Candidate*> among;
      for (size_t i : ready) among.push_back(&made[i]);
      among.push_back(&searched_ahead->second);
      for (size_t i : to_relieve_of(among, tied_of(among))) {
        if (race.scotch_cheapest) return;
        relieve(*among[i], std::numeric_limits<double>::infinity());
      }
    };
  }
  {
    auto made = detail::default_starts(p, g, detail::StartScope{large, huge, dense, seeds}, out.notes, say, lanes);
    if (!made) return made.error();
    cands = std::move(*made);
  }
  const size_t starts = cands.size();
  scored.resize(starts, 0);
  if (race.scotch_known && race.others_known)
    for (size_t r = 0; r < race.scotch_slots.size(); ++r) {
      cands[race.scotch_slots[r]].score = race.scotch_scores[r];
      scored[race.scotch_slots[r]] = 1;
    }
  detail::parallel_for(cands.size(), p.threads, [&](size_t i) {
    if (!scored[i]) cands[i].score = detail::network_score(*p.traffic, torus, cands[i].node_of);
  });
  // Where Scotch's start is the cheapest, a search made ahead was stopped.
  if (race.scotch_cheapest) searched_ahead.reset();
  // New candidates make(0), ..., make(count - 1), made on the threads (each
  // from its own inputs and seed) and appended in index order.
  auto append_made = [&](size_t count, const auto& make) {
    std::vector<Candidate> made(count);
    detail::parallel_for(count, p.threads, [&](size_t n) { made[n] = make(n); });
    for (Candidate& c : made) cands.push_back(std::move(c));
  };
  // The local search costs one to several seconds per start at 32k ranks: on
  // large jobs only the best start gets it.
  std::vector<size_t> order(starts);
  for (size_t i = 0; i < starts; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return cands[a].score.weighted_cost < cands[b].score.weighted_cost; });
  if (large) order.resize(1);
  if (dense && order.size() > kDenseSearchedStarts) order.resize(kDenseSearchedStarts);
  // Successive halving: every start gets one pass of each level, the best
  // kFullSearchStarts of those (by cost, distinct) the full search.
  const size_t first_searched = cands.size();
  append_made(order.size(), [&](size_t n) {
    if (searched_ahead && searched_ahead->first == order[n]) return searched_ahead->second;
    say("local search from " + cands[order[n]].name);
    return search_start(cands[order[n]], nullptr);
  });
  if (!large) {
    std::vector<size_t> quick;
    for (size_t i = first_searched; i < cands.size(); ++i) quick.push_back(i);
    std::stable_sort(quick.begin(), quick.end(),
                     [&](size_t a, size_t b) { return cands[a].score.weighted_cost < cands[b].score.weighted_cost; });
    if (quick.size() > static_cast<size_t>(plan.full_search_starts)) quick.resize(static_cast<size_t>(plan.full_search_starts));
    detail::parallel_for(quick.size(), p.threads, [&](size_t n) {
      Candidate& c = cands[quick[n]];
      detail::refine(g, torus, p.allocation, c.node_of, 4);
      c.score = detail::network_score(*p.traffic, torus, c.node_of);
    });
  }
  const std::int64_t ils_work =
      std::min(plan.ils_work, plan.ils_work_per_arc * static_cast<std::int64_t>(g.adjncy.size() + 1));
  // A placement within kTieShare of the lower bound is optimal to within
  // what the choice calls a tie: the searches below, which only lower the
  // cost, are skipped from there on (regular codes often reach it at a
  // start: rings, stencils, multigrid; ~1 s saved at 128-256 ranks).
  // Not on dense graphs: enumerating their dense groups took 0.8 s at
  // 1,024 ranks of an all-to-all, where every placement ties anyway.
  double bound = 0;
  if (ils_work > 0 && !large && !dense) {
    say("lower bound of the cost");
    bound = cost_lower_bound(g, torus, ppn, nodes, kBoundSetsPerRank * p.ranks(), kBoundCutRanks).weighted;
  }
  // Every candidate's index, cheapest first (ties in the order made).
  auto indices_by_cost = [&] {
    std::vector<size_t> by_cost(cands.size());
    for (size_t i = 0; i < cands.size(); ++i) by_cost[i] = i;
    std::stable_sort(by_cost.begin(), by_cost.end(), [&](size_t a, size_t b) {
      return cands[a].score.weighted_cost < cands[b].score.weighted_cost;
    });
    return by_cost;
  };
  // The candidate of lowest cost so far (the first of equals).
  auto cheapest_index = [&] {
    size_t cheapest = 0;
    for (size_t i = 1; i < cands.size(); ++i)
      if (cands[i].score.weighted_cost < cands[cheapest].score.weighted_cost) cheapest = i;
    return cheapest;
  };
  bool proven = false;
  auto at_bound = [&] {
    if (proven || bound <= 0) return proven;
    const Candidate& cheapest = cands[cheapest_index()];
    if (detail::weighted_cost(g, torus, cheapest.node_of) > bound * (1 + kTieShare)) return false;
    out.notes.push_back(cheapest.name + " is within 0.1% of the lower bound: no further search");
    return proven = true;
  };
  // The plateau walk (step 3, below) from `from`: its walked candidate and,
  // where the walk passed a lighter placement at a tied cost, that one.
  struct PlateauWalk {
    std::string start_name;
    std::vector<int> start;
    Candidate walked, light;
  };
  auto plateau_walk = [&](const Candidate& from, int threads, const std::atomic<bool>* spare_thread) {
    PlateauWalk w{from.name, from.node_of, Candidate{from.name + "+walk", from.node_of, {}}, {}};
    detail::TiedLoadWatch watch;
    watch.traffic = p.traffic;
    watch.tie_share = kTieShare;
    detail::tabu_search(g, torus, p.allocation, w.walked.node_of, std::min(kTabuMaxWork, kWalkWork * ils_work),
                        derived_seed(p.seed, 700), threads, {}, &watch, spare_thread);
    w.walked.score = detail::network_score(*p.traffic, torus, w.walked.node_of);
    if (!watch.node_of.empty()) {
      w.light = Candidate{from.name + "+walk-light", std::move(watch.node_of), {}};
      w.light.score = detail::network_score(*p.traffic, torus, w.light.node_of);
    }
    return w;
  };
  const bool walk_applies = ils_work > 0 && !large && !dense && p.ranks() <= kWalkUpTo &&
                            detail::tabu_search_fits(p.ranks(), p.allocation.size()) &&
                            detail::tied_load_watch_fits(static_cast<int>(p.allocation.size()));
  std::optional<PlateauWalk> early_walk;  // made beside the paired search
  // An iterated local search from `from`, then the descent: a new candidate
  // (the iterated searches below and the side lineage cut by cut).
  auto iterated = [&](const Candidate& from, const std::string& suffix, std::int64_t work, std::uint64_t seed) {
    Candidate c{from.name + suffix, from.node_of, {}};
    detail::iterated_search(g, torus, p.allocation, c.node_of, work, seed);
    detail::refine(g, torus, p.allocation, c.node_of, 4);
    c.score = detail::network_score(*p.traffic, torus, c.node_of);
    return c;
  };
  // Whether the iterated searches ended at more than one cost (below): where
  // they all ended at one, the steps that look for another basin are skipped.
  bool searches_differ = false;
  // The side lineage cut by cut (its step below): seed-free and independent
  // of every step between, so it may be made on a thread those steps leave
  // idle (beside the tabu search) and only joins the candidates at its step.
  SideLineage own_lineage;
  SideLineage& lineage = shared_lineage ? *shared_lineage : own_lineage;
  // By an earlier run of the default that shares it (strong's).
  const bool lineage_made_before = lineage.made;
  auto lineage_applies = [&] { return p.ranks() <= kSideLineageUpTo && ils_work > 0 && !dense && searches_differ; };
  auto make_lineage = [&](int threads) {
    lineage.made = true;
    std::vector<int> node_of = detail::distance_cut_start(g, torus, p.allocation, p.ranks(), kSeedFreeSeed);
    if (node_of.empty()) return;
    say("the side lineage cut by cut along the network's distance cuts");
    Candidate start{"cuts+search", std::move(node_of), {}};
    detail::refine(g, torus, p.allocation, start.node_of, 4);
    Candidate c = iterated(start, "+ils", ils_work / std::max(1, plan.ils_starts), seed_for(start.name, 100));
    Candidate t{c.name + "+tabu", c.node_of, {}};
    lineage.cands.push_back(std::move(c));
    if (detail::tabu_search_fits(p.ranks(), p.allocation.size())) {
      detail::tabu_search(g, torus, p.allocation, t.node_of, std::min(kTabuMaxWork, kSideTabuWork * ils_work),
                          seed_for(t.name, 150), threads);
      t.score = detail::network_score(*p.traffic, torus, t.node_of);
      lineage.cands.push_back(std::move(t));
    }
  };
  // With more than one thread, the first thread that the tabu search or the
  // paired search and plateau walk below leave idle makes it (rather than
  // join a scan as a lane: 0.91-0.96x a search's time on 2 threads,
  // tabu_search.cpp); else its own step does.
  auto lineage_for_idle_thread = [&] { return p.threads > 1 && !lineage_made_before && lineage_applies(); };
  std::atomic<bool> lineage_taken{false};
  auto lineage_on_idle_thread = [&](int threads) {
    if (lineage_for_idle_thread() && !lineage_taken.exchange(true)) make_lineage(threads);
  };
  if (ils_work > 0 && !large && !at_bound()) {
    // The iterated local search gets the budget, shared by the best searched
    // candidate of each start family (scotch-strict, bisection, matching-last,
    // ...: different basins; the seeds of one family tend to share one),
    // cheapest families first, distinct costs only.
    std::vector<size_t> searched;
    for (size_t i = starts; i < cands.size(); ++i) searched.push_back(i);
    std::stable_sort(searched.begin(), searched.end(), [&](size_t a, size_t b) {
      return cands[a].score.weighted_cost < cands[b].score.weighted_cost;
    });
    auto family = [&](size_t i) { return family_of(cands[i].name); };
    std::vector<size_t> picked;
    std::vector<std::string> families;
    for (size_t i : searched) {
      if (static_cast<int>(picked.size()) == plan.ils_starts) break;
      bool distinct = std::find(families.begin(), families.end(), family(i)) == families.end();
      for (size_t j : picked) distinct = distinct && distinct_costs(cands[i], cands[j]);
      if (distinct) {
        picked.push_back(i);
        families.push_back(family(i));
      }
    }
    const std::int64_t share = ils_work / std::max<std::int64_t>(1, static_cast<std::int64_t>(picked.size()));
    const size_t first_ils = cands.size();
    append_made(picked.size(), [&](size_t n) {
      say("iterated local search from " + cands[picked[n]].name);
      return iterated(cands[picked[n]], "+ils", share, seed_for(cands[picked[n]].name, 100));
    });
    // When every search ended at the same cost there is nothing to gain
    // (an all-to-all on a full torus: every placement ties) and the steps
    // below cost 2-5x the default's time on such dense graphs.
    double ils_min = std::numeric_limits<double>::infinity(), ils_max = 0;
    for (size_t i = first_ils; i < cands.size(); ++i) {
      ils_min = std::min(ils_min, cands[i].score.weighted_cost);
      ils_max = std::max(ils_max, cands[i].score.weighted_cost);
    }
    searches_differ = !picked.empty() && ils_max > ils_min * (1 + kTieShare);
    double block_cost = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < starts; ++i)
      if (cands[i].name == "block") block_cost = cands[i].score.weighted_cost;
    if (!searches_differ && !picked.empty() && seeds > 0 && !dense && torus.as_torus() &&
        ils_min < block_cost * (1 - kTieShare) && !at_bound()) {
      // Every search ended at one cost, better than block: one basin around
      // all the starts, or the optimum. Before stopping, starts from another
      // model of the machine: Scotch on a decomposition-defined target built
      // from the torus graph (what `scotch_gmap` does on an `amk_grf`
      // target), which bipartitions the torus by its own graph partitioner
      // instead of by coordinates. On recorded CG at 64 ranks on a 4x4 torus
      // (4 per node) every start and every search ended at 3.00e8 (the tabu
      // search too, at 100x its budget); from these starts 2.70-2.89e8.
      say("every search ended at one cost: Scotch on a graph-built target");
      std::vector<size_t> second;
      const int deco_runs = p.ranks() <= kManySeedsUpTo ? std::max(seeds, kSecondChanceRuns) : seeds;
      for (int i = 0; i < deco_runs; ++i) {
        std::vector<std::string> same_notes;
        auto deco = detail::scotch_map(g, torus, nodes, true, true, derived_seed(p.seed, i), same_notes);
        if (!deco) return deco.error();
        detail::enforce_node_capacity(g, torus, p.allocation, *deco);
        Candidate c{numbered("scotch-deco", i) + "+search", std::move(*deco), {}};
        detail::refine(g, torus, p.allocation, c.node_of, 4);
        c.score = detail::network_score(*p.traffic, torus, c.node_of);
        second.push_back(cands.size());
        cands.push_back(std::move(c));
      }
      // The cheapest of them outside the tie (another basin, most likely),
      // else the cheapest.
      auto tied = [&](size_t i) { return std::abs(cands[i].score.weighted_cost - ils_min) <= ils_min * kTieShare; };
      size_t best_second = second.front();
      for (size_t i : second)
        if ((tied(best_second) && !tied(i)) ||
            (tied(i) == tied(best_second) && cands[i].score.weighted_cost < cands[best_second].score.weighted_cost))
          best_second = i;
      Candidate c = iterated(cands[best_second], "+ils", share, seed_for(cands[best_second].name, 100));
      // A cheaper basin: the steps below go on from it.
      searches_differ = c.score.weighted_cost < ils_min * (1 - kTieShare);
      cands.push_back(std::move(c));
    }
    if (searches_differ && p.ranks() <= kRecombineUpTo && !at_bound()) {
      // The search's result depends on its kicks as much as on its start
      // (one start at two seeds ended 7% apart, measured): the start of the
      // cheapest result gets further runs at other seeds, placements of one
      // kind for the recombination to work on.
      size_t best_n = 0;
      for (size_t n = 1; n < picked.size(); ++n)
        if (cands[first_ils + n].score.weighted_cost < cands[first_ils + best_n].score.weighted_cost) best_n = n;
      const Candidate from = cands[picked[best_n]];
      append_made(kExtraSearchRuns, [&](size_t n) {
        return iterated(from, "+ils#" + std::to_string(n + 2), share, seed_for(from.name, 300 + static_cast<int>(n)));
      });
      // Recombination of the cheapest distinct placements found so far
      // (recombine.cpp): what makes the result depend less on which start
      // and which kicks happened to be lucky. It aligns placements by the
      // torus's symmetries: tori only.
      if (const Torus* const ring_torus = torus.as_torus()) {
        std::vector<std::vector<int>> parents;
        for (size_t i : indices_by_cost()) {
          if (static_cast<int>(parents.size()) == kRecombineParents) break;
          if (std::find(parents.begin(), parents.end(), cands[i].node_of) == parents.end())
            parents.push_back(cands[i].node_of);
        }
        if (parents.size() >= 2) {
          say("recombining the best placements");
          Candidate c{"recombined",
                      detail::recombine(g, *ring_torus, p.allocation, parents, kRecombineWork * ils_work,
                                        derived_seed(p.seed, 200), p.threads),
                      {}};
          c.score = detail::network_score(*p.traffic, torus, c.node_of);
          cands.push_back(std::move(c));
        }
      }
    }
    if (searches_differ && p.ranks() <= kTabuUpTo && detail::tabu_search_fits(p.ranks(), p.allocation.size()) &&
        !at_bound()) {
      // Tabu search from the cheapest placement so far (tabu_search.cpp):
      // best move of the whole neighbourhood at every step, uphill too, so
      // it walks out of the basin the searches above ended in.
      const size_t cheapest = cheapest_index();
      auto tabu_from = [&](size_t from, int seed_index, int threads, const std::function<bool(double)>& go_on,
                           detail::TiedLoadWatch* watch, const std::atomic<bool>* spare_thread) {
        say("tabu search from " + cands[from].name);
        Candidate t{cands[from].name + "+tabu", cands[from].node_of, {}};
        detail::tabu_search(g, torus, p.allocation, t.node_of, std::min(kTabuMaxWork, kTabuWork * ils_work),
                            derived_seed(p.seed, seed_index), threads, go_on, watch, spare_thread);
        t.score = detail::network_score(*p.traffic, torus, t.node_of);
        return t;
      };
      // Where the first finds nothing, the cheapest placement lies in a
      // basin deeper than its reach: the cheapest placement of another start
      // family at another cost (another basin, most likely) gets a tabu
      // search too. With a second thread it runs alongside the first, and
      // is kept only where a sequential run would have started it; it stops
      // as soon as the first gets clearly below the tie (then it would not
      // have run), so its result is only ever used complete.
      size_t other = cands.size();
      if (p.ranks() <= kSecondTabuUpTo)
        for (size_t i = 0; i < cands.size(); ++i)
          if (family_of(cands[i].name) != family_of(cands[cheapest].name) &&
              cands[i].score.weighted_cost > cands[cheapest].score.weighted_cost * (1 + kTieShare) &&
              (other == cands.size() || cands[i].score.weighted_cost < cands[other].score.weighted_cost))
            other = i;
      Candidate c, d;
      const bool alongside = other < cands.size() && p.threads > 1;
      // Without a second search, the second thread makes the side lineage.
      const bool two = alongside || lineage_for_idle_thread();
      const int tabu_threads = two ? std::max(1, p.threads / 2) : p.threads;  // each, for its own scan
      const double found_at = cands[cheapest].score.weighted_cost * (1 - kTieShare);
      std::atomic<bool> first_found{false};
      // The tabu search's running cost and the score agree to rounding: 1e-6
      // below the line, the first has surely found something.
      auto watch_first = [&](double lowest) {
        if (lowest < found_at * (1 - 1e-6)) first_found.store(true, std::memory_order_relaxed);
        return true;
      };
      auto while_needed = [&](double) { return !first_found.load(std::memory_order_relaxed); };
      // The first's walk is watched for the least loaded placement at its
      // lowest cost (the plateau walk below, for free).
      detail::TiedLoadWatch light_watch;
      light_watch.traffic = p.traffic;
      light_watch.tie_share = kTieShare;
      // When the second ends (or stops) first, its thread joins the first's
      // scan (the same search on more threads).
      std::atomic<bool> second_ended{false};
      detail::parallel_for(two ? 2 : 1, p.threads, [&](size_t n) {
        if (n == 0) {
          c = tabu_from(cheapest, 400, tabu_threads, alongside ? watch_first : std::function<bool(double)>{},
                        &light_watch, two ? &second_ended : nullptr);
          lineage_on_idle_thread(tabu_threads);
        } else {
          if (alongside) d = tabu_from(other, 401, tabu_threads, while_needed, nullptr, nullptr);
          lineage_on_idle_thread(tabu_threads);
          second_ended.store(true, std::memory_order_release);
        }
      });
      // (Appended after the second search's turn: `other == cands.size()`
      // says there is no other start.)
      Candidate light;
      if (!light_watch.node_of.empty()) {
        light = Candidate{c.name + "-light", std::move(light_watch.node_of), {}};
        light.score = detail::network_score(*p.traffic, torus, light.node_of);
      }
      if (other < cands.size() && c.score.weighted_cost >= found_at) {
        if (!alongside) d = tabu_from(other, 401, p.threads, {}, nullptr, nullptr);
        if (d.score.weighted_cost < c.score.weighted_cost) std::swap(c, d);
        cands.push_back(std::move(d));
      }
      if (!light.node_of.empty()) cands.push_back(std::move(light));
      if (detail::paired_search_applies(p.allocation, c.node_of)) {
        // The same one level up (paired_search.cpp): ranks paired inside
        // their nodes move and swap as units, then a descent of the ranks.
        say("tabu search of paired ranks");
        Candidate paired{c.name + "+pairs", c.node_of, {}};
        auto search_pairs = [&](int threads, const std::atomic<bool>* spare_thread) {
          detail::paired_search(g, torus, p.allocation, paired.node_of, kPairedCycles,
                                std::min(kPairedMaxWork, ils_work), derived_seed(p.seed, 500), threads, spare_thread);
        };
        if (walk_applies && p.threads > 1) {
          // The plateau walk starts from the cheapest candidate after this
          // search; where it finds nothing (as on most patterns but CG),
          // that is known now: the cheapest so far, or this search's input
          // (named as its result, which comes first among equals). The walk
          // from there runs beside it and is used only if that is where the
          // walk starts (below); each gets the other's thread when it ends.
          const size_t so_far = cheapest_index();
          const Candidate expected = c.score.weighted_cost < cands[so_far].score.weighted_cost
                                         ? Candidate{paired.name, c.node_of, c.score}
                                         : cands[so_far];
          std::atomic<bool> pairs_ended{false}, walk_ended{false};
          const int each = std::max(1, p.threads / 2);
          detail::parallel_for(2, p.threads, [&](size_t n) {
            if (n == 0) {
              search_pairs(each, &walk_ended);
              lineage_on_idle_thread(each);
              pairs_ended.store(true, std::memory_order_release);
            } else {
              early_walk = plateau_walk(expected, each, &pairs_ended);
              lineage_on_idle_thread(each);
              walk_ended.store(true, std::memory_order_release);
            }
          });
        } else {
          search_pairs(p.threads, nullptr);
        }
        paired.score = detail::network_score(*p.traffic, torus, paired.node_of);
        cands.push_back(std::move(paired));
      }
      cands.push_back(std::move(c));
    }
  }

  if (walk_applies && !at_bound()) {
    // The plateau walk (docs/mapper.md, step 3): the searches above minimise
    // the cost alone and stop at one of the many placements of (nearly) the
    // lowest cost, whose busiest links differ by up to 1.6x (recorded ADI at
    // 128 ranks on desmos: 0.26-0.42 ms at one cost, by seed). A tabu search
    // from the cheapest placement walks that plateau and keeps the least
    // loaded placement it passes within the choice's tie of its lowest cost.
    const size_t cheapest = cheapest_index();
    say("walking the plateau of " + cands[cheapest].name + " for lighter links");
    // The walk made beside the paired search, if it started here (the walk
    // is a function of its start: the same result).
    PlateauWalk w = early_walk && early_walk->start_name == cands[cheapest].name &&
                            early_walk->start == cands[cheapest].node_of
                        ? std::move(*early_walk)
                        : plateau_walk(cands[cheapest], p.threads, nullptr);
    if (!w.light.node_of.empty()) cands.push_back(std::move(w.light));
    cands.push_back(std::move(w.walked));
  }

  if (ils_work > 0 && !large && !dense && static_cast<int>(p.allocation.size()) <= kRegroupMaxNodes &&
      !at_bound()) {
    // The regrouping search (regroup_search.cpp, docs/mapper.md step 3):
    // kicks that re-divide two nodes' ranks, each repaired by placing every
    // node group anew, from the cheapest placements of distinct cost. The
    // searches above price a new partition with the other groups where they
    // stand, and on regular graphs of equal weights a better partition pays
    // only once the groups have moved.
    std::vector<size_t> from;
    for (size_t i : indices_by_cost()) {
      if (static_cast<int>(from.size()) == kRegroupStarts) break;
      if (std::all_of(from.begin(), from.end(), [&](size_t j) { return distinct_costs(cands[i], cands[j]); }))
        from.push_back(i);
    }
    append_made(from.size(), [&](size_t n) {
      say("regrouping search from " + cands[from[n]].name);
      Candidate c{cands[from[n]].name + "+regroup", cands[from[n]].node_of, {}};
      detail::regroup_search(g, torus, p.allocation, c.node_of, kRegroupWork * ils_work,
                             derived_seed(p.seed, 600 + static_cast<int>(n)));
      c.score = detail::network_score(*p.traffic, torus, c.node_of);
      return c;
    });
  }
  if (p.preset == Preset::strong) {
    // The default's mapping at the same seed joins strong's candidates
    // after strong's own searches, which it leaves unchanged: strong is never
    // dearer than the default (but where the time or bulk model buys time)
    // nor than it was alone. Its longer searches can end in other basins
    // than the default's: on recorded CG at 192 ranks on desmos at 6 per
    // node 2-5% above the default's at all of 5 seeds (measured). As a start
    // instead, it displaced strong's own paths, which then ended dearer on 6
    // of 103 peer-benchmark instances (up to 2.6%). Whole runs of the default
    // at other seeds reach further than longer searches: with 3 more, at 5x
    // instead of 10x strong's own budget, CG 192 spread 3.5% -> 0.6% over
    // seeds 1-5 and recorded ADI 128 on 4x4x4 fell 2% on the mean, for
    // about the same time (bench/peers/notes.md, session 28).
    const int default_runs = large ? 1 : kStrongDefaultRuns;
    SideLineage defaults_lineage;
    for (int i = 0; i < default_runs; ++i) {
      MapProblem q = p;
      q.preset = Preset::standard;
      q.alternatives = 0;
      if (i > 0) q.seed = derived_seed(p.seed, 800 + i);
      say(i == 0 ? "the default preset's mapping, as a candidate"
                 : "the default preset's mapping at seed " + std::to_string(q.seed));
      if (p.progress) q.progress = [&](const std::string& s) { say("default: " + s); };
      auto d = map_default(q, &defaults_lineage);
      if (!d) return d.error();
      Candidate c{numbered("default", i), std::vector<int>(d->placement.size()), {}};
      for (size_t r = 0; r < d->placement.size(); ++r) c.node_of[r] = d->placement[r].node;
      c.score = detail::network_score(*p.traffic, torus, c.node_of);
      cands.push_back(std::move(c));
    }
  }
  if (lineage_applies() && !at_bound()) {
    // A side lineage from the start built cut by cut (cut_starts.cpp), where
    // the network's distance cuts halve the machine again and again: its
    // search, iterated search and tabu search, seed-free, apart from the
    // steps above, which it does not touch; it joins the candidates at the
    // end. As a start among the others its search often ended cheapest and
    // took the steps above into its basin, which ends dearer on some
    // patterns (recorded CG at 192 ranks on desmos: 7.466e8 -> 7.647e8 on
    // the mean of 10 seeds) and cheaper on others (recorded ADI there).
    // Not where every search ended at one cost (nor does the tabu search
    // run there): on the peer benchmark at 5 seeds it ran in 32 such runs
    // and changed no mapping, for up to half the default's time (recorded
    // ADI at 64 ranks on desmos: 1.03 -> 0.50 s).
    if (!lineage.made) {
      make_lineage(p.threads);
    } else if (lineage_made_before && !lineage.cands.empty()) {
      say("the side lineage cut by cut, as made in an earlier run of the default");
    }
    cands.insert(cands.end(), lineage.cands.begin(), lineage.cands.end());
  }
  {
    // The tied candidates' reliefs (tied_of, to_relieve_of above).
    std::vector<const Candidate*> all;
    for (const Candidate& c : cands) all.push_back(&c);
    std::vector<size_t> tied = tied_of(all);
    auto by_load = [&](size_t a, size_t b) { return cands[a].score.max_link_relative < cands[b].score.max_link_relative; };
    // Their least loaded images under the torus's symmetries join them (the
    // same cost, other links), and may be the ones relieved. Not on large
    // jobs: 0.15 s at 32k ranks of the 27-point stencil (16 images of 100k
    // node flows, for each of them and the choice), for no gain there.
    if (!large) {
      std::vector<Candidate> images(std::min(tied.size(), static_cast<size_t>(kTiedRelief)));
      std::vector<char> found(images.size(), 0);
      detail::parallel_for(images.size(), p.threads, [&](size_t n) {
        Candidate& c = images[n];
        c = Candidate{cands[tied[n]].name + "+image", cands[tied[n]].node_of, {}};
        if (!detail::relieve_by_symmetry(*p.traffic, torus, p.allocation, c.node_of)) return;
        c.score = detail::network_score(*p.traffic, torus, c.node_of);
        found[n] = 1;
      });
      for (size_t n = 0; n < images.size(); ++n)
        if (found[n]) {
          tied.push_back(cands.size());
          cands.push_back(std::move(images[n]));
        }
      std::stable_sort(tied.begin(), tied.end(), by_load);
    }
    all.clear();
    for (const Candidate& c : cands) all.push_back(&c);
    const std::vector<size_t> to_relieve = to_relieve_of(all, tied);
    std::vector<Candidate> relieved(to_relieve.size());
    detail::parallel_for(to_relieve.size(), p.threads, [&](size_t n) {
      relieved[n] = relieve(cands[to_relieve[n]], std::numeric_limits<double>::infinity());
    });
    for (Candidate& c : relieved) cands.push_back(std::move(c));
  }
  // The references: block bounds both metrics of the choice; paper's and
  // scotch's loads only decide whether the note below is due. (Pointers
  // into cands: valid until a candidate is added.)
  auto score_of = [&](const char* name) -> const detail::NetworkScore* {
    for (size_t i = 0; i < starts; ++i)
      if (cands[i].name == name) return &cands[i].score;
    return nullptr;
  };
  auto within = [](double v, double ref) { return v <= ref * (1 + 1e-12) + 1e-300; };
  // A busiest link within kTieShare of a limit's meets it: the choice's tie
  // (costs within it are equal too). Recorded traffic is not quite
  // symmetric, so placements of one structure differ in their busiest link
  // by a few hundredths of a percent; held to block's exactly, the 2D
  // stencil's Cartesian tiling on a quarter of 8x4x4x4 (256 ranks at 2 per
  // node), 0.02% above block's busiest link, gave way to block itself at
  // 1.17x its cost.
  auto load_within = [](double v, double limit) { return v <= limit * (1 + kTieShare); };
  // The limits of the choice on both metrics (docs/mapper.md, step 4,
  // *Limits*): block's cost and busiest link; for strong also Scotch's own
  // mapping's (`scotch`, the placement a user would otherwise get), where
  // a candidate, or the relief below, meets both. Not where the job leaves
  // slots free: Scotch spreads it over every node there, and held to that
  // busiest link strong's packed candidates were relieved at up to 1.45x
  // the cost of the spread job the time model would have taken (recorded
  // ring and LU at 128 ranks on desmos at 6 per node, same busiest link).
  const detail::NetworkScore block_score = *score_of("block");
  detail::NetworkScore limits = block_score;
  const detail::NetworkScore* scotch_score = score_of("scotch");
  bool scotch_limits = p.preset == Preset::strong && !large && scotch_score &&
                       p.allocation.total_slots() == static_cast<long long>(p.ranks());
  if (scotch_limits) {
    limits.weighted_cost = std::min(limits.weighted_cost, scotch_score->weighted_cost);
    limits.max_link_relative = std::min(limits.max_link_relative, scotch_score->max_link_relative);
  }
  auto no_worse = [&](const Candidate& c, const detail::NetworkScore& limit) {
    return within(c.score.weighted_cost, limit.weighted_cost) &&
           load_within(c.score.max_link_relative, limit.max_link_relative);
  };
  auto meets_limits = [&](const Candidate& c) { return no_worse(c, limits); };
  // The steps that buy predicted time (the time model's, the spread job's,
  // the bulk model's) are held to block's limits only: a placement they
  // predict faster may pass Scotch's cost.
  auto meets_block = [&](const Candidate& c) { return no_worse(c, block_score); };
  // The index of the cheapest candidate within the limits (the first of
  // equals), or cands.size() if none is; under block's limits block itself
  // is one.
  auto cheapest_within_limits = [&] {
    size_t best = cands.size();
    for (size_t i = 0; i < cands.size(); ++i)
      if (meets_limits(cands[i]) &&
          (best == cands.size() || cands[i].score.weighted_cost < cands[best].score.weighted_cost))
        best = i;
    return best;
  };
  {
    // Under block's busiest link (docs/mapper.md, step 5, *Under block's
    // load*). The choice takes only candidates no worse than block on both
    // metrics. Where block's busiest link is light, every cheaper placement
    // found may be heavier, and the choice falls back on a far dearer one:
    // on recorded ADI at 128 ranks on an 8x8 mesh (2 per node) block itself,
    // 19% above the cheapest candidate, whose busiest link was 14% heavier.
    // The cheapest such candidates then get the link relief with up to the
    // cost that separates them from the fallback, in doubling steps from
    // kRelieveCostShare, until their busiest link is no heavier than the
    // fallback's: what comes of it is cheaper and no heavier, better on
    // both. Where the fallback is within kRelieveCostShare of the cheapest,
    // the choice's own rate decides (step 4) and nothing runs. Under
    // strong's limits no candidate may meet them yet: the limits themselves
    // are the target then.
    std::optional<detail::NetworkScore> fallback;
    if (!large && p.preset != Preset::fast) {
      const size_t i = cheapest_within_limits();
      fallback = i < cands.size() ? cands[i].score : limits;
    }
    std::vector<size_t> heavier;  // cheaper than the fallback by more than the rate, distinct
    if (fallback) {
      const detail::NetworkScore target = *fallback;
      for (size_t i : indices_by_cost()) {
        if (heavier.size() == kUnderBlockRelief) break;
        if (cands[i].score.weighted_cost >= target.weighted_cost * (1 - kRelieveCostShare)) break;
        bool distinct = true;
        for (size_t j : heavier) distinct = distinct && distinct_costs(cands[i], cands[j]);
        if (distinct) heavier.push_back(i);
      }
      if (!heavier.empty()) say("relieving the cheapest candidates under the limits' busiest link");
      std::vector<std::optional<Candidate>> under(heavier.size());
      detail::parallel_for(heavier.size(), p.threads, [&](size_t n) {
        const Candidate& from = cands[heavier[n]];
        const double slack = target.weighted_cost * (1 - kTieShare) - from.score.weighted_cost;
        auto meets = [&](const Candidate& c) {
          return load_within(c.score.max_link_relative, target.max_link_relative) &&
                 c.score.weighted_cost < target.weighted_cost * (1 - kTieShare);
        };
        // The greedy reliefs at doubling budgets, then the tabu relief at
        // the whole slack from the greedy's last result.
        Candidate c{from.name + "+under", from.node_of, from.score};
        for (double share = kRelieveCostShare;; share *= 2) {
          const double budget = std::min(share * from.score.weighted_cost, slack);
          c = Candidate{from.name + "+under", from.node_of, from.score};
          greedy_relief(c, budget);
          if (meets(c)) {
            under[n] = std::move(c);
            return;
          }
          if (budget >= slack) break;
        }
        c.name += "+load-tabu";
        if (tabu_relief(c, std::max(0.0, target.weighted_cost * (1 - kTieShare) - c.score.weighted_cost), 650) &&
            meets(c))
          under[n] = std::move(c);
      });
      for (std::optional<Candidate>& c : under)
        if (c) cands.push_back(std::move(*c));
    }
  }
  if (scotch_limits && cheapest_within_limits() == cands.size()) {
    out.notes.push_back("strong: no placement found within both the cost and the busiest link of scotch's; "
                        "the choice is held to block's, as the default's");
    limits = block_score;
    scotch_limits = false;
  }
  for (const Candidate& c : cands) say("candidate " + describe(c));
  // The least loaded of the references paper and scotch (the note at the end).
  const char* light_ref = nullptr;
  std::optional<detail::NetworkScore> light_ref_score;
  for (const char* ref : {"paper", "scotch"})
    if (const auto* s = score_of(ref))
      if (!light_ref_score || s->max_link_relative < light_ref_score->max_link_relative) {
        light_ref = ref;
        light_ref_score = *s;
      }
  // The load steps below weigh candidates by their busiest link against the
  // limits; under strong's Scotch limits their cost too (a trade could
  // otherwise pass Scotch's cost). Exactly, not within the tie: they choose
  // among placements tied with the pick, and with the tie a placement just
  // above block's busiest link could displace one under it (recorded NAS FT
  // at 128 ranks on a 4x32 grid on desmos: `paper`, 0.009% above block's,
  // took the place of a lighter, cheaper placement by the bytes it keeps on
  // nodes, which both keep alike).
  auto within_limits = [&](const Candidate& c) {
    return within(c.score.max_link_relative, limits.max_link_relative) &&
           (!scotch_limits || within(c.score.weighted_cost, limits.weighted_cost));
  };
  // The objective: the lowest bandwidth-weighted cost among the candidates
  // within the limits on both metrics (block's, or strong's tighter ones
  // where a candidate meets them: never empty), then the load (below). Cost first because a placement with
  // the lowest cost cannot be beaten on both metrics by anyone; the load then
  // breaks near-ties, may be bought for a little cost, and the relief below
  // may lower it further.
  const Candidate* best = &cands[cheapest_within_limits()];
  const double min_cost = best->score.weighted_cost;
  // The load's exchange rate, the same as the relief's: a candidate up to
  // kRelieveCostShare dearer replaces the cheapest if its max link load is
  // at least kRelieveMinLoadGain lower; within kTieShare of the cost, any
  // lower load wins.
  const Candidate* cheapest = best;
  for (const Candidate& c : cands) {
    if (!within_limits(c)) continue;
    const bool tie = within(c.score.weighted_cost, min_cost * (1 + kTieShare));
    const bool trade = within(c.score.weighted_cost, min_cost * (1 + kRelieveCostShare)) &&
                       c.score.max_link_relative <= cheapest->score.max_link_relative * (1 - kRelieveMinLoadGain);
    if ((tie || trade) && (c.score.max_link_relative < best->score.max_link_relative ||
                           (c.score.max_link_relative == best->score.max_link_relative &&
                            c.score.weighted_cost < best->score.weighted_cost)))
      best = &c;
  }
  // Tied on both (cost and load within kTieShare of the pick's): the
  // candidate that keeps the most bytes inside nodes, if it leaves at least
  // kRelieveMinLoadGain fewer to the network. The profile sums a run's
  // traffic, so placements of one cost and one busiest link can differ in
  // when their bytes meet: recorded NAS FT on a 4x32 grid on desmos at 4 per
  // node (a transpose in every row of 32, then in every column of 4), with
  // whole columns on nodes, has the cost and the busiest link of block's row
  // quarters but 40% fewer bytes between nodes, its column transposes off
  // the network, and SimGrid runs it 0.62x as long (docs/mapper.md, step 4).
  {
    auto off_node = [&](const Candidate& c) { return detail::inter_node_weight(g, c.node_of); };
    double fewest = off_node(*best);
    const Candidate* pick = nullptr;
    for (const Candidate& c : cands) {
      if (&c == best || !within_limits(c) ||
          !within(c.score.weighted_cost, min_cost * (1 + kTieShare)) ||
          !within(c.score.max_link_relative, best->score.max_link_relative * (1 + kTieShare)))
        continue;
      const double w = off_node(c);
      if (w < fewest) fewest = w, pick = &c;
    }
    if (pick && fewest <= off_node(*best) * (1 - kRelieveMinLoadGain)) best = pick;
  }
  // The time model's exchange rate (issue 16): a candidate up to
  // kTimeCostShare dearer than the cheapest (and no worse than block) replaces
  // the choice if the time model predicts its slowest rank at least
  // kTimeMinGain faster and its busiest link is at least kRelieveMinLoadGain
  // lighter. Bytes x distance counts a placement's traffic, not how it
  // shares links. The model is trusted only where the links agree, and
  // whether a rank's latencies add up or overlap (the profile does not say),
  // because its errors lie there: between placements of equal load it
  // predicted the slowest rank of a 2D stencil 14% faster, and SimGrid ran
  // the two alike (docs/mapper.md, step 4).
  bool bought_time = false;
  // The slowest rank's predicted time with its messages' latencies in turn,
  // and overlapped across its partners.
  struct SlowestRank {
    double in_turn = 0, overlapped = 0;
  };
  auto slowest_rank = [&](const Candidate& c) {
    const auto placement = detail::cores_by_topology(g, c.node_of, p.platform->node_kinds, torus.nodes(), p.core_fill);
    const detail::RankTimeParts t = detail::predicted_rank_time_parts(*p.traffic, placement, *p.platform);
    SlowestRank s;
    for (size_t r = 0; r < t.transfer.size(); ++r) {
      s.in_turn = std::max(s.in_turn, t.latency[r] + t.transfer[r]);
      s.overlapped = std::max(s.overlapped, t.latency_overlapped[r] + t.transfer[r]);
    }
    return s;
  };
  // Faster by kTimeMinGain under both latency assumptions.
  auto clearly_faster = [](const SlowestRank& a, const SlowestRank& than) {
    return a.in_turn <= than.in_turn * (1 - kTimeMinGain) && a.overlapped <= than.overlapped * (1 - kTimeMinGain);
  };
  // (Without bytes between nodes there are no links to agree.)
  if (!large && p.preset != Preset::fast && best->score.max_link_relative > 0) {
    std::vector<const Candidate*> shortlist{best};
    std::vector<const Candidate*> by_cost;
    for (const Candidate& c : cands)
      if (within(c.score.weighted_cost, min_cost * (1 + kTimeCostShare)) && meets_block(c) &&
          c.score.max_link_relative <= best->score.max_link_relative * (1 - kRelieveMinLoadGain))
        by_cost.push_back(&c);
    std::stable_sort(by_cost.begin(), by_cost.end(), [](const Candidate* a, const Candidate* b) {
      return a->score.weighted_cost < b->score.weighted_cost;
    });
    for (const Candidate* c : by_cost) {
      if (static_cast<int>(shortlist.size()) > kTimeShortlist) break;
      if (std::any_of(shortlist.begin(), shortlist.end(), [&](const Candidate* o) { return o->node_of == c->node_of; }))
        continue;
      shortlist.push_back(c);
    }
    if (shortlist.size() > 1) {
      std::vector<SlowestRank> time(shortlist.size());
      detail::parallel_for(shortlist.size(), p.threads, [&](size_t i) { time[i] = slowest_rank(*shortlist[i]); });
      size_t fastest = 0;
      for (size_t i = 1; i < shortlist.size(); ++i)
        if (clearly_faster(time[i], time[0]) && (fastest == 0 || time[i].in_turn < time[fastest].in_turn)) fastest = i;
      if (fastest > 0) {
        char note[200];
        std::snprintf(note, sizeof note,
                      "took a placement the time model predicts %.1f%% faster (%.1f%% with overlapped latencies) "
                      "for %.2f%% more cost",
                      100 * (1 - time[fastest].in_turn / time[0].in_turn),
                      100 * (1 - time[fastest].overlapped / time[0].overlapped),
                      100 * (shortlist[fastest]->score.weighted_cost / best->score.weighted_cost - 1));
        out.notes.push_back(note);
        best = shortlist[fastest];
        bought_time = true;
      }
    }
  }
  // The job spread over every allocated node (docs/mapper.md, step 4,
  // "Spread"). Where the allocation has more slots than ranks, the
  // candidates above pack the ranks onto as few nodes as their cost wants:
  // fewer bytes on the network, but on fewer links. Thinned out to the
  // fewest ranks per node that still seat the job, the same traffic
  // crosses more links, each less loaded: on the recorded 128-rank mini-apps
  // at half of an 8x8 torus SimGrid ran ADI, CG, hydro27 and the sparse
  // pattern 0.74-0.81x as long spread as packed, at 1.18-1.53x the cost.
  // The default at that capacity (at the fast preset, then the full
  // search) replaces the choice on the time model's evidence, whatever the cost: no worse than
  // block, a busiest link kRelieveMinLoadGain lighter, the slowest rank
  // kTimeMinGain faster with latencies overlapped and faster at all with
  // them in turn. (The latency term is where the model errs, and there
  // SimGrid found spreading faster than predicted, never slower: recorded
  // MG, predicted 7% slower in turn, ran 0.864x as long spread. Asking 5%
  // of the in-turn model too made the sparse patterns, 2-9% there, spread
  // at some seeds only.)
  Candidate spread;
  // For a replay (alternatives asked), the spread job is offered whatever
  // the model says: a replay sees what the model misses (SimGrid ran
  // recorded MG and the 3D stencil at 128 ranks on half of 8x8 0.86x and
  // 0.72x as long spread, which the model predicts slower).
  Candidate spread_alternative;
  if (!large && p.preset != Preset::fast && best->score.max_link_relative > 0) {
    if (std::optional<Allocation> thin = spread_allocation(p.allocation, p.ranks())) {
      const SlowestRank best_time = slowest_rank(*best);
      auto spread_faster = [](const SlowestRank& a, const SlowestRank& than) {
        return a.in_turn < than.in_turn && a.overlapped <= than.overlapped * (1 - kTimeMinGain);
      };
      // A spread job against the choice, in percent (negative: less).
      struct Change {
        double in_turn, overlapped, link, cost;
      };
      auto change = [&](const Candidate& c, const SlowestRank& time) {
        return Change{100 * (time.in_turn / best_time.in_turn - 1), 100 * (time.overlapped / best_time.overlapped - 1),
                      100 * (c.score.max_link_relative / best->score.max_link_relative - 1),
                      100 * (c.score.weighted_cost / best->score.weighted_cost - 1)};
      };
      // Verbose: why a spread job is or is not taken.
      auto say_against = [&](const char* what, const Candidate& c, const SlowestRank& time) {
        const Change d = change(c, time);
        char line[220];
        std::snprintf(line, sizeof line,
                      "%s against the choice: slowest rank %+.1f%% (%+.1f%% with overlapped latencies), "
                      "busiest link %+.1f%%, cost %+.1f%%",
                      what, d.in_turn, d.overlapped, d.link, d.cost);
        say(line);
      };
      auto qualifies = [&](const Candidate& c, const SlowestRank& time) {
        return meets_block(c) &&
               c.score.max_link_relative <= best->score.max_link_relative * (1 - kRelieveMinLoadGain) &&
               spread_faster(time, best_time);
      };
      auto spread_at = [&](Preset preset) -> Result<Candidate> {
        say(std::string("the job spread over every allocated node (") + preset_name(preset) + ")");
        MapProblem q = p;
        q.allocation = *thin;
        q.preset = preset;
        q.alternatives = 0;
        if (p.progress) q.progress = [&](const std::string& s) { say("spread: " + s); };
        auto d = map_rankmap(q);
        if (!d) return d.error();
        Candidate c{std::string("spread(") + preset_name(preset) + ")", std::vector<int>(d->placement.size()), {}};
        for (size_t r = 0; r < d->placement.size(); ++r) c.node_of[r] = d->placement[r].node;
        c.score = detail::network_score(*p.traffic, torus, c.node_of);
        return c;
      };
      // The full search runs whatever the fast one found: the fast result
      // says too little of it to gate it. With its qualifying as the gate,
      // recorded CG at 128 ranks on desmos at 6 per node spread at 3 seeds
      // of 5, the full result qualifying at all 5; with any gain predicted
      // in turn as the gate, a cheaper packed choice of recorded CG at 256
      // ranks on a quarter of 8x4x4x4 (seed 1, session 38) made the fast
      // result 7% slower, and the full one, a busiest link 25% lighter and
      // predicted faster, went untried.
      // A spread job the latency assumption decides: predicted faster with
      // a rank's latencies overlapped, slower with them in turn, on a
      // lighter busiest link (whatever its cost). The profile cannot say
      // which holds (SimGrid ran recorded MG and the 3D stencil at 128 ranks
      // on half of 8x8 0.86x and 0.72x as long spread, LU and the 2D
      // stencil at 64 on half of 4x4x4 1.00x and 1.02x), so the user is
      // told, and pointed to the replay that can.
      Candidate undecided;
      SlowestRank undecided_time;
      auto note_if_undecided = [&](const Candidate& c, const SlowestRank& time) {
        if (c.score.max_link_relative <= best->score.max_link_relative * (1 - kRelieveMinLoadGain) &&
            time.overlapped <= best_time.overlapped * (1 - kTimeMinGain) && time.in_turn >= best_time.in_turn) {
          undecided = c;
          undecided_time = time;
        }
      };
      // One spread run, reported against the choice; whether it qualifies.
      struct SpreadRun {
        Candidate c;
        bool qualifies = false;
      };
      auto judged_spread_at = [&](Preset preset, const char* what) -> Result<SpreadRun> {
        auto c = spread_at(preset);
        if (!c) return c.error();
        const SlowestRank time = slowest_rank(*c);
        const bool ok = qualifies(*c, time);
        say_against(what, *c, time);
        note_if_undecided(*c, time);
        return SpreadRun{std::move(*c), ok};
      };
      auto quick = judged_spread_at(Preset::fast, "spread (fast)");
      if (!quick) return quick.error();
      // strong spreads with the default's search: its own doubled its
      // ~10 s on the partial-machine benchmark (up to 19.5 s).
      auto full = judged_spread_at(Preset::standard, "spread (default)");
      if (!full) return full.error();
      if (p.alternatives > 0) spread_alternative = full->c;
      // Of two qualifying runs the cheaper, but within the choice's tie
      // (kTieShare) the lighter busiest link: recorded ADI at 64 ranks on
      // half of an 8x4x4 torus had a full run 1e-7 cheaper than the fast
      // one with a busiest link 36% heavier.
      auto full_better = [&] {
        const detail::NetworkScore& f = full->c.score;
        const detail::NetworkScore& q = quick->c.score;
        const bool tied =
            std::abs(f.weighted_cost - q.weighted_cost) <= kTieShare * std::min(f.weighted_cost, q.weighted_cost);
        if (tied && f.max_link_relative != q.max_link_relative) return f.max_link_relative < q.max_link_relative;
        return f.weighted_cost <= q.weighted_cost;
      };
      if (full->qualifies && (!quick->qualifies || full_better()))
        spread = std::move(full->c);
      else if (quick->qualifies)
        spread = std::move(quick->c);
      if (!spread.node_of.empty()) {
        const Change d = change(spread, slowest_rank(spread));
        char note[240];
        std::snprintf(note, sizeof note,
                      "spread the job over every allocated node (at most %d rank%s each): the time model predicts "
                      "%.1f%% faster (%.1f%% with overlapped latencies), busiest link %.1f%% lighter, for %.1f%% more cost",
                      thin->max_slots(), thin->max_slots() == 1 ? "" : "s", -d.in_turn, -d.overlapped, -d.link, d.cost);
        out.notes.push_back(note);
        best = &spread;
        bought_time = true;
      } else if (!undecided.node_of.empty() && p.alternatives == 0) {
        std::vector<char> used(static_cast<size_t>(torus.nodes()), 0);
        for (int n : best->node_of) used[static_cast<size_t>(n)] = 1;
        const auto packed_nodes = std::count(used.begin(), used.end(), 1);
        const Change d = change(undecided, undecided_time);
        char note[400];
        std::snprintf(note, sizeof note,
                      "kept the job on %d of %d allocated nodes; spread over all of them (at most %d rank%s each) the "
                      "time model predicts the slowest rank %.1f%% slower with its latencies in turn but %.1f%% faster "
                      "with them overlapped (busiest link %.1f%% lighter, %.1f%% more cost), and the profile cannot "
                      "tell which holds: `rankmap map --trace` replays both",
                      static_cast<int>(packed_nodes), static_cast<int>(nodes.size()), thin->max_slots(),
                      thin->max_slots() == 1 ? "" : "s", d.in_turn, -d.overlapped, -d.link, d.cost);
        out.notes.push_back(note);
      }
    }
  }
  // The exchange rate holds for the whole choice, not per step: the final
  // relief may not stack its 1% on a candidate already bought at 1% (both
  // reliefs together gave up to 2% over the cheapest, measured).
  double relieve_cost_cap = std::min(limits.weighted_cost, min_cost * (1 + kRelieveCostShare));
  // Bought above that at the time model's rate: the relief may still take
  // lighter links at no more cost.
  if (bought_time) relieve_cost_cap = std::max(relieve_cost_cap, best->score.weighted_cost);
  const Candidate* block_start = nullptr;
  for (size_t i = 0; i < starts; ++i)
    if (cands[i].name == "block") block_start = &cands[i];
  bool kept_block = false;
  if (block_start && best != block_start &&
      block_score.weighted_cost <= best->score.weighted_cost * (1 + kTieShare) &&
      block_score.max_link_relative <= best->score.max_link_relative * (1 + kTieShare) &&
      detail::inter_node_weight(g, best->node_of) >
          detail::inter_node_weight(g, block_start->node_of) * (1 - kRelieveMinLoadGain)) {
    out.notes.push_back("no candidate beat block by more than 0.1% on cost or link load: kept block");
    best = block_start;
    kept_block = true;
    relieve_cost_cap = 0;  // keep the launcher's placement as it is
  }
  Candidate chosen = *best;
  // A relieved variant replaces the choice at the documented rate (>= 5% of
  // load for <= 1% of cost, within the cap), or for any lower load that
  // costs at most `free_share` more.
  auto relief_taken = [&](const Candidate& c, double free_share) {
    const bool free_gain = c.score.weighted_cost <= chosen.score.weighted_cost * (1 + free_share) &&
                           c.score.max_link_relative < chosen.score.max_link_relative * (1 - 1e-9);
    return within(c.score.weighted_cost, relieve_cost_cap) &&
           (free_gain || c.score.max_link_relative <= chosen.score.max_link_relative * (1 - kRelieveMinLoadGain));
  };
  if (relieve_cost_cap > 0) {
    // The starts and the search optimise the cost; link load only chose
    // between them. Swaps of neighbouring node contents aimed at the busiest
    // links then trade at most kRelieveCostShare of cost for a max link load
    // lower by at least kRelieveMinLoadGain, and never beyond the guarantee's
    // cost cap: a documented weighting of the two objectives.
    // Above kSearchAllStartsUpTo ranks, not again on a candidate the tied
    // step relieved: the greedy would go on from where it stopped, with no
    // more budget than it had left (the cap is 1% over the cheapest), for
    // 0.25 s at 32k ranks, where it found no gain the rule accepts (random
    // partners: -1.1% load for +0.02% cost; the shuffled stencil: -4.0% for
    // +0.3%). Below, it is cheap and sometimes finds a free gain (recorded
    // sparse at 1,024 ranks: -0.006% on both).
    const std::string relieved_suffix = "+links";
    const bool relieved_already = large && chosen.name.size() >= relieved_suffix.size() &&
                                  chosen.name.compare(chosen.name.size() - relieved_suffix.size(), relieved_suffix.size(),
                                                      relieved_suffix) == 0;
    if (!relieved_already) {
      say("relieving the busiest links");
      Candidate c = relieve(chosen, relieve_cost_cap);
      if (relief_taken(c, 0.0)) chosen = std::move(c);
    }
    // Its least loaded image under the torus's symmetries: the same cost,
    // other links. Last, so that it can only lower the load of the choice.
    if (!large && detail::relieve_by_symmetry(*p.traffic, torus, p.allocation, chosen.node_of)) {
      chosen.name += "+image";
      chosen.score = detail::network_score(*p.traffic, torus, chosen.node_of);
    }
    // The greedy relief stops where no single step lowers the load; a tabu
    // search of single ranks on the same objective and budget goes on
    // uphill from there and keeps the best it sees, taken at the same rate.
    if (!large && p.preset != Preset::fast) {
      say("tabu search of the busiest links");
      Candidate c{chosen.name + "+load-tabu", chosen.node_of, chosen.score};
      if (tabu_relief(c, std::max(0.0, relieve_cost_cap - chosen.score.weighted_cost), 600) && relief_taken(c, kTieShare))
        chosen = std::move(c);
    }
  }
  // The bulk model's rate (issue 16; docs/mapper.md, step 4). The time
  // model sends every flow at once, so it cannot see links shared only
  // while messages overlap, nor ranks whose partners are near running
  // ahead: on recorded MG at 128 ranks on desmos it ranks the 2x1x2 node
  // blocks first, which SimGrid runs 1.22x as long as 4x1x1 runs. The bulk
  // model replays the traffic as rounds (predicted_bulk_time) and orders
  // them right. Among the candidates no worse than block, with a busiest
  // link no heavier than the choice's, the one it predicts fastest replaces
  // the choice if it is at least kBulkMinGain faster and costs at most as
  // much more as it saves (a percent of cost for a percent of time, and at
  // most kBulkCostShare over the cheapest). Last, against the choice as the
  // steps above leave it (their relief can end lighter than the candidate
  // the model would pick). Not where block was kept (the profile's
  // collectives, which the model leaves out, pair ranks in rank order), and
  // not where one replay of the choice would pass the model's work cap
  // (BulkModelOptions::max_work).
  if (!large && p.preset != Preset::fast && p.bulk_model && !kept_block && chosen.score.max_link_relative > 0) {
    const Traffic& program = p.point_to_point ? *p.point_to_point : *p.traffic;
    auto same = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); };
    std::vector<const Candidate*> shortlist{&chosen};
    std::vector<const Candidate*> by_cost;
    for (const Candidate& c : cands)
      if (within(c.score.weighted_cost, min_cost * (1 + kBulkCostShare)) && meets_block(c) &&
          c.score.max_link_relative <= chosen.score.max_link_relative * (1 + kTieShare))
        by_cost.push_back(&c);
    std::stable_sort(by_cost.begin(), by_cost.end(), [](const Candidate* a, const Candidate* b) {
      return a->score.weighted_cost < b->score.weighted_cost;
    });
    // Candidates equal on both metrics are mostly one placement under the
    // torus's symmetries (the same replay): one of each.
    for (const Candidate* c : by_cost) {
      if (static_cast<int>(shortlist.size()) > kBulkShortlist) break;
      if (std::none_of(shortlist.begin(), shortlist.end(), [&](const Candidate* o) {
            return same(o->score.weighted_cost, c->score.weighted_cost) &&
                   same(o->score.max_link_relative, c->score.max_link_relative);
          }))
        shortlist.push_back(c);
    }
    // strong: the choice's busiest links relieved at up to kBulkCostShare
    // of cost (the relief's own rate stops at kRelieveCostShare) joins the
    // shortlist; the model takes it only at its rate, for the time it
    // predicts. Busiest links carry whole flows, so a load step can cost
    // more than the relief's 1%: on recorded CG at 1,024 ranks on 8x4x4x4
    // one step (0.80 -> 0.70 ms) costs 1.95%, predicted 12% faster.
    std::optional<Candidate> traded;
    if (p.preset == Preset::strong) {
      const double cap = std::min(block_score.weighted_cost, min_cost * (1 + kBulkCostShare));
      Candidate c{chosen.name + "+traded", chosen.node_of, chosen.score};
      greedy_relief(c, std::max(0.0, cap - c.score.weighted_cost));
      tabu_relief(c, std::max(0.0, cap - c.score.weighted_cost), 660);
      if (c.score.max_link_relative < chosen.score.max_link_relative * (1 - kTieShare) && within(c.score.weighted_cost, cap)) {
        traded = std::move(c);
        shortlist.push_back(&*traded);
      }
    }
    BulkModelOptions bulk_options;
    if (p.preset == Preset::strong) bulk_options.max_work *= kStrongBulkWork;
    // All at once; the others' runs are dropped if the choice's passes the
    // work cap (then none is used, as if they had not run).
    std::atomic<bool> choice_capped{false};
    auto bulk_time = [&](const Candidate& c, const std::atomic<bool>* stop) {
      const auto placement = detail::cores_by_topology(g, c.node_of, p.platform->node_kinds, torus.nodes(), p.core_fill);
      return detail::predicted_bulk_time(program, placement, *p.platform, bulk_options, stop);
    };
    std::vector<std::optional<double>> time(shortlist.size());
    if (shortlist.size() > 1) {
      say("the bulk model on " + std::to_string(shortlist.size()) + " candidates");
      detail::parallel_for(shortlist.size(), p.threads, [&](size_t i) {
        time[i] = bulk_time(*shortlist[i], i == 0 ? nullptr : &choice_capped);
        if (i == 0 && !time[0]) choice_capped = true;
      });
      if (!time[0]) say("the bulk model passed its work cap: the static choice stands");
    }
    if (time[0]) {
      size_t fastest = 0;
      for (size_t i = 1; i < shortlist.size(); ++i) {
        if (!time[i]) continue;
        const double gain = 1 - *time[i] / *time[0];
        const double dearer = shortlist[i]->score.weighted_cost / chosen.score.weighted_cost - 1;
        if (gain >= kBulkMinGain && dearer <= gain && (fastest == 0 || *time[i] < *time[fastest])) fastest = i;
      }
      if (fastest > 0) {
        char note[220];
        std::snprintf(note, sizeof note,
                      "took a placement the bulk model predicts %.1f%% faster for %+.2f%% cost (%s instead of %s)",
                      100 * (1 - *time[fastest] / *time[0]),
                      100 * (shortlist[fastest]->score.weighted_cost / chosen.score.weighted_cost - 1),
                      shortlist[fastest]->name.c_str(), chosen.name.c_str());
        out.notes.push_back(note);
        chosen = *shortlist[fastest];
      }
      out.bulk_time = *time[fastest];
    }
  }
  best = &chosen;
  // Cost first can leave the choice with a busier link than a reference's.
  // Which runs faster depends on when the messages cross the links, which
  // the profile does not record: recorded CG, which exchanges with one row
  // partner at a time, ran 0.92x and 0.85x as long on Scotch's lighter
  // placements at 256 and 1,024 ranks, and 1.11x at 64 (docs/mapper.md,
  // step 4). A replay of the application's trace can tell.
  if (light_ref_score && best->score.max_link_relative > light_ref_score->max_link_relative * (1 + kTieShare) &&
      best->score.weighted_cost < light_ref_score->weighted_cost) {
    char note[400];
    std::snprintf(note, sizeof note,
                  "chose the lower cost over the lower max link load of %s (busiest link %.1f%% busier, cost %.1f%% "
                  "lower); a code that exchanges with one partner at a time may run faster on the lighter links, and "
                  "the profile cannot tell: `rankmap map --trace` replays both",
                  light_ref, 100 * (best->score.max_link_relative / light_ref_score->max_link_relative - 1),
                  100 * (1 - best->score.weighted_cost / light_ref_score->weighted_cost));
    out.notes.push_back(note);
  }
  out.notes.push_back("chose " + describe(*best));
  say("placing ranks on cores (hwloc tree)");
  out.placement = detail::cores_by_topology(g, best->node_of, p.platform->node_kinds, torus.nodes(), p.core_fill, p.threads);
  if (p.alternatives > 0) {
    // For a judge beyond the static model (a trace replay): the choice, the
    // references, the cheapest of each start family, the cheapest others.
    out.alternatives.push_back(Alternative{best->name, out.placement});
    std::vector<const Candidate*> shortlist;
    for (const char* ref : {"block", "paper", "scotch"})
      for (size_t i = 0; i < starts; ++i)
        if (cands[i].name == ref) shortlist.push_back(&cands[i]);
    if (!spread_alternative.node_of.empty()) shortlist.push_back(&spread_alternative);
    // Then the cheapest of each start family (scotch-strict, bisection,
    // cartesian, ...: placements that differ in kind, which a replay can
    // order differently than the static cost), then the cheapest others.
    std::vector<const Candidate*> others;
    for (const Candidate& c : cands) others.push_back(&c);
    std::stable_sort(others.begin(), others.end(), [](const Candidate* a, const Candidate* b) {
      return a->score.weighted_cost < b->score.weighted_cost;
    });
    std::vector<std::string> families;
    for (const Candidate* c : others)
      if (std::find(families.begin(), families.end(), family_of(c->name)) == families.end()) {
        families.push_back(family_of(c->name));
        shortlist.push_back(c);
      }
    shortlist.insert(shortlist.end(), others.begin(), others.end());
    // Distinct node assignments only; equal static scores are kept, since
    // what a replay sees (who waits for whom) is what the scores cannot.
    std::vector<const std::vector<int>*> seen{&best->node_of};
    for (const Candidate* c : shortlist) {
      if (static_cast<int>(out.alternatives.size()) >= p.alternatives) break;
      if (std::any_of(seen.begin(), seen.end(), [&](const std::vector<int>* o) { return *o == c->node_of; })) continue;
      seen.push_back(&c->node_of);
      // The references exactly as the stand-alone algorithms place them
      // (cores in rank order for block and scotch, paper's cores by its graph).
      std::vector<Placement> placement =
          (c->name == "block" || c->name == "scotch")
              ? detail::cores_in_rank_order(c->node_of, torus.nodes())
              : detail::cores_by_topology(c->name == "paper" ? *p.graph : g, c->node_of, p.platform->node_kinds, torus.nodes(),
                                          p.core_fill, p.threads);
      out.alternatives.push_back(Alternative{c->name, std::move(placement)});
    }
  }
  return out;
}

}  // namespace

}  // namespace rankmap
