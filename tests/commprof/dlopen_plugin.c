/* The plugin of dlopen_main.c: a ring of 3 messages of 10*(rank+1) ints from
 * every rank to the next (commprof_check --ring P 3 40), with MPI_Send,
 * MPI_Isend + MPI_Wait and MPI_Recv, MPI_Init and MPI_Finalize included. */
#include <mpi.h>
#include <stdlib.h>

int commprof_plugin_ring(void) {
  MPI_Init(NULL, NULL);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const int count = 10 * (rank + 1), prev_count = 10 * (prev + 1);
  int* out = calloc((size_t)count, sizeof(int));
  int* in = calloc((size_t)prev_count, sizeof(int));
  for (int i = 0; i < 3; ++i) {
    MPI_Request recv, send;
    MPI_Irecv(in, prev_count, MPI_INT, prev, i, MPI_COMM_WORLD, &recv);
    if (i == 1) {
      MPI_Isend(out, count, MPI_INT, next, i, MPI_COMM_WORLD, &send);
      MPI_Wait(&send, MPI_STATUS_IGNORE);
    } else {
      MPI_Send(out, count, MPI_INT, next, i, MPI_COMM_WORLD);
    }
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
  }
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
