/* summa: the messages of SUMMA (dense C = A B, van de Geijn and Watts),
 * without its arithmetic. The n x n matrices are split over a prows x pcols
 * process grid, rank r at row r / pcols, column r % pcols, each holding one
 * block of A, B and C. The product runs in K = lcm(prows, pcols) panel
 * steps; at step k the ranks of grid column k mod pcols broadcast their
 * piece of A's k-th panel (n/prows x n/K doubles) along their row, and the
 * ranks of grid row k mod prows their piece of B's k-th panel (n/K x
 * n/pcols) along their column: MPI_Bcast on the row and column
 * communicators, roots moving with k.
 *
 * Why placement matters: as in ft, every row and every column is a group
 * that exchanges (here by broadcast trees rooted in turn at each member);
 * a node can hold part of a row or part of a column.
 *
 * Self-check: every broadcast payload encodes (root, step, panel) and is
 * checked on every receiver. Prints "bcasts=B bcast_bytes=Y": the calls
 * summed over ranks and the payload bytes of the calls (each counted once,
 * at its root). */
#include "example_common.h"

static const char *const kOptions[] = {"--n", "--prows", "--pcols", "--iters"};

static long gcd(long a, long b) { return b == 0 ? a : gcd(b, a % b); }

/* One panel broadcast of `n` doubles from `root` in `group`; counts bad words. */
static void panel(MPI_Comm group, int me, int root, int root_world, long n, int seq, double *buf, long long *bad) {
  if (me == root) example_stamp(buf, n, root_world, 0, seq, 0);
  MPI_Bcast(buf, (int)n, MPI_DOUBLE, root, group);
  if (me != root) *bad += example_stamp_errors(buf, n, root_world, 0, seq, 0);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  example_check_options(argc, argv, kOptions, (int)(sizeof kOptions / sizeof *kOptions));
  const long n = example_option(argc, argv, "--n", 1024, 1, 1 << 16);
  const int iters = (int)example_option(argc, argv, "--iters", 2, 0, 1 << 20);
  int dims[2] = {(int)example_option(argc, argv, "--prows", 0, 0, 1 << 20),
                 (int)example_option(argc, argv, "--pcols", 0, 0, 1 << 20)};
  example_dims(argv[0], size, 2, dims);
  const int prows = dims[0], pcols = dims[1];
  const long steps = (long)prows / gcd(prows, pcols) * pcols;
  if (n % prows != 0 || n % pcols != 0 || n % steps != 0)
    example_fail(argv[0], "--n must be a multiple of prows, pcols and lcm(prows, pcols)");
  const long a_n = (n / prows) * (n / steps), b_n = (n / steps) * (n / pcols); /* doubles per panel piece */
  if (a_n > (1L << 31) - 1 || b_n > (1L << 31) - 1) example_fail(argv[0], "--n is too large for one MPI count");

  const int row = rank / pcols, col = rank % pcols;
  MPI_Comm row_comm, col_comm;
  MPI_Comm_split(MPI_COMM_WORLD, row, col, &row_comm);
  MPI_Comm_split(MPI_COMM_WORLD, col, row, &col_comm);
  double *a = malloc(sizeof(double) * (size_t)a_n), *b = malloc(sizeof(double) * (size_t)b_n);
  if (!a || !b) example_fail(argv[0], "out of memory");

  long long bad = 0, calls = 0, payload = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it)
    for (long k = 0; k < steps; ++k) {
      const int a_root = (int)(k % pcols), b_root = (int)(k % prows);
      const int seq = (int)(it * steps + k);
      panel(row_comm, col, a_root, row * pcols + a_root, a_n, 2 * seq, a, &bad);
      panel(col_comm, row, b_root, b_root * pcols + col, b_n, 2 * seq + 1, b, &bad);
      calls += 2;
      payload += (col == a_root ? a_n : 0) * (long long)sizeof(double) + (row == b_root ? b_n : 0) * (long long)sizeof(double);
    }
  const double elapsed = MPI_Wtime() - t0;

  long long mine[3] = {calls, payload, bad}, sum[3];
  MPI_Allreduce(mine, sum, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  char params[128], extra[96];
  snprintf(params, sizeof params, "grid=%dx%d n=%ld steps=%ld iters=%d", prows, pcols, n, steps, iters);
  snprintf(extra, sizeof extra, "bcasts=%lld bcast_bytes=%lld", sum[0], sum[1]);
  const int status = example_report("summa", params, iters, elapsed, sum[2] == 0, extra);
  MPI_Comm_free(&row_comm);
  MPI_Comm_free(&col_comm);
  free(a);
  free(b);
  MPI_Finalize();
  return status;
}
