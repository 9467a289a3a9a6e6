// libcommprof's state: lazy initialisation, per-communicator rank translation
// cached as attributes, persistent-request plans, and the end-of-run gather
// that rank 0 turns into one profile written through rankmap::write_profile.

#include <dlfcn.h>
#include <link.h>
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "collectives.hpp"
#include "hooks.hpp"
#include "rankmap/profile.hpp"
#include "settings.hpp"
#include "trace.hpp"

namespace commprof {

std::atomic<std::uint8_t> g_mode{kUninitialized};
bool g_use_tsc = false;
bool g_builtin_size_fast_path = false;
#if defined(COMMPROF_SMPI)
ThreadState* tls_state = nullptr;
#else
__thread ThreadState* tls_state = nullptr;
#endif

namespace {

struct Runtime {
  std::mutex init_mutex;
  Settings settings;
  int world_rank = -1;
  int world_size = 0;
  MPI_Group world_group = MPI_GROUP_NULL;
  int comm_keyval = MPI_KEYVAL_INVALID;
  int win_keyval = MPI_KEYVAL_INVALID;
  int self_keyval = MPI_KEYVAL_INVALID;
  bool finished = false;  // finish() ran (it must run once: it is collective)
  std::string host;
  int core = -1;
  bool yield_shim = false;        // libcommprof-yield is loaded: its loops are this process's waits
  double wall_start = 0;          // MPI_Wtime-independent: CLOCK_MONOTONIC seconds
  std::uint64_t ticks_start = 0;

  // Every thread's counters; owned here so they outlive the threads.
  std::mutex threads_mutex;
  std::vector<std::unique_ptr<ThreadState>> threads;

  // Translation tables are built once per communicator/window under this
  // lock; afterwards they are read lock-free through the attribute.
  std::mutex info_mutex;

  // Persistent requests (point-to-point *_init and persistent all-to-all /
  // neighbourhood collectives): what one Start of the request sends.
  std::mutex plans_mutex;
  std::unordered_map<MPI_Request, std::vector<PlannedSend>> plans;

  // Collective statistics of every intracommunicator seen (under info_mutex).
  std::vector<std::unique_ptr<CommStats>> comm_stats;
};

Runtime& rt() {
  // Leaked on purpose: wrappers may run from other threads or atexit handlers
  // after static destructors.
  static Runtime* runtime = new Runtime;
  return *runtime;
}

double monotonic_seconds() {
#if defined(COMMPROF_SMPI)
  return simgrid_get_clock();  // simulated seconds
#endif
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

bool cpu_has_invariant_tsc() {
#if defined(__x86_64__)
  // rdtsc only measures time if the counter runs at a constant rate and does
  // not stop in idle states; Linux reports both flags.
  FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (!f) return false;
  char line[4096];
  bool constant = false, nonstop = false;
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, "flags", 5) != 0) continue;
    constant = std::strstr(line, " constant_tsc") != nullptr;
    nonstop = std::strstr(line, " nonstop_tsc") != nullptr;
    break;
  }
  std::fclose(f);
  return constant && nonstop;
#else
  return false;
#endif
}

void check_builtin_size_fast_path() {
  const MPI_Datatype samples[] = {MPI_CHAR, MPI_BYTE, MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG,
                                  MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_UNSIGNED, MPI_2INT,
                                  MPI_INT64_T, MPI_C_DOUBLE_COMPLEX, MPI_AINT, MPI_COUNT};
  g_builtin_size_fast_path = true;
  for (MPI_Datatype t : samples) {
    if (type_size(t) != type_size_slow(t)) {
      g_builtin_size_fast_path = false;
      return;
    }
  }
}

std::string default_output_name(int pid) {
  for (const char* var : {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "COBALT_JOBID", "JOB_ID"}) {
    const char* v = std::getenv(var);
    if (v && *v) {
      std::string id = v;
      for (char& c : id)
        if (c == '/' || c == ' ') c = '_';
      return "commprof." + id + ".prof";
    }
  }
  return "commprof." + std::to_string(pid) + ".prof";
}

