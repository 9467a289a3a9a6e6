// The trace writer (trace.hpp). One Tracer per process, used by the traced
// thread only, so nothing here locks (stop() from another thread only sets
// atomics and the reason).
//
// What SimGrid 3.32's replay does, and what the trace must therefore say:
//  - a line is "<rank> <action> <arguments>", split on runs of blanks, so a
//    field may be padded: the source and tag of an MPI_ANY_SOURCE /
//    MPI_ANY_TAG receive are written as fixed-width blank fields and
//    patched (in the buffer, or with pwrite once flushed) when the request
//    completes and its status says who sent it;
//  - requests are kept per (src, dst, tag) in posting order, and
//    "wait src dst tag" completes the oldest of them (checked with
//    smpirun -replay: two isends with one key, the first wait returned when
//    the first was received);
//  - "waitall" completes every outstanding request, not those of the call:
//    it is written only when the call completes all we have outstanding,
//    otherwise one "wait" per completed request;
//  - "sendRecv" sends and receives with tag 0 (an exchange with other tags
//    is written as irecv, isend and two waits);
//  - at the end of a rank's actions the replay waits for every request
//    still outstanding (so a cancelled receive must not be in the trace);
//  - ranks are MPI_COMM_WORLD's and collectives run on MPI_COMM_WORLD: a
//    collective of another communicator is written as the messages MPICH
//    sends for it (rankmap/mpich_collectives.hpp), between two comment lines.
#include "trace.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "collectives.hpp"
#include "hooks.hpp"
#include "rankmap/mpich_collectives.hpp"
#include "settings.hpp"

