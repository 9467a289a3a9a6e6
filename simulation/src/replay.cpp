#include "rankmap/replay.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string_view>
#include <utility>

#include "rankmap/atomic_file.hpp"
#include "rankmap/input_file.hpp"
#include "rankmap/scratch_dir.hpp"
#include "rankmap/smpi_run.hpp"
#include "rankmap/text.hpp"

namespace rankmap::simulation {

namespace {

namespace fs = std::filesystem;

// Sizes of SimGrid 3.32's predefined datatypes by trace id
// (smpi_datatype.cpp, CREATE_MPI_DATATYPE): -1 is any derived type, whose
// size the trace does not keep. An id outside this table would crash
// SimGrid's decoder, so the reader refuses it.
std::optional<int> datatype_size(long long id) {
  static const int sizes[] = {8, 4, 1, 2, 8, 4, 1, 8, 1, 1,      // 0-9: double int char short long float byte llong schar uchar
                              2, 4, 8, 8, 16, 4, 1, 1, 2, 4,     // 10-19: ushort unsigned ulong ullong ldouble wchar bool int8 int16 int32
                              8, 1, 2, 4, 8, 8, 16, 32, 8, 8,    // 20-29: int64 uint8..uint64 fcomplex dcomplex ldcomplex aint offset
                              8, 16, 16, 8, 8, 8, 16, 16, 4, 4,  // 30-39: float_int long_int double_int short_int 2int 2float 2double 2long real real4
                              8, 16, 8, 16, 16, 4, 2, 4, 8, 16,  // 40-49: real8 real16 complex8 complex16 complex32 integer1..integer16
                              32, 1, 8, 16, 32, 0, 0, 1, 8, 8};  // 50-59: ldouble_int cxx_bool cxx complexes ub lb packed ptr count
  if (id == -1) return 0;
  if (id < 0 || id >= static_cast<long long>(sizeof sizes / sizeof *sizes)) return std::nullopt;
  return sizes[id];
}

// Arguments after "<rank> <action>": at least `min`, at most `max` (-1: any).
struct ActionSpec {
  const char* name;
  int min;
  int max;
};

// Every action SimGrid 3.32's replay registers (smpi_replay.cpp), with the
// argument counts its parsers check.
constexpr ActionSpec kActions[] = {
    {"init", 0, 1},       {"finalize", 0, -1},  {"comm_size", 0, -1}, {"comm_split", 0, -1}, {"comm_dup", 0, -1},
    {"send", 3, 4},       {"isend", 3, 4},      {"recv", 3, 4},       {"irecv", 3, 4},       {"sendRecv", 4, 6},
    {"test", 3, 3},       {"wait", 3, 3},       {"waitall", 0, 1},    {"barrier", 0, 0},     {"bcast", 1, 3},
    {"reduce", 2, 4},     {"allreduce", 2, 3},  {"alltoall", 2, 4},   {"alltoallv", -2, -1}, {"gather", 2, 5},
    {"scatter", 2, 5},    {"gatherv", -1, -1},  {"scatterv", -1, -1}, {"allgather", 2, 4},   {"allgatherv", -1, -1},
    {"reducescatter", -1, -1}, {"compute", 1, 1}, {"sleep", 1, 1},    {"location", 2, 2},
};

const ActionSpec* find_action(std::string_view name) {
  for (const ActionSpec& a : kActions)
    if (name == a.name) return &a;
  return nullptr;
}

bool is_collective(std::string_view name) {
  for (const char* c : {"barrier", "bcast", "reduce", "allreduce", "alltoall", "alltoallv", "gather", "scatter", "gatherv",
                        "scatterv", "allgather", "allgatherv", "reducescatter"})
    if (name == c) return true;
  return false;
}

struct LineChecker {
  const std::string& where;
  const std::vector<std::string>& w;
  int ranks;