// --- communicator and window information ---------------------------------

int comm_info_delete(MPI_Comm, int, void* value, void*) {
  delete static_cast<CommInfo*>(value);
  return MPI_SUCCESS;
}

int win_info_delete(MPI_Win, int, void* value, void*) {
  delete static_cast<CommInfo*>(value);
  return MPI_SUCCESS;
}

// World ranks of `group`'s members, in group order; empty if it is exactly
// MPI_COMM_WORLD's order (the common dup/split-by-color-only case), so
// world-sized communicators cost no table.
std::vector<int> world_ranks_of(MPI_Group group, int size, bool* identity) {
  std::vector<int> ranks(static_cast<size_t>(size)), world(static_cast<size_t>(size));
  for (int i = 0; i < size; ++i) ranks[i] = i;
  PMPI_Group_translate_ranks(group, size, ranks.data(), rt().world_group, world.data());
  *identity = size == rt().world_size;
  for (int i = 0; *identity && i < size; ++i) *identity = world[i] == i;
  if (*identity) world.clear();
  for (int& w : world)
    if (w == MPI_UNDEFINED) w = -1;  // a process outside MPI_COMM_WORLD (spawned): not recorded
  return world;
}

CommInfo* build_comm_info(MPI_Comm comm) {
  auto info = std::make_unique<CommInfo>();
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  info->inter = inter != 0;
  MPI_Group group;
  if (info->inter) {
    PMPI_Comm_remote_size(comm, &info->size);
    PMPI_Comm_remote_group(comm, &group);
    info->my_rank = -1;  // no member of the remote group is this process
  } else {
    PMPI_Comm_size(comm, &info->size);
    PMPI_Comm_rank(comm, &info->my_rank);
    PMPI_Comm_group(comm, &group);
  }
  info->world = world_ranks_of(group, info->size, &info->identity);
  PMPI_Group_free(&group);
  if (!info->inter) {
    info->out_neighbors = out_neighbors_of(comm, &info->topology);
    auto stats = std::make_unique<CommStats>();
    stats->size = info->size;
    // FNV-1a over the members' world ranks: equal on every member.
    std::uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < info->size; ++i) {
      h ^= static_cast<std::uint32_t>(info->world_of(i));
      h *= 1099511628211ull;
    }
    stats->members_hash = h;
    if (info->my_rank == 0)
      for (int i = 0; i < info->size; ++i) stats->members.push_back(info->world_of(i));
    info->stats = stats.get();
    rt().comm_stats.push_back(std::move(stats));
  }
  return info.release();
}

}  // namespace

const CommInfo& comm_info(MPI_Comm comm) {
  Runtime& r = rt();
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, r.comm_keyval, &value, &found);
  if (COMMPROF_LIKELY(found)) return *static_cast<CommInfo*>(value);
  std::lock_guard<std::mutex> lock(r.info_mutex);
  PMPI_Comm_get_attr(comm, r.comm_keyval, &value, &found);  // another thread may have won
  if (found) return *static_cast<CommInfo*>(value);
  CommInfo* info = build_comm_info(comm);
  PMPI_Comm_set_attr(comm, r.comm_keyval, info);
  return *info;
}

int translate_slow(MPI_Comm comm, int rank) { return comm_info(comm).world_of(rank); }

int translate_win(MPI_Win win, int rank) {
  Runtime& r = rt();
  void* value = nullptr;
  int found = 0;
  PMPI_Win_get_attr(win, r.win_keyval, &value, &found);
  if (!found) {
    std::lock_guard<std::mutex> lock(r.info_mutex);
    PMPI_Win_get_attr(win, r.win_keyval, &value, &found);
    if (!found) {
      auto info = std::make_unique<CommInfo>();
      MPI_Group group;
      PMPI_Win_get_group(win, &group);
      PMPI_Group_size(group, &info->size);
      info->world = world_ranks_of(group, info->size, &info->identity);
      PMPI_Group_free(&group);
      value = info.release();
      PMPI_Win_set_attr(win, r.win_keyval, value);
    }
  }
  return static_cast<CommInfo*>(value)->world_of(rank);
}

