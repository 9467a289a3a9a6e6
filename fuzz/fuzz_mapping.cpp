// libFuzzer harness of the mapping reader (and the machine line inside it):
// an accepted mapping passes check() and reads back equal from its text.
// Machine lines that name files (hosts=, node-xml=) are skipped: the fuzzer
// must not read the machine's files.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "rankmap/mapping.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (text.find("hosts=") != std::string::npos || text.find("node-xml=") != std::string::npos) return 0;
  auto mapping = rankmap::parse_mapping(text, "fuzz.map");
  if (!mapping) return 0;
  if (!mapping->check()) std::abort();
  auto again = rankmap::parse_mapping(rankmap::format_mapping(*mapping), "canonical.map");
  if (!again || again->placement != mapping->placement || again->machine != mapping->machine) std::abort();
  return 0;
}
