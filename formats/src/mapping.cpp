#include "rankmap/mapping.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_set>

#include "line_reader.hpp"
#include "rankmap/atomic_file.hpp"
#include "rankmap/limits.hpp"
#include "rankmap/text.hpp"

namespace rankmap {

namespace {
constexpr int kMappingVersion = 1;
// The shortest rank line, "0 0 h 0", has 7 characters: a file of S bytes holds
// at most S / 7 of them.
constexpr size_t kMinRankLineBytes = 7;
constexpr size_t kMaxAlgorithmBytes = 256;

// The placement rules, checked one rank at a time so that the reader can name
// the line and Mapping::check the rank: node and core exist, one rank a core.
class PlacementChecker {
 public:
  PlacementChecker(const Machine& machine, NodeKinds kinds) : machine_(machine), kinds_(std::move(kinds)) {}
  // One rank a core: the most ranks the machine holds.
  long long total_cores() const {
    long long total = 0;
    for (int n = 0; n < machine_.nodes(); ++n) total += kinds_.cores(n);
    return total;
  }

  Status add(const Placement& p, const std::string& where) {
    if (p.node < 0 || p.node >= machine_.nodes())
      return located_error(where, "node '" + std::to_string(p.node) + "' out of range 0.." + std::to_string(machine_.nodes() - 1));
    const int cores = kinds_.cores(p.node);
    if (p.core < 0 || p.core >= cores)
      return located_error(where, "core '" + std::to_string(p.core) + "' out of range 0.." + std::to_string(cores - 1) +
                                      (kinds_.uniform() ? "" : " on " + machine_.host_name(p.node)));
    if (!used_.insert(static_cast<long long>(p.node) * kinds_.max_cores() + p.core).second)
      return located_error(where, "shares core " + std::to_string(p.core) + " of " + machine_.host_name(p.node) + " with another rank");
    return Ok{};
  }

 private:
  const Machine& machine_;
  NodeKinds kinds_;
  std::unordered_set<long long> used_;
};
// Why an algorithm record cannot be written and read back as it is, or "".
std::string algorithm_problem(std::string_view a) {
  if (a.size() > kMaxAlgorithmBytes) return "longer than " + std::to_string(kMaxAlgorithmBytes) + " characters";
  for (char c : a)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '#') return "holds a control character or '#'";
  if (a != text::trim(a)) return "starts or ends with a blank";
  return "";
}
}  // namespace

Status Mapping::check() const {
  if (const std::string why = algorithm_problem(algorithm); !why.empty()) return make_error("mapping: algorithm " + why);
  auto kinds = machine.node_kinds();
  if (!kinds) return kinds.error();
  PlacementChecker checker(machine, std::move(*kinds));
  for (size_t r = 0; r < placement.size(); ++r) {
    Status s = checker.add(placement[r], "mapping: rank " + std::to_string(r));
    if (!s) return s;
  }
  return Ok{};
}