const char* coll_name(Coll op) {
  static const char* const names[] = {"bcast",     "reduce",    "allreduce",      "scan",
                                      "exscan",    "barrier",   "gather",         "gatherv",
                                      "scatter",   "scatterv",  "allgather",      "allgatherv",
                                      "reduce_scatter", "reduce_scatter_block"};
  static_assert(sizeof names / sizeof names[0] == static_cast<size_t>(Coll::count_), "one name per operation");
  return names[static_cast<size_t>(op)];
}

int coll_comm_size(MPI_Comm comm, int root, bool* is_root) {
  const CommInfo& info = comm_info(comm);
  *is_root = !info.inter && info.my_rank == root;
  return info.size;
}

void on_collective(MPI_Comm comm, Coll op, int root, std::uint64_t bytes) {
  const CommInfo& info = comm_info(comm);
  // Intercommunicator collectives (MPI_ROOT / MPI_PROC_NULL roots, two
  // groups) are not recorded: see docs/profiler.md.
  if (info.inter || info.stats == nullptr) return;
  // MPI forbids concurrent collectives on one communicator, so its stats
  // need no lock; different communicators have different stats.
  for (CommStats::Entry& e : info.stats->entries) {
    if (e.op == static_cast<std::uint8_t>(op) && e.root == root) {
      ++e.calls;
      e.bytes += bytes;
      return;
    }
  }
  info.stats->entries.push_back({static_cast<std::uint8_t>(op), root, 1, bytes});
}

std::uint64_t type_size_slow(MPI_Datatype type) {
  MPI_Count size = 0;
  if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0) return 0;
  return static_cast<std::uint64_t>(size);
}

ThreadState* register_thread() {
  auto state = std::make_unique<ThreadState>();
  ThreadState* raw = state.get();
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.threads_mutex);
  r.threads.push_back(std::move(state));
  tls_state = raw;
  return raw;
}

// --- persistent requests --------------------------------------------------

void register_plan(MPI_Request request, std::vector<PlannedSend> sends) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.plans_mutex);
  // insert_or_assign: a handle freed behind our back (f08 MPI_Request_free
  // calls PMPI directly) may be reused for a new persistent request.
  r.plans.insert_or_assign(request, std::move(sends));
}

void register_plan_send(MPI_Request request, MPI_Comm comm, int dest, std::uint64_t bytes) {
  std::vector<PlannedSend> sends;
  if (dest >= 0) {
    const int world = world_rank_of(comm, dest);
    if (world >= 0) sends.push_back({world, bytes});
  }
  register_plan(request, std::move(sends));
}

void on_startall(int count, const MPI_Request requests[]) {
  Runtime& r = rt();
  ThreadState& ts = thread_state();
  std::lock_guard<std::mutex> lock(r.plans_mutex);
  for (int i = 0; i < count; ++i) {
    auto it = r.plans.find(requests[i]);
    if (it == r.plans.end()) continue;  // a persistent receive, or created before init
    for (const PlannedSend& s : it->second) ts.p2p.add(s.world_dest, 1, s.bytes);
  }
}

void on_start(MPI_Request request) { on_startall(1, &request); }

void on_request_free(MPI_Request request) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.plans_mutex);
  r.plans.erase(request);
}

void rma_record(MPI_Win win, int target, bool to_target, std::uint64_t bytes) {
  if (target < 0) return;  // MPI_PROC_NULL
  const int world = translate_win(win, target);
  if (world < 0) return;
  ThreadState& ts = thread_state();
  (to_target ? ts.osc : ts.osc_in).add(world, 1, bytes);
}

