// A profile replayed as a program: the bulk-synchronous trace of its
// point-to-point traffic (docs/simulation.md, "Replaying a profile").
//
// A profile says who sends how much to whom, not in which order, so there is
// no program to replay. The simplest program with exactly its traffic is
// bulk-synchronous: in round k every ordered pair with more than k messages
// posts one receive and one send, and every rank waits for all of its
// round's requests before the next. Replayed in SimGrid on each candidate
// placement it orders them as the simulated runs of the recorded programs
// mostly do (docs/benchmarks.md, "The time model against SimGrid"), where the
// time model, which sends every flow at once, cannot: the rounds let ranks
// whose partners are on their own node run ahead, and links are shared only
// while messages overlap.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rankmap/profile.hpp"
#include "rankmap/result.hpp"

namespace rankmap::simulation {

struct BulkTraceOptions {
  // At most this many rounds (0: no limit). The program's rounds repeat:
  // where every pair's message count is a multiple of d, the program is d
  // times the program of counts / d, so only that one is written (each pair
  // sends its first count / d messages, at their sizes: 1/d of the traffic,
  // and its replay 1/d of the time, up to the overlap between repeats).
  // Above the limit the counts are divided further and rounded to the
  // nearest (at least one message per pair), so that the pair with the most
  // messages sends max_rounds: the pairs keep their share of the traffic
  // only roughly.
  std::uint64_t max_rounds = 1000;
  // At least this many rounds where the program has them: the division
  // above stops at the largest divisor that leaves min_rounds. What a replay
  // sees beyond the time model builds up over rounds (ranks whose partners
  // are on their node run ahead), so a program reduced to one round orders
  // placements less well: with the divisor alone, on the validation's 13
  // programs (docs/benchmarks.md), 231 of 248 placement pairs in SimGrid's
  // order and 11 right picks, against 234 and 12 for the whole program.
  std::uint64_t min_rounds = 10;
  // A program of more actions is refused (what the replay takes: see
  // ChoiceOptions::max_actions).
  std::uint64_t max_actions = 50'000'000;
};

struct BulkTrace {
  std::vector<std::string> texts;  // one action file per rank, rank order
  std::uint64_t rounds = 0;        // rounds written
  std::uint64_t divisor = 1;       // the pairs' message counts were divided by this
  bool exact = true;               // false: the limit rounded some pair's message count
};

// The bulk-synchronous program of `p2p` (pairs of ranks 0..ranks-1, each
// sending `bytes` in `messages`; pairs without messages are skipped): its
// action files in SimGrid's time-independent format, point-to-point only.
// A message of b bytes is "isend <dst> 0 <b> 6" (MPI_BYTE); a pair's bytes
// are split over its messages as evenly as integers allow (with divisor 1
// every pair sends exactly its bytes). Fails on ranks out of range, a self
// pair, or a program of more than max_actions actions.
Result<BulkTrace> bulk_trace(int ranks, const std::vector<PairTraffic>& p2p, const BulkTraceOptions& options = {});

// Writes `texts` as r<i>.txt and an index.txt listing them into the new
// directory `dir` (built next to it under a temporary name and renamed, so
// it is complete or absent); returns the index's path. Fails if `dir`
// exists.
Result<std::string> write_action_files(const std::string& dir, const std::vector<std::string>& texts);

}  // namespace rankmap::simulation