Result<Mapping> parse_mapping(const std::string& text, const std::string& filename) {
  detail::LineReader reader(text, filename);
  Mapping m;
  std::string_view raw;
  enum { kHeader, kMachine, kRanks, kBody } state = kHeader;
  int ranks = 0;
  std::optional<PlacementChecker> checker;
  while (reader.next(raw)) {
    std::string_view line = text::strip_comment(raw);
    if (line.empty()) continue;
    auto fail = [&](const std::string& why) { return located_error(reader.where(), why); };
    auto w = text::words(line);
    switch (state) {
      case kHeader: {
        if (w.size() != 2 || w[0] != "rankmap-mapping") return fail("not a rankmap mapping (first line must be 'rankmap-mapping 1')");
        auto v = text::parse_int(w[1]);
        if (!v) return fail("bad version line, expected 'rankmap-mapping 1'");
        if (*v != kMappingVersion) return fail("unsupported mapping version " + text::excerpt(w[1]) + " (this rankmap reads version 1)");
        state = kMachine;
        break;
      }
      case kMachine: {
        if (w[0] != "machine" || w.size() < 2) return fail("expected 'machine <description>'");
        auto machine = parse_machine(line.substr(line.find("machine") + 7), reader.where());
        if (!machine) return machine.error();
        m.machine = std::move(*machine);
        auto kinds = m.machine.node_kinds();
        if (!kinds) return fail(kinds.error().message);
        checker.emplace(m.machine, std::move(*kinds));
        state = kRanks;
        break;
      }
      case kRanks: {
        if (w[0] == "algorithm") {
          // Optional, once, between 'machine' and 'ranks': what made the mapping.
          if (!m.algorithm.empty()) return fail("a second 'algorithm' record");
          if (w.size() < 2) return fail("expected 'algorithm <name> [words]'");
          const std::string_view name = text::trim(line.substr(line.find("algorithm") + 9));
          if (const std::string why = algorithm_problem(name); !why.empty()) return fail("'algorithm' record " + why);
          m.algorithm = std::string(name);
          break;
        }
        auto v = w.size() == 2 && w[0] == "ranks" ? text::parse_int(w[1]) : std::nullopt;
        if (!v || *v < 1) return fail("expected 'ranks <P>' with P >= 1");
        if (*v > limits::kMaxRanks)
          return fail("'ranks " + text::excerpt(w[1]) + "' is above the limit of " + std::to_string(limits::kMaxRanks) + " ranks");
        const long long cores = checker->total_cores();
        if (*v > cores)
          return fail("'ranks " + text::excerpt(w[1]) + "' but the machine has " + std::to_string(cores) + " cores (one rank a core)");
        ranks = static_cast<int>(*v);
        // A short file with a big 'ranks' is truncated (said at its end), and
        // must not cost memory first.
        m.placement.reserve(std::min(static_cast<size_t>(ranks), text.size() / kMinRankLineBytes));
        state = kBody;
        break;
      }
      case kBody: {
        if (w.size() != 4) return fail("expected '<rank> <node> <hostname> <core>'");
        auto rank = text::parse_int(w[0]);
        // Indices beyond int would wrap into range when converted: refuse them here.
        auto as_index = [](std::optional<long long> v) -> std::optional<int> {
          if (!v || *v < std::numeric_limits<int>::min() || *v > std::numeric_limits<int>::max()) return std::nullopt;
          return static_cast<int>(*v);
        };
        auto node = as_index(text::parse_int(w[1]));
        auto core = as_index(text::parse_int(w[3]));
        if (!rank || *rank != static_cast<long long>(m.placement.size()))
          return fail(static_cast<int>(m.placement.size()) >= ranks ? "more rank lines than 'ranks " + std::to_string(ranks) + "'"
                                                                     : "expected rank " + std::to_string(m.placement.size()) + " here (rank order), got '" + text::excerpt(w[0]) + "'");
        if (*rank >= ranks) return fail("more rank lines than 'ranks " + std::to_string(ranks) + "'");
        if (!node) return fail("node '" + text::excerpt(w[1]) + "' is not a node index");
        if (!core) return fail("core '" + text::excerpt(w[3]) + "' is not a core index");
        const Placement placement{*node, *core};
        Status valid = checker->add(placement, reader.where());
        if (!valid) return valid.error();
        if (w[2] != m.machine.host_name(placement.node))
          return fail("host '" + text::excerpt(w[2]) + "' is not node " + text::excerpt(w[1]) + " (that is " + m.machine.host_name(placement.node) + ")");
        m.placement.push_back(placement);
        break;
      }
    }
  }
  if (state != kBody) return located_error(filename, "truncated mapping: header incomplete");
  if (static_cast<int>(m.placement.size()) != ranks)
    return located_error(filename + ":" + std::to_string(reader.line_no()),
                         "truncated mapping: " + std::to_string(m.placement.size()) + " rank lines for " + std::to_string(ranks) + " ranks");
  return m;
}

Result<Mapping> read_mapping(const std::string& path) {
  auto text = detail::read_whole_file(path);
  if (!text) return text.error();
  return parse_mapping(*text, path);
}

std::string format_mapping(const Mapping& mapping) {
  std::string out = "rankmap-mapping 1\nmachine " + to_string(mapping.machine) + "\n";
  if (!mapping.algorithm.empty()) out += "algorithm " + mapping.algorithm + "\n";
  out += "ranks " + std::to_string(mapping.ranks()) + "\n";
  out.reserve(out.size() + mapping.placement.size() * 24);
  for (int r = 0; r < mapping.ranks(); ++r) {
    const Placement& p = mapping.placement[r];
    out += std::to_string(r) + " " + std::to_string(p.node) + " " + mapping.machine.host_name(p.node) + " " + std::to_string(p.core) + "\n";
  }
  return out;
}

Status write_mapping(const std::string& path, const Mapping& mapping) {
  Status valid = mapping.check();
  if (!valid) return valid;
  return write_file_atomically(path, format_mapping(mapping));
}

}  // namespace rankmap