// --- start and end of the run ---------------------------------------------

namespace {

void finish();

int self_attr_delete(MPI_Comm, int, void*, void*) {
  // MPI deletes MPI_COMM_SELF's attributes first thing in MPI_Finalize, and
  // does so whichever binding called it: the one end-of-run hook that also
  // works for mpi_f08 programs.
  finish();
  return MPI_SUCCESS;
}

void initialize_locked() {
  Runtime& r = rt();
  std::vector<std::string> warnings;
  r.settings = read_settings(&warnings);
  PMPI_Comm_rank(MPI_COMM_WORLD, &r.world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &r.world_size);
  if (r.world_rank == 0) {
    for (const std::string& w : warnings) std::fprintf(stderr, "commprof: warning: %s\n", w.c_str());
    if (r.settings.HELP) std::fprintf(stderr, "commprof settings:\n%s", settings_help().c_str());
  }
  // The end-of-run hook is set on disabled ranks too: finish() first agrees
  // on COMMPROF_ENABLE across ranks, so a mismatch cannot leave the enabled
  // ranks waiting in the gather for ranks that never come.
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_attr_delete, &r.self_keyval, nullptr);
  PMPI_Comm_set_attr(MPI_COMM_SELF, r.self_keyval, nullptr);
  if (!r.settings.ENABLE) {
    g_mode.store(kOff, std::memory_order_release);
    return;
  }
  PMPI_Comm_group(MPI_COMM_WORLD, &r.world_group);
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_info_delete, &r.comm_keyval, nullptr);
  PMPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_info_delete, &r.win_keyval, nullptr);

#if defined(COMMPROF_SMPI)
  char host[MPI_MAX_PROCESSOR_NAME + 1] = {0};
  int host_len = 0;  // the simulated host; the CPU number means nothing in simulation
  if (PMPI_Get_processor_name(host, &host_len) != MPI_SUCCESS || host[0] == '\0') std::strcpy(host, "unknown");
  r.core = -1;
#else
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::strcpy(host, "unknown");
  r.core = sched_getcpu();
#endif
  for (char* c = host; *c; ++c)
    if (*c == ' ' || *c == '\t') *c = '_';
  r.host = host;
  // libcommprof-yield defines this; behind the profiler in LD_PRELOAD its
  // loops are the PMPI_Wait/Waitall/Recv our wrappers time.
  void* shim = dlsym(RTLD_DEFAULT, "commprof_yield_shim");
  r.yield_shim = shim != nullptr;
  if (shim != nullptr && r.world_rank == 0) {
    // In front of the profiler, the shim's MPI_Wait would bypass our timed one.
    Dl_info shim_object{}, wait_object{};
    void* wait = dlsym(RTLD_DEFAULT, "MPI_Wait");
    if (wait != nullptr && dladdr(shim, &shim_object) != 0 && dladdr(wait, &wait_object) != 0 &&
        shim_object.dli_fbase == wait_object.dli_fbase)
      std::fprintf(stderr, "commprof: warning: libcommprof-yield comes before libcommprof in LD_PRELOAD: "
                           "waits are not timed (commprof-run --yield puts it after)\n");
  }
  g_use_tsc = cpu_has_invariant_tsc();
  check_builtin_size_fast_path();
  r.wall_start = monotonic_seconds();
  r.ticks_start = clock_ticks();
  std::uint8_t mode = r.settings.TIMING ? kCountingTimed : kCounting;
  if (trace::start(r.settings, r.world_rank, r.world_size)) mode |= kTraceBit;
  g_mode.store(mode, std::memory_order_release);
}

