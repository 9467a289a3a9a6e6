// libFuzzer harness of the machine description reader: an accepted
// description builds its torus, passes Torus::check(), and its canonical
// line parses back to the same machine. Descriptions that name files
// (hosts=, node-xml=) are skipped.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "rankmap/machine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (text.find("hosts=") != std::string::npos || text.find("node-xml=") != std::string::npos) return 0;
  auto machine = rankmap::parse_machine(text, "fuzz");
  if (!machine) return 0;
  auto torus = machine->torus();
  if (!torus || !torus->check()) std::abort();
  auto again = rankmap::parse_machine(rankmap::to_string(*machine), "canonical");
  if (!again || *again != *machine) std::abort();
  return 0;
}
