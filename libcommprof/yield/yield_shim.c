/* libcommprof-yield: makes blocking waits yield the CPU, for running many more
 * MPI ranks than cores (profiling a 128-rank job on a laptop). MPICH's ch4
 * device busy-polls inside MPI_Wait/Waitall/Recv and never yields, so with 64
 * ranks on 2 cores most time is spent spinning; polling with MPI_Test and
 * sched_yield() in between lets the rank that can make progress run.
 *
 * It changes only how the process waits, never what is sent, so profiles are
 * identical with and without it. It must come BEFORE libcommprof in
 * LD_PRELOAD (commprof-run --yield does that): its calls go straight to
 * PMPI_*, so it never hides a send from the profiler (it wraps no sends). */
#include <mpi.h>
#include <sched.h>

/* Taken from the program's own libmpi: the shim is not linked against it, so
 * processes without MPI that the preload reaches never load MPI. */
#pragma weak PMPI_Test
#pragma weak PMPI_Testall
#pragma weak PMPI_Irecv

static int wait_yielding(MPI_Request* request, MPI_Status* status) {
  int done = 0, rc;
  while ((rc = PMPI_Test(request, &done, status)) == MPI_SUCCESS && !done) sched_yield();
  return rc;
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) { return wait_yielding(request, status); }

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  int done = 0, rc;
  while ((rc = PMPI_Testall(count, requests, &done, statuses)) == MPI_SUCCESS && !done) sched_yield();
  return rc;
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  MPI_Request request;
  int rc = PMPI_Irecv(buf, count, type, source, tag, comm, &request);
  return rc == MPI_SUCCESS ? wait_yielding(&request, status) : rc;
}
