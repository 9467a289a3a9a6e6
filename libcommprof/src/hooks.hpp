// What the generated wrappers call. The per-message path is inline here:
// mode check -> PMPI call -> type size -> rank translation -> counter add.
// Everything that may allocate, lock or call MPI more than once lives out of
// line in profiler.cpp and runs once per communicator, thread or request.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <memory>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "peer_table.hpp"
#include "trace.hpp"

#if defined(COMMPROF_SMPI)
// SimGrid SMPI build (libcommprof-smpi.a, see smpi/README.md): linked
// statically into the smpicc-built application, which SMPI loads once per
// rank (dlopen privatization); every global below, copied with the
// application, is per rank. SMPI's mpi.h declares MPI_* weak with default
// visibility; the link line (-Bsymbolic) binds the application's own MPI_*
// calls to these wrappers rather than to libsimgrid's definitions.
#include <simgrid/engine.h>
#define COMMPROF_EXPORT
#else
// The library is built with hidden visibility; only interposed MPI entry
// points are exported (see also exports.map).
#define COMMPROF_EXPORT __attribute__((visibility("default")))
#endif
#define COMMPROF_LIKELY(x) __builtin_expect(!!(x), 1)
#define COMMPROF_UNLIKELY(x) __builtin_expect(!!(x), 0)