std::vector<PeerCount> merge(PeerTable ThreadState::*table, int self) {
  std::map<int, PeerCount> total;
  for (const auto& t : rt().threads) {
    for (const PeerCount& c : ((*t).*table).entries()) {
      if (c.peer == self) continue;  // traffic to oneself never crosses a link
      PeerCount& sum = total.emplace(c.peer, PeerCount{c.peer, 0, 0}).first->second;
      sum.messages += c.messages;
      sum.bytes += c.bytes;
    }
  }
  std::vector<PeerCount> out;
  out.reserve(total.size());
  for (const auto& kv : total) out.push_back(kv.second);
  return out;
}

// Fixed-size per-rank record for the gather.
struct RankRecord {
  char host[256];
  int core;
  int yield_shim;
  double wall;
  double mpi;
};

// Wire form of one traffic entry.
struct WireCount {
  std::int64_t peer;
  std::uint64_t messages;
  std::uint64_t bytes;
};

void append(std::vector<WireCount>* out, const std::vector<PeerCount>& list) {
  for (const PeerCount& c : list) out->push_back({c.peer, c.messages, c.bytes});
}

// Gatherv to rank 0 with 64-bit counts and displacements: MPI_Gatherv_c
// where the MPI has it; SimGrid SMPI and Open MPI 4.1 (MPI 3.1) have not, so
// there the int form, whose displacements overflow past 2^31 (rank, peer)
// entries in the whole job.
void gatherv(const void* send, MPI_Count n, MPI_Datatype type, void* recv, const std::vector<MPI_Count>& counts,
             const std::vector<MPI_Aint>& displs, int world_rank) {
#if defined(COMMPROF_SMPI) || MPI_VERSION < 4
  std::vector<int> icounts(counts.begin(), counts.end()), idispls(displs.begin(), displs.end());
  PMPI_Gatherv(send, static_cast<int>(n), type, recv, world_rank == 0 ? icounts.data() : nullptr,
               world_rank == 0 ? idispls.data() : nullptr, type, 0, MPI_COMM_WORLD);
#else
  (void)world_rank;
  PMPI_Gatherv_c(send, n, type, recv, counts.data(), displs.data(), type, 0, MPI_COMM_WORLD);
#endif
}

// Sparse gather of variable-length arrays of WireCount to rank 0; every rank
// sends only what it has. MPI_Gatherv_c keeps the displacements 64-bit.
std::vector<WireCount> gather_counts(const std::vector<WireCount>& mine, std::vector<MPI_Count>* counts) {
  Runtime& r = rt();
  MPI_Datatype wire;
  PMPI_Type_contiguous(3, MPI_UINT64_T, &wire);
  PMPI_Type_commit(&wire);
  const MPI_Count n = static_cast<MPI_Count>(mine.size());
  std::vector<MPI_Aint> displs;
  std::vector<WireCount> all;
  if (r.world_rank == 0) counts->assign(static_cast<size_t>(r.world_size), 0);
  PMPI_Gather(&n, 1, MPI_COUNT, r.world_rank == 0 ? counts->data() : nullptr, 1, MPI_COUNT, 0, MPI_COMM_WORLD);
  if (r.world_rank == 0) {
    displs.resize(counts->size());
    MPI_Aint total = 0;
    for (size_t i = 0; i < counts->size(); ++i) {
      displs[i] = total;
      total += static_cast<MPI_Aint>((*counts)[i]);
    }
    all.resize(static_cast<size_t>(total));
  }
  gatherv(mine.data(), n, wire, all.data(), *counts, displs, r.world_rank);
  PMPI_Type_free(&wire);
  return all;
}

