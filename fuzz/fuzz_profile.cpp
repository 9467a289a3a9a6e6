// libFuzzer harness of the profile reader: whatever the bytes, parse_profile
// returns a profile or an error, never crashes, hangs or allocates beyond
// the input's size; an accepted profile passes check() and reads back equal
// from its canonical text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "rankmap/profile.hpp"

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
  return 0;
}
