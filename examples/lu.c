/* lu: the messages of NAS LU's SSOR iterations (a pipelined wavefront) on a
 * px x py process grid, without the arithmetic (a communication skeleton:
 * every payload is stamped and checked, nothing is solved).
 *
 * The --nx x --ny x --nz grid is split in x over px process rows and in y
 * over py process columns (uneven splits allowed); z stays whole. Ranks are
 * numbered as in NAS LU: row = rank mod px, column = rank / px; north/south
 * are rows -1/+1, west/east columns -1/+1; no wrap-around. One SSOR
 * iteration (--iters counts them) sends:
 *
 *  1. the lower sweep (NAS blts + exchange_1): for each block of --kblock
 *     interior k-planes (nz - 2 planes; NAS sends one plane per message),
 *     blocking receives from north and west, then blocking sends to south
 *     and east: 5 doubles per boundary point (north/south 5 * ly * planes,
 *     west/east 5 * lx * planes). A wave starts at rank 0 and the next plane
 *     follows right behind it: many small messages.
 *  2. the upper sweep (buts): the same in reverse, planes from the top,
 *     receives from south and east, sends to north and west.
 *  3. the right-hand side's halo exchange (rhs + exchange_3): two layers of
 *     5 variables over the whole z extent, to north and south
 *     (10 * ly * nz doubles) and then to west and east (10 * lx * nz):
 *     few, larger messages.
 *
 * NAS's residual norm (an allreduce every inorm iterations) is left out.
 * NAS LU wants a power-of-two rank count; this runs on any (MPI_Dims_create
 * gives px >= py, as NAS's xdim >= ydim).
 *
 * Self-check: every received word encodes (sender, receiver, phase,
 * position). */
#include "example_common.h"

static const char *const kOptions[] = {"--nx", "--ny", "--nz", "--px", "--py", "--iters", "--kblock"};

enum { kTagLower = 1, kTagUpper = 2, kTagRhs = 3 };

static long block_start(long n, int parts, int k) { return (long)((long long)n * k / parts); }

