/* stencil3d: Jacobi 7-point averaging on a periodic n x n x n grid (sizes per
 * axis settable), split over a px x py x pz process grid, six face exchanges
 * per iteration.
 *
 * Why the launcher's default (block) placement is poor here, by design: cells
 * are stored x fastest, ranks are numbered z fastest (--order zfast, the
 * default: rank = cz + pz * (cy + py * cx)). MPI_Dims_create gives
 * px >= py >= pz, so blocks are thinnest in x and the x faces are the largest
 * messages, then y, then z. Block placement fills a node with z-neighbours,
 * which exchange the smallest faces; every x partner is py*pz ranks away.
 * --order xfast is the natural numbering; --order random scatters grid
 * positions over ranks (seeded).
 *
 * Self-check: periodic averaging conserves the field's sum; the printed
 * checksum (sum of squares) is independent of the decomposition. */
#include <math.h>

#include "example_common.h"

enum { ORDER_ZFAST, ORDER_XFAST, ORDER_RANDOM };
static const char *const kOrders[] = {"zfast", "xfast", "random"};
static const char *const kOptions[] = {"--nx", "--ny", "--nz", "--px", "--py", "--pz", "--iters", "--order", "--seed"};

static void grid_positions(int order, const int p[3], unsigned long long seed, int *pos_of_rank) {
  const int n = p[0] * p[1] * p[2];
  for (int r = 0; r < n; ++r) {
    int c[3];
    if (order == ORDER_ZFAST) {
      c[2] = r % p[2];
      c[1] = (r / p[2]) % p[1];
      c[0] = r / (p[2] * p[1]);
    } else {
      c[0] = r % p[0];
      c[1] = (r / p[0]) % p[1];
      c[2] = r / (p[0] * p[1]);
    }
    pos_of_rank[r] = c[0] + p[0] * (c[1] + p[1] * c[2]);
  }
  if (order == ORDER_RANDOM) {
    example_shuffle(pos_of_rank, n, seed);
  }
}

