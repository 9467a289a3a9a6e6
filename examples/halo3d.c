/* halo3d: a 3-D halo exchange done axis by axis, the case where placements
 * that tie on every static metric still run at different speeds (issue 19).
 *
 * Ranks form a px x py x pz periodic grid numbered x fastest
 * (rank = cx + px * (cy + py * cz)), so the launcher's block placement puts
 * runs of x-neighbours on a node. Every iteration exchanges the x faces
 * (--bx bytes each way with both x neighbours: post two receives, two sends,
 * MPI_Waitall), then the y faces (--by), then the z faces (--bz), then one
 * one-double MPI_Allreduce (a residual). Messages are contiguous MPI_DOUBLE
 * buffers, so a SimGrid time-independent trace (smpirun -trace-ti) records
 * their exact sizes. The defaults (32, 24 and 16 KiB) are below SMPI's and
 * MPICH's eager thresholds: a send completes without its receiver, so ranks
 * that finish an axis early run ahead.
 *
 * --compute N adds N multiply-adds per cell-sized step between the axes
 * (N = 0 by default: a communication skeleton), so that a trace recorded
 * with simulate-computation:yes has compute actions.
 *
 * Self-check: every received word encodes (sender, receiver, step, axis,
 * position). */
#include "example_common.h"

static const char *const kOptions[] = {"--px", "--py", "--pz", "--bx", "--by", "--bz", "--iters", "--compute"};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  example_check_options(argc, argv, kOptions, (int)(sizeof kOptions / sizeof *kOptions));
  int p[3] = {(int)example_option(argc, argv, "--px", 0, 0, 1 << 20), (int)example_option(argc, argv, "--py", 0, 0, 1 << 20),
              (int)example_option(argc, argv, "--pz", 0, 0, 1 << 20)};
  const long bytes[3] = {example_option(argc, argv, "--bx", 32768, 8, 1L << 26),
                         example_option(argc, argv, "--by", 24576, 8, 1L << 26),
                         example_option(argc, argv, "--bz", 16384, 8, 1L << 26)};
  const int iters = (int)example_option(argc, argv, "--iters", 20, 0, 1 << 30);
  const long compute = example_option(argc, argv, "--compute", 0, 0, 1L << 30);
  for (int d = 0; d < 3; ++d)
    if (bytes[d] % 8 != 0) example_fail(argv[0], "--bx, --by and --bz must be multiples of 8 (messages of doubles)");
  example_dims(argv[0], size, 3, p);

  const int c[3] = {rank % p[0], (rank / p[0]) % p[1], rank / (p[0] * p[1])};
  int down[3], up[3];
  for (int d = 0; d < 3; ++d) {
    int lo[3] = {c[0], c[1], c[2]}, hi[3] = {c[0], c[1], c[2]};
    lo[d] = (c[d] + p[d] - 1) % p[d];
    hi[d] = (c[d] + 1) % p[d];
    down[d] = lo[0] + p[0] * (lo[1] + p[1] * lo[2]);
    up[d] = hi[0] + p[0] * (hi[1] + p[1] * hi[2]);
  }
  long most = 0;
  for (int d = 0; d < 3; ++d) most = bytes[d] / 8 > most ? bytes[d] / 8 : most;
  double *send_buf = malloc(2 * (size_t)most * sizeof(double));
  double *recv_buf = malloc(2 * (size_t)most * sizeof(double));
  double *cells = malloc((size_t)most * sizeof(double));
  if (!send_buf || !recv_buf || !cells) example_fail(argv[0], "out of memory");
  for (long i = 0; i < most; ++i) cells[i] = (double)(i % 7);
  ExampleTally tally = {0, 0, 0, 0};
  double residual = 0;

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    for (int d = 0; d < 3; ++d) {
      const long n = bytes[d] / 8;
      const int peer[2] = {down[d], up[d]};
      // With one process along an axis both neighbours are the rank itself:
      // the exchange is then still two messages to self, as MPI allows.
      MPI_Request req[4];
      MPI_Status statuses[4];  // not MPI_STATUSES_IGNORE: GCC 12 flags MPICH's (-Wstringop-overflow)
      for (int k = 0; k < 2; ++k)
        MPI_Irecv(recv_buf + k * n, (int)n, MPI_DOUBLE, peer[k], 10 * d + (1 - k), MPI_COMM_WORLD, &req[k]);
      for (int k = 0; k < 2; ++k) {
        example_stamp(send_buf + k * n, n, rank, peer[k], 3 * it + d, 0);
        MPI_Isend(send_buf + k * n, (int)n, MPI_DOUBLE, peer[k], 10 * d + k, MPI_COMM_WORLD, &req[2 + k]);
        example_tally_send(&tally, n);
      }
      MPI_Waitall(4, req, statuses);
      for (int k = 0; k < 2; ++k) example_tally_recv(&tally, recv_buf + k * n, n, peer[k], rank, 3 * it + d, 0);
      for (long w = 0; w < compute; ++w)
        for (long i = 0; i < n; ++i) cells[i] = cells[i] * 0.5 + recv_buf[i] * 0.25;
    }
    double local = cells[it % most], global = 0;
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    residual += global;
  }
  const double elapsed = MPI_Wtime() - t0;

  char params[192], extra[160];
  snprintf(params, sizeof params, "grid=%dx%dx%d iters=%d face_bytes=%ld/%ld/%ld compute=%ld", p[0], p[1], p[2], iters,
           bytes[0], bytes[1], bytes[2], compute);
  const int ok = example_tally_check(&tally, extra, sizeof extra) && residual == residual;
  const int status = example_report("halo3d", params, iters, elapsed, ok, extra);
  free(send_buf);
  free(recv_buf);
  free(cells);
  MPI_Finalize();
  return status;
}
