// libFuzzer harness of the trace reader (the time-independent traces that
// `rankmap map --trace`, `rankmap-sim replay` and `rankmap-sim profile` read):
// the input is split into action files, one per rank, at lines "@@" (at
// most 8 ranks). Whatever the bytes, parse_action_texts returns a trace or an
// error, never crashes, hangs or allocates beyond the input's size; an
// accepted trace has its pairs inside the trace, each with messages, and its
// profile passes check().
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "rankmap/replay.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> files{std::string()};
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(begin, end - begin);
    if (line == "@@" && files.size() < 8) {
      files.emplace_back();
    } else {
      files.back() += line;
      if (end < text.size()) files.back() += '\n';
    }
    begin = end + 1;
  }
  std::vector<std::string> names;
  for (size_t r = 0; r < files.size(); ++r) names.push_back("rank-" + std::to_string(r) + ".txt");
  auto trace = rankmap::simulation::parse_action_texts(files, names);
  if (!trace) return 0;
  if (trace->ranks() != static_cast<int>(files.size())) std::abort();
  for (const rankmap::PairTraffic& p : trace->p2p)
    if (p.src < 0 || p.src >= trace->ranks() || p.dst < 0 || p.dst >= trace->ranks() || p.src == p.dst ||
        p.messages == 0)
      std::abort();
  if (!rankmap::simulation::profile_from_trace(*trace).check()) std::abort();
  return 0;
}