namespace commprof::trace {

namespace rounds = rankmap::mpich;


namespace {

#if defined(COMMPROF_SMPI)
bool tls_traced = false;  // SMPI ranks are not threads (see hooks.hpp)
#else
__thread bool tls_traced __attribute__((tls_model("initial-exec"))) = false;
#endif

// Width of a patchable field: any int, sign included.
constexpr int kFieldWidth = 11;
constexpr std::size_t kBufferBytes = std::size_t{1} << 20;
// Tracing stops when the trace's file system has less than this free.
constexpr std::uint64_t kMinFreeBytes = std::uint64_t{256} << 20;
// SimGrid's id of MPI_BYTE (smpi_datatype.cpp; replay.cpp's table).
constexpr int kByteId = 6;

// Computation is measured by default as the traced thread's CPU time, not
// wall time: on a shared or oversubscribed node the time a rank waits for a
// core is not work the replay should redo (measured here: 8 ranks on 2 cores
// turned 6 ms of work per rank into 0.3 s of wall time between MPI calls).
// The thread CPU clock is a system call, the monotonic one is not: wall time
// (COMMPROF_TRACE_CLOCK=wall) is the cheaper choice on dedicated cores.
clockid_t g_clock = CLOCK_THREAD_CPUTIME_ID;

std::uint64_t now_ns() {
  timespec ts;
  clock_gettime(g_clock, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

// An outstanding nonblocking request, as SimGrid's replay will key it.
struct Pending {
  MPI_Request handle;
  MPI_Comm comm;       // to translate a wildcard receive's status source
  int src, dst, tag;   // world ranks
  bool is_recv;
  std::int64_t patch_at = -1;  // file offset of the source field, tag field follows; -1: nothing to patch
  bool done = false;           // completed by the call being processed
};

// What one MPI_Start of a persistent point-to-point request posts.
struct Plan {
  MPI_Comm comm;
  bool is_recv;
  int peer, tag;  // communicator rank and tag as given to *_init
  MPI_Count count;
  MPI_Datatype type;
};

// The action being formatted. A plain buffer with a cursor: std::string's
// appends cost ~170 instructions per line (callgrind), this ~4x less.
struct Line {
  std::vector<char> text = std::vector<char>(256);
  std::size_t size = 0;
  // Where the next n characters go; grows (rarely: v-collectives of large jobs).
  char* room(std::size_t n) {
    if (size + n > text.size()) text.resize(2 * (size + n));
    return text.data() + size;
  }
  void end_at(const char* p) { size = static_cast<std::size_t>(p - text.data()); }
};

struct Tracer {
  int rank = -1;
  int size = 0;
  std::string dir, tmp_path, final_path;
  int fd = -1;
  std::unique_ptr<char[]> buffer;
  std::size_t used = 0;
  std::uint64_t flushed = 0;  // bytes already in the file
  std::uint64_t max_bytes = 0;
  double max_mb = 0;  // as the user gave it, for the message
  double flops_per_ns = 1;
  std::uint64_t outside_ns = 0;   // time outside MPI since the last action
  std::uint64_t last_exit_ns = 0;
  bool started = false;
  std::atomic<bool> stopped{false};  // stop() may come from an untraced thread
  std::string reason;                // why this rank stopped (first reason)
  bool verbose = false;
  Line line;
  std::vector<Pending> pending;
  std::vector<MPI_Request> completing;  // handles of the completion call in progress
  std::unordered_map<MPI_Request, Plan> plans;  // persistent requests created while tracing
};

Tracer& tracer() {
  static Tracer* t = new Tracer;  // leaked: wrappers may run after static destructors
  return *t;
}

void close_file(Tracer& t) {
  if (t.fd >= 0) close(t.fd);
  t.fd = -1;
}

bool write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool flush(Tracer& t) {
  if (t.used == 0) return true;
  struct statvfs fs {};
  if (fstatvfs(t.fd, &fs) == 0 && static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize < kMinFreeBytes + t.used) {
    stop("less than 256 MiB free on the file system of " + t.dir);
    return false;
  }
  if (!write_all(t.fd, t.buffer.get(), t.used)) {
    stop("cannot write " + t.tmp_path + ": " + std::strerror(errno));
    return false;
  }
  t.flushed += t.used;
  t.used = 0;
  return true;
}

// --- formatting -------------------------------------------------------------

void begin(Tracer& t, const char* action) {
  Line& l = t.line;
  l.size = 0;
  const std::size_t n = std::strlen(action);
  char* p = l.room(n + 16);
  p = std::to_chars(p, p + 12, t.rank).ptr;
  *p++ = ' ';
  std::memcpy(p, action, n);
  l.end_at(p + n);
}

template <class Int>
void field(Tracer& t, Int v) {
  char* p = t.line.room(24);
  *p++ = ' ';
  t.line.end_at(std::to_chars(p, p + 22, v).ptr);
}

// A fixed-width field; returns its position in the line.
std::size_t padded_field(Tracer& t, int v) {
  char* p = t.line.room(kFieldWidth + 2);
  *p++ = ' ';
  const std::size_t at = t.line.size + 1;
  char text[kFieldWidth + 1];
  std::snprintf(text, sizeof text, "%-*d", kFieldWidth, v);
  std::memcpy(p, text, kFieldWidth);
  t.line.end_at(p + kFieldWidth);
  return at;
}

// Appends the formatted line; returns its file offset, or -1 when tracing stopped.
std::int64_t emit(Tracer& t) {
  char* end = t.line.room(1);
  *end = '\n';
  t.line.end_at(end + 1);
  const char* data = t.line.text.data();
  const std::size_t size = t.line.size;
  if (t.flushed + t.used + size > t.max_bytes) {
    char cap[64];
    std::snprintf(cap, sizeof cap, "%g", t.max_mb);
    stop(std::string("the trace reached its size cap of ") + cap + " MiB per rank (COMMPROF_TRACE_MAX_MB)");
    return -1;
  }
  if (t.used + size > kBufferBytes && !flush(t)) return -1;
  const std::int64_t offset = static_cast<std::int64_t>(t.flushed + t.used);
  if (size > kBufferBytes) {  // a v-collective of a huge job: straight to the file
    if (!write_all(t.fd, data, size)) {
      stop("cannot write " + t.tmp_path + ": " + std::strerror(errno));
      return -1;
    }
    t.flushed += size;
  } else {
    std::memcpy(t.buffer.get() + t.used, data, size);
    t.used += size;
  }
  return offset;
}

// Gaps shorter than this are carried over to the next action rather than
// written: back-to-back MPI calls (a loop of Isends) would otherwise double
// the trace with "compute 40" lines. The total stays exact; a compute moves
// by less than this.
constexpr std::uint64_t kMinComputeNs = 1000;

// The time the program spent outside MPI since the last action, as flops.
void emit_compute(Tracer& t, bool force = false) {
  if (t.outside_ns < kMinComputeNs && !force) return;
  const double flops = static_cast<double>(t.outside_ns) * t.flops_per_ns;
  t.outside_ns = 0;
  if (flops < 1) return;
  begin(t, "compute");
  field(t, static_cast<std::uint64_t>(flops + 0.5));
  emit(t);
}

// Starts an action line, after the compute that precedes it. False once stopped.
bool action(Tracer& t, const char* name) {
  if (t.stopped) return false;
  emit_compute(t);
  if (t.stopped) return false;
  begin(t, name);
  return true;
}

void patch(Tracer& t, std::int64_t at, int value) {
  if (at < 0 || t.stopped) return;
  char text[kFieldWidth + 1];
  std::snprintf(text, sizeof text, "%-*d", kFieldWidth, value);
  const auto offset = static_cast<std::uint64_t>(at);
  if (offset >= t.flushed) {
    std::memcpy(t.buffer.get() + (offset - t.flushed), text, kFieldWidth);
  } else if (pwrite(t.fd, text, kFieldWidth, static_cast<off_t>(offset)) != kFieldWidth) {
    stop("cannot patch " + t.tmp_path + ": " + std::strerror(errno));
  }
}

// --- datatypes ------------------------------------------------------------

// SimGrid's trace id of a predefined type whose size is the same here, else
// -1 (then the count is written in bytes of MPI_BYTE: the volume is exact,
// whatever the type; SMPI itself would write -1 and replay 0 bytes).
int simgrid_id(MPI_Datatype type) {
  struct Known {
    MPI_Datatype type;
    int id;
    int size;
  };
  static const Known known[] = {
      {MPI_DOUBLE, 0, 8},  {MPI_INT, 1, 4},           {MPI_CHAR, 2, 1},       {MPI_SHORT, 3, 2},
      {MPI_LONG, 4, 8},    {MPI_FLOAT, 5, 4},         {MPI_BYTE, 6, 1},       {MPI_LONG_LONG, 7, 8},
      {MPI_UNSIGNED, 11, 4}, {MPI_UNSIGNED_LONG, 12, 8}, {MPI_UNSIGNED_LONG_LONG, 13, 8},
      {MPI_INT32_T, 19, 4}, {MPI_INT64_T, 20, 8},    {MPI_UINT64_T, 24, 8},
  };
  for (const Known& k : known)
    if (k.type == type) return type_size(type) == static_cast<std::uint64_t>(k.size) ? k.id : -1;
  return -1;
}

struct Sized {
  std::uint64_t count;
  int id;
};

Sized sized(MPI_Count count, MPI_Datatype type) {
  const int id = simgrid_id(type);
  if (id >= 0) return {static_cast<std::uint64_t>(count), id};
  return {static_cast<std::uint64_t>(count) * type_size(type), kByteId};
}

// Count factor and id for arrays of counts of one type.
Sized unit(MPI_Datatype type) { return sized(1, type); }

// --- communicators ----------------------------------------------------------

// Collective actions replay on MPI_COMM_WORLD: they are written for world and
// its dups (world's group in world's order); other intracommunicators get
// their messages written instead (sub_comm below); an intercommunicator
// stops the trace.
bool on_world(MPI_Comm comm, const char* mpi_name) {
  if (comm == MPI_COMM_WORLD) return true;
  const CommInfo& info = comm_info(comm);
  if (!info.inter && info.identity) return true;
  stop(std::string(mpi_name) + " on an intercommunicator (SimGrid's trace replays collectives on MPI_COMM_WORLD only)");
  return false;
}

// Nonblocking collectives have no TI action; started as blocking ones they
// could deadlock the replay.
bool blocking(const char* mpi_name) {
  if (std::strncmp(mpi_name, "MPI_I", 5) != 0) return true;
  unsupported(mpi_name);
  return false;
}

// A collective on a one-rank communicator (MPI_COMM_SELF, a split that left
// a rank alone) moves nothing between ranks: nothing is written, and it does
// not stop the trace.
bool alone(MPI_Comm comm) {
  if (comm == MPI_COMM_SELF) return true;
  if (comm == MPI_COMM_WORLD) return false;
  const CommInfo& info = comm_info(comm);
  return !info.inter && info.size == 1;
}

bool collective(Tracer& t, MPI_Comm comm, const char* name, const char* mpi_name) {
  return !t.stopped && !alone(comm) && blocking(mpi_name) && on_world(comm, mpi_name) && action(t, name);
}

// --- collectives of sub-communicators ------------------------------------------

// A collective of an intracommunicator that is not world's order (a split,
// a group's communicator) is written as the point-to-point messages MPICH's
// algorithm sends for it (rankmap/mpich_collectives.hpp), in world ranks: SimGrid's
// replay would run a collective action on MPI_COMM_WORLD, and a row's
// all-to-all would replay as an all-to-all of the whole job. Each round's
// receives are posted, its sends started, then each is waited for by
// (source, destination, tag), so the program's own outstanding requests are
// untouched. The messages carry a tag of the communicator's own, from its
// members (the same on every member), in the top range of the tags MPI
// guarantees (MPI_TAG_UB >= 32767). Comment lines, which SimGrid skips,
// enclose them: "# commprof-collective <op> <size>" ... "# commprof-collective
// end"; the trace reader counts the messages between them as the collective
// they are (docs/formats.md, "Trace").
constexpr int kSubTagBase = 30000;
constexpr int kSubTags = 2768;  // 30000 .. 32767

struct SubComm {
  const CommInfo* info;
  int n, me, tag;
  int world(int rank) const { return info->world_of(rank); }
};

std::optional<SubComm> sub_comm(Tracer& t, MPI_Comm comm, const char* mpi_name) {
  if (t.stopped || comm == MPI_COMM_WORLD || alone(comm)) return std::nullopt;
  const CommInfo& info = comm_info(comm);
  if (info.inter || info.identity || !blocking(mpi_name)) return std::nullopt;  // written as before, or stopped
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the members' world ranks
  for (int w : info.world) {
    if (w < 0) {
      stop(std::string(mpi_name) + " on a communicator with a process outside MPI_COMM_WORLD");
      return std::nullopt;
    }
    h = (h ^ static_cast<std::uint64_t>(w)) * 1099511628211ull;
  }
  return SubComm{&info, info.size, info.my_rank, kSubTagBase + static_cast<int>(h % kSubTags)};
}

bool marker(Tracer& t, const char* what, int size) {
  if (t.stopped) return false;
  emit_compute(t);
  if (t.stopped) return false;
  static constexpr char kHead[] = "# commprof-collective ";
  const std::size_t head = sizeof kHead - 1, n = std::strlen(what);
  Line& l = t.line;
  l.size = 0;
  char* p = l.room(head + n + 1);
  std::memcpy(p, kHead, head);
  std::memcpy(p + head, what, n);
  l.end_at(p + head + n);
  if (size >= 0) field(t, size);
  return emit(t) >= 0;
}

void message(Tracer& t, const char* name, int world, int tag, std::uint64_t bytes) {
  if (!action(t, name)) return;
  field(t, world);
  field(t, tag);
  field(t, bytes);
  field(t, kByteId);
  emit(t);
}

void write_wait(Tracer& t, const Pending& p);

void write_rounds(Tracer& t, const SubComm& c, const char* op, const rounds::Rounds& rounds) {
  if (!marker(t, op, c.n)) return;
  for (const rounds::Round& r : rounds) {
    for (const rounds::Message& m : r.recvs) message(t, "irecv", c.world(m.peer), c.tag, m.bytes);
    for (const rounds::Message& m : r.sends) message(t, "isend", c.world(m.peer), c.tag, m.bytes);
    for (const rounds::Message& m : r.recvs)
      write_wait(t, Pending{MPI_REQUEST_NULL, MPI_COMM_NULL, c.world(m.peer), t.rank, c.tag, true});
    for (const rounds::Message& m : r.sends)
      write_wait(t, Pending{MPI_REQUEST_NULL, MPI_COMM_NULL, t.rank, c.world(m.peer), c.tag, false});
  }
  marker(t, "end", -1);
}

// Bytes per member, from an array of counts indexed by communicator rank.
template <class Count>
std::vector<std::uint64_t> blocks_of(const SubComm& c, const Count counts[], MPI_Datatype type) {
  std::vector<std::uint64_t> blocks(static_cast<size_t>(c.n));
  for (int i = 0; i < c.n; ++i) blocks[static_cast<size_t>(i)] = bytes_of(counts[i], type);
  return blocks;
}

// A rooted v-collective's blocks: the root's counts at the root, elsewhere
// only this member's own block (the counts are significant at the root only).
template <class Count>
std::vector<std::uint64_t> rooted_blocks_of(const SubComm& c, int root, const Count root_counts[], MPI_Datatype root_type,
                                            std::uint64_t own) {
  if (c.me == root) return blocks_of(c, root_counts, root_type);
  std::vector<std::uint64_t> blocks(static_cast<size_t>(c.n), 0);
  blocks[static_cast<size_t>(c.me)] = own;
  return blocks;
}

std::size_t find_pending(const Tracer& t, MPI_Request handle) {
  if (handle == MPI_REQUEST_NULL) return t.pending.size();  // also what freed requests are set to
  for (std::size_t i = 0; i < t.pending.size(); ++i)
    if (t.pending[i].handle == handle) return i;
  return t.pending.size();
}

// A wildcard receive's real source and tag, from its completion status.
// A completed receive: false (and the trace stopped) when it was cancelled,
// which the trace cannot say (its irecv is written; the replay would wait for
// a message that never comes). Else the real source and tag of a wildcard.
bool resolve(Tracer& t, Pending& p, const MPI_Status* status) {
  int cancelled = 0;
  if (PMPI_Test_cancelled(status, &cancelled) == MPI_SUCCESS && cancelled) {
    stop("a receive was cancelled (MPI_Cancel), which a time-independent trace cannot express");
    return false;
  }
  if (p.patch_at < 0) return true;
  const int world = world_rank_of(p.comm, status->MPI_SOURCE);
  if (world >= 0) p.src = world;
  p.tag = status->MPI_TAG;
  patch(t, p.patch_at, p.src);
  patch(t, p.patch_at + kFieldWidth + 1, p.tag);
  return true;
}

void write_wait(Tracer& t, const Pending& p) {
  if (!action(t, "wait")) return;
  field(t, p.src);
  field(t, p.dst);
  field(t, p.tag);
  emit(t);
}

[[maybe_unused]] bool make_dirs(const std::string& dir) {
  std::string at;
  for (std::size_t i = 0; i <= dir.size(); ++i) {
    if (i == dir.size() || (dir[i] == '/' && i > 0)) {
      at = dir.substr(0, i);
      if (mkdir(at.c_str(), 0777) != 0 && errno != EEXIST) return false;
    }
  }
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0) return false;
  if (!S_ISDIR(st.st_mode)) errno = ENOTDIR;
  return S_ISDIR(st.st_mode);
}

}  // namespace

// --- lifecycle ----------------------------------------------------------------

bool on() { return mode_traces(g_mode.load(std::memory_order_relaxed)); }

// The job gets one message, at the end, from rank 0 (finish()): a stop on
// every rank (a collective on a sub-communicator) must not print P lines.
// COMMPROF_VERBOSE=1 also prints each rank's at the moment it stops.
void stop(const std::string& reason) {
  Tracer& t = tracer();
  g_mode.fetch_and(static_cast<std::uint8_t>(~kTraceBit));
  if (!t.started || t.stopped.exchange(true)) return;  // the first reason is kept
  t.reason = reason;
  if (t.verbose) std::fprintf(stderr, "commprof: rank %d: trace stopped: %s\n", t.rank, reason.c_str());
}

bool start(const Settings& settings, int world_rank, int world_size) {
  Tracer& t = tracer();
  t.rank = world_rank;  // finish() needs them on every rank, tracing or not
  t.size = world_size;
  if (settings.TRACE.empty()) return false;
  t.started = true;
  t.verbose = settings.VERBOSE;
#if defined(COMMPROF_SMPI)
  (void)settings;
  t.stopped = true;
  if (world_rank == 0)
    std::fprintf(stderr, "commprof: COMMPROF_TRACE is ignored under SimGrid: use smpirun -trace-ti\n");
  return false;
#else
  char resolved[PATH_MAX];
  t.dir = settings.TRACE;
  if (!make_dirs(t.dir)) {
    t.stopped = true;
    t.reason = "cannot create the directory " + t.dir + ": " + std::strerror(errno);
    return false;
  }
  if (realpath(t.dir.c_str(), resolved) != nullptr) t.dir = resolved;
  // A trace of an earlier run must not pass for this run's.
  if (world_rank == 0) {
    unlink((t.dir + "/trace.txt").c_str());
    unlink((t.dir + "/INCOMPLETE").c_str());
  }
  t.final_path = t.dir + "/rank-" + std::to_string(world_rank) + ".txt";
  t.tmp_path = t.final_path + ".tmp";
  t.fd = open(t.tmp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (t.fd < 0) {
    t.stopped = true;
    t.reason = "cannot create " + t.tmp_path + ": " + std::strerror(errno);
    return false;
  }
  t.buffer.reset(new char[kBufferBytes]);
  t.max_mb = settings.TRACE_MAX_MB;
  t.max_bytes = static_cast<std::uint64_t>(settings.TRACE_MAX_MB * 1024.0 * 1024.0);
  t.flops_per_ns = settings.TRACE_FLOPS * 1e-9;
  if (settings.TRACE_CLOCK == "wall") {
    g_clock = CLOCK_MONOTONIC;
  } else if (settings.TRACE_CLOCK != "cpu" && world_rank == 0) {
    std::fprintf(stderr, "commprof: warning: ignoring COMMPROF_TRACE_CLOCK='%s' (keeping cpu; cpu or wall)\n",
                 settings.TRACE_CLOCK.c_str());
  }
  tls_traced = true;
  begin(t, "init");
  emit(t);
  t.last_exit_ns = now_ns();
  return true;
#endif
}

void finish() {
  Tracer& t = tracer();
  // Everything after the last MPI call up to MPI_Finalize is computation.
  // finish() runs after the profile set g_mode to kOff: the stopped flag says
  // whether tracing was still on.
  if (t.started && !t.stopped && tls_traced) {
    t.outside_ns += now_ns() - t.last_exit_ns;
    emit_compute(t, true);
    if (action(t, "finalize")) emit(t);
    // A receive still outstanding (not freed) was cancelled: SimGrid's
    // replay waits for every outstanding request at the end and would
    // deadlock on it.
    const auto open_receives =
        std::count_if(t.pending.begin(), t.pending.end(), [](const Pending& p) { return p.is_recv && p.handle != MPI_REQUEST_NULL; });
    if (open_receives > 0)
      stop(std::to_string(open_receives) + " receive(s) never completed (cancelled?), which the replay would wait for forever");
  }
  int started = t.started ? 1 : 0, ranks_started = 0;
  PMPI_Allreduce(&started, &ranks_started, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (ranks_started == 0) return;
  bool ok = t.started && !t.stopped && flush(t);
  close_file(t);
  if (ok && std::rename(t.tmp_path.c_str(), t.final_path.c_str()) != 0) {
    t.reason = "cannot rename " + t.tmp_path + ": " + std::strerror(errno);
    ok = false;
  }
  if (!t.started) t.reason = "COMMPROF_TRACE is not set on this rank";
  // A stopped rank's partial file stays as rank-N.txt.tmp, for inspection.
  // The lowest failed rank tells rank 0 why (a broadcast: collectives cannot
  // match a message the program left unreceived).
  int me_ok = ok ? 1 : 0, ranks_ok = 0;
  PMPI_Allreduce(&me_ok, &ranks_ok, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int me = ok ? t.size : t.rank, first_failed = t.size;
  PMPI_Allreduce(&me, &first_failed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  char why[512] = {0};
  if (first_failed < t.size) {
    if (t.rank == first_failed) std::snprintf(why, sizeof why, "%s", t.reason.c_str());
    PMPI_Bcast(why, sizeof why, MPI_CHAR, first_failed, MPI_COMM_WORLD);
  }
  if (t.rank != 0 || t.dir.empty()) return;
  if (ranks_ok != t.size) {
    // No index: nothing can replay a trace with missing actions by mistake.
    const std::string what = std::to_string(t.size - ranks_ok) + " of " + std::to_string(t.size) +
                             " ranks stopped tracing; rank " + std::to_string(first_failed) + ": " + why;
    if (FILE* f = std::fopen((t.dir + "/INCOMPLETE").c_str(), "w")) {
      std::fprintf(f, "incomplete trace: %s\n", what.c_str());
      std::fclose(f);
    }
    std::fprintf(stderr, "commprof: trace in %s is incomplete (%s); no index written, the profile is not affected\n",
                 t.dir.c_str(), what.c_str());
    return;
  }
  std::string index;
  for (int r = 0; r < t.size; ++r) index += t.dir + "/rank-" + std::to_string(r) + ".txt\n";
  const std::string index_path = t.dir + "/trace.txt", tmp = index_path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "w");
  bool written = f != nullptr && std::fwrite(index.data(), 1, index.size(), f) == index.size();
  if (f != nullptr && std::fclose(f) != 0) written = false;
  if (!written || std::rename(tmp.c_str(), index_path.c_str()) != 0) {
    std::fprintf(stderr, "commprof: cannot write the trace index %s: %s\n", index_path.c_str(), std::strerror(errno));
    unlink(tmp.c_str());
    return;
  }
  if (t.verbose) std::fprintf(stderr, "commprof: wrote trace %s\n", index_path.c_str());
}

std::uint8_t enter(std::uint8_t mode) {
  if (COMMPROF_UNLIKELY(!tls_traced)) {
    stop("a second thread called MPI (only the thread that initialised MPI is traced)");
    return static_cast<std::uint8_t>(mode & ~kTraceBit);
  }
  Tracer& t = tracer();
  t.outside_ns += now_ns() - t.last_exit_ns;
  return mode;
}

void leave() { tracer().last_exit_ns = now_ns(); }

void unsupported(const char* mpi_name) {
  stop(std::string(mpi_name) + " has no equivalent in SimGrid's time-independent trace");
}

// --- point-to-point ---------------------------------------------------------

void send(MPI_Comm comm, int dest, int tag, MPI_Count count, MPI_Datatype type, const MPI_Request* request) {
  if (dest < 0) return;  // MPI_PROC_NULL: no message
  Tracer& t = tracer();
  const int world = world_rank_of(comm, dest);
  if (world < 0) return stop("a send to a process outside MPI_COMM_WORLD");
  if (!action(t, request ? "isend" : "send")) return;
  const Sized s = sized(count, type);
  field(t, world);
  field(t, tag);
  field(t, s.count);
  field(t, s.id);
  if (emit(t) >= 0 && request != nullptr) t.pending.push_back({*request, comm, t.rank, world, tag, false, -1});
}

void recv(MPI_Comm comm, int source, int tag, MPI_Count count, MPI_Datatype type, const MPI_Status* status) {
  if (source == MPI_PROC_NULL) return;
  Tracer& t = tracer();
  const int world = world_rank_of(comm, status->MPI_SOURCE);  // the real source, wildcard or not
  if (world < 0) return stop("a receive from a process outside MPI_COMM_WORLD");
  if (!action(t, "recv")) return;
  const Sized s = sized(count, type);
  field(t, world);
  field(t, tag == MPI_ANY_TAG ? status->MPI_TAG : tag);
  field(t, s.count);
  field(t, s.id);
  emit(t);
}

void irecv(MPI_Comm comm, int source, int tag, MPI_Count count, MPI_Datatype type, MPI_Request request) {
  if (source == MPI_PROC_NULL) return;
  Tracer& t = tracer();
  const bool wildcard = source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG;
  const int world = source == MPI_ANY_SOURCE ? t.rank : world_rank_of(comm, source);
  if (world < 0) return stop("a receive from a process outside MPI_COMM_WORLD");
  if (!action(t, "irecv")) return;
  const Sized s = sized(count, type);
  std::size_t source_at = 0;
  if (wildcard) {
    // Patched at completion; until then this rank and tag 0 stand in.
    source_at = padded_field(t, world);
    padded_field(t, tag == MPI_ANY_TAG ? 0 : tag);
  } else {
    field(t, world);
    field(t, tag);
  }
  field(t, s.count);
  field(t, s.id);
  const std::int64_t at = emit(t);
  if (at < 0) return;
  t.pending.push_back({request, comm, world, t.rank, tag, true, wildcard ? at + static_cast<std::int64_t>(source_at) : -1});
}

void sendrecv(MPI_Comm comm, int dest, int sendtag, MPI_Count sendcount, MPI_Datatype sendtype, int source, int recvtag,
              MPI_Count recvcount, MPI_Datatype recvtype, const MPI_Status* status) {
  Tracer& t = tracer();
  if (dest < 0 || source == MPI_PROC_NULL) {  // one half only: a plain send or receive
    if (dest >= 0) send(comm, dest, sendtag, sendcount, sendtype, nullptr);
    if (source != MPI_PROC_NULL) recv(comm, source, recvtag, recvcount, recvtype, status);
    return;
  }
  const int to = world_rank_of(comm, dest), from = world_rank_of(comm, status->MPI_SOURCE);
  if (to < 0 || from < 0) return stop("a sendrecv with a process outside MPI_COMM_WORLD");
  const int tag_in = recvtag == MPI_ANY_TAG ? status->MPI_TAG : recvtag;
  const Sized out = sized(sendcount, sendtype), in = sized(recvcount, recvtype);
  // SimGrid's sendRecv has no tags: it sends and receives with tag 0
  // (checked: against an irecv/send pair with tag 5 the replay deadlocks).
  // It is written only when both tags are 0; otherwise the same exchange
  // with the program's tags: irecv, isend, and their two waits at once.
  if (sendtag == 0 && tag_in == 0) {
    if (!action(t, "sendRecv")) return;
    field(t, out.count);
    field(t, to);
    field(t, in.count);
    field(t, from);
    field(t, out.id);
    field(t, in.id);
    emit(t);
    return;
  }
  if (!action(t, "irecv")) return;
  field(t, from);
  field(t, tag_in);
  field(t, in.count);
  field(t, in.id);
  if (emit(t) < 0 || !action(t, "isend")) return;
  field(t, to);
  field(t, sendtag);
  field(t, out.count);
  field(t, out.id);
  if (emit(t) < 0) return;
  write_wait(t, Pending{MPI_REQUEST_NULL, comm, from, t.rank, tag_in, true});
  write_wait(t, Pending{MPI_REQUEST_NULL, comm, t.rank, to, sendtag, false});
}

// --- persistent requests -------------------------------------------------------

void persistent_init(MPI_Request request, MPI_Comm comm, bool is_recv, int peer, int tag, MPI_Count count,
                MPI_Datatype type) {
  // insert_or_assign: a handle freed behind our back may be reused.
  tracer().plans.insert_or_assign(request, Plan{comm, is_recv, peer, tag, count, type});
}

void start(int count, const MPI_Request requests[]) {
  Tracer& t = tracer();
  for (int i = 0; i < count && !t.stopped; ++i) {
    MPI_Request handle = requests[i];
    auto it = t.plans.find(handle);
    if (it == t.plans.end())
      return stop("MPI_Start of a persistent collective or of a request made before tracing began");
    const Plan& p = it->second;
    if (p.is_recv)
      irecv(p.comm, p.peer, p.tag, p.count, p.type, handle);
    else
      send(p.comm, p.peer, p.tag, p.count, p.type, &handle);
  }
}

void request_free(MPI_Request request) {
  Tracer& t = tracer();
  t.plans.erase(request);
  // An active request freed: MPI completes it unseen. The replay keeps it
  // outstanding, and so does this trace (waitall stays "everything
  // outstanding"), but under no handle: MPI may reuse this one.
  const std::size_t p = find_pending(t, request);
  if (p < t.pending.size()) t.pending[p].handle = MPI_REQUEST_NULL;
}

void fortran(const char* symbol) {
  stop(std::string("Fortran calls are not traced under Open MPI (") + symbol + ")");
}

// --- completion ---------------------------------------------------------------

void requests_pre(int count, const MPI_Request requests[]) {
  Tracer& t = tracer();
  t.completing.assign(requests, requests + (count > 0 ? count : 0));
}

void completed_all(const MPI_Status statuses[]) {
  Tracer& t = tracer();
  std::size_t done = 0;
  for (std::size_t i = 0; i < t.completing.size(); ++i) {
    const std::size_t p = find_pending(t, t.completing[i]);
    if (p == t.pending.size()) continue;  // null, MPI_PROC_NULL, or begun before tracing
    Pending& entry = t.pending[p];
    if (entry.is_recv && !resolve(t, entry, &statuses[i])) return;
    entry.done = true;
    ++done;
  }
  if (done == 0) return;
  if (t.completing.size() > 1 && done == t.pending.size()) {
    if (action(t, "waitall")) {
      field(t, done);
      emit(t);
    }
    t.pending.clear();
    return;
  }
  // One wait per completed request, in the call's order.
  for (MPI_Request handle : t.completing) {
    const std::size_t p = find_pending(t, handle);
    if (p < t.pending.size() && t.pending[p].done) write_wait(t, t.pending[p]);
  }
  t.pending.erase(std::remove_if(t.pending.begin(), t.pending.end(), [](const Pending& e) { return e.done; }),
                  t.pending.end());
}

void completed_one(int index, const MPI_Status* status) {
  Tracer& t = tracer();
  if (index < 0 || static_cast<std::size_t>(index) >= t.completing.size()) return;  // MPI_UNDEFINED: none active
  const std::size_t p = find_pending(t, t.completing[static_cast<std::size_t>(index)]);
  if (p == t.pending.size()) return;
  if (t.pending[p].is_recv && !resolve(t, t.pending[p], status)) return;
  write_wait(t, t.pending[p]);
  t.pending.erase(t.pending.begin() + static_cast<std::ptrdiff_t>(p));
}

void completed_some(int outcount, const int indices[], const MPI_Status statuses[]) {
  if (outcount == MPI_UNDEFINED) return;
  // Against the handles noted before the call (MPI nulled the completed ones).
  for (int i = 0; i < outcount; ++i) completed_one(indices[i], &statuses[i]);
}

// --- collectives ----------------------------------------------------------

void barrier(MPI_Comm comm, const char* mpi_name) {
  Tracer& t = tracer();
  if (const auto c = sub_comm(t, comm, mpi_name)) return write_rounds(t, *c, "barrier", rounds::barrier(c->n, c->me));
  if (collective(t, comm, "barrier", mpi_name)) emit(t);
}

void bcast(MPI_Comm comm, MPI_Count count, MPI_Datatype type, int root, const char* mpi_name) {
  Tracer& t = tracer();
  if (const auto c = sub_comm(t, comm, mpi_name))
    return write_rounds(t, *c, "bcast", rounds::bcast(c->n, c->me, root, bytes_of(count, type)));
  if (!collective(t, comm, "bcast", mpi_name)) return;
  const Sized s = sized(count, type);
  field(t, s.count);
  field(t, root);
  field(t, s.id);
  emit(t);
}

void reduce(MPI_Comm comm, MPI_Count count, MPI_Datatype type, int root, const char* mpi_name) {
  Tracer& t = tracer();
  if (const auto c = sub_comm(t, comm, mpi_name))
    return write_rounds(t, *c, "reduce", rounds::reduce(c->n, c->me, root, bytes_of(count, type)));
  if (!collective(t, comm, "reduce", mpi_name)) return;
  const Sized s = sized(count, type);
  field(t, s.count);
  field(t, 0);  // flops of the reduction: not measured, as SMPI writes
  field(t, root);
  field(t, s.id);
  emit(t);
}

void allreduce(MPI_Comm comm, MPI_Count count, MPI_Datatype type, const char* mpi_name) {
  Tracer& t = tracer();
  if (const auto c = sub_comm(t, comm, mpi_name))
    return write_rounds(t, *c, "allreduce", rounds::allreduce(c->n, c->me, bytes_of(count, type)));
  if (!collective(t, comm, "allreduce", mpi_name)) return;
  const Sized s = sized(count, type);
  field(t, s.count);
  field(t, 0);
  field(t, s.id);
  emit(t);
}

void alltoall(MPI_Comm comm, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, MPI_Count recvcount,
              MPI_Datatype recvtype, const char* mpi_name) {
  Tracer& t = tracer();
  if (const auto c = sub_comm(t, comm, mpi_name))
    return write_rounds(t, *c, "alltoall", rounds::alltoall(c->n, c->me, bytes_of(recvcount, recvtype)));
  if (!collective(t, comm, "alltoall", mpi_name)) return;
  const Sized out = sendbuf == MPI_IN_PLACE ? sized(recvcount, recvtype) : sized(sendcount, sendtype);
  const Sized in = sized(recvcount, recvtype);
  field(t, out.count);
  field(t, in.count);
  field(t, out.id);
  field(t, in.id);
  emit(t);
}

// gather and scatter: "<op> sendcount recvcount root dt1 dt2"; with
// MPI_IN_PLACE at the root the other side's arguments describe the block.
void gather(MPI_Comm comm, const char* op, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
            MPI_Count recvcount, MPI_Datatype recvtype, int root, const char* mpi_name) {
  Tracer& t = tracer();
  if (const auto c = sub_comm(t, comm, mpi_name)) {
    // The block each member contributes (gather) or gets (scatter: the
    // receive side, significant on every member).
    const bool scatter = std::strcmp(op, "scatter") == 0;
    const std::uint64_t block =
        scatter || sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
    return write_rounds(t, *c, op,
                        scatter ? rounds::scatter(c->n, c->me, root, block) : rounds::gather(c->n, c->me, root, block));
  }
  if (!collective(t, comm, op, mpi_name)) return;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const Sized out = in_place ? sized(recvcount, recvtype) : sized(sendcount, sendtype);
  const Sized in = in_place ? out : sized(recvcount, recvtype);
  field(t, out.count);
  field(t, in.count);
  field(t, root);
  field(t, out.id);
  field(t, in.id);
  emit(t);
}

void allgather(MPI_Comm comm, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, MPI_Count recvcount,
               MPI_Datatype recvtype, const char* mpi_name) {
  Tracer& t = tracer();
  if (const auto c = sub_comm(t, comm, mpi_name))
    return write_rounds(t, *c, "allgather", rounds::allgather(c->n, c->me, bytes_of(recvcount, recvtype)));
  if (!collective(t, comm, "allgather", mpi_name)) return;
  const Sized in = sized(recvcount, recvtype);
  const Sized out = sendbuf == MPI_IN_PLACE ? in : sized(sendcount, sendtype);
  field(t, out.count);
  field(t, in.count);
  field(t, out.id);
  field(t, in.id);
  emit(t);
}

template <class Count>
void alltoallv(MPI_Comm comm, const void* sendbuf, const Count sendcounts[], MPI_Datatype sendtype,
               const Count recvcounts[], MPI_Datatype recvtype, const char* mpi_name) {
  Tracer& t = tracer();
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (const auto c = sub_comm(t, comm, mpi_name))
    return write_rounds(t, *c, "alltoallv",
                        rounds::alltoallv(c->n, c->me,
                                          in_place ? blocks_of(*c, recvcounts, recvtype) : blocks_of(*c, sendcounts, sendtype),
                                          blocks_of(*c, recvcounts, recvtype)));
  if (!collective(t, comm, "alltoallv", mpi_name)) return;
  const Count* out_counts = in_place ? recvcounts : sendcounts;
  const Sized out = unit(in_place ? recvtype : sendtype), in = unit(recvtype);
  std::uint64_t out_total = 0, in_total = 0;
  for (int i = 0; i < t.size; ++i) out_total += static_cast<std::uint64_t>(out_counts[i]) * out.count;
  for (int i = 0; i < t.size; ++i) in_total += static_cast<std::uint64_t>(recvcounts[i]) * in.count;
  field(t, out_total);
  for (int i = 0; i < t.size; ++i) field(t, static_cast<std::uint64_t>(out_counts[i]) * out.count);
  field(t, in_total);
  for (int i = 0; i < t.size; ++i) field(t, static_cast<std::uint64_t>(recvcounts[i]) * in.count);
  field(t, out.id);
  field(t, in.id);
  emit(t);
}

template <class Count>
void gatherv(MPI_Comm comm, const void* sendbuf, Count sendcount, MPI_Datatype sendtype, const Count recvcounts[],
             MPI_Datatype recvtype, int root, const char* mpi_name) {
  Tracer& t = tracer();
  if (const auto c = sub_comm(t, comm, mpi_name))
    return write_rounds(t, *c, "gatherv",
                        rounds::gatherv(c->n, c->me, root,
                                        rooted_blocks_of(*c, root, recvcounts, recvtype, bytes_of(sendcount, sendtype))));
  if (!collective(t, comm, "gatherv", mpi_name)) return;
  const bool is_root = t.rank == root;
  const Sized in = unit(recvtype);
  const Sized out = sendbuf == MPI_IN_PLACE ? sized(recvcounts[root], recvtype) : sized(sendcount, sendtype);
  field(t, out.count);
  for (int i = 0; i < t.size; ++i) field(t, is_root ? static_cast<std::uint64_t>(recvcounts[i]) * in.count : 0);
  field(t, root);
  field(t, out.id);
  field(t, in.id);
  emit(t);
}

template <class Count>
void scatterv(MPI_Comm comm, const Count sendcounts[], MPI_Datatype sendtype, const void* recvbuf, Count recvcount,
              MPI_Datatype recvtype, int root, const char* mpi_name) {
  Tracer& t = tracer();
  if (const auto c = sub_comm(t, comm, mpi_name))
    return write_rounds(t, *c, "scatterv",
                        rounds::scatterv(c->n, c->me, root,
                                         rooted_blocks_of(*c, root, sendcounts, sendtype, bytes_of(recvcount, recvtype))));
  if (!collective(t, comm, "scatterv", mpi_name)) return;
  const bool is_root = t.rank == root;
  const Sized out = unit(sendtype);
  const Sized in = recvbuf == MPI_IN_PLACE ? sized(sendcounts[root], sendtype) : sized(recvcount, recvtype);
  for (int i = 0; i < t.size; ++i) field(t, is_root ? static_cast<std::uint64_t>(sendcounts[i]) * out.count : 0);
  field(t, in.count);
  field(t, root);
  field(t, out.id);
  field(t, in.id);
  emit(t);
}

template <class Count>
void allgatherv(MPI_Comm comm, const void* sendbuf, Count sendcount, MPI_Datatype sendtype, const Count recvcounts[],
                MPI_Datatype recvtype, const char* mpi_name) {
  Tracer& t = tracer();
  if (const auto c = sub_comm(t, comm, mpi_name))
    return write_rounds(t, *c, "allgatherv", rounds::allgatherv(c->n, c->me, blocks_of(*c, recvcounts, recvtype)));
  if (!collective(t, comm, "allgatherv", mpi_name)) return;
  const Sized in = unit(recvtype);
  const Sized out = sendbuf == MPI_IN_PLACE ? sized(recvcounts[t.rank], recvtype) : sized(sendcount, sendtype);
  field(t, out.count);
  for (int i = 0; i < t.size; ++i) field(t, static_cast<std::uint64_t>(recvcounts[i]) * in.count);
  field(t, out.id);
  field(t, in.id);
  emit(t);
}

template <class Count>
void reduce_scatter(MPI_Comm comm, const Count recvcounts[], MPI_Datatype type, const char* mpi_name) {
  Tracer& t = tracer();
  if (const auto c = sub_comm(t, comm, mpi_name))
    return write_rounds(t, *c, "reducescatter", rounds::reduce_scatter(c->n, c->me, blocks_of(*c, recvcounts, type)));
  if (!collective(t, comm, "reducescatter", mpi_name)) return;
  const Sized u = unit(type);
  for (int i = 0; i < t.size; ++i) field(t, static_cast<std::uint64_t>(recvcounts[i]) * u.count);
  field(t, 0);
  field(t, u.id);
  emit(t);
}

void reduce_scatter_block(MPI_Comm comm, MPI_Count recvcount, MPI_Datatype type, const char* mpi_name) {
  Tracer& t = tracer();
  if (const auto c = sub_comm(t, comm, mpi_name))
    return write_rounds(t, *c, "reducescatter",
                        rounds::reduce_scatter_block(c->n, c->me, bytes_of(recvcount, type)));
  if (!collective(t, comm, "reducescatter", mpi_name)) return;
  const Sized s = sized(recvcount, type);
  for (int i = 0; i < t.size; ++i) field(t, s.count);
  field(t, 0);
  field(t, s.id);
  emit(t);
}

#define COMMPROF_TRACE_INSTANTIATE(Count)                                                                        \
  template void alltoallv<Count>(MPI_Comm, const void*, const Count[], MPI_Datatype, const Count[], MPI_Datatype, \
                                 const char*);                                                                  \
  template void gatherv<Count>(MPI_Comm, const void*, Count, MPI_Datatype, const Count[], MPI_Datatype, int,     \
                               const char*);                                                                    \
  template void scatterv<Count>(MPI_Comm, const Count[], MPI_Datatype, const void*, Count, MPI_Datatype, int,    \
                                const char*);                                                                   \
  template void allgatherv<Count>(MPI_Comm, const void*, Count, MPI_Datatype, const Count[], MPI_Datatype,       \
                                  const char*);                                                                 \
  template void reduce_scatter<Count>(MPI_Comm, const Count[], MPI_Datatype, const char*);
COMMPROF_TRACE_INSTANTIATE(int)
COMMPROF_TRACE_INSTANTIATE(MPI_Count)
#undef COMMPROF_TRACE_INSTANTIATE

}  // namespace commprof::trace
