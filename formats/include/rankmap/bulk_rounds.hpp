// The rounds of a profile's bulk-synchronous program (docs/simulation.md,
// "Replaying a profile"): in round k every ordered pair with more than k
// messages sends one, and every rank waits for its round. One schedule for
// the program rankmap-sim bulk-trace writes and the one the mapper's bulk
// model runs (predicted_bulk_time), so the two replay the same rounds.
#pragma once

#include <cstdint>

namespace rankmap {

struct BulkRounds {
  std::uint64_t divisor = 1;  // every pair's message count is divided by this
  bool exact = true;          // false: max_rounds made the division round some count
};

// The divisor for pairs whose message counts have greatest common divisor
// `gcd` and maximum `most`. The program repeats: where every count is a
// multiple of d it is d times the program of counts / d, so the largest d
// that divides `gcd` and leaves at least `min_rounds` rounds (0: no minimum)
// is taken. Above `max_rounds` rounds (0: no limit) the counts are divided
// further, rounded, so that the pair with the most messages sends max_rounds
// (exact = false: the pairs keep their share of the traffic only roughly).
BulkRounds bulk_rounds(std::uint64_t gcd, std::uint64_t most, std::uint64_t min_rounds, std::uint64_t max_rounds);

// A pair's rounds: its message count divided by `divisor`, rounded to the
// nearest, at least 1 (every pair keeps a message).
std::uint64_t bulk_pair_rounds(std::uint64_t messages, std::uint64_t divisor);

}  // namespace rankmap
