/* stencil2d: Jacobi 5-point averaging on a periodic nx x ny grid, split over a
 * px x py process grid, one halo exchange per iteration.
 *
 * Why the launcher's default (block) placement is poor here, by design:
 * cells are stored with x varying fastest in memory (C order), but ranks are
 * numbered with the process-grid y coordinate varying fastest
 * (--order yfast, the default: rank = cy + py * cx, the column-major formula
 * of Fortran codes). MPI_Dims_create makes px >= py, so each block is narrower
 * than tall (nx/px <= ny/py) and the east/west halos (ny/py values) are the
 * heavy messages. Block placement fills a node with consecutive ranks, i.e.
 * with y-neighbours, which exchange the light north/south halos; every heavy
 * east/west partner is py ranks away and on another node. A mapper that groups
 * square patches of the grid on a node cuts the off-node volume.
 * --order xfast numbers ranks the natural way for this layout; --order random
 * scatters grid positions over ranks (seeded), the worst case for block.
 *
 * Self-check: with periodic boundaries the averaging conserves the sum of the
 * field, so a wrong or missing halo shows up as a changed sum. The printed
 * checksum (sum of squares) depends only on the global problem, not on the
 * decomposition, so runs at different rank counts can be compared. */
#include <math.h>

#include "example_common.h"

enum { ORDER_YFAST, ORDER_XFAST, ORDER_RANDOM };
static const char *const kOrders[] = {"yfast", "xfast", "random"};
static const char *const kOptions[] = {"--nx", "--ny", "--px", "--py", "--iters", "--order", "--seed"};

/* Grid position of every rank, so that any rank can find its neighbours. */
static void grid_positions(int order, int px, int py, unsigned long long seed, int *pos_of_rank) {
  const int p = px * py;
  for (int r = 0; r < p; ++r) {
    const int cx = order == ORDER_YFAST ? r / py : r % px;
    const int cy = order == ORDER_YFAST ? r % py : r / px;
    pos_of_rank[r] = cx + px * cy;
  }
  if (order == ORDER_RANDOM) {
    example_shuffle(pos_of_rank, p, seed);
  }
}

static double initial_value(long gx, long gy) { return (double)((gx * 7 + gy * 13) % 17 + 1); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  example_check_options(argc, argv, kOptions, (int)(sizeof kOptions / sizeof *kOptions));

  const long nx = example_option(argc, argv, "--nx", 1024, 1, 1L << 20);
  const long ny = example_option(argc, argv, "--ny", 1024, 1, 1L << 20);
  int dims[2] = {(int)example_option(argc, argv, "--px", 0, 0, 1 << 20),
                 (int)example_option(argc, argv, "--py", 0, 0, 1 << 20)};
  const int iters = (int)example_option(argc, argv, "--iters", 100, 0, 1 << 30);
  const int order = example_choice(argc, argv, "--order", kOrders, 3, ORDER_YFAST);
  const unsigned long long seed = (unsigned long long)example_option(argc, argv, "--seed", 1, 0, 1L << 40);
  if (MPI_Dims_create(size, 2, dims) != MPI_SUCCESS || dims[0] * dims[1] != size)
    example_fail(argv[0], "--px x --py must equal the number of ranks");
  const int px = dims[0], py = dims[1];
  if (nx % px != 0 || ny % py != 0) example_fail(argv[0], "--nx must be a multiple of px and --ny of py");
  const int lnx = (int)(nx / px), lny = (int)(ny / py);

  int *pos_of_rank = malloc(sizeof(int) * (size_t)size);
  int *rank_at = malloc(sizeof(int) * (size_t)size);
  grid_positions(order, px, py, seed, pos_of_rank);
  for (int r = 0; r < size; ++r) rank_at[pos_of_rank[r]] = r;
  const int cx = pos_of_rank[rank] % px, cy = pos_of_rank[rank] / px;
  const int east = rank_at[(cx + 1) % px + px * cy], west = rank_at[(cx + px - 1) % px + px * cy];
  const int north = rank_at[cx + px * ((cy + 1) % py)], south = rank_at[cx + px * ((cy + py - 1) % py)];

  const int stride = lnx + 2; /* one ghost cell on each side */
  double *u = calloc((size_t)stride * (size_t)(lny + 2), sizeof(double));
  double *v = calloc((size_t)stride * (size_t)(lny + 2), sizeof(double));
  if (!u || !v) example_fail(argv[0], "out of memory");
#define AT(a, i, j) (a)[(size_t)(j) * (size_t)stride + (size_t)(i)]
  double local_sum = 0;
  for (int j = 1; j <= lny; ++j)
    for (int i = 1; i <= lnx; ++i) {
      AT(u, i, j) = initial_value((long)cx * lnx + i - 1, (long)cy * lny + j - 1);
      local_sum += AT(u, i, j);
    }
  double sum0 = 0;
  MPI_Allreduce(&local_sum, &sum0, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

  MPI_Datatype column;
  MPI_Type_vector(lny, 1, stride, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    /* Heavy east/west columns, then light north/south rows. */
    MPI_Sendrecv(&AT(u, lnx, 1), 1, column, east, 0, &AT(u, 0, 1), 1, column, west, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(u, 1, 1), 1, column, west, 1, &AT(u, lnx + 1, 1), 1, column, east, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(u, 1, lny), lnx, MPI_DOUBLE, north, 2, &AT(u, 1, 0), lnx, MPI_DOUBLE, south, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&AT(u, 1, 1), lnx, MPI_DOUBLE, south, 3, &AT(u, 1, lny + 1), lnx, MPI_DOUBLE, north, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int j = 1; j <= lny; ++j)
      for (int i = 1; i <= lnx; ++i)
        AT(v, i, j) = 0.2 * (AT(u, i, j) + AT(u, i - 1, j) + AT(u, i + 1, j) + AT(u, i, j - 1) + AT(u, i, j + 1));
    double *t = u;
    u = v;
    v = t;
  }
  const double elapsed = MPI_Wtime() - t0;

  double local[2] = {0, 0}, global[2];
  for (int j = 1; j <= lny; ++j)
    for (int i = 1; i <= lnx; ++i) {
      local[0] += AT(u, i, j);
      local[1] += AT(u, i, j) * AT(u, i, j);
    }
  MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const int ok = fabs(global[0] - sum0) <= 1e-9 * fabs(sum0);
  char params[160], extra[96];
  snprintf(params, sizeof params, "nx=%ld ny=%ld grid=%dx%d order=%s iters=%d halo_bytes=%zu/%zu", nx, ny, px, py,
           kOrders[order], iters, (size_t)lny * sizeof(double), (size_t)lnx * sizeof(double));
  snprintf(extra, sizeof extra, "checksum=%.15e", global[1]);
  const int status = example_report("stencil2d", params, iters, elapsed, ok, extra);
  MPI_Type_free(&column);
  free(u);
  free(v);
  free(pos_of_rank);
  free(rank_at);
  MPI_Finalize();
  return status;
#undef AT
}
