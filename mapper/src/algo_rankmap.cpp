// rankmap, the default. Several starting points, each improved by a local
// search that sees the real network, then the best kept:
//   paper          METIS node groups in node order (the published method)
//   block, snake   rank order along the nodes, in node order / along a walk
//                  of the torus whose consecutive nodes are neighbours
//   matching(-in-order)  node groups by heavy-edge matching, placed by the
//                  bisection / in node order
//   bisection      dual recursive bisection of ranks and torus
//   groups         the METIS groups placed by the same bisection
//   scotch(-strict)  Scotch's mapping onto torusXD (default / strict balance)
// Every start is kept unrefined as well. The winner is the candidate with the
// lowest bandwidth-weighted cost among those no worse than paper, scotch and
// block on both that cost and the max link load under the real routing; if
// none is no worse than block too, among those no worse than paper and
// scotch. So by construction the default never loses to paper or scotch on
// those two metrics (for the same seed); docs/mapper.md says this plainly.
// Ties go to block: when the winner is not better than block by more than
// kTieShare on either metric, block is kept as the launcher would place it
// (then the guarantee holds up to kTieShare).
#include <algorithm>
#include <cstdio>

#include "detail.hpp"

namespace rankmap {

namespace {

constexpr int kSearchAllStartsUpTo = 8192;  // ranks
constexpr double kRelieveCostShare = 0.01;    // cost the link relief may spend
// A gain the model cannot tell from noise is no reason to move ranks: on a
// uniform all-to-all every placement scores within 0.01%, yet a permutation
// of block ran 1.6-1.8x slower in SimGrid, because MPI's collective
// algorithms pair ranks in rank order (docs/benchmarks.md, simulated runs).
constexpr double kTieShare = 1e-3;
constexpr double kRelieveMinLoadGain = 0.05;  // max link load it must save for that
// Each relief swap reroutes every flow to find the busiest links' flows:
// ~25 ms per swap at 32k ranks of a 27-point stencil, hence fewer swaps there.
constexpr int kRelieveMaxSwaps = 64;
constexpr int kRelieveMaxSwapsLarge = 16;  // above kSearchAllStartsUpTo ranks

struct Candidate {
  std::string name;
  std::vector<int> node_of;
  detail::NetworkScore score;
};

std::string describe(const Candidate& c) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s (weighted cost %.6g, max link load %.6g s)", c.name.c_str(), c.score.weighted_cost,
                c.score.max_link_relative);
  return buf;
}

}  // namespace