// Collective records: each rank merges its communicators with equal
// membership (dups), sends [hash, size, n_entries, n_members, entries...,
// members...] as int64, and rank 0 keeps, per record, the largest count and
// payload any member saw (the root's view for the v-variants; all members
// make the same number of calls).
void gather_collectives(rankmap::Profile* profile) {
  Runtime& r = rt();
  struct Merged {
    int size = 0;
    std::vector<int> members;
    std::map<std::pair<int, int>, std::pair<std::uint64_t, std::uint64_t>> entries;  // (op, root) -> (calls, bytes)
  };
  std::map<std::uint64_t, Merged> mine;
  {
    std::lock_guard<std::mutex> lock(r.info_mutex);
    for (const auto& s : r.comm_stats) {
      if (s->entries.empty()) continue;
      Merged& m = mine[s->members_hash];
      m.size = s->size;
      if (!s->members.empty()) m.members = s->members;
      for (const CommStats::Entry& e : s->entries) {
        auto& v = m.entries[{e.op, e.root}];
        v.first += e.calls;
        v.second += e.bytes;
      }
    }
  }
  std::vector<std::int64_t> wire;
  for (const auto& [hash, m] : mine) {
    wire.insert(wire.end(), {static_cast<std::int64_t>(hash), m.size, static_cast<std::int64_t>(m.entries.size()),
                             static_cast<std::int64_t>(m.members.size())});
    for (const auto& [key, v] : m.entries)
      wire.insert(wire.end(), {key.first, key.second, static_cast<std::int64_t>(v.first), static_cast<std::int64_t>(v.second)});
    wire.insert(wire.end(), m.members.begin(), m.members.end());
  }
  const MPI_Count n = static_cast<MPI_Count>(wire.size());
  std::vector<MPI_Count> counts(r.world_rank == 0 ? static_cast<size_t>(r.world_size) : 0);
  PMPI_Gather(&n, 1, MPI_COUNT, counts.data(), 1, MPI_COUNT, 0, MPI_COMM_WORLD);
  std::vector<MPI_Aint> displs(counts.size());
  MPI_Aint total = 0;
  for (size_t i = 0; i < counts.size(); ++i) displs[i] = total, total += static_cast<MPI_Aint>(counts[i]);
  std::vector<std::int64_t> all(static_cast<size_t>(total) + 1);
  gatherv(wire.data(), n, MPI_INT64_T, all.data(), counts, displs, r.world_rank);
  if (r.world_rank != 0) return;

  std::map<std::uint64_t, Merged> job;
  for (size_t at = 0; at < static_cast<size_t>(total);) {
    Merged& m = job[static_cast<std::uint64_t>(all[at])];
    m.size = static_cast<int>(all[at + 1]);
    const auto n_entries = static_cast<size_t>(all[at + 2]), n_members = static_cast<size_t>(all[at + 3]);
    at += 4;
    for (size_t i = 0; i < n_entries; ++i, at += 4) {
      auto& v = m.entries[{static_cast<int>(all[at]), static_cast<int>(all[at + 1])}];
      v.first = std::max(v.first, static_cast<std::uint64_t>(all[at + 2]));
      v.second = std::max(v.second, static_cast<std::uint64_t>(all[at + 3]));
    }
    if (n_members) m.members.assign(all.begin() + static_cast<std::ptrdiff_t>(at), all.begin() + static_cast<std::ptrdiff_t>(at + n_members));
    at += n_members;
  }
  // Ids in a deterministic order: larger communicators first, then by members.
  std::vector<const Merged*> order;
  for (const auto& kv : job)
    if (!kv.second.members.empty()) order.push_back(&kv.second);
  std::sort(order.begin(), order.end(), [](const Merged* a, const Merged* b) {
    return a->size != b->size ? a->size > b->size : a->members < b->members;
  });
  for (size_t id = 0; id < order.size(); ++id) {
    profile->communicators.push_back({static_cast<int>(id), order[id]->members});
    for (const auto& [key, v] : order[id]->entries)
      profile->collectives.push_back({static_cast<int>(id), coll_name(static_cast<Coll>(key.first)), key.second, v.first, v.second});
  }
}

