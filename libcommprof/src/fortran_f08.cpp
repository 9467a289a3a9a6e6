// mpi_f08 entry points that bypass the C wrappers. MPICH's f08 bindings call
// PMPI_Init, PMPI_Start and PMPI_Startall directly, so persistent sends
// started from f08 code would be invisible and wall time would start late.
// These wrappers interpose on the f08 symbols (found with RTLD_NEXT, never
// linked, so C-only programs do not need the Fortran library) and do the
// bookkeeping themselves. The real f08 routines call PMPI_*, not our MPI_*
// wrappers, so nothing is counted twice. mpif.h and `use mpi` go through the
// C MPI_* symbols and need nothing here (wrapping mpi_start_ would double count).

#include <dlfcn.h>
#include <mpi.h>

#include "hooks.hpp"

namespace {

template <class Fn>
Fn next_symbol(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

}  // namespace

extern "C" {

// TYPE(MPI_Request) is a sequence type holding one INTEGER; `ierror` is
// OPTIONAL and may be null.
COMMPROF_EXPORT void mpi_start_f08_(MPI_Fint* request, MPI_Fint* ierror) {
  using Fn = void (*)(MPI_Fint*, MPI_Fint*);
  static const Fn real = next_symbol<Fn>("mpi_start_f08_");
  commprof::Entry entry;
  MPI_Fint rc = MPI_SUCCESS;
  real(request, &rc);
  if (ierror) *ierror = rc;
  if (entry.counting() && rc == MPI_SUCCESS) commprof::on_start(PMPI_Request_f2c(*request));
}

COMMPROF_EXPORT void mpi_startall_f08_(MPI_Fint* count, MPI_Fint* requests, MPI_Fint* ierror) {
  using Fn = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*);
  static const Fn real = next_symbol<Fn>("mpi_startall_f08_");
  commprof::Entry entry;
  MPI_Fint rc = MPI_SUCCESS;
  real(count, requests, &rc);
  if (ierror) *ierror = rc;
  if (entry.counting() && rc == MPI_SUCCESS) {
    for (MPI_Fint i = 0; i < *count; ++i) commprof::on_start(PMPI_Request_f2c(requests[i]));
  }
}

COMMPROF_EXPORT void mpi_init_f08_(MPI_Fint* ierror) {
  using Fn = void (*)(MPI_Fint*);
  static const Fn real = next_symbol<Fn>("mpi_init_f08_");
  MPI_Fint rc = MPI_SUCCESS;
  real(&rc);
  if (ierror) *ierror = rc;
  if (rc == MPI_SUCCESS) commprof::on_init();
  // Its Wait, Barrier, ... call PMPI_* directly: a trace would miss them.
  if (commprof::trace::on()) commprof::trace::stop("mpi_f08 under MPICH: its Wait, Barrier, ... bypass the C wrappers, so a trace would miss them");
}

COMMPROF_EXPORT void mpi_init_thread_f08_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierror) {
  using Fn = void (*)(MPI_Fint*, MPI_Fint*, MPI_Fint*);
  static const Fn real = next_symbol<Fn>("mpi_init_thread_f08_");
  MPI_Fint rc = MPI_SUCCESS;
  real(required, provided, &rc);
  if (ierror) *ierror = rc;
  if (rc == MPI_SUCCESS) commprof::on_init();
  if (commprof::trace::on()) commprof::trace::stop("mpi_f08 under MPICH: its Wait, Barrier, ... bypass the C wrappers, so a trace would miss them");
}

}  // extern "C"
