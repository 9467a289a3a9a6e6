// libFuzzer harness of the profile reader: whatever the bytes, parse_profile
// returns a profile or an error, never crashes, hangs or allocates beyond
// the input's size; an accepted profile passes check() and reads back equal
// from its canonical text. Its bulk-synchronous program (`map
// --replay-profile`) is written or refused, never more than its action
// limit, and reads back through the trace reader with the profile's pairs;
// the mapper's bulk model runs that program on a small torus to a time (or
// stops at its work cap), never crashing or hanging; the collective model
// expands its records into valid flows.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "rankmap/bulk_trace.hpp"
#include "rankmap/mapper.hpp"
#include "rankmap/profile.hpp"
#include "rankmap/replay.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> warnings;
  auto profile = rankmap::parse_profile(text, "fuzz.prof", &warnings);
  if (!profile) return 0;
  if (!profile->check()) std::abort();
  auto again = rankmap::parse_profile(rankmap::format_profile(*profile), "canonical.prof");
  if (!again || again->ranks != profile->ranks || again->rank_info.size() != profile->rank_info.size() ||
      again->p2p.size() != profile->p2p.size() || again->one_sided.size() != profile->one_sided.size() ||
      again->communicators.size() != profile->communicators.size() ||
      again->collectives.size() != profile->collectives.size())
    std::abort();
  if (profile->ranks > 64) return 0;
  // The collective model (MPICH's rounds, summed): valid flows whatever the
  // records' operations, roots, sizes and call counts.
  if (auto modelled = rankmap::traffic_from_profile(*profile, rankmap::CollectiveModel::model);
      modelled && !modelled->check())
    std::abort();
  rankmap::simulation::BulkTraceOptions options;
  options.max_actions = 20'000;
  auto bulk = rankmap::simulation::bulk_trace(profile->ranks, profile->p2p, options);
  if (!bulk) return 0;
  std::vector<std::string> names;
  for (int r = 0; r < profile->ranks; ++r) names.push_back("r" + std::to_string(r) + ".txt");
  auto trace = rankmap::simulation::parse_action_texts(bulk->texts, names);
  if (!trace) std::abort();
  // Every pair of the program is a pair of the profile.
  std::set<std::pair<int, int>> pairs;
  for (const rankmap::PairTraffic& p : profile->p2p) pairs.emplace(p.src, p.dst);
  for (const rankmap::PairTraffic& t : trace->p2p)
    if (!pairs.count({t.src, t.dst})) std::abort();
  // The bulk model on 16 nodes of 4 cores, ranks in round-robin order.
  static const rankmap::Platform platform = [] {
    auto machine = rankmap::parse_machine("torus=4x4 node=core:4");
    if (!machine) std::abort();
    auto p = rankmap::Platform::from_machine(*machine);
    if (!p) std::abort();
    return *p;
  }();
  auto traffic = rankmap::traffic_from_profile(*profile, rankmap::CollectiveModel::ignore);
  if (!traffic) return 0;
  std::vector<rankmap::Placement> placement;
  for (int r = 0; r < profile->ranks; ++r) placement.push_back({r % 16, r / 16});
  rankmap::BulkModelOptions model;
  model.max_work = 200'000;
  if (auto t = rankmap::predicted_bulk_time(*traffic, placement, platform, model); t && !(*t >= 0)) std::abort();
  return 0;
}
