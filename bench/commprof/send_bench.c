/* Cost libcommprof adds to one MPI_Send on MPI_COMM_WORLD.
 *
 * One rank sends small messages to itself: each iteration posts the receive
 * and completes it through PMPI_* directly, so the only intercepted call in
 * the loop is MPI_Send and the difference between a run with and without
 * the preload is the cost of the Send wrapper alone (mode check, optional
 * timing, type size, world-rank fast path, counter add). The hot path is the
 * same as for a send to another rank; only finalize drops self traffic.
 *
 *   send_bench [iterations] [repeats]   -> prints "ns_per_iteration=<min over repeats>"
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

int main(int argc, char** argv) {
  const long iterations = argc > 1 ? atol(argv[1]) : 200000;
  const int repeats = argc > 2 ? atoi(argv[2]) : 7;
  MPI_Init(&argc, &argv);
  int rank;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int out = 1, in = 0;
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    PMPI_Barrier(MPI_COMM_WORLD);
    const double t0 = PMPI_Wtime();
    for (long i = 0; i < iterations; ++i) {
      MPI_Request req;
      PMPI_Irecv(&in, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &req);
      MPI_Send(&out, 1, MPI_INT, rank, 0, MPI_COMM_WORLD);
      PMPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    const double ns = (PMPI_Wtime() - t0) * 1e9 / (double)iterations;
    if (ns < best) best = ns;
  }
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  if (rank == 0) printf("ns_per_iteration=%.2f maxrss_kib=%ld\n", best, usage.ru_maxrss);
  MPI_Finalize();
  return 0;
}
