/* Prints "rank host cpu-list" for the launcher tests: the MPI rank, the host
 * the (fake) ssh launched this process on, and the CPUs it is allowed to run
 * on. Compiled once per MPI (mpicc.mpich, mpicc.openmpi). */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  cpu_set_t set;
  CPU_ZERO(&set);
  char cpus[4096] = "";
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    size_t used = 0;
    for (int c = 0; c < CPU_SETSIZE && used + 16 < sizeof cpus; ++c)
      if (CPU_ISSET(c, &set)) used += (size_t)snprintf(cpus + used, sizeof cpus - used, "%s%d", used ? "," : "", c);
  } else {
    snprintf(cpus, sizeof cpus, "unknown");
  }
  const char* host = getenv("RANKMAP_FAKE_HOST");
  printf("%d %s %s\n", rank, host ? host : "no-fake-host", cpus);
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
