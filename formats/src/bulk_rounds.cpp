#include "rankmap/bulk_rounds.hpp"

#include <algorithm>

namespace rankmap {

namespace {

// The largest divisor of n that is at most `limit` (1 if none is found in
// 100,000 trials: n and limit come from the profile, which may be hostile).
std::uint64_t largest_divisor_within(std::uint64_t n, std::uint64_t limit) {
  if (n == 0 || limit == 0) return 1;
  if (n <= limit) return n;
  // The smallest f >= n / limit that divides n gives the largest n / f <= limit.
  const std::uint64_t first = n / limit + (n % limit != 0 ? 1 : 0);
  for (std::uint64_t f = first; f < first + 100'000 && f <= n; ++f)
    if (n % f == 0) return n / f;
  return 1;
}

}  // namespace

BulkRounds bulk_rounds(std::uint64_t gcd, std::uint64_t most, std::uint64_t min_rounds, std::uint64_t max_rounds) {
  BulkRounds out;
  out.divisor = largest_divisor_within(gcd, min_rounds == 0 ? gcd : most / min_rounds);
  if (max_rounds > 0 && most / out.divisor > max_rounds) {
    out.divisor = (most + max_rounds - 1) / max_rounds;
    out.exact = false;
  }
  return out;
}

std::uint64_t bulk_pair_rounds(std::uint64_t messages, std::uint64_t divisor) {
  return std::max<std::uint64_t>(1, messages / divisor + (messages % divisor >= (divisor + 1) / 2 ? 1 : 0));
}

}  // namespace rankmap
