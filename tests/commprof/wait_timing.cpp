// Time spent waiting in MPI_Recv, MPI_Wait and MPI_Waitall is time in MPI,
// with or without the yield shim (whose loops are the PMPI_* calls the
// profiler's wrappers make): in each phase one rank sleeps kSleep before it
// sends while the other waits, so every rank spends at least kSleep inside
// MPI (rank 0 once, rank 1 twice). Run with commprof_check --min-mpi.
#include <mpi.h>
#include <unistd.h>

#include "expect.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  commprof_test::Expected expected;
  const int rank = expected.rank();
  const useconds_t kSleep = 300000;  // 0.3 s
  int value = 7;
  if (expected.size() != 2) PMPI_Abort(MPI_COMM_WORLD, 2);
  const int other = 1 - rank;
  MPI_Request request;

  // Phase 1: rank 1 waits in MPI_Recv.
  if (rank == 0) {
    usleep(kSleep);
    MPI_Send(&value, 1, MPI_INT, other, 1, MPI_COMM_WORLD);
    expected.p2p(other, sizeof value);
  } else {
    MPI_Recv(&value, 1, MPI_INT, other, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  // Phase 2: rank 0 waits in MPI_Wait.
  if (rank == 1) {
    usleep(kSleep);
    MPI_Send(&value, 1, MPI_INT, other, 2, MPI_COMM_WORLD);
    expected.p2p(other, sizeof value);
  } else {
    MPI_Irecv(&value, 1, MPI_INT, other, 2, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  // Phase 3: rank 1 waits in MPI_Waitall.
  if (rank == 0) {
    usleep(kSleep);
    MPI_Send(&value, 1, MPI_INT, other, 3, MPI_COMM_WORLD);
    expected.p2p(other, sizeof value);
  } else {
    MPI_Irecv(&value, 1, MPI_INT, other, 3, MPI_COMM_WORLD, &request);
    MPI_Waitall(1, &request, MPI_STATUSES_IGNORE);
  }
  expected.write();
  MPI_Finalize();
  return 0;
}
