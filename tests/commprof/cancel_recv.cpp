// A program that cancels a receive it posted from MPI_ANY_SOURCE, then sends
// around a ring: traced, the cancelled receive must stop the trace (its irecv
// is written already; SimGrid's replay would wait for it forever), and the
// program and its profile must not notice.
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int never = 0, token = rank;
  MPI_Request request;
  MPI_Irecv(&never, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &request);
  MPI_Cancel(&request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 0, (rank + size - 1) % size, 0, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
