// The default's starts (docs/mapper.md, "The default", step 1): every
// placement the searches start from, in a fixed order, each a function of
// the job and the seed only.
#include <optional>

#include "default_pipeline.hpp"
#include "parallel.hpp"

namespace rankmap::detail {

namespace {

constexpr int kCartesianGroupings = 16;     // lowest-cut grid tilings tried for a folding
constexpr int kCartesianPlaced = 3;         // of them placed by bisection; foldings kept
// Above kSearchAllStartsUpTo ranks, folding a grouping costs ~0.1 s: only
// when some grid shape carries this share of the traffic between grid
// neighbours (a stencil: all of it; random partners: almost none).
constexpr double kCartesianLargeAffinity = 0.25;
constexpr std::int64_t kCartesianWork = 50'000'000;  // edge visits scoring grid tilings
// The scaled grid start: only where the likeliest grid carries this share of
// the traffic between its neighbours (a halo or wavefront code).
constexpr double kScaledGridAffinity = 0.5;
constexpr int kMaxKwayGroupsPerSeed = 256;   // METIS k-way per seed only up to this many groups

}  // namespace

Result<std::vector<Candidate>> default_starts(const MapProblem& p, const CommGraph& g, const StartScope& scope,
                                              std::vector<std::string>& notes,
                                              const std::function<void(const std::string&)>& say,
                                              const StartLanes& lanes) {
  const Network& torus = p.platform->net();
  const bool same_graph = &g == p.graph;
  const bool large = scope.large, huge = scope.huge, dense = scope.dense;
  const int seeds = scope.seeds;
  std::vector<Candidate> cands;
  auto from_groups = [&](const std::string& name, const std::vector<int>& part, const std::vector<int>& group_node) {
    Candidate c{name, std::vector<int>(part.size()), {}};
    for (size_t r = 0; r < part.size(); ++r) c.node_of[r] = group_node[static_cast<size_t>(part[r])];
    cands.push_back(std::move(c));
  };
  // Group starts cut the ranks into groups of `ppn` (the largest node's slots
  // on a mixed allocation, where the excess is then moved to nodes with room).
  const std::vector<int>& nodes = p.allocation.nodes();
  const int ppn = p.allocation.max_slots();
  const int k = nodes_needed(p.allocation, p.ranks());
  const Allocation one_group_a_node = Allocation::uniform(p.allocation.network_nodes(), nodes, 1);

  // Scotch's runs form a lane of their own, on another thread while the
  // other starts are computed (Scotch keeps state per process: one thread
  // at a time). Each leaves an empty candidate where a sequential run would
  // have put it, filled once both lanes are done.
  struct ScotchRun {
    std::string name;
    const CommGraph* graph = nullptr;
    bool strict = false;  // Scotch's quality strategy with exact balance
    std::uint64_t seed = 0;
    int seed_index = -1;  // of the randomised starts; -1: the reference
    size_t slot = 0;      // in cands
    std::vector<std::string> notes;
    std::vector<int> node_of;
    std::optional<Error> error;
  };
  std::vector<ScotchRun> scotch_runs;
  auto add_scotch_run = [&](std::string name, const CommGraph* graph, bool strict, std::uint64_t seed, int seed_index) {
    ScotchRun r;
    r.name = std::move(name);
    r.graph = graph;
    r.strict = strict;
    r.seed = seed;
    r.seed_index = seed_index;
    scotch_runs.push_back(std::move(r));
  };
  // The reference of the guarantee, as the stand-alone `scotch` computes it
  // (message-weighted graph, user seed).
  if (!huge) add_scotch_run("scotch", p.graph, false, p.seed, -1);
  for (int i = 0; i < seeds; ++i) {
    // Above kSearchAllStartsUpTo ranks Scotch on the bytes graph (~0.7 s at
    // 32k) rarely differs enough from the reference run to pay for itself.
    if ((!same_graph || i > 0) && !large)
      add_scotch_run(numbered("scotch-bytes", i), &g, false, derived_seed(p.seed, i), i);
    // Scotch's quality strategy on a dense graph took 1.75 s at 1,024 ranks
    // of an all-to-all (its own default strategy, the reference, 0.15 s).
    if (!large && !dense) add_scotch_run(numbered("scotch-strict", i), &g, true, derived_seed(p.seed, i), i);
  }
  auto run_scotch = [&] {
    for (ScotchRun& r : scotch_runs) {
      auto node_of = scotch_map(*r.graph, torus, nodes, false, r.strict, r.seed, r.notes);
      if (!node_of) {
        r.error = node_of.error();
        break;
      }
      enforce_node_capacity(*r.graph, torus, p.allocation, *node_of);
      r.node_of = std::move(*node_of);
    }
  };
  auto place_scotch_runs = [&](int seed_index) {
    for (ScotchRun& r : scotch_runs)
      if (r.seed_index == seed_index) {
        r.slot = cands.size();
        cands.push_back(Candidate{r.name, {}, {}});
      }
  };

  auto other_starts = [&] {
    // The references of the guarantee: `paper` and `scotch` exactly as the
    // stand-alone algorithms compute them.
    std::vector<int> ref_part;
    if (huge) {
      notes.push_back("above " + std::to_string(kHugeRanks) +
                      " ranks only the structure starts (block, snake, matching) are tried, not paper or scotch");
    } else {
      // Above kSearchAllStartsUpTo ranks `paper` is left out: METIS k-way into
      // thousands of groups cost 0.6-1.8 s at 32k ranks (a third of the
      // default's time) and its cost was 2-6x the default's on every pattern
      // measured there (docs/benchmarks.md, mapper quality and speed).
      if (large) {
        say("reference: Scotch (torusXD)");
        notes.push_back("above " + std::to_string(kSearchAllStartsUpTo) +
                        " ranks paper (METIS k-way node groups) is not a candidate");
      } else {
        say("references: METIS node groups (paper) and Scotch (torusXD)");
        ref_part = partition_groups(*p.graph, k, ppn, p.seed);
        from_groups("paper", ref_part, nodes);
      }
      place_scotch_runs(-1);
    }
    {
      // The launcher's order is a fine start when the application numbers its
      // ranks along its own grid (rings, row-major 2D stencils).
      cands.push_back(Candidate{"block", fill_in_order(nodes, p.allocation, p.ranks()), {}});
    }
    if (const Torus* grid = torus.as_torus()) {
      // Block along a walk of the torus in which consecutive nodes are
      // neighbours: block's strength (rank order) without its long jumps at the
      // end of every row. A ring numbered in order becomes a Hamiltonian cycle.
      const std::vector<int> walk = snake_order(*grid, nodes);
      cands.push_back(Candidate{"snake", fill_in_order(walk, p.allocation, p.ranks()), {}});
      // On a mesh the snake ends far from where it began (7 hops on 8x8):
      // there the ring becomes a Hamiltonian cycle of the mesh instead.
      const std::vector<int> cycle = cycle_order(*grid, nodes);
      if (!cycle.empty()) cands.push_back(Candidate{"cycle", fill_in_order(cycle, p.allocation, p.ranks()), {}});
    }
    say("node groups by heavy-edge matching");
    for (const MatchingTies ties : {MatchingTies::lowest, MatchingTies::highest}) {
      // Ties to the lowest index merge along the application's fastest-varying
      // grid dimension first, ties to the highest along its slowest: two
      // orientations of the same coarsening (e.g. 2x2 squares or 1x1x4 columns
      // of a 3D grid), of which the torus may fit only one.
      const std::string suffix = ties == MatchingTies::lowest ? "" : "-last";
      int groups = 0;
      const std::vector<int> mpart = matching_groups(g, ppn, static_cast<int>(nodes.size()), groups, ties);
      if (mpart.empty()) continue;
      // Placing the groups by bisection costs about half a second at 32k
      // ranks and has not won there (the in-order placement below has).
      if (!large) {
        const CommGraph q = contract(g, mpart, groups);
        from_groups("matching" + suffix, mpart, recursive_bisection_map(q, torus, one_group_a_node, kSeedFreeSeed));
      }
      // The same groups in node order, as `paper` places its METIS groups:
      // matched groups are numbered by their lowest rank, so this keeps the
      // application's numbering at node granularity.
      from_groups("matching-in-order" + suffix, mpart, nodes);
    }
    if (!huge) {
      // Tilings of a row-major process grid (cartesian_starts.cpp): the
      // regular groups a grid code needs, whatever the seed. Each placed by
      // the bisection (a fixed seed: the start must not depend on the user's)
      // and, where the block grid folds onto the torus, dimension by dimension.
      say("node groups tiling a Cartesian rank grid");
      // Many tilings tie on cut (every orientation of a block on a 7-point
      // stencil), and which of them folds onto the torus depends on the torus:
      // the bisection places the best few, folding is tried on all.
      // `order`: where the groupings are of a renumbered graph, the rank at
      // each of its vertices (their groups are carried back to the ranks).
      // Returns how many groupings folded onto the torus.
      auto place_groupings = [&](const std::vector<GridGrouping>& groupings, const std::vector<int>* order,
                                 const std::string& family) {
        int placed = 0, folded = 0;
        for (GridGrouping grouping : groupings) {
          if (order) {
            std::vector<int> part(grouping.part.size());
            for (size_t i = 0; i < part.size(); ++i) part[static_cast<size_t>((*order)[i])] = grouping.part[i];
            grouping.part = std::move(part);
          }
          const int blocks = static_cast<int>(grouping.part.size()) / ppn;
          if (blocks > static_cast<int>(nodes.size())) break;
          if ((placed == kCartesianPlaced || large) && folded == kCartesianPlaced) break;
          const CommGraph q = contract(g, grouping.part, blocks);
          const std::string name = family + "[" + grouping.name + "]";
          // The bisection of 4,096 blocks costs ~0.5 s at 32k ranks (as for the
          // matching groups): above kSearchAllStartsUpTo only the foldings.
          if (placed < kCartesianPlaced && !large) {
            from_groups(name, grouping.part, recursive_bisection_map(q, torus, one_group_a_node, kSeedFreeSeed));
            ++placed;
          }
          if (folded < kCartesianPlaced && torus.as_torus()) {
            const std::vector<int> block_node = lightest_block_grid_folding(
                q, grouping.grids, grouping.part, p.traffic, torus, *torus.as_torus(), nodes, kTieShare, kRelieveMinLoadGain);
            if (!block_node.empty()) {
              from_groups(name + "-folded", grouping.part, block_node);
              ++folded;
            }
          }
        }
        return folded;
      };
      const std::int64_t work = large ? kCartesianWork / 5 : kCartesianWork;
      const double affinity = large ? kCartesianLargeAffinity : 0;
      const std::vector<GridGrouping> numbered_grid = cartesian_groupings(g, ppn, kCartesianGroupings, work, affinity);
      int folded = place_groupings(numbered_grid, nullptr, "cartesian");
      // A grid numbered otherwise than row-major (grid_recognition.cpp): its
      // tilings, where they cut less than the numbering's best.
      std::vector<int> grid_dims;
      const std::vector<int> order = torus_grid_order(g, grid_dims);
      if (!order.empty()) {
        double numbered_cut = std::numeric_limits<double>::infinity();
        for (const GridGrouping& gg : numbered_grid) numbered_cut = std::min(numbered_cut, gg.cut);
        const std::vector<GridGrouping> found =
            cartesian_groupings(renumbered(g, order), ppn, kCartesianGroupings, work, affinity);
        double found_cut = std::numeric_limits<double>::infinity();
        for (const GridGrouping& gg : found) found_cut = std::min(found_cut, gg.cut);
        if (found_cut < numbered_cut * (1 - 1e-3)) {
          say("node groups tiling a grid found in the graph");
          folded += place_groupings(found, &order, "grid");
        }
      }
      // A grid no tiling folds onto the torus (its blocks do not multiply
      // to a box: a 20x10 grid at 4 per node on 8x8 nodes; or ppn does not
      // divide the ranks): laid onto it in proportion instead, so that grid
      // neighbours still land on the same or neighbouring nodes.
      if (folded == 0 && !large)
        if (const Torus* t = torus.as_torus()) {
          ScaledGrid scaled = scaled_grid_start(g, *t, p.allocation, kScaledGridAffinity);
          if (!scaled.node_of.empty()) {
            say("the rank grid scaled onto the torus");
            cands.push_back(Candidate{"scaled[" + scaled.name + "]", std::move(scaled.node_of), {}});
          }
        }
    }
    for (int i = 0; i < seeds; ++i) {
      const std::uint64_t seed = derived_seed(p.seed, i);
      say("randomised starts, seed " + std::to_string(seed));
      // Many tiny groups: only the reference run, whose groups the matching
      // and the bisection cover. Measured when METIS k-way into 512 groups of
      // 2 at 1,024 ranks cost 0.5 s (25x the bisection), most of it repairing
      // the balance k-way gave up; partition_groups now takes METIS's
      // recursive bisection there (0.01 s), and the limit was not re-measured.
      if ((same_graph && i == 0 && !ref_part.empty()) || k <= kMaxKwayGroupsPerSeed) {
        const std::vector<int> part =
            (same_graph && i == 0 && !ref_part.empty()) ? ref_part : partition_groups(g, k, ppn, seed);
        if (!same_graph || i > 0) from_groups(numbered("paper-bytes", i), part, nodes);
        const CommGraph q = contract(g, part, k);
        from_groups(numbered("groups", i), part, recursive_bisection_map(q, torus, one_group_a_node, seed));
      }
      // Above kSearchAllStartsUpTo ranks the bisection (METIS dual recursive
      // bisection, ~0.5 s at 32k) is left out: Scotch's own recursive
      // bipartitioning, the reference start, beat it on every 32k pattern
      // measured (stencils, shuffled stencil, ring, random; docs/benchmarks.md).
      if (!large)
        cands.push_back(Candidate{numbered("bisection", i), recursive_bisection_map(g, torus, p.allocation, seed), {}});
      place_scotch_runs(i);
    }
  };
  parallel_for(2, p.threads, [&](size_t lane) {
    const bool hooks = p.allocation.uniform();
    if (lane == 0) {
      run_scotch();
      if (hooks && lanes.after_scotch) {
        // Their slots are the other lane's to set (place_scotch_runs).
        std::vector<const std::vector<int>*> made;
        for (const ScotchRun& r : scotch_runs) made.push_back(&r.node_of);
        lanes.after_scotch(made);
      }
    } else {
      other_starts();
      if (hooks && lanes.after_others) {
        std::vector<size_t> slots;
        for (const ScotchRun& r : scotch_runs) slots.push_back(r.slot);
        lanes.after_others(cands, slots);
      }
    }
  });
  for (ScotchRun& r : scotch_runs) {
    if (r.error) return *r.error;
    cands[r.slot].node_of = std::move(r.node_of);
  }
  // The reference's notes last: the other starts add theirs before it.
  if (!scotch_runs.empty() && scotch_runs.front().seed_index < 0)
    notes.insert(notes.end(), scotch_runs.front().notes.begin(), scotch_runs.front().notes.end());
  // Groups were cut at the largest node's size: on nodes of different sizes
  // the excess moves to nodes with room (a no-op on equal nodes).
  if (!p.allocation.uniform())
    for (Candidate& c : cands) enforce_node_capacity(g, torus, p.allocation, c.node_of);
  return cands;
}

}  // namespace rankmap::detail