Result<MapOutcome> map_rankmap(const MapProblem& p) {
  const Torus& torus = p.platform->torus;
  const CommGraph& g = *p.graph;
  auto say = [&](const std::string& s) {
    if (p.progress) p.progress(s);
  };
  MapOutcome out;
  std::vector<Candidate> cands;

  say("partitioning into node groups (METIS)");
  const int k = detail::groups_needed(p.ranks(), p.ppn);
  const std::vector<int> part = detail::partition_groups(g, k, p.ppn, p.seed);
  {
    Candidate c{"paper", std::vector<int>(part.size()), {}};
    for (size_t r = 0; r < part.size(); ++r) c.node_of[r] = p.nodes[static_cast<size_t>(part[r])];
    cands.push_back(std::move(c));
  }
  {
    // The launcher's order is a fine start when the application numbers its
    // ranks along its own grid (rings, row-major 2D stencils).
    Candidate c{"block", std::vector<int>(part.size()), {}};
    for (size_t r = 0; r < part.size(); ++r) c.node_of[r] = p.nodes[r / static_cast<size_t>(p.ppn)];
    cands.push_back(std::move(c));
  }
  {
    // Block along a walk of the torus in which consecutive nodes are
    // neighbours: block's strength (rank order) without its long jumps at the
    // end of every row. A ring numbered in order becomes a Hamiltonian cycle.
    const std::vector<int> walk = detail::snake_order(torus, p.nodes);
    Candidate c{"snake", std::vector<int>(part.size()), {}};
    for (size_t r = 0; r < part.size(); ++r) c.node_of[r] = walk[r / static_cast<size_t>(p.ppn)];
    cands.push_back(std::move(c));
  }
  say("node groups by heavy-edge matching");
  {
    int groups = 0;
    const std::vector<int> mpart = detail::matching_groups(g, p.ppn, static_cast<int>(p.nodes.size()), groups);
    // Placing the groups by bisection costs about half a second at 32k
    // ranks and has not won there (the in-order placement below has): above
    // the search limit only the in-order placement is tried.
    if (!mpart.empty() && p.ranks() <= kSearchAllStartsUpTo) {
      const CommGraph q = detail::contract(g, mpart, groups);
      const std::vector<int> group_node = detail::recursive_bisection_map(q, torus, p.nodes, 1, p.seed);
      Candidate c{"matching", std::vector<int>(part.size()), {}};
      for (size_t r = 0; r < part.size(); ++r) c.node_of[r] = group_node[static_cast<size_t>(mpart[r])];
      cands.push_back(std::move(c));
    }
    if (!mpart.empty()) {
      // The same groups in node order, as `paper` places its METIS groups:
      // matched groups are numbered by their lowest rank, so this keeps the
      // application's numbering at node granularity (a row-major 2D stencil
      // becomes rows of squares along the rows of the torus).
      Candidate o{"matching-in-order", std::vector<int>(part.size()), {}};
      for (size_t r = 0; r < part.size(); ++r) o.node_of[r] = p.nodes[static_cast<size_t>(mpart[r])];
      cands.push_back(std::move(o));
    }
  }
  say("dual recursive bisection of ranks and torus");
  cands.push_back(Candidate{"bisection", detail::recursive_bisection_map(g, torus, p.nodes, p.ppn, p.seed), {}});
  say("placing the METIS node groups by recursive bisection");
  {
    const CommGraph q = detail::contract(g, part, k);
    const std::vector<int> group_node = detail::recursive_bisection_map(q, torus, p.nodes, 1, p.seed);
    Candidate c{"groups", std::vector<int>(part.size()), {}};
    for (size_t r = 0; r < part.size(); ++r) c.node_of[r] = group_node[static_cast<size_t>(part[r])];
    cands.push_back(std::move(c));
  }
  say("mapping ranks with Scotch (torusXD)");
  {
    auto node_of = detail::scotch_map(g, torus, p.nodes, false, false, p.seed, out.notes);
    if (!node_of) return node_of.error();
    detail::enforce_node_capacity(g, torus, p.nodes, p.ppn, *node_of);
    cands.push_back(Candidate{"scotch", std::move(*node_of), {}});
  }
  if (p.ranks() <= kSearchAllStartsUpTo) {
    say("mapping ranks with Scotch (strict balance)");
    std::vector<std::string> same_notes;
    auto node_of = detail::scotch_map(g, torus, p.nodes, false, true, p.seed, same_notes);
    if (!node_of) return node_of.error();
    detail::enforce_node_capacity(g, torus, p.nodes, p.ppn, *node_of);
    cands.push_back(Candidate{"scotch-strict", std::move(*node_of), {}});
  }
  const size_t starts = cands.size();
  for (Candidate& c : cands) c.score = detail::network_score(*p.traffic, torus, c.node_of);
  // The local search costs one to several seconds per start at 32k ranks: on
  // large jobs only the best start gets it.
  std::vector<size_t> order(starts);
  for (size_t i = 0; i < starts; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return cands[a].score.weighted_cost < cands[b].score.weighted_cost; });
  if (p.ranks() > kSearchAllStartsUpTo) order.resize(1);
  for (size_t i : order) {
    say("local search from " + cands[i].name);
    Candidate c{cands[i].name + "+search", cands[i].node_of, {}};
    detail::refine(g, torus, p.nodes, p.ppn, c.node_of, 4);
    c.score = detail::network_score(*p.traffic, torus, c.node_of);
    cands.push_back(std::move(c));
  }

  for (const Candidate& c : cands) say("candidate " + describe(c));
  // The guarantee: no worse than the unrefined paper and scotch, each metric
  // against the better of the two. The preference on top: no worse than block
  // either (what users compare against), when some candidate manages all
  // three; otherwise the guarantee alone.
  auto score_of = [&](const char* name) -> const detail::NetworkScore* {
    for (size_t i = 0; i < starts; ++i)
      if (cands[i].name == name) return &cands[i].score;
    return nullptr;
  };
  double ref_cost = cands[0].score.weighted_cost, ref_load = cands[0].score.max_link_relative;
  if (const auto* s = score_of("scotch")) {
    ref_cost = std::min(ref_cost, s->weighted_cost);
    ref_load = std::min(ref_load, s->max_link_relative);
  }
  const detail::NetworkScore* blk = score_of("block");
  auto within = [](double v, double ref) { return v <= ref * (1 + 1e-12) + 1e-300; };
  auto lowest_cost_within = [&](double cost_cap, double load_cap) -> const Candidate* {
    const Candidate* best = nullptr;
    for (const Candidate& c : cands) {
      if (!within(c.score.weighted_cost, cost_cap) || !within(c.score.max_link_relative, load_cap)) continue;
      if (!best || c.score.weighted_cost < best->score.weighted_cost ||
          (c.score.weighted_cost == best->score.weighted_cost &&
           c.score.max_link_relative < best->score.max_link_relative))
        best = &c;
    }
    return best;
  };
  double relieve_cost_cap = std::min(ref_cost, blk->weighted_cost);
  const Candidate* best = lowest_cost_within(relieve_cost_cap, std::min(ref_load, blk->max_link_relative));
  if (!best) {
    relieve_cost_cap = ref_cost;
    best = lowest_cost_within(ref_cost, ref_load);
    if (best) out.notes.push_back("no candidate was also no worse than block on both metrics");
  }
  if (!best) {
    // paper and scotch each win one metric and nothing found beats both:
    // take the best balance of the two, and say so.
    auto balance = [&](const Candidate& c) {
      return (ref_cost > 0 ? c.score.weighted_cost / ref_cost : 0) + (ref_load > 0 ? c.score.max_link_relative / ref_load : 0);
    };
    best = &*std::min_element(cands.begin(), cands.end(),
                              [&](const Candidate& a, const Candidate& b) { return balance(a) < balance(b); });
    out.notes.push_back("no candidate beat both paper and scotch on cost and link load; kept the best balance");
    relieve_cost_cap = 0;  // no cap the relief could honour
  }
  const Candidate* block_start = nullptr;
  for (size_t i = 0; i < starts; ++i)
    if (cands[i].name == "block") block_start = &cands[i];
  if (block_start && best != block_start &&
      blk->weighted_cost <= best->score.weighted_cost * (1 + kTieShare) &&
      blk->max_link_relative <= best->score.max_link_relative * (1 + kTieShare)) {
    out.notes.push_back("no candidate beat block by more than 0.1% on cost or link load: kept block");
    best = block_start;
    relieve_cost_cap = 0;  // keep the launcher's placement as it is
  }
  Candidate chosen = *best;
  if (relieve_cost_cap > 0) {
    // The starts and the search optimise the cost; link load only chose
    // between them. Swaps of neighbouring node contents aimed at the busiest
    // links then trade at most kRelieveCostShare of cost for a max link load
    // lower by at least kRelieveMinLoadGain, and never beyond the guarantee's
    // cost cap: a documented weighting of the two objectives.
    say("relieving the busiest links");
    const double budget = std::min(kRelieveCostShare * chosen.score.weighted_cost,
                                   relieve_cost_cap - chosen.score.weighted_cost);
    Candidate c{chosen.name + "+links", chosen.node_of, {}};
    detail::relieve_links(*p.traffic, torus, p.nodes, c.node_of,
                          p.ranks() <= kSearchAllStartsUpTo ? kRelieveMaxSwaps : kRelieveMaxSwapsLarge,
                          std::max(0.0, budget));
    c.score = detail::network_score(*p.traffic, torus, c.node_of);
    if (within(c.score.weighted_cost, relieve_cost_cap) &&
        c.score.max_link_relative <= chosen.score.max_link_relative * (1 - kRelieveMinLoadGain))
      chosen = std::move(c);
  }
  best = &chosen;
  out.notes.push_back("chose " + describe(*best));
  say("placing ranks on cores (hwloc tree)");
  out.placement = detail::cores_by_topology(g, best->node_of, p.platform->node, torus.nodes());
  return out;
}

}  // namespace rankmap
