// Choosing a placement by replaying a trace on each candidate (issue 19).
//
// A static model cannot order some placements at all: two can tie on
// hop-bytes and link loads yet run at different speeds, because what decides
// is each rank's event order (eager sends letting ranks run ahead, links
// shared only while messages overlap, collectives as their point-to-point
// algorithms). A flow-level replay of the application's trace sees that, so
// the final choice among a mapper's candidates is the fastest in replay.
// Needs no mapper: candidates are (name, placement) pairs, e.g. the mapper's
// MapOutcome::alternatives.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rankmap/machine.hpp"
#include "rankmap/mapping.hpp"
#include "rankmap/replay.hpp"
#include "rankmap/result.hpp"

namespace rankmap::simulation {

struct ReplayCandidate {
  std::string name;
  std::vector<Placement> placement;  // indexed by rank
};

struct ChoiceOptions {
  ReplayOptions replay;
  // Replays stop being started once this much wall time has gone by (a
  // replay is not started when the slowest one so far would overrun it).
  double budget_seconds = 300;
  // Larger instances are not replayed: the first candidate (the static
  // choice) is kept. A replay of 128 ranks x 20k actions takes ~0.3 s here;
  // SimGrid's time grows with actions and concurrent flows.
  int max_ranks = 8192;
  std::uint64_t max_actions = 50'000'000;
};

struct CandidateTime {
  std::string name;
  std::optional<double> seconds;  // simulated; empty when not replayed
  double wall_seconds = 0;
  std::string note;               // "same nodes as X", "not replayed: budget", ...
};

struct ReplayChoice {
  size_t chosen = 0;              // index into the candidates
  bool by_replay = false;         // false: the static choice was kept (see note)
  ReplayMode mode = ReplayMode::comm_only;
  std::vector<CandidateTime> times;  // one per candidate, same order
  std::string note;               // what was done, for the user
};

// Replays `trace` on each candidate in order (the whole application when the
// trace has compute actions, else communication only) and picks the fastest;
// a tie keeps the earlier candidate, so the static choice (first) wins ties.
// Candidates that put every rank on the same node as an earlier one share its
// time without a second replay (cores do not change simulated time).
// Fewer than two placements replayed (budget, size, a single candidate):
// the first is kept and the note says why. Fails on a replay that fails (smpirun missing, a trace
// SimGrid rejects) and on candidates that do not place the trace's ranks.
Result<ReplayChoice> choose_by_replay(const Trace& trace, const Machine& machine,
                                      const std::vector<ReplayCandidate>& candidates, const ChoiceOptions& options);

}  // namespace rankmap::simulation