namespace commprof {

// Process-wide mode. Starts kUninitialized; the first intercepted call after
// MPI is initialised switches it (lazy init, which is what makes f08 programs
// work: their MPI_Init never reaches a C wrapper). Finalize sets kOff before
// the tool's own gather, so that traffic is never counted. Trace mode is the
// kTraceBit on top of a counting mode, so that a wrapper still tests one byte
// when not tracing.
enum : std::uint8_t { kUninitialized = 0, kOff = 1, kCounting = 2, kCountingTimed = 3, kTraceBit = 4,
                      kTracing = kCounting | kTraceBit, kTracingTimed = kCountingTimed | kTraceBit };
inline bool mode_counts(std::uint8_t mode) { return mode >= kCounting; }
inline bool mode_timed(std::uint8_t mode) { return (mode | kTraceBit) == kTracingTimed; }
inline bool mode_traces(std::uint8_t mode) { return mode >= kTracing; }
extern std::atomic<std::uint8_t> g_mode;
extern bool g_use_tsc;

std::uint8_t enter_slow();

inline std::uint64_t clock_ticks() {
#if defined(COMMPROF_SMPI)
  // Simulated time in ns (reading it injects nothing, unlike MPI_Wtime).
  return static_cast<std::uint64_t>(simgrid_get_clock() * 1e9);
#endif
#if defined(__x86_64__)
  if (COMMPROF_LIKELY(g_use_tsc)) return __rdtsc();
#endif
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

struct ThreadState {
  PeerTable p2p;   // point-to-point and expanded collectives, by destination world rank
  PeerTable osc;   // one-sided, by the world rank the data moves to (this rank is the source)
  PeerTable osc_in;  // one-sided data moving to this rank (Get), by source world rank
  std::uint64_t mpi_ticks = 0;
};

// initial-exec: the library is loaded at startup (LD_PRELOAD or linked), so
// its TLS is static and a thread-local access is one %fs-relative load
// instead of a __tls_get_addr call. __thread rather than thread_local: a
// trivially initialised pointer needs no C++ TLS wrapper call on each access.
#if defined(COMMPROF_SMPI)
// SMPI ranks are single-threaded contexts, possibly sharing one OS thread:
// a plain global is per rank (privatized with the application), TLS is not
// needed, and initial-exec TLS in 1,000 dlopen'ed copies would exhaust the
// static TLS area.
extern ThreadState* tls_state;
#else
extern __thread ThreadState* tls_state __attribute__((tls_model("initial-exec")));
#endif
ThreadState* register_thread();

inline ThreadState& thread_state() {
  ThreadState* s = tls_state;
  if (COMMPROF_UNLIKELY(s == nullptr)) s = register_thread();
  return *s;
}

// One per wrapper call, on the stack.
class Entry {
 public:
  // always_inline: with the trace branch GCC stopped inlining these, which
  // cost ~22 instructions per MPI_Send (measured with run_bench.sh).
  __attribute__((always_inline)) Entry() noexcept {
    std::uint8_t mode = g_mode.load(std::memory_order_acquire);
    if (COMMPROF_UNLIKELY(mode == kUninitialized)) mode = enter_slow();
    if (COMMPROF_UNLIKELY(mode_traces(mode))) mode = trace::enter(mode);  // may drop kTraceBit (trace.hpp)
    mode_ = mode;
    if (mode_timed(mode)) start_ = clock_ticks();
  }
  __attribute__((always_inline)) ~Entry() {
    if (mode_timed(mode_)) thread_state().mpi_ticks += clock_ticks() - start_;
    if (COMMPROF_UNLIKELY(mode_traces(mode_))) trace::leave();
  }
  Entry(const Entry&) = delete;
  Entry& operator=(const Entry&) = delete;
  bool counting() const { return mode_counts(mode_); }
  bool tracing() const { return mode_traces(mode_); }

 private:
  std::uint8_t mode_;
  std::uint64_t start_ = 0;
};

// Statuses a wrapper lends to a completion call the program made with
// MPI_STATUSES_IGNORE, while tracing (the trace needs each receive's source).
// Uninitialised storage: nothing is done when n is 0.
class StatusArray {
 public:
  explicit StatusArray(int n) : n_(n > 0 ? n : 0) {
    if (n_ > kInline) heap_.reset(new MPI_Status[static_cast<std::size_t>(n_)]);
  }
  int size() const { return n_; }
  MPI_Status* data() { return n_ > kInline ? heap_.get() : inline_; }

 private:
  static constexpr int kInline = 16;
  int n_;
  MPI_Status inline_[kInline];
  std::unique_ptr<MPI_Status[]> heap_;
};

// --- datatype sizes -------------------------------------------------------
extern bool g_builtin_size_fast_path;
std::uint64_t type_size_slow(MPI_Datatype type);

inline std::uint64_t type_size(MPI_Datatype type) {
#if defined(MPICH)
  // MPICH encodes predefined datatypes as handles of kind "builtin"
  // (bits 30-31 == 1) with the size in bits 8-15 (MPIR_Datatype_get_basic_size).
  // This saves a PMPI_Type_size call per message; init cross-checks it
  // against PMPI_Type_size and turns it off on any mismatch.
  const auto bits = static_cast<std::uint32_t>(type);
  if (COMMPROF_LIKELY(g_builtin_size_fast_path && (bits >> 30) == 1u)) return (bits >> 8) & 0xffu;
#endif
  return type_size_slow(type);
}

// --- rank translation -----------------------------------------------------
// World rank of `rank` in `comm` (remote group for intercommunicators), or -1.
int translate_slow(MPI_Comm comm, int rank);
int translate_win(MPI_Win win, int rank);

inline int world_rank_of(MPI_Comm comm, int rank) {
  return comm == MPI_COMM_WORLD ? rank : translate_slow(comm, rank);
}

// --- events ---------------------------------------------------------------
void on_init();
#if defined(COMMPROF_SMPI)
void on_finalize();
#endif

// always_inline: folded into the wrapper, the per-message work shares its
// registers and frame (measured: ~15 fewer instructions per send).
template <class Count>
__attribute__((always_inline)) inline void on_send(MPI_Comm comm, int dest, Count count, MPI_Datatype type) {
  if (dest < 0) return;  // MPI_PROC_NULL
  const int world = world_rank_of(comm, dest);
  if (COMMPROF_UNLIKELY(world < 0)) return;
  thread_state().p2p.add(world, 1, static_cast<std::uint64_t>(count) * type_size(type));
}

void register_plan_send(MPI_Request request, MPI_Comm comm, int dest, std::uint64_t bytes);
template <class Count>
inline void on_send_init(MPI_Request request, MPI_Comm comm, int dest, Count count, MPI_Datatype type) {
  register_plan_send(request, comm, dest, static_cast<std::uint64_t>(count) * type_size(type));
}
void on_start(MPI_Request request);
void on_startall(int count, const MPI_Request requests[]);
void on_request_free(MPI_Request request);

void rma_record(MPI_Win win, int target, bool to_target, std::uint64_t bytes);
template <class Count>
inline void on_rma_put(MPI_Win win, int target, Count count, MPI_Datatype type) {
  rma_record(win, target, true, static_cast<std::uint64_t>(count) * type_size(type));
}
template <class Count>
inline void on_rma_get(MPI_Win win, int target, Count count, MPI_Datatype type) {
  rma_record(win, target, false, static_cast<std::uint64_t>(count) * type_size(type));
}
// Get_accumulate / Fetch_and_op: the operand goes to the target (not for
// MPI_NO_OP, which only reads), the old value comes back.
template <class Count, class ResultCount>
inline void on_rma_get_accumulate(MPI_Win win, int target, Count count, MPI_Datatype type,
                                  ResultCount result_count, MPI_Datatype result_type, MPI_Op op) {
  if (op != MPI_NO_OP) rma_record(win, target, true, static_cast<std::uint64_t>(count) * type_size(type));
  rma_record(win, target, false, static_cast<std::uint64_t>(result_count) * type_size(result_type));
}
// Compare_and_swap sends the compare value and the new value, receives the old one.
inline void on_rma_compare_and_swap(MPI_Win win, int target, MPI_Datatype type) {
  rma_record(win, target, true, 2 * type_size(type));
  rma_record(win, target, false, type_size(type));
}

// All-to-all and neighbourhood collectives, expanded at call time. Count is
// int or MPI_Count; the *_init forms store the expansion in the request and
// count it at every Start.
void on_alltoall(MPI_Comm, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                 MPI_Count recvcount, MPI_Datatype recvtype);
template <class Count>
void on_alltoallv(MPI_Comm, const void* sendbuf, const Count sendcounts[], MPI_Datatype sendtype,
                  const Count recvcounts[], MPI_Datatype recvtype);
template <class Count>
void on_alltoallw(MPI_Comm, const void* sendbuf, const Count sendcounts[], const MPI_Datatype sendtypes[],
                  const Count recvcounts[], const MPI_Datatype recvtypes[]);
void on_alltoall_init(MPI_Request, MPI_Comm, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      MPI_Count recvcount, MPI_Datatype recvtype);
template <class Count>
void on_alltoallv_init(MPI_Request, MPI_Comm, const void* sendbuf, const Count sendcounts[],
                       MPI_Datatype sendtype, const Count recvcounts[], MPI_Datatype recvtype);
template <class Count>
void on_alltoallw_init(MPI_Request, MPI_Comm, const void* sendbuf, const Count sendcounts[],
                       const MPI_Datatype sendtypes[], const Count recvcounts[], const MPI_Datatype recvtypes[]);
void on_neighbor_uniform(MPI_Comm, MPI_Count sendcount, MPI_Datatype sendtype);
template <class Count>
void on_neighbor_v(MPI_Comm, const Count sendcounts[], MPI_Datatype sendtype);
template <class Count>
void on_neighbor_w(MPI_Comm, const Count sendcounts[], const MPI_Datatype sendtypes[]);
void on_neighbor_uniform_init(MPI_Request, MPI_Comm, MPI_Count sendcount, MPI_Datatype sendtype);
template <class Count>
void on_neighbor_v_init(MPI_Request, MPI_Comm, const Count sendcounts[], MPI_Datatype sendtype);
template <class Count>
void on_neighbor_w_init(MPI_Request, MPI_Comm, const Count sendcounts[], const MPI_Datatype sendtypes[]);

// Rooted and reduction collectives, recorded per communicator, operation and
// root. Each rank adds the payload as far as its own arguments describe it;
// finalize keeps the largest view per record (the root's for v-variants).
enum class Coll : std::uint8_t {
  bcast, reduce, allreduce, scan, exscan, barrier, gather, gatherv, scatter, scatterv,
  allgather, allgatherv, reduce_scatter, reduce_scatter_block, count_
};
const char* coll_name(Coll op);

template <class Count>
inline std::uint64_t bytes_of(Count count, MPI_Datatype type) {
  return static_cast<std::uint64_t>(count) * type_size(type);
}
void on_collective(MPI_Comm comm, Coll op, int root, std::uint64_t bytes);
// Number of ranks in comm and whether this rank is `root` there.
int coll_comm_size(MPI_Comm comm, int root, bool* is_root);

template <class Count>
void coll_gather(MPI_Comm comm, int root, const void* sendbuf, Count sendcount, MPI_Datatype sendtype,
                 Count recvcount, MPI_Datatype recvtype) {
  bool is_root = false;
  const int n = coll_comm_size(comm, root, &is_root);
  // The root's receive arguments describe every block (and are the only ones
  // that count with MPI_IN_PLACE); elsewhere the send block is one of n equal ones.
  const std::uint64_t block = is_root || sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  on_collective(comm, Coll::gather, root, block * static_cast<std::uint64_t>(n));
}
template <class Count>
void coll_gatherv(MPI_Comm comm, int root, const void* sendbuf, Count sendcount, MPI_Datatype sendtype,
                  const Count recvcounts[], MPI_Datatype recvtype) {
  bool is_root = false;
  const int n = coll_comm_size(comm, root, &is_root);
  std::uint64_t total = 0;
  if (is_root) {
    for (int i = 0; i < n; ++i) total += bytes_of(recvcounts[i], recvtype);
  } else if (sendbuf != MPI_IN_PLACE) {
    total = bytes_of(sendcount, sendtype);  // a lower bound; the root's view wins
  }
  on_collective(comm, Coll::gatherv, root, total);
}
template <class Count>
void coll_scatter(MPI_Comm comm, int root, Count sendcount, MPI_Datatype sendtype, const void* recvbuf,
                  Count recvcount, MPI_Datatype recvtype) {
  bool is_root = false;
  const int n = coll_comm_size(comm, root, &is_root);
  const std::uint64_t block = is_root || recvbuf == MPI_IN_PLACE ? bytes_of(sendcount, sendtype) : bytes_of(recvcount, recvtype);
  on_collective(comm, Coll::scatter, root, block * static_cast<std::uint64_t>(n));
}
template <class Count>
void coll_scatterv(MPI_Comm comm, int root, const Count sendcounts[], MPI_Datatype sendtype, const void* recvbuf,
                   Count recvcount, MPI_Datatype recvtype) {
  bool is_root = false;
  const int n = coll_comm_size(comm, root, &is_root);
  std::uint64_t total = 0;
  if (is_root) {
    for (int i = 0; i < n; ++i) total += bytes_of(sendcounts[i], sendtype);
  } else if (recvbuf != MPI_IN_PLACE) {
    total = bytes_of(recvcount, recvtype);
  }
  on_collective(comm, Coll::scatterv, root, total);
}
template <class Count>
void coll_allgather(MPI_Comm comm, Count recvcount, MPI_Datatype recvtype) {
  bool is_root = false;
  const int n = coll_comm_size(comm, -1, &is_root);
  on_collective(comm, Coll::allgather, -1, bytes_of(recvcount, recvtype) * static_cast<std::uint64_t>(n));
}
template <class Count>
void coll_allgatherv(MPI_Comm comm, const Count recvcounts[], MPI_Datatype recvtype) {
  bool is_root = false;
  const int n = coll_comm_size(comm, -1, &is_root);
  std::uint64_t total = 0;
  for (int i = 0; i < n; ++i) total += bytes_of(recvcounts[i], recvtype);
  on_collective(comm, Coll::allgatherv, -1, total);
}
template <class Count>
void coll_reduce_scatter(MPI_Comm comm, const Count recvcounts[], MPI_Datatype type) {
  bool is_root = false;
  const int n = coll_comm_size(comm, -1, &is_root);
  std::uint64_t total = 0;
  for (int i = 0; i < n; ++i) total += bytes_of(recvcounts[i], type);
  on_collective(comm, Coll::reduce_scatter, -1, total);
}
template <class Count>
void coll_reduce_scatter_block(MPI_Comm comm, Count recvcount, MPI_Datatype type) {
  bool is_root = false;
  const int n = coll_comm_size(comm, -1, &is_root);
  on_collective(comm, Coll::reduce_scatter_block, -1, bytes_of(recvcount, type) * static_cast<std::uint64_t>(n));
}

}  // namespace commprof
