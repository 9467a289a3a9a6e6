#include "rankmap/profile.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <set>
#include <tuple>
#include <unordered_set>

#include "line_reader.hpp"
#include "rankmap/atomic_file.hpp"
#include "rankmap/input_file.hpp"
#include "rankmap/limits.hpp"
#include "rankmap/text.hpp"

namespace rankmap {

namespace detail {
Result<std::string> read_whole_file(const std::string& path) { return read_input_file(path); }
}  // namespace detail

namespace {

constexpr int kProfileVersion = 1;
// The shortest 'rank' line, "rank 0 host=a core=0 wall=0 mpi=0", has 33
// characters: a file of S bytes holds fewer than S / 32 of them. Nothing is
// allocated from 'ranks' beyond that before the rank lines are there.
constexpr size_t kMinRankLineBytes = 32;
// Members of all communicators together ('world' counting every rank) per
// byte of the file: an explicit list takes at least 2 bytes a member, so only
// 'world' lines can reach it (more than 128 of them in a minimal profile).
constexpr size_t kCommunicatorMembersPerByte = 4;

// The mapper and the evaluator add counts up in doubles: above 2^53 a count
// would no longer be the one in the file.
std::string too_big(const std::string& word) {
  return "count '" + text::excerpt(word) + "' is above 2^53 = " + std::to_string(limits::kMaxTrafficCount) +
         ", the largest rankmap holds exactly";
}

bool valid_op_name(const std::string& op) {
  if (op.empty()) return false;
  for (char c : op)
    if (!((c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9'))) return false;
  return true;
}

std::uint64_t pair_key(int src, int dst) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) | static_cast<std::uint32_t>(dst);
}

}  // namespace

Status Profile::check() const {
  if (ranks < 1) return make_error("profile has no ranks");
  if (static_cast<int>(rank_info.size()) != ranks) return make_error("profile has " + std::to_string(rank_info.size()) + " rank records for " + std::to_string(ranks) + " ranks");
  for (const auto* list : {&p2p, &one_sided}) {
    std::unordered_set<std::uint64_t> seen;
    for (const PairTraffic& t : *list) {
      if (t.src < 0 || t.src >= ranks || t.dst < 0 || t.dst >= ranks) return make_error("traffic record names a rank out of range");
      if (t.src == t.dst) return make_error("traffic record from a rank to itself");
      if (t.messages == 0 && t.bytes == 0) return make_error("zero traffic record");
      if (t.messages > limits::kMaxTrafficCount || t.bytes > limits::kMaxTrafficCount)
        return make_error("traffic record above 2^53 messages or bytes");
      if (!seen.insert(pair_key(t.src, t.dst)).second) return make_error("duplicate traffic record for a pair");
    }
  }
  std::set<int> comm_ids;
  for (const CommunicatorRecord& c : communicators) {
    if (!comm_ids.insert(c.id).second) return make_error("communicator " + std::to_string(c.id) + " defined twice");
    for (int r : c.world_ranks)
      if (r < 0 || r >= ranks) return make_error("communicator " + std::to_string(c.id) + " names a rank out of range");
  }
  for (const CollectiveRecord& c : collectives) {
    if (!comm_ids.count(c.comm)) return make_error("collective on unknown communicator " + std::to_string(c.comm));
    if (c.calls > limits::kMaxTrafficCount || c.bytes > limits::kMaxTrafficCount)
      return make_error("collective record above 2^53 calls or bytes");
    if (!valid_op_name(c.op)) return make_error("bad collective name '" + c.op + "'");
  }
  return Ok{};
}

Result<Profile> parse_profile(const std::string& text, const std::string& filename, std::vector<std::string>* warnings) {
  detail::LineReader reader(text, filename);
  Profile p;
  std::string_view raw;
  bool have_header = false, have_ranks = false;
  std::unordered_set<std::uint64_t> seen_p2p, seen_osc;
  std::set<int> comm_ids;
  size_t communicator_members = 0;
  std::vector<std::string> w;

  // User words quoted in a message are cut short (a record can be 16 MB).
  auto x = [](const std::string& s) { return text::excerpt(s); };
  while (reader.next(raw)) {
    w = text::words(text::strip_comment(raw));
    if (w.empty()) continue;
    auto fail = [&](const std::string& why) { return located_error(reader.where(), why); };
    if (!have_header) {
      if (w[0] != "commprof") return fail("not a commprof profile (first line must be 'commprof 1')");
      auto v = w.size() == 2 ? text::parse_int(w[1]) : std::nullopt;
      if (!v) return fail("bad version line, expected 'commprof 1'");
      if (*v != kProfileVersion) return fail("unsupported profile version " + x(w[1]) + " (this rankmap reads version 1)");
      have_header = true;
      continue;
    }
    const std::string& kind = w[0];
    if (kind == "ranks") {
      if (have_ranks) return fail("second 'ranks' line");
      auto v = w.size() == 2 ? text::parse_int(w[1]) : std::nullopt;
      if (!v || *v < 1) return fail("bad 'ranks' line, expected 'ranks <P>' with P >= 1");
      if (*v > limits::kMaxRanks)
        return fail("'ranks " + x(w[1]) + "' is above the limit of " + std::to_string(limits::kMaxRanks) + " ranks");
      p.ranks = static_cast<int>(*v);
      // A short file with a big 'ranks' is truncated (said at its end), and
      // must not cost memory first.
      p.rank_info.reserve(std::min(static_cast<size_t>(p.ranks), text.size() / kMinRankLineBytes));
      have_ranks = true;
      continue;
    }
    if (!have_ranks) return fail("record '" + x(kind) + "' before the 'ranks' line");
    auto rank_arg = [&](const std::string& s) -> int {
      auto v = text::parse_int(s);
      return (v && *v >= 0 && *v < p.ranks) ? static_cast<int>(*v) : -1;
    };

    if (kind == "rank") {
      if (w.size() < 2) return fail("bad 'rank' line");
      const int r = rank_arg(w[1]);
      if (r < 0) return fail("rank '" + x(w[1]) + "' out of range 0.." + std::to_string(p.ranks - 1));
      if (r != static_cast<int>(p.rank_info.size()))
        return fail("rank lines must come in rank order: expected rank " + std::to_string(p.rank_info.size()) + ", got " + x(w[1]));
      RankInfo info;
      bool host = false, core = false, wall = false, mpi = false;
      for (size_t i = 2; i < w.size(); ++i) {
        const size_t eq = w[i].find('=');
        if (eq == std::string::npos) return fail("bad field '" + x(w[i]) + "' in 'rank' line (expected key=value)");
        const std::string key = w[i].substr(0, eq), value = w[i].substr(eq + 1);
        if (key == "host") {
          if (value.empty()) return fail("empty host name");
          info.host = value;
          host = true;
        } else if (key == "core") {
          auto v = text::parse_int(value);
          if (!v || *v < -1 || *v > std::numeric_limits<int>::max())
            return fail("bad core '" + x(value) + "' (expected -1 or a CPU number up to " +
                        std::to_string(std::numeric_limits<int>::max()) + ")");
          info.core = static_cast<int>(*v);
          core = true;
        } else if (key == "wall" || key == "mpi") {
          auto v = text::parse_double(value);
          if (!v || *v < 0) return fail("bad " + key + " time '" + x(value) + "'");
          (key == "wall" ? info.wall : info.mpi) = *v;
          (key == "wall" ? wall : mpi) = true;
        } else if (key == "yield") {
          if (value != "0" && value != "1") return fail("bad yield '" + x(value) + "' (expected 0 or 1)");
          info.yield = value == "1";
        }
        // Other keys are later additions: ignored, so version 1 readers stay compatible.
      }
      if (!host || !core || !wall || !mpi) return fail("'rank' line needs host=, core=, wall= and mpi=");
      p.rank_info.push_back(std::move(info));
    } else if (kind == "p2p" || kind == "osc") {
      if (w.size() != 5) return fail("bad '" + x(kind) + "' line, expected '" + x(kind) + " <src> <dst> <count> <bytes>'");
      const int src = rank_arg(w[1]), dst = rank_arg(w[2]);
      if (src < 0) return fail("source rank '" + x(w[1]) + "' out of range 0.." + std::to_string(p.ranks - 1));
      if (dst < 0) return fail("destination rank '" + x(w[2]) + "' out of range 0.." + std::to_string(p.ranks - 1));
      if (src == dst)
        return fail("'" + kind + "' line from rank " + w[1] + " to itself (traffic to oneself crosses no link and is never recorded)");
      auto count = text::parse_uint64(w[3]);
      auto bytes = text::parse_uint64(w[4]);
      if (!count || !bytes) return fail("bad count or byte number in '" + x(kind) + "' line");
      if (*count > limits::kMaxTrafficCount || *bytes > limits::kMaxTrafficCount)
        return fail(too_big(*count > limits::kMaxTrafficCount ? w[3] : w[4]));
      if (*count == 0 && *bytes == 0) return fail("'" + x(kind) + "' line with no traffic");
      auto& seen = kind == "p2p" ? seen_p2p : seen_osc;
      if (!seen.insert(pair_key(src, dst)).second) return fail("second '" + x(kind) + "' line for " + x(w[1]) + " -> " + x(w[2]));
      (kind == "p2p" ? p.p2p : p.one_sided).push_back(PairTraffic{src, dst, *count, *bytes});
    } else if (kind == "comm") {
      if (w.size() < 3) return fail("bad 'comm' line, expected 'comm <id> world' or 'comm <id> <size> <ranks...>'");
      auto id = text::parse_int(w[1]);
      if (!id || *id < 0 || *id > (1LL << 31) - 1) return fail("bad communicator id '" + x(w[1]) + "'");
      CommunicatorRecord c{static_cast<int>(*id), {}};
      // Checked before any member is stored: 'world' is a few bytes for P ranks.
      communicator_members += w[2] == "world" ? static_cast<size_t>(p.ranks) : w.size() - 3;
      if (communicator_members > kCommunicatorMembersPerByte * text.size())
        return fail("communicators list " + std::to_string(communicator_members) + " members in all ('world' counts " +
                    std::to_string(p.ranks) + "), more than " + std::to_string(kCommunicatorMembersPerByte) +
                    " per byte of the file");
      if (w[2] == "world") {
        if (w.size() != 3) return fail("'comm <id> world' takes nothing after 'world'");
        c.world_ranks.resize(static_cast<size_t>(p.ranks));
        for (int r = 0; r < p.ranks; ++r) c.world_ranks[r] = r;
      } else {
        auto size = text::parse_int(w[2]);
        if (!size || *size < 1 || *size > p.ranks) return fail("bad communicator size '" + x(w[2]) + "'");
        if (static_cast<long long>(w.size()) != 3 + *size) return fail("communicator size " + x(w[2]) + " but " + std::to_string(w.size() - 3) + " ranks listed");
        std::unordered_set<int> members;
        for (size_t i = 3; i < w.size(); ++i) {
          const int r = rank_arg(w[i]);
          if (r < 0) return fail("communicator member '" + x(w[i]) + "' out of range");
          if (!members.insert(r).second) return fail("rank " + x(w[i]) + " listed twice in communicator");
          c.world_ranks.push_back(r);
        }
      }
      if (!comm_ids.insert(c.id).second) return fail("communicator " + x(w[1]) + " defined twice");
      p.communicators.push_back(std::move(c));
    } else if (kind == "coll") {
      if (w.size() != 6) return fail("bad 'coll' line, expected 'coll <comm> <op> <root> <calls> <bytes>'");
      auto comm = text::parse_int(w[1]);
      // Range first: 4294967296 must not wrap onto communicator 0.
      if (!comm || *comm < 0 || *comm > std::numeric_limits<int>::max() || !comm_ids.count(static_cast<int>(*comm))) return fail("collective on undefined communicator '" + x(w[1]) + "'");
      if (!valid_op_name(w[2])) return fail("bad collective name '" + x(w[2]) + "'");
      auto root = text::parse_int(w[3]);
      auto calls = text::parse_uint64(w[4]);
      auto bytes = text::parse_uint64(w[5]);
      if (!root || *root < -1) return fail("bad root '" + x(w[3]) + "'");
      const auto& members = std::find_if(p.communicators.begin(), p.communicators.end(),
                                         [&](const CommunicatorRecord& c) { return c.id == *comm; })->world_ranks;
      if (*root >= static_cast<long long>(members.size())) return fail("root " + x(w[3]) + " outside communicator " + x(w[1]));
      if (!calls || !bytes || *calls == 0) return fail("bad call count or byte number in 'coll' line");
      if (*calls > limits::kMaxTrafficCount || *bytes > limits::kMaxTrafficCount)
        return fail(too_big(*calls > limits::kMaxTrafficCount ? w[4] : w[5]));
      p.collectives.push_back(CollectiveRecord{static_cast<int>(*comm), w[2], static_cast<int>(*root), *calls, *bytes});
    } else {
      if (warnings) warnings->push_back(reader.where() + ": unknown record type '" + x(kind) + "' skipped");
    }
  }
  if (!have_header) return located_error(filename, "empty file, not a commprof profile");
  if (!have_ranks) return located_error(filename, "truncated profile: no 'ranks' line");
  if (static_cast<int>(p.rank_info.size()) != p.ranks)
    return located_error(filename + ":" + std::to_string(reader.line_no()),
                         "truncated profile: " + std::to_string(p.rank_info.size()) + " 'rank' lines for " + std::to_string(p.ranks) + " ranks");
  return p;
}

Result<Profile> read_profile(const std::string& path, std::vector<std::string>* warnings) {
  auto text = detail::read_whole_file(path);
  if (!text) return text.error();
  return parse_profile(*text, path, warnings);
}

std::string format_profile(const Profile& profile) {
  std::string out;
  out.reserve(64 + profile.rank_info.size() * 64 + (profile.p2p.size() + profile.one_sided.size()) * 32);
  char buf[256];
  out += "commprof 1\n";
  out += "ranks " + std::to_string(profile.ranks) + "\n";
  for (size_t r = 0; r < profile.rank_info.size(); ++r) {
    const RankInfo& i = profile.rank_info[r];
    out += "rank " + std::to_string(r) + " host=" + (i.host.empty() ? std::string("unknown") : i.host) +
           " core=" + std::to_string(i.core) + " wall=" + text::format_double(i.wall) + " mpi=" + text::format_double(i.mpi) +
           (i.yield ? " yield=1" : "") + "\n";
  }
  auto by_pair = [](const PairTraffic& a, const PairTraffic& b) { return a.src != b.src ? a.src < b.src : a.dst < b.dst; };
  auto emit_pairs = [&](const char* kind, std::vector<PairTraffic> list) {
    std::sort(list.begin(), list.end(), by_pair);
    for (const PairTraffic& t : list) {
      std::snprintf(buf, sizeof buf, "%s %d %d %llu %llu\n", kind, t.src, t.dst, static_cast<unsigned long long>(t.messages),
                    static_cast<unsigned long long>(t.bytes));
      out += buf;
    }
  };
  emit_pairs("p2p", profile.p2p);
  emit_pairs("osc", profile.one_sided);
  std::vector<CommunicatorRecord> comms = profile.communicators;
  std::sort(comms.begin(), comms.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  for (const CommunicatorRecord& c : comms) {
    bool is_world = static_cast<int>(c.world_ranks.size()) == profile.ranks;
    for (size_t i = 0; is_world && i < c.world_ranks.size(); ++i) is_world = c.world_ranks[i] == static_cast<int>(i);
    out += "comm " + std::to_string(c.id);
    if (is_world) {
      out += " world";
    } else {
      out += " " + std::to_string(c.world_ranks.size());
      for (int r : c.world_ranks) out += " " + std::to_string(r);
    }
    out += "\n";
  }
  std::vector<CollectiveRecord> colls = profile.collectives;
  std::sort(colls.begin(), colls.end(), [](const auto& a, const auto& b) {
    return std::tie(a.comm, a.op, a.root) < std::tie(b.comm, b.op, b.root);
  });
  // Not through buf: an operation's name has no length limit (a 300-letter
  // name was cut with its newline and fused with the next line; found by
  // fuzz/fuzz_profile).
  for (const CollectiveRecord& c : colls)
    out += "coll " + std::to_string(c.comm) + " " + c.op + " " + std::to_string(c.root) + " " + std::to_string(c.calls) +
           " " + std::to_string(c.bytes) + "\n";
  return out;
}

Status write_profile(const std::string& path, const Profile& profile) {
  return write_file_atomically(path, format_profile(profile));
}

}  // namespace rankmap
