/* Prints "rank host cpu-list" for the Slurm launch test: the rank, the host
 * name the process sees (each slurmd runs in its own UTS namespace, so this
 * is the node's name) and the CPUs it may run on (sched_getaffinity).
 * Built twice: plain C, rank from SLURM_PROCID (srun's task id); with
 * -DPROBE_MPI, rank from MPI_Comm_rank after an MPI_Allreduce across all
 * ranks, so MPI startup under srun (PMI-2) and traffic between the nodes are
 * checked too. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef PROBE_MPI
#include <mpi.h>
#endif

int main(int argc, char** argv) {
  int rank = -1;
#ifdef PROBE_MPI
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* Traffic between the nodes (their network namespaces): the sum of all
   * ranks must arrive everywhere, else the line says so. */
  int size = 0;
  long sum = 0, mine = rank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (sum != (long)size * (size - 1) / 2) printf("%d allreduce-gave-%ld\n", rank, sum);
#else
  (void)argc;
  (void)argv;
  const char* procid = getenv("SLURM_PROCID");
  if (procid) rank = atoi(procid);
#endif
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
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
  printf("%d %s %s\n", rank, host, cpus);
  fflush(stdout);
#ifdef PROBE_MPI
  MPI_Finalize();
#endif
  return 0;
}
