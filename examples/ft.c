/* ft: the messages of NAS FT (3D FFT, 2D "pencil" layout), without its
 * arithmetic. The complex grid nx x ny x nz is split over a prows x pcols
 * process grid, rank r at row r / pcols, column r % pcols. A 3D FFT does
 * its first axis locally, then transposes within the rank's row (an
 * MPI_Alltoall on the row communicator, pcols ranks), does the second axis,
 * transposes within its column (prows ranks) and does the third: every
 * rank exchanges its whole block twice, in two different groups.
 *
 * Schedule: one forward FFT at setup, then per iteration (NAS: evolve,
 * inverse FFT, checksum) the two transposes and an MPI_Reduce of one
 * complex checksum to rank 0. Per transpose each pair of a group exchanges
 * local / group complex numbers (16 bytes each), local = nx ny nz / ranks.
 *
 * Why placement matters: the two groups are cliques of every row and every
 * column; a node can hold part of a row or part of a column, not both, and
 * which one pays depends on the grid's shape. Launcher order keeps rows
 * together (consecutive ranks); a column's pairs then all leave the node.
 *
 * Self-check: every received double encodes (sender, receiver, transpose,
 * position) and is checked. Prints "alltoalls=A alltoall_bytes=B": the
 * calls per rank summed over ranks and the bytes they sent to other ranks
 * (what a profile's collective records must add up to). */
#include "example_common.h"

static const char *const kOptions[] = {"--nx", "--ny", "--nz", "--prows", "--pcols", "--iters"};

/* One transpose within `group` (size g, this rank at position me): the block
 * for position j is `n` doubles stamped for its world rank. Counts the bad
 * words received and the bytes sent to other ranks. */
static void transpose(MPI_Comm group, int g, int me, const int *world_of, long n, int seq, double *send, double *recv,
                      long long *bad, long long *bytes) {
  const int world = world_of[me];
  for (int j = 0; j < g; ++j) example_stamp(send + (size_t)j * (size_t)n, n, world, world_of[j], seq, 0);
  MPI_Alltoall(send, (int)n, MPI_DOUBLE, recv, (int)n, MPI_DOUBLE, group);
  for (int j = 0; j < g; ++j) *bad += example_stamp_errors(recv + (size_t)j * (size_t)n, n, world_of[j], world, seq, 0);
  *bytes += (long long)(g - 1) * n * (long long)sizeof(double);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  example_check_options(argc, argv, kOptions, (int)(sizeof kOptions / sizeof *kOptions));
  const long nx = example_option(argc, argv, "--nx", 64, 1, 1 << 14);
  const long ny = example_option(argc, argv, "--ny", 64, 1, 1 << 14);
  const long nz = example_option(argc, argv, "--nz", 64, 1, 1 << 14);
  const int iters = (int)example_option(argc, argv, "--iters", 6, 0, 1 << 20);
  int dims[2] = {(int)example_option(argc, argv, "--prows", 0, 0, 1 << 20),
                 (int)example_option(argc, argv, "--pcols", 0, 0, 1 << 20)};
  example_dims(argv[0], size, 2, dims);
  const int prows = dims[0], pcols = dims[1];
  /* Every pair of a row or a column gets whole complex numbers. */
  if ((nx * ny * nz) % ((long)size * pcols) != 0 || (nx * ny * nz) % ((long)size * prows) != 0)
    example_fail(argv[0], "nx ny nz must be a multiple of ranks x prows and of ranks x pcols");
  const long local = nx * ny * nz / size; /* complex numbers per rank */
  const long row_n = 2 * (local / pcols), col_n = 2 * (local / prows); /* doubles per pair */
  if (2 * local > (1L << 31) - 1) example_fail(argv[0], "the grid is too large for one MPI count per rank");

  const int row = rank / pcols, col = rank % pcols;
  MPI_Comm row_comm, col_comm;
  MPI_Comm_split(MPI_COMM_WORLD, row, col, &row_comm);
  MPI_Comm_split(MPI_COMM_WORLD, col, row, &col_comm);
  int *row_world = malloc(sizeof(int) * (size_t)pcols), *col_world = malloc(sizeof(int) * (size_t)prows);
  double *send = malloc(sizeof(double) * 2 * (size_t)local), *recv = malloc(sizeof(double) * 2 * (size_t)local);
  if (!row_world || !col_world || !send || !recv) example_fail(argv[0], "out of memory");
  for (int j = 0; j < pcols; ++j) row_world[j] = row * pcols + j;
  for (int i = 0; i < prows; ++i) col_world[i] = i * pcols + col;

  long long bad = 0, bytes = 0, calls = 0;
  int seq = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = -1; it < iters; ++it) { /* -1: the forward FFT of the setup */
    transpose(row_comm, pcols, col, row_world, row_n, seq++, send, recv, &bad, &bytes);
    transpose(col_comm, prows, row, col_world, col_n, seq++, send, recv, &bad, &bytes);
    calls += 2;
    if (it >= 0) {
      double chk[2] = {(double)rank, (double)it}, all[2];
      MPI_Reduce(chk, all, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rank == 0) bad += all[0] != (double)size * (size - 1) / 2 || all[1] != (double)it * size;
    }
  }
  const double elapsed = MPI_Wtime() - t0;

  long long mine[3] = {calls, bytes, bad}, sum[3];
  MPI_Allreduce(mine, sum, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  char params[128], extra[96];
  snprintf(params, sizeof params, "grid=%dx%d n=%ldx%ldx%ld iters=%d", prows, pcols, nx, ny, nz, iters);
  snprintf(extra, sizeof extra, "alltoalls=%lld alltoall_bytes=%lld", sum[0], sum[1]);
  const int status = example_report("ft", params, iters, elapsed, sum[2] == 0, extra);
  MPI_Comm_free(&row_comm);
  MPI_Comm_free(&col_comm);
  free(row_world);
  free(col_world);
  free(send);
  free(recv);
  MPI_Finalize();
  return status;
}
