// libcommprof's trace mode (COMMPROF_TRACE=DIR, commprof-run --trace DIR):
// besides the profile, each rank writes its MPI calls in program order as
// SimGrid's time-independent (TI) trace, the format `smpirun -trace-ti` writes
// and `smpirun -replay` / `rankmap-sim replay` read (docs/profiler.md, "Trace
// mode"). Only the thread that initialised tracing is traced; anything the
// format cannot say (a collective on a sub-communicator, a nonblocking
// collective, a cancelled receive, a second thread, ...) stops the trace:
// rank 0 says why in one line at the end, no index is written, and the
// profile and the application are never affected.
//
// Cost: everything here runs only while tracing (the wrappers test
// Entry::tracing()). Actions are formatted into a per-rank buffer flushed
// with write(2) in large blocks; a size cap and a free-space check stop the
// trace before it can fill a disk.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

namespace commprof {

struct Settings;

namespace trace {

// While this process records a trace, g_mode (hooks.hpp) carries kTraceBit:
// set at init when start() says so, cleared by stop(), possibly from another
// thread.
bool on();

// Entry/exit of a wrapped MPI call in a tracing mode. enter() returns the
// mode, without kTraceBit when the calling thread is not the traced one (it
// then stops the trace: one thread only).
std::uint8_t enter(std::uint8_t mode);
void leave();

// Start of the run (after MPI is initialised, from initialize_locked; true:
// add kTraceBit to the mode) and end of the run (collective over
// MPI_COMM_WORLD, from finish(), before the profile gather): flush, rename
// the temporary files, rank 0 writes the index.
bool start(const Settings& settings, int world_rank, int world_size);
void finish();

// Stops tracing with one message on stderr (this rank) and marks the trace
// incomplete. Safe to call more than once, from any thread; the first reason is kept.
void stop(const std::string& reason);

// --- events (arguments as the wrappers have them) ---------------------------
void send(MPI_Comm comm, int dest, int tag, MPI_Count count, MPI_Datatype type, const MPI_Request* request);
void recv(MPI_Comm comm, int source, int tag, MPI_Count count, MPI_Datatype type, const MPI_Status* status);
void irecv(MPI_Comm comm, int source, int tag, MPI_Count count, MPI_Datatype type, MPI_Request request);
void sendrecv(MPI_Comm comm, int dest, int sendtag, MPI_Count sendcount, MPI_Datatype sendtype, int source, int recvtag,
              MPI_Count recvcount, MPI_Datatype recvtype, const MPI_Status* status);

// Persistent point-to-point requests: *_init notes what a Start posts (an
// isend or an irecv, completed like any other); request_free forgets it.
void persistent_init(MPI_Request request, MPI_Comm comm, bool is_recv, int peer, int tag, MPI_Count count,
                MPI_Datatype type);
void start(int count, const MPI_Request requests[]);
void request_free(MPI_Request request);

// Fortran entry points (Open MPI builds) do not trace: the first one stops it.
void fortran(const char* symbol);

// Completion calls: *_pre notes the handles before MPI may null them; the
// post half says which of them completed (with statuses, never ignored while
// tracing: the wrappers pass their own).
void requests_pre(int count, const MPI_Request requests[]);
void completed_all(const MPI_Status statuses[]);                 // Wait, Waitall; Test, Testall with flag set
void completed_one(int index, const MPI_Status* status);        // Waitany; Testany with flag set
void completed_some(int outcount, const int indices[], const MPI_Status statuses[]);

// Collectives. `mpi_name` is the wrapper's (__func__): nonblocking ones
// ("MPI_I...") stop the trace, as the TI format has none.
void barrier(MPI_Comm comm, const char* mpi_name);
void bcast(MPI_Comm comm, MPI_Count count, MPI_Datatype type, int root, const char* mpi_name);
void reduce(MPI_Comm comm, MPI_Count count, MPI_Datatype type, int root, const char* mpi_name);
void allreduce(MPI_Comm comm, MPI_Count count, MPI_Datatype type, const char* mpi_name);
void alltoall(MPI_Comm comm, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, MPI_Count recvcount,
              MPI_Datatype recvtype, const char* mpi_name);
void gather(MPI_Comm comm, const char* op, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
            MPI_Count recvcount, MPI_Datatype recvtype, int root, const char* mpi_name);
void allgather(MPI_Comm comm, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, MPI_Count recvcount,
               MPI_Datatype recvtype, const char* mpi_name);
template <class Count>
void alltoallv(MPI_Comm comm, const void* sendbuf, const Count sendcounts[], MPI_Datatype sendtype,
               const Count recvcounts[], MPI_Datatype recvtype, const char* mpi_name);
template <class Count>
void gatherv(MPI_Comm comm, const void* sendbuf, Count sendcount, MPI_Datatype sendtype, const Count recvcounts[],
             MPI_Datatype recvtype, int root, const char* mpi_name);
template <class Count>
void scatterv(MPI_Comm comm, const Count sendcounts[], MPI_Datatype sendtype, const void* recvbuf, Count recvcount,
              MPI_Datatype recvtype, int root, const char* mpi_name);
template <class Count>
void allgatherv(MPI_Comm comm, const void* sendbuf, Count sendcount, MPI_Datatype sendtype, const Count recvcounts[],
                MPI_Datatype recvtype, const char* mpi_name);
template <class Count>
void reduce_scatter(MPI_Comm comm, const Count recvcounts[], MPI_Datatype type, const char* mpi_name);
void reduce_scatter_block(MPI_Comm comm, MPI_Count recvcount, MPI_Datatype type, const char* mpi_name);

// Calls the TI format cannot express: stop the trace, naming the call.
void unsupported(const char* mpi_name);

}  // namespace trace
}  // namespace commprof