/* Blocking receive of n doubles from `from` (if there is one), checked. */
static void recv_checked(double *buf, long n, int from, int tag, int rank, int seq, ExampleTally *t) {
  if (from < 0 || n == 0) return;
  MPI_Recv(buf, (int)n, MPI_DOUBLE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  example_tally_recv(t, buf, n, from, rank, seq, 0);
}

static void send_stamped(double *buf, long n, int to, int tag, int rank, int seq, ExampleTally *t) {
  if (to < 0 || n == 0) return;
  example_stamp(buf, n, rank, to, seq, 0);
  MPI_Send(buf, (int)n, MPI_DOUBLE, to, tag, MPI_COMM_WORLD);
  example_tally_send(t, n);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  example_check_options(argc, argv, kOptions, (int)(sizeof kOptions / sizeof *kOptions));
  const long nx = example_option(argc, argv, "--nx", 64, 1, 1L << 14), ny = example_option(argc, argv, "--ny", 64, 1, 1L << 14),
             nz = example_option(argc, argv, "--nz", 64, 3, 1L << 14);
  int p[2] = {(int)example_option(argc, argv, "--px", 0, 0, 1 << 20), (int)example_option(argc, argv, "--py", 0, 0, 1 << 20)};
  const int iters = (int)example_option(argc, argv, "--iters", 5, 0, 1 << 20);
  const long kblock = example_option(argc, argv, "--kblock", 1, 1, 1L << 14);
  example_dims(argv[0], size, 2, p);
  if (nx < p[0] || ny < p[1]) example_fail(argv[0], "--nx and --ny must be at least --px and --py");
  const int row = rank % p[0], col = rank / p[0];
  const int north = row > 0 ? rank - 1 : -1, south = row < p[0] - 1 ? rank + 1 : -1;
  const int west = col > 0 ? rank - p[0] : -1, east = col < p[1] - 1 ? rank + p[0] : -1;
  const long lx = block_start(nx, p[0], row + 1) - block_start(nx, p[0], row);
  const long ly = block_start(ny, p[1], col + 1) - block_start(ny, p[1], col);
  const long planes = nz - 2, nblocks = (planes + kblock - 1) / kblock;

  const long max_sweep = 5 * (lx > ly ? lx : ly) * kblock, max_rhs = 10 * (lx > ly ? lx : ly) * nz;
  double *sbuf[2], *rbuf[2];
  for (int k = 0; k < 2; ++k) {
    sbuf[k] = malloc(sizeof(double) * (size_t)(max_sweep > max_rhs ? max_sweep : max_rhs));
    rbuf[k] = malloc(sizeof(double) * (size_t)(max_sweep > max_rhs ? max_sweep : max_rhs));
    if (!sbuf[k] || !rbuf[k]) example_fail(argv[0], "out of memory");
  }

  ExampleTally tally = {0, 0, 0, 0};
  const int seq_per_iter = (int)(4 * nblocks + 8);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    const int seq0 = it * seq_per_iter;
    /* 1. Lower sweep: planes bottom-up, wave from the north-west corner. */
    for (long b = 0; b < nblocks; ++b) {
      const long nk = b + 1 < nblocks ? kblock : planes - b * kblock;
      const int seq = seq0 + (int)(2 * b);
      recv_checked(rbuf[0], 5 * ly * nk, north, kTagLower, rank, seq, &tally);
      recv_checked(rbuf[1], 5 * lx * nk, west, kTagLower, rank, seq + 1, &tally);
      send_stamped(sbuf[0], 5 * ly * nk, south, kTagLower, rank, seq, &tally);
      send_stamped(sbuf[1], 5 * lx * nk, east, kTagLower, rank, seq + 1, &tally);
    }
    /* 2. Upper sweep: planes top-down, wave from the south-east corner. */
    for (long b = nblocks - 1; b >= 0; --b) {
      const long nk = b + 1 < nblocks ? kblock : planes - b * kblock;
      const int seq = seq0 + (int)(2 * nblocks + 2 * b);
      recv_checked(rbuf[0], 5 * ly * nk, south, kTagUpper, rank, seq, &tally);
      recv_checked(rbuf[1], 5 * lx * nk, east, kTagUpper, rank, seq + 1, &tally);
      send_stamped(sbuf[0], 5 * ly * nk, north, kTagUpper, rank, seq, &tally);
      send_stamped(sbuf[1], 5 * lx * nk, west, kTagUpper, rank, seq + 1, &tally);
    }
    /* 3. RHS halo: north/south, then west/east (two layers, 5 variables, all of z). */
    const int nb[2][2] = {{north, south}, {west, east}};
    const long len[2] = {10 * ly * nz, 10 * lx * nz};
    for (int axis = 0; axis < 2; ++axis) {
      MPI_Request req[4];
      MPI_Status statuses[4]; /* not MPI_STATUSES_IGNORE: GCC 12 warns on MPICH's sentinel */
      int nreq = 0;
      const int seq = seq0 + (int)(4 * nblocks) + 2 * axis;
      for (int s = 0; s < 2; ++s)
        if (nb[axis][s] >= 0)
          MPI_Irecv(rbuf[s], (int)len[axis], MPI_DOUBLE, nb[axis][s], kTagRhs, MPI_COMM_WORLD, &req[nreq++]);
      for (int s = 0; s < 2; ++s)
        if (nb[axis][s] >= 0) {
          example_stamp(sbuf[s], len[axis], rank, nb[axis][s], seq, 0);
          MPI_Isend(sbuf[s], (int)len[axis], MPI_DOUBLE, nb[axis][s], kTagRhs, MPI_COMM_WORLD, &req[nreq++]);
          example_tally_send(&tally, len[axis]);
        }
      MPI_Waitall(nreq, req, statuses);
      for (int s = 0; s < 2; ++s)
        if (nb[axis][s] >= 0) example_tally_recv(&tally, rbuf[s], len[axis], nb[axis][s], rank, seq, 0);
    }
  }
  const double elapsed = MPI_Wtime() - t0;

  char params[200], extra[128];
  const int ok = example_tally_check(&tally, extra, sizeof extra);
  snprintf(params, sizeof params, "n=%ldx%ldx%ld grid=%dx%d kblock=%ld iters=%d sweep_bytes=%ld/%ld rhs_bytes=%ld/%ld", nx, ny,
           nz, p[0], p[1], kblock, iters, 5 * ly * kblock * (long)sizeof(double), 5 * lx * kblock * (long)sizeof(double),
           10 * ly * nz * (long)sizeof(double), 10 * lx * nz * (long)sizeof(double));
  const int status = example_report("lu", params, iters, elapsed, ok, extra);
  for (int k = 0; k < 2; ++k) {
    free(sbuf[k]);
    free(rbuf[k]);
  }
  MPI_Finalize();
  return status;
}
