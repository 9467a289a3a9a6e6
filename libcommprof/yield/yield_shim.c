/* libcommprof-yield: makes blocking waits yield the CPU, for running many more
 * MPI ranks than cores (profiling a 128-rank job on a laptop). MPICH's ch4
 * device busy-polls inside MPI_Wait/Waitall/Recv and never yields, so with 64
 * ranks on 2 cores most time is spent spinning; polling with MPI_Test and
 * sched_yield() in between lets the rank that can make progress run.
 *
 * The yielding loops are the PMPI_Wait, PMPI_Waitall and PMPI_Recv of the
 * process; MPI_Wait, MPI_Waitall and MPI_Recv here just call them. Placed
 * AFTER libcommprof in LD_PRELOAD (commprof-run --yield does that), the
 * application's MPI_Wait reaches the profiler's wrapper first, which times
 * the whole call and then calls PMPI_Wait: this loop. So the waits count as
 * time in MPI, and the profiler sees `commprof_yield_shim` and records
 * yield=1 on each rank line. Alone, the shim's own MPI_* entry points lead
 * to the same loops. It never touches a send, so profiles are identical with
 * and without it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <mpi.h>
#include <sched.h>
#include <string.h>

/* Taken from the program's own libmpi: the shim is not linked against it, so
 * processes without MPI that the preload reaches never load MPI. A libmpi
 * the program loaded privately (dlopen RTLD_LOCAL) is made global before the
 * first PMPI call, as libcommprof does (profiler.cpp, make_mpi_visible). */
#pragma weak PMPI_Test
#pragma weak PMPI_Testall
#pragma weak PMPI_Irecv

static int promote_if_libmpi(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  (void)data;
  if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0') return 0;
  void* handle = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == NULL) return 0;
  void* symbol = dlsym(handle, "PMPI_Initialized");
  Dl_info where;
  const int defines = symbol != NULL && dladdr(symbol, &where) != 0 && where.dli_fname != NULL &&
                      strcmp(where.dli_fname, info->dlpi_name) == 0;
  dlclose(handle);
  if (!defines) return 0;
  dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD | RTLD_GLOBAL);
  return 1;
}

static void make_mpi_visible(void) {
  static int done = 0;
  if (__atomic_load_n(&done, __ATOMIC_ACQUIRE)) return;
  if (dlsym(RTLD_DEFAULT, "PMPI_Initialized") == NULL) dl_iterate_phdr(promote_if_libmpi, NULL);
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
}

/* The profiler looks for this symbol to record that the shim was loaded. */
const int commprof_yield_shim = 1;

static int wait_yielding(MPI_Request* request, MPI_Status* status) {
  make_mpi_visible();
  int done = 0, rc;
  while ((rc = PMPI_Test(request, &done, status)) == MPI_SUCCESS && !done) sched_yield();
  return rc;
}

int PMPI_Wait(MPI_Request* request, MPI_Status* status) { return wait_yielding(request, status); }

int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  make_mpi_visible();
  int done = 0, rc;
  while ((rc = PMPI_Testall(count, requests, &done, statuses)) == MPI_SUCCESS && !done) sched_yield();
  return rc;
}

int PMPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  make_mpi_visible();
  MPI_Request request;
  int rc = PMPI_Irecv(buf, count, type, source, tag, comm, &request);
  return rc == MPI_SUCCESS ? wait_yielding(&request, status) : rc;
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) { return PMPI_Wait(request, status); }

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  return PMPI_Waitall(count, requests, statuses);
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return PMPI_Recv(buf, count, type, source, tag, comm, status);
}
