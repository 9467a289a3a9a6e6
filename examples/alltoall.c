/* alltoall: MPI_Alltoall of --bytes per rank pair, --iters times. Every pair
 * talks, so the whole bisection of the torus is loaded whatever the
 * placement: the control case where mapping should gain little (only the
 * intra-node share of the traffic changes with placement).
 *
 * Self-check: every received word encodes (sender, receiver, iteration,
 * position) and is checked. */
#include "example_common.h"

static const char *const kOptions[] = {"--bytes", "--iters"};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  example_check_options(argc, argv, kOptions, (int)(sizeof kOptions / sizeof *kOptions));
  const long bytes = example_option(argc, argv, "--bytes", 4096, 4, 1L << 24);
  const int iters = (int)example_option(argc, argv, "--iters", 20, 0, 1 << 30);
  const long words = bytes / 4;
  if ((long long)words * size > (1LL << 31) - 1) example_fail(argv[0], "--bytes x ranks too large for one MPI count");

  unsigned *sendbuf = malloc(sizeof(unsigned) * (size_t)words * (size_t)size);
  unsigned *recvbuf = malloc(sizeof(unsigned) * (size_t)words * (size_t)size);
  if (!sendbuf || !recvbuf) example_fail(argv[0], "out of memory");
  int ok = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  double in_mpi = 0;
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    for (int t = 0; t < size; ++t)
      for (long i = 0; i < words; ++i) sendbuf[(size_t)t * (size_t)words + (size_t)i] = example_word(rank, t, it, i);
    const double c0 = MPI_Wtime();
    MPI_Alltoall(sendbuf, (int)words, MPI_UNSIGNED, recvbuf, (int)words, MPI_UNSIGNED, MPI_COMM_WORLD);
    in_mpi += MPI_Wtime() - c0;
    for (int s = 0; s < size; ++s)
      for (long i = 0; i < words; ++i) ok &= recvbuf[(size_t)s * (size_t)words + (size_t)i] == example_word(s, rank, it, i);
  }
  const double elapsed = MPI_Wtime() - t0;
  char params[96], extra[64];
  snprintf(params, sizeof params, "bytes=%ld iters=%d", 4 * words, iters);
  snprintf(extra, sizeof extra, "rank0_mpi_time=%.9f", in_mpi);
  const int status = example_report("alltoall", params, iters, elapsed, ok, extra);
  free(sendbuf);
  free(recvbuf);
  MPI_Finalize();
  return status;
}