void finish() {
  Runtime& r = rt();
  if (r.finished) return;
  r.finished = true;
  // From here on nothing is counted: the gather below is the tool's own traffic.
  const std::uint8_t mode = g_mode.load();
  const bool timed = mode_timed(mode);
  g_mode.store(kOff, std::memory_order_release);
  // The run's clock stops with the counting: the tool's own collectives
  // below (the enabled check, the trace's end, the gathers) are neither MPI
  // time of the application nor its run time. Read after them, wall held
  // every rank's wait in the first allreduce for the slowest one to finish
  // (1.6-3.1 s on native runs, 14 us in SMPI), which lowered p_mpi.
  const double wall = monotonic_seconds() - r.wall_start;
  const std::uint64_t ticks = clock_ticks() - r.ticks_start;

  // Every rank that initialised comes here, enabled or not (the attribute is
  // set on both). Only if all are enabled is there a gather to do.
  int enabled = mode >= kCounting ? 1 : 0, ranks_enabled = 0;
  PMPI_Allreduce(&enabled, &ranks_enabled, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (ranks_enabled == 0) return;
  if (ranks_enabled != r.world_size) {
    if (r.world_rank == 0)
      std::fprintf(stderr, "commprof: COMMPROF_ENABLE differs between ranks (%d of %d enabled): no profile written\n",
                   ranks_enabled, r.world_size);
    return;
  }
  // The trace ends here (its own collectives), before the profile's gathers.
  trace::finish();

  std::uint64_t mpi_ticks = 0;
  {
    std::lock_guard<std::mutex> lock(r.threads_mutex);
    for (const auto& t : r.threads) mpi_ticks += t->mpi_ticks;
  }
  // Seconds per tick from the whole run (rdtsc has no documented frequency).
  const double mpi_seconds = (timed && ticks > 0) ? wall * static_cast<double>(mpi_ticks) / static_cast<double>(ticks) : 0.0;

  RankRecord me{};
  std::snprintf(me.host, sizeof me.host, "%s", r.host.c_str());
  me.core = r.core;
  me.yield_shim = r.yield_shim ? 1 : 0;
  me.wall = wall;
  me.mpi = mpi_seconds;  // summed over threads: may exceed wall when several threads call MPI

  std::vector<WireCount> mine;
  std::vector<PeerCount> p2p, osc_out, osc_in;
  {
    std::lock_guard<std::mutex> lock(r.threads_mutex);
    p2p = merge(&ThreadState::p2p, r.world_rank);
    osc_out = merge(&ThreadState::osc, r.world_rank);
    osc_in = merge(&ThreadState::osc_in, r.world_rank);
  }
  // Three sections per rank; their lengths travel in a small header gather.
  const int header[3] = {static_cast<int>(p2p.size()), static_cast<int>(osc_out.size()), static_cast<int>(osc_in.size())};
  append(&mine, p2p);
  append(&mine, osc_out);
  append(&mine, osc_in);

  std::vector<RankRecord> records(r.world_rank == 0 ? static_cast<size_t>(r.world_size) : 0);
  std::vector<int> headers(r.world_rank == 0 ? 3 * static_cast<size_t>(r.world_size) : 0);
  PMPI_Gather(&me, sizeof(RankRecord), MPI_BYTE, records.data(), sizeof(RankRecord), MPI_BYTE, 0, MPI_COMM_WORLD);
  PMPI_Gather(header, 3, MPI_INT, headers.data(), 3, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<MPI_Count> counts;
  std::vector<WireCount> all = gather_counts(mine, &counts);

  rankmap::Profile profile;
  gather_collectives(&profile);
  if (r.world_rank != 0) return;

  profile.ranks = r.world_size;
  profile.rank_info.reserve(records.size());
  for (const RankRecord& rec : records) {
    rankmap::RankInfo info;
    info.host = std::string(rec.host, strnlen(rec.host, sizeof rec.host));
    info.core = rec.core;
    info.wall = rec.wall;
    info.mpi = rec.mpi;
    info.yield = rec.yield_shim != 0;
    profile.rank_info.push_back(std::move(info));
  }
  std::map<std::pair<int, int>, rankmap::PairTraffic> one_sided;
  auto add_osc = [&](int src, int dst, const WireCount& c) {
    auto& t = one_sided.emplace(std::make_pair(src, dst), rankmap::PairTraffic{src, dst, 0, 0}).first->second;
    t.messages += c.messages;
    t.bytes += c.bytes;
  };
  size_t at = 0;
  for (int src = 0; src < r.world_size; ++src) {
    const int* h = &headers[3 * static_cast<size_t>(src)];
    for (int i = 0; i < h[0]; ++i, ++at)
      profile.p2p.push_back({src, static_cast<int>(all[at].peer), all[at].messages, all[at].bytes});
    for (int i = 0; i < h[1]; ++i, ++at) add_osc(src, static_cast<int>(all[at].peer), all[at]);
    for (int i = 0; i < h[2]; ++i, ++at) add_osc(static_cast<int>(all[at].peer), src, all[at]);
  }
  for (const auto& kv : one_sided) profile.one_sided.push_back(kv.second);

  const std::string path = r.settings.OUTPUT.empty() ? default_output_name(static_cast<int>(getpid())) : r.settings.OUTPUT;
  rankmap::Status written = rankmap::write_profile(path, profile);
  if (!written) {
    std::fprintf(stderr, "commprof: cannot write profile: %s\n", written.error().message.c_str());
  } else if (r.settings.VERBOSE) {
    std::fprintf(stderr, "commprof: wrote %s\n", path.c_str());
  }
}

}  // namespace

namespace {

// The MPICH build takes PMPI_* as weak references from whatever libmpi the
// process has (it is not linked against one, so a process that never loads
// MPI never loads it, nor MPICH's UCX, because of the preload). A program
// that loads its MPI privately (dlopen with RTLD_LOCAL: Python's mpi4py, a
// plugin) keeps those references unresolved; before our first PMPI call,
// that libmpi is made global, so the calls bind to it (lazily, as calls do;
// not under LD_BIND_NOW). Open MPI's build links libmpi as usual.
int promote_if_libmpi(dl_phdr_info* info, size_t, void*) {
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
  void* handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return 0;
  void* symbol = dlsym(handle, "PMPI_Initialized");
  Dl_info where{};
  const bool defines = symbol != nullptr && dladdr(symbol, &where) != 0 && where.dli_fname != nullptr &&
                       std::strcmp(where.dli_fname, info->dlpi_name) == 0;
  dlclose(handle);
  if (!defines) return 0;
  dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD | RTLD_GLOBAL);  // kept open: never unloaded
  return 1;
}

void make_mpi_visible() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (dlsym(RTLD_DEFAULT, "PMPI_Initialized") == nullptr) dl_iterate_phdr(promote_if_libmpi, nullptr);
  });
}

}  // namespace

std::uint8_t enter_slow() {
  make_mpi_visible();
  int initialized = 0, finalized = 0;
  PMPI_Initialized(&initialized);
  if (!initialized) return kUninitialized;  // MPI_Init's own wrapper, or a call before init
  PMPI_Finalized(&finalized);
  Runtime& r = rt();
  std::lock_guard<std::mutex> lock(r.init_mutex);
  if (g_mode.load() == kUninitialized) {
    if (finalized) {
      g_mode.store(kOff);
    } else {
      initialize_locked();
    }
  }
  return g_mode.load();
}

#if defined(COMMPROF_SMPI)
// SMPI's MPI_Finalize does not promise to delete MPI_COMM_SELF's attributes
// first; the SMPI build wraps MPI_Finalize and calls this (finish() runs once).
void on_finalize() { finish(); }
#endif

void on_init() {
  if (g_mode.load(std::memory_order_acquire) == kUninitialized) enter_slow();
}

}  // namespace commprof