static double initial_value(long gx, long gy, long gz) { return (double)((gx * 7 + gy * 13 + gz * 5) % 19 + 1); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  example_check_options(argc, argv, kOptions, (int)(sizeof kOptions / sizeof *kOptions));

  const long n[3] = {example_option(argc, argv, "--nx", 128, 1, 1L << 14), example_option(argc, argv, "--ny", 128, 1, 1L << 14),
                     example_option(argc, argv, "--nz", 128, 1, 1L << 14)};
  int p[3] = {(int)example_option(argc, argv, "--px", 0, 0, 1 << 20), (int)example_option(argc, argv, "--py", 0, 0, 1 << 20),
              (int)example_option(argc, argv, "--pz", 0, 0, 1 << 20)};
  const int iters = (int)example_option(argc, argv, "--iters", 50, 0, 1 << 30);
  const int order = example_choice(argc, argv, "--order", kOrders, 3, ORDER_ZFAST);
  const unsigned long long seed = (unsigned long long)example_option(argc, argv, "--seed", 1, 0, 1L << 40);
  if (MPI_Dims_create(size, 3, p) != MPI_SUCCESS || p[0] * p[1] * p[2] != size)
    example_fail(argv[0], "--px x --py x --pz must equal the number of ranks");
  int ln[3];
  for (int d = 0; d < 3; ++d) {
    if (n[d] % p[d] != 0) example_fail(argv[0], "each of --nx --ny --nz must be a multiple of its process count");
    ln[d] = (int)(n[d] / p[d]);
  }

  int *pos_of_rank = malloc(sizeof(int) * (size_t)size);
  int *rank_at = malloc(sizeof(int) * (size_t)size);
  grid_positions(order, p, seed, pos_of_rank);
  for (int r = 0; r < size; ++r) rank_at[pos_of_rank[r]] = r;
  const int me = pos_of_rank[rank];
  const int c[3] = {me % p[0], (me / p[0]) % p[1], me / (p[0] * p[1])};
  int up[3], down[3]; /* neighbour ranks in + and - direction per axis */
  for (int d = 0; d < 3; ++d) {
    int cu[3] = {c[0], c[1], c[2]}, cd[3] = {c[0], c[1], c[2]};
    cu[d] = (c[d] + 1) % p[d];
    cd[d] = (c[d] + p[d] - 1) % p[d];
    up[d] = rank_at[cu[0] + p[0] * (cu[1] + p[1] * cu[2])];
    down[d] = rank_at[cd[0] + p[0] * (cd[1] + p[1] * cd[2])];
  }

  const size_t sx = 1, sy = (size_t)ln[0] + 2, sz = sy * ((size_t)ln[1] + 2);
  const size_t cells = sz * ((size_t)ln[2] + 2);
  double *u = calloc(cells, sizeof(double)), *v = calloc(cells, sizeof(double));
  if (!u || !v) example_fail(argv[0], "out of memory");
#define IDX(i, j, k) ((size_t)(i) * sx + (size_t)(j) * sy + (size_t)(k) * sz)
  double local_sum = 0;
  for (int k = 1; k <= ln[2]; ++k)
    for (int j = 1; j <= ln[1]; ++j)
      for (int i = 1; i <= ln[0]; ++i) {
        u[IDX(i, j, k)] = initial_value((long)c[0] * ln[0] + i - 1, (long)c[1] * ln[1] + j - 1, (long)c[2] * ln[2] + k - 1);
        local_sum += u[IDX(i, j, k)];
      }
  double sum0 = 0;
  MPI_Allreduce(&local_sum, &sum0, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

  /* One derived type per face orientation, interior cells only (a 7-point
   * stencil never reads edge or corner ghosts). */
  MPI_Datatype face[3], plane_x;
  MPI_Type_vector(ln[1], 1, (int)sy, MPI_DOUBLE, &plane_x);
  MPI_Type_create_hvector(ln[2], 1, (MPI_Aint)(sz * sizeof(double)), plane_x, &face[0]);
  MPI_Type_vector(ln[2], ln[0], (int)sz, MPI_DOUBLE, &face[1]);
  MPI_Type_vector(ln[1], ln[0], (int)sy, MPI_DOUBLE, &face[2]);
  for (int d = 0; d < 3; ++d) MPI_Type_commit(&face[d]);
  const size_t stride[3] = {sx, sy, sz};

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    for (int d = 0; d < 3; ++d) {
      const size_t first = IDX(1, 1, 1), last = first + (size_t)(ln[d] - 1) * stride[d];
      /* Send the high face up, fill the low ghost from below; then the reverse. */
      MPI_Sendrecv(u + last, 1, face[d], up[d], 2 * d, u + first - stride[d], 1, face[d], down[d], 2 * d, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      MPI_Sendrecv(u + first, 1, face[d], down[d], 2 * d + 1, u + last + stride[d], 1, face[d], up[d], 2 * d + 1,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    for (int k = 1; k <= ln[2]; ++k)
      for (int j = 1; j <= ln[1]; ++j)
        for (int i = 1; i <= ln[0]; ++i) {
          const size_t x = IDX(i, j, k);
          v[x] = (u[x] + u[x - sx] + u[x + sx] + u[x - sy] + u[x + sy] + u[x - sz] + u[x + sz]) / 7.0;
        }
    double *t = u;
    u = v;
    v = t;
  }
  const double elapsed = MPI_Wtime() - t0;

  double local[2] = {0, 0}, global[2];
  for (int k = 1; k <= ln[2]; ++k)
    for (int j = 1; j <= ln[1]; ++j)
      for (int i = 1; i <= ln[0]; ++i) {
        local[0] += u[IDX(i, j, k)];
        local[1] += u[IDX(i, j, k)] * u[IDX(i, j, k)];
      }
  MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const int ok = fabs(global[0] - sum0) <= 1e-9 * fabs(sum0);
  char params[200], extra[96];
  snprintf(params, sizeof params, "n=%ldx%ldx%ld grid=%dx%dx%d order=%s iters=%d face_bytes=%zu/%zu/%zu", n[0], n[1], n[2],
           p[0], p[1], p[2], kOrders[order], iters, (size_t)ln[1] * ln[2] * sizeof(double),
           (size_t)ln[0] * ln[2] * sizeof(double), (size_t)ln[0] * ln[1] * sizeof(double));
  snprintf(extra, sizeof extra, "checksum=%.15e", global[1]);
  const int status = example_report("stencil3d", params, iters, elapsed, ok, extra);
  for (int d = 0; d < 3; ++d) MPI_Type_free(&face[d]);
  MPI_Type_free(&plane_x);
  free(u);
  free(v);
  free(pos_of_rank);
  free(rank_at);
  MPI_Finalize();
  return status;
#undef IDX
}
