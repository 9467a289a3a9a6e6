// SMPI build only: the end-of-run hook as an MPI_Finalize wrapper (the
// MPI_COMM_SELF attribute callback of the MPICH build stays registered;
// whichever runs first writes the profile, the other finds counting off).
#include "hooks.hpp"

extern "C" COMMPROF_EXPORT int MPI_Finalize(void) {
  commprof::on_finalize();
  return PMPI_Finalize();
}
