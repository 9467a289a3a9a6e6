// The default's pipeline, shared by its steps: a candidate placement, how
// the randomised steps derive their seeds, and the starts
// (default_starts.cpp; the searches and the choice: algo_rankmap.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "detail.hpp"
#include "rankmap/mapper.hpp"

namespace rankmap::detail {

constexpr int kSearchAllStartsUpTo = 8192;  // ranks: above, fewer starts and searches
constexpr int kHugeRanks = 65536;           // ranks: above, the structure starts only
// Costs (and loads) within this share of each other tie. A gain the model
// cannot tell from noise is no reason to move ranks: on a uniform
// all-to-all every placement scores within 0.01%, yet a permutation of
// block ran 1.6-1.8x slower in SimGrid, because MPI's collective algorithms
// pair ranks in rank order (docs/benchmarks.md, simulated runs).
constexpr double kTieShare = 1e-3;
// Max link load a placement must save to be worth up to 1% of cost
// (the load's rate, docs/mapper.md "Objective").
constexpr double kRelieveMinLoadGain = 0.05;

// A placement the default considers: where it comes from ("scotch-strict#3+
// search+ils": a start, its seed number, the steps applied) and its score.
struct Candidate {
  std::string name;
  std::vector<int> node_of;
  NetworkScore score;
};

// Seed of the i-th run of a randomised start: i = 0 is the user's seed itself
// (so the first run equals the stand-alone algorithm), the others are mixed
// from it (splitmix64) so that nearby user seeds give unrelated runs.
inline std::uint64_t derived_seed(std::uint64_t seed, int i) {
  if (i == 0) return seed;
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(i);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (z ^ (z >> 31)) % 2147483647 + 1;
}

inline std::string numbered(const std::string& name, int i) {
  return i == 0 ? name : name + "#" + std::to_string(i + 1);
}

// The start a candidate comes from: its name without seed number, shape or
// the steps applied ("scotch-strict#3+search+ils" -> "scotch-strict").
inline std::string family_of(const std::string& name) { return name.substr(0, name.find_first_of("#+[")); }

// Starts that need no seed (block, snake, cycle, the matchings, the Cartesian
// tilings, of the numbering or of a grid found in the graph; the side lineage
// cut by cut) are placed and searched with fixed seeds: what they reach is the
// same at every --seed, a floor that the seeded starts (METIS, the
// bisection, Scotch) and their searches can only improve on.
constexpr std::uint64_t kSeedFreeSeed = 1;
inline bool seed_free(const std::string& name) {
  const std::string f = family_of(name);
  return f == "block" || f == "snake" || f == "cycle" || f.rfind("matching", 0) == 0 || f == "cartesian" ||
         f == "grid" || f == "cuts";
}

// Which starts a job gets (algo_rankmap.cpp decides, by size and preset).
struct StartScope {
  bool large = false;  // above kSearchAllStartsUpTo ranks: no METIS starts, fewer Scotch runs
  bool huge = false;   // above kHugeRanks: the structure starts only
  bool dense = false;  // many arcs per rank: no Scotch quality strategy
  int seeds = 0;       // runs of each randomised start
};

// The default's starts (docs/mapper.md, step 1), in a fixed order: the
// references paper and scotch, block, snake, the heavy-edge matchings, the
// Cartesian tilings, then per seed METIS groups, the bisection and Scotch
// (bytes graph, default and quality strategies); scores left empty. `g` is
// the search graph (bytes only, or p.graph when the profile has no bytes).
// Scotch's runs go on a second thread (p.threads > 1); the starts are the
// same. Notes (fallbacks, left-out references) are appended to `notes`;
// progress goes to `say`, which must be thread-safe.
// Steps a caller runs on the two lanes as they end (each may be empty):
// `after_scotch` on Scotch's lane once its runs end, with their placements
// in run order (empty where a run failed); `after_others` on the other lane
// once the other starts are made, with the candidates so far (Scotch's
// slots have an empty node_of, the others are final; it may score them but
// must not add or remove any) and the slots of Scotch's runs, in run order.
// With one thread Scotch's lane runs first. Not called on a mixed
// allocation, whose starts are repaired to the nodes' slots after both
// lanes end.
struct StartLanes {
  std::function<void(const std::vector<const std::vector<int>*>&)> after_scotch;
  std::function<void(std::vector<Candidate>&, const std::vector<size_t>&)> after_others;
};
Result<std::vector<Candidate>> default_starts(const MapProblem& p, const CommGraph& g, const StartScope& scope,
                                              std::vector<std::string>& notes,
                                              const std::function<void(const std::string&)>& say,
                                              const StartLanes& lanes = {});

}  // namespace rankmap::detail