  Error error(const std::string& what) const { return located_error(where, what); }
  Result<long long> integer(size_t i, const char* what) const {
    auto v = text::parse_int(w[i]);
    if (!v) return error(std::string(what) + ": expected an integer, not '" + text::excerpt(w[i]) + "'");
    return *v;
  }
  Result<int> rank(size_t i, const char* what) const {
    auto v = integer(i, what);
    if (!v) return v.error();
    if (*v < 0 || *v >= ranks)
      return error(std::string(what) + " " + std::to_string(*v) + " is not a rank of this " + std::to_string(ranks) +
                   "-rank trace");
    return static_cast<int>(*v);
  }
  Result<double> number(size_t i, const char* what) const {
    auto v = text::parse_double(w[i]);
    if (!v || !(*v >= -1) || *v > 1e18)
      return error(std::string(what) + ": expected a count, not '" + text::excerpt(w[i]) + "'");
    return *v;
  }
  Result<int> datatype(size_t i) const {
    auto id = integer(i, "datatype");
    if (!id) return id.error();
    auto size = datatype_size(*id);
    if (!size) return error("unknown datatype id " + std::to_string(*id) + " (SimGrid 3.32 knows -1 to 59)");
    return *size;
  }
};

// (src, dst) -> messages, bytes
using PairSends = std::map<std::pair<int, int>, std::pair<std::uint64_t, std::uint64_t>>;

struct FileCounts {
  std::uint64_t actions = 0, compute = 0, collectives = 0, derived = 0;
  double flops = 0;
  PairSends sends;
};

// One send of `count` elements of `size` bytes from rank to partner, added
// to its pair; refused where the pair's bytes would pass 2^53, the largest
// count a profile holds (limits::kMaxTrafficCount; the mapper computes in
// doubles).
Status add_send(PairSends& sends, int rank, int partner, double count, int size, const std::string& where) {
  auto& pair = sends[{rank, partner}];
  if (count * size > static_cast<double>(limits::kMaxTrafficCount - pair.second))
    return located_error(where, "the bytes sent to rank " + std::to_string(partner) + " pass 2^53 = " +
                                    std::to_string(limits::kMaxTrafficCount) + ", the largest count a profile holds");
  pair.first += 1;
  pair.second += static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
  return Ok{};
}

// One rank's action file, `body`, named `path` in errors.
Status check_action_text(const std::string& body, const std::string& path, int rank, int ranks, FileCounts& counts) {
  int default_size = 1;  // MPI_BYTE unless "init" names a type (then MPI_DOUBLE), as SimGrid's InitAction
  bool seen_action = false;
  bool in_collective = false, collective_is_p2p = false;  // between libcommprof's collective markers
  size_t line_no = 0, begin = 0;
  while (begin < body.size()) {
    size_t end = body.find('\n', begin);
    if (end == std::string::npos) end = body.size();
    const std::string_view line(body.data() + begin, end - begin);
    begin = end + 1;
    ++line_no;
    const std::string where = path + ":" + std::to_string(line_no);
    const std::vector<std::string> w = text::words(line);
    if (!w.empty() && w[0] == "#" && w.size() >= 3 && w[1] == "commprof-collective") {
      // libcommprof's trace of a sub-communicator's collective: its messages
      // follow, up to "end" (docs/formats.md, "Trace"). A collective, and
      // point-to-point traffic only for the all-to-alls, which a profile
      // records as p2p.
      in_collective = w[2] != "end";
      collective_is_p2p = w[2] == "alltoall" || w[2] == "alltoallv";
      if (in_collective) ++counts.collectives;
      continue;
    }
    if (w.empty() || w[0][0] == '#') continue;
    if (line.find('\r') != std::string_view::npos) return located_error(where, "carriage return in an action line");
    if (w.size() < 2) return located_error(where, "expected '<rank> <action> ...', not '" + text::excerpt(line) + "'");
    LineChecker c{where, w, ranks};
    auto who = c.integer(0, "rank");
    if (!who) return who.error();
    if (*who != rank)
      return located_error(where, "action of rank " + std::to_string(*who) + " in rank " + std::to_string(rank) +
                                      "'s file (line " + std::to_string(rank + 1) + " of the index)");
    const ActionSpec* spec = find_action(w[1]);
    if (!spec)
      return located_error(where, "unknown action '" + text::excerpt(w[1]) + "' (not one SimGrid 3.32 replays)");
    const int args = static_cast<int>(w.size()) - 2;
    int min = spec->min, max = spec->max;
    if (min == -1) min = ranks + 1;       // the v-collectives: one count per rank and more
    if (min == -2) min = 2 * ranks + 2;   // alltoallv: two buffers and two count arrays
    if (args < min || (max >= 0 && args > max))
      return located_error(where, "'" + w[1] + "' takes " +
                                      (max == min ? std::to_string(min)
                                       : max < 0  ? "at least " + std::to_string(min)
                                                  : std::to_string(min) + " to " + std::to_string(max)) +
                                      " arguments, not " + std::to_string(args));
    if (!seen_action && w[1] != "init") return located_error(where, "the first action must be 'init', not '" + w[1] + "'");
    seen_action = true;
    ++counts.actions;
    const std::string& name = w[1];
    if (name == "init") {
      if (args == 1) default_size = 8;
    } else if (name == "send" || name == "isend" || name == "recv" || name == "irecv") {
      auto partner = c.rank(2, "partner");
      if (!partner) return partner.error();
      if (auto tag = c.integer(3, "tag"); !tag) return tag.error();
      auto count = c.number(4, "count");
      if (!count) return count.error();
      int size = default_size;
      if (args == 4) {
        auto s = c.datatype(5);
        if (!s) return s.error();
        size = *s;
        if (w[5] == "-1") ++counts.derived;
      }
      if ((name == "send" || name == "isend") && *partner != rank && *count > 0 && (!in_collective || collective_is_p2p))
        if (Status st = add_send(counts.sends, rank, *partner, *count, size, where); !st) return st.error();
    } else if (name == "sendRecv") {
      auto send_count = c.number(2, "send count");
      if (!send_count) return send_count.error();
      auto dst = c.rank(3, "destination");
      if (!dst) return dst.error();
      if (auto n = c.number(4, "receive count"); !n) return n.error();
      if (auto src = c.rank(5, "source"); !src) return src.error();
      int size = default_size;
      for (int i = 6; i < 2 + args; ++i) {
        auto s = c.datatype(static_cast<size_t>(i));
        if (!s) return s.error();
        if (i == 6) size = *s;
        if (w[static_cast<size_t>(i)] == "-1") ++counts.derived;
      }
      if (*dst != rank && *send_count > 0 && (!in_collective || collective_is_p2p))
        if (Status st = add_send(counts.sends, rank, *dst, *send_count, size, where); !st) return st.error();
    } else if (name == "wait" || name == "test") {
      for (size_t i = 2; i < 4; ++i)
        if (auto r = c.rank(i, i == 2 ? "source" : "destination"); !r) return r.error();
      if (auto tag = c.integer(4, "tag"); !tag) return tag.error();
    } else if (name == "compute" || name == "sleep") {
      auto v = c.number(2, name == "compute" ? "flops" : "seconds");
      if (!v) return v.error();
      if (*v < 0) return located_error(where, name + ": negative amount '" + w[2] + "'");
      if (name == "compute") {
        ++counts.compute;
        counts.flops += *v;
      }
    } else if (name == "location") {
      if (auto l = c.integer(3, "line"); !l) return l.error();
    } else if (is_collective(name)) {
      ++counts.collectives;
      // Sizes, counts and datatypes are numbers; roots are checked where the
      // action has one at a fixed place (bcast, reduce, gather, scatter).
      for (size_t i = 2; i < w.size(); ++i)
        if (auto v = c.number(i, "argument"); !v) return v.error();
      size_t root_at = 0;
      if (name == "bcast") root_at = 3;
      if (name == "reduce") root_at = 4;
      if (name == "gather" || name == "scatter") root_at = 4;
      if (root_at != 0 && root_at < w.size())
        if (auto r = c.rank(root_at, "root"); !r) return r.error();
      // All-to-alls are pairwise traffic, which a profile records as p2p
      // (libcommprof expands them): block i goes to rank i.
      if (name == "alltoall" || name == "alltoallv") {
        const bool v = name == "alltoallv";
        const size_t dt_at = v ? 4 + 2 * static_cast<size_t>(ranks) : 4;
        // SimGrid reads the send type only when both types are given (alltoallv) or it is (alltoall).
        const bool typed = v ? w.size() > dt_at + 1 : w.size() > dt_at;
        int size = default_size;
        if (typed) {
          auto s = c.datatype(dt_at);
          if (!s) return s.error();
          size = *s;
        }
        for (int peer = 0; peer < ranks; ++peer) {
          const double count = *text::parse_double(w[v ? 3 + static_cast<size_t>(peer) : 2]);
          if (peer == rank || !(count > 0)) continue;
          if (Status st = add_send(counts.sends, rank, peer, count, size, where); !st) return st.error();
        }
      }
    } else if (name == "waitall") {
      if (args == 1)
        if (auto n = c.integer(2, "request count"); !n) return n.error();
    }
  }
  if (!seen_action) return located_error(path, "no actions (an action file starts with '<rank> init')");
  return Ok{};
}

Status check_action_file(const std::string& path, int rank, int ranks, FileCounts& counts) {
  auto content = read_input_file(path);
  if (!content) return content.error();
  return check_action_text(*content, path, rank, ranks, counts);
}

// Adds one rank's counts to the trace and its pairs.
void add_counts(const FileCounts& counts, Trace& trace, PairSends& sends) {
  trace.actions += counts.actions;
  trace.compute_actions += counts.compute;
  trace.compute_flops += counts.flops;
  trace.collective_actions += counts.collectives;
  trace.derived_datatype_actions += counts.derived;
  for (const auto& [pair, v] : counts.sends) {
    auto& s = sends[pair];
    s.first += v.first;
    s.second += v.second;
  }
}

void set_pairs(const PairSends& sends, Trace& trace) {
  for (const auto& [pair, v] : sends) trace.p2p.push_back(PairTraffic{pair.first, pair.second, v.first, v.second});
}

std::string resolve(const std::string& entry, const fs::path& index_dir) {
  fs::path p(entry);
  if (p.is_absolute()) return p.lexically_normal().string();
  std::error_code ec;
  // Relative to the index first; then the working directory (where smpirun
  // itself looks); a file found in neither is named relative to the index.
  if (!fs::exists(index_dir / p, ec) && fs::exists(p, ec)) return fs::absolute(p, ec).lexically_normal().string();
  return fs::absolute(index_dir / p, ec).lexically_normal().string();
}

}  // namespace

std::uint64_t Trace::p2p_bytes() const {
  std::uint64_t sum = 0;
  for (const PairTraffic& p : p2p) sum += p.bytes;
  return sum;
}

std::uint64_t Trace::p2p_messages() const {
  std::uint64_t sum = 0;
  for (const PairTraffic& p : p2p) sum += p.messages;
  return sum;
}

Result<Trace> read_trace(const std::string& index_path) {
  auto index = read_input_file(index_path, std::uint64_t{256} << 20);
  if (!index) return index.error();
  Trace trace;
  trace.index_path = index_path;
  const fs::path index_dir = fs::path(index_path).parent_path();
  std::vector<size_t> index_lines;
  size_t line_no = 0;
  for (const std::string& raw : text::split(*index, '\n')) {
    ++line_no;
    const std::string_view entry = text::trim(raw);
    if (entry.empty() || entry[0] == '#') continue;
    trace.rank_files.push_back(resolve(std::string(entry), index_dir));
    index_lines.push_back(line_no);
  }
  if (trace.rank_files.empty())
    return located_error(index_path, "empty trace index (expected one action file per rank, as smpirun -trace-ti writes)");
  if (trace.rank_files.size() > static_cast<size_t>(limits::kMaxRanks))
    return located_error(index_path, "more than " + std::to_string(limits::kMaxRanks) + " ranks");
  const int ranks = trace.ranks();
  PairSends sends;
  for (int r = 0; r < ranks; ++r) {
    const std::string& file = trace.rank_files[static_cast<size_t>(r)];
    std::error_code ec;
    if (!fs::is_regular_file(file, ec))
      return located_error(index_path + ":" + std::to_string(index_lines[static_cast<size_t>(r)]),
                           "rank " + std::to_string(r) + "'s action file " + file + " does not exist");
    FileCounts counts;
    if (Status st = check_action_file(file, r, ranks, counts); !st) return st.error();
    add_counts(counts, trace, sends);
  }
  set_pairs(sends, trace);
  return trace;
}

Result<Trace> parse_action_texts(const std::vector<std::string>& texts, const std::vector<std::string>& names) {
  if (texts.size() != names.size()) return make_error("parse_action_texts: one name per action file");
  if (texts.empty()) return make_error("trace: no action files");
  if (texts.size() > static_cast<size_t>(limits::kMaxRanks))
    return make_error("trace: more than " + std::to_string(limits::kMaxRanks) + " ranks");
  Trace trace;
  trace.rank_files = names;
  const int ranks = trace.ranks();
  PairSends sends;
  for (int r = 0; r < ranks; ++r) {
    FileCounts counts;
    if (Status st = check_action_text(texts[static_cast<size_t>(r)], names[static_cast<size_t>(r)], r, ranks, counts); !st)
      return st.error();
    add_counts(counts, trace, sends);
  }
  set_pairs(sends, trace);
  return trace;
}

Profile profile_from_trace(const Trace& trace) {
  Profile p;
  p.ranks = trace.ranks();
  p.rank_info.assign(static_cast<size_t>(p.ranks), RankInfo{"trace", -1, 0, 0});
  for (const PairTraffic& t : trace.p2p)
    if (t.bytes > 0) p.p2p.push_back(t);
  return p;
}

const char* replay_mode_name(ReplayMode mode) { return mode == ReplayMode::comm_only ? "comm-only" : "whole-app"; }

RunRequest replay_request(const std::string& smpirun, const std::string& platform_path, const std::string& hostfile_path,
                          const std::string& index_path, int ranks, ReplayMode mode, double host_speed,
                          const std::vector<std::string>& extra_flags) {
  RunRequest request;
  request.smpirun = smpirun;
  request.platform_path = platform_path;
  request.hostfile_path = hostfile_path;
  request.ranks = ranks;
  request.replay_index = index_path;
  // The replay's own clock to 12 decimals (its "Simulated time" has 6
  // significant digits): placements a few ns apart still order right.
  request.extra_flags.push_back("--log=smpi_utils.fmt:[%.12d]%e%m%n");
  if (mode == ReplayMode::whole_app) {
    // Later flags override the defaults' simulate-computation:no. A compute
    // action runs its flops at the host's speed; smpi/host-speed is set to
    // the same value so that nothing converts at another rate.
    char speed[64];
    std::snprintf(speed, sizeof speed, "%.17gf", host_speed);
    request.extra_flags.push_back("--cfg=smpi/simulate-computation:yes");
    request.extra_flags.push_back(std::string("--cfg=smpi/host-speed:") + speed);
  }
  request.extra_flags.insert(request.extra_flags.end(), extra_flags.begin(), extra_flags.end());
  return request;
}

std::optional<double> parse_replay_clock(const std::string& output) {
  static const std::string key = "] Simulated time: ";
  const size_t at = output.rfind(key);
  if (at == std::string::npos) return std::nullopt;
  const size_t open = output.rfind('[', at);
  if (open == std::string::npos) return std::nullopt;
  auto v = text::parse_double(std::string_view(output).substr(open + 1, at - open - 1));
  if (!v) return std::nullopt;
  return *v;
}

Result<ReplayRun> replay(const Trace& trace, const Mapping& mapping, ReplayMode mode, const ReplayOptions& options) {
  if (mapping.ranks() != trace.ranks())
    return make_error("the mapping places " + std::to_string(mapping.ranks()) + " ranks but the trace " +
                      trace.index_path + " has " + std::to_string(trace.ranks()));
  PlatformOptions platform = options.platform;
  if (mapping.machine.nodes() > kAllRoutesMaxNodes) platform.route_nodes = used_nodes(mapping);
  auto xml = platform_xml(mapping.machine, platform);
  if (!xml) return xml.error();

  std::string dir = options.work_dir;
  ScratchDir scratch;  // removed on return
  if (dir.empty()) {
    auto made = ScratchDir::make("rankmap-replay");
    if (!made) return made.error();
    scratch = std::move(*made);
    dir = scratch.path();
  } else {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return make_error("cannot create directory " + dir + ": " + ec.message());
  }
  const std::string platform_path = dir + "/platform.xml", hostfile_path = dir + "/hosts.txt",
                    index_path = dir + "/trace-index.txt";
  std::string index;
  for (const std::string& f : trace.rank_files) index += f + "\n";
  auto hosts = hostfile(mapping);
  if (!hosts) return hosts.error();
  Status written = write_file_atomically(platform_path, *xml);
  if (written) written = write_file_atomically(hostfile_path, *hosts);
  // smpirun opens the index's entries relative to its working directory:
  // this copy names them absolutely.
  if (written) written = write_file_atomically(index_path, index);

  Result<RunResult> result = make_error("");
  const auto start = std::chrono::steady_clock::now();
  if (written)
    result = run_smpirun(replay_request(options.smpirun, platform_path, hostfile_path, index_path, trace.ranks(), mode,
                                        options.platform.host_speed, options.extra_flags));
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!written) return written.error();
  if (!result) return result.error();
  if (result->exit_status != 0)
    return make_error("replay of " + trace.index_path + " failed (smpirun exit status " +
                      std::to_string(result->exit_status) + "): " + text::last_lines(result->output, 3));
  // SimGrid ends a deadlocked replay with status 0 and a simulated time (that
  // of the deadlock): a time that would rank the placement as the fastest.
  if (result->output.find("Deadlock detected") != std::string::npos)
    return make_error("replay of " + trace.index_path +
                      " deadlocked in SimGrid: the trace's sends, receives and waits do not match");
  auto clock = parse_replay_clock(result->output);
  if (!clock) return make_error("replay of " + trace.index_path + ": smpirun printed no simulated time");
  return ReplayRun{*clock, wall};
}

}  // namespace rankmap::simulation
