/* hydro27: the halo exchange of a 27-point hydrodynamics code on a
 * px x py x pz process grid: every step each rank sends its 26 neighbours
 * (6 faces, 12 edges, 8 corners) --ghost layers of --vars variables, without
 * the arithmetic (a communication skeleton: every payload is stamped and
 * checked).
 *
 * The local block is --lx x --ly x --lz cells on every rank (weak scaling:
 * any rank count works, the global grid is the local block times the
 * process grid). Blocks are not cubes by default (64 x 48 x 32), so the six
 * face messages come in three sizes (x faces g*ly*lz*vars doubles, y faces
 * g*lx*lz*vars, z faces g*lx*ly*vars, with g = --ghost), the edges are
 * g*g*(length)*vars and the corners g^3*vars: much smaller.
 *
 * Ranks are numbered as MPI_Cart_create numbers a px x py x pz grid (z
 * fastest: rank = (cx * py + cy) * pz + cz); MPI_Dims_create gives
 * px >= py >= pz. The grid is periodic (--periodic 0: boundary ranks have
 * fewer neighbours, as in LULESH). All 26 receives are posted, then the 26
 * sends, then one MPI_Waitall; a neighbour that is the rank itself (an axis
 * with one process) is a local copy, not a message.
 *
 * Self-check: every received word encodes (sender, receiver, step,
 * direction, position). */
#include "example_common.h"

static const char *const kOptions[] = {"--lx", "--ly", "--lz", "--px", "--py", "--pz", "--ghost", "--vars", "--iters", "--periodic"};

enum { kDirs = 26, kTagHalo = 1000 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  example_check_options(argc, argv, kOptions, (int)(sizeof kOptions / sizeof *kOptions));
  const long l[3] = {example_option(argc, argv, "--lx", 64, 1, 1L << 12), example_option(argc, argv, "--ly", 48, 1, 1L << 12),
                     example_option(argc, argv, "--lz", 32, 1, 1L << 12)};
  int p[3] = {(int)example_option(argc, argv, "--px", 0, 0, 1 << 20), (int)example_option(argc, argv, "--py", 0, 0, 1 << 20),
              (int)example_option(argc, argv, "--pz", 0, 0, 1 << 20)};
  const long ghost = example_option(argc, argv, "--ghost", 2, 1, 16);
  const long vars = example_option(argc, argv, "--vars", 5, 1, 64);
  const int iters = (int)example_option(argc, argv, "--iters", 20, 0, 1 << 20);
  const int periodic = (int)example_option(argc, argv, "--periodic", 1, 0, 1);
  example_dims(argv[0], size, 3, p);
  for (int d = 0; d < 3; ++d)
    if (ghost > l[d]) example_fail(argv[0], "--ghost must not exceed --lx, --ly or --lz");
  const int c[3] = {rank / (p[1] * p[2]), rank / p[2] % p[1], rank % p[2]};

  /* Direction k (0..25) is an offset (ox, oy, oz) in {-1,0,1}^3 minus (0,0,0). */
  int peer[kDirs];
  long len[kDirs];
  int ndir = 0;
  for (int oz = -1; oz <= 1; ++oz)
    for (int oy = -1; oy <= 1; ++oy)
      for (int ox = -1; ox <= 1; ++ox) {
        if (ox == 0 && oy == 0 && oz == 0) continue;
        const int o[3] = {ox, oy, oz};
        int q[3], inside = 1;
        long n = vars; /* ghost layers across each offset axis, the full length along the others */
        for (int d = 0; d < 3; ++d) {
          q[d] = c[d] + o[d];
          if (q[d] < 0 || q[d] >= p[d]) {
            inside &= periodic;
            q[d] = (q[d] + p[d]) % p[d];
          }
          n *= o[d] != 0 ? ghost : l[d];
        }
        const int r = (q[0] * p[1] + q[1]) * p[2] + q[2];
        peer[ndir] = inside && r != rank ? r : -1;
        len[ndir] = n;
        ++ndir;
      }

  long total = 0;
  for (int k = 0; k < kDirs; ++k) total += len[k];
  double *sendbuf = malloc(sizeof(double) * (size_t)total), *recvbuf = malloc(sizeof(double) * (size_t)total);
  MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * kDirs);
  MPI_Status *statuses = malloc(sizeof(MPI_Status) * 2 * kDirs);
  if (!sendbuf || !recvbuf || !req || !statuses) example_fail(argv[0], "out of memory");

  ExampleTally tally = {0, 0, 0, 0};
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    int nreq = 0;
    long at = 0;
    /* What I receive from the neighbour at offset -o was sent by it towards +o:
     * direction k's mirror is 25 - k in this enumeration. */
    for (int k = 0; k < kDirs; ++k) {
      const int from = peer[kDirs - 1 - k];
      if (from >= 0) MPI_Irecv(recvbuf + at, (int)len[k], MPI_DOUBLE, from, kTagHalo + k, MPI_COMM_WORLD, &req[nreq++]);
      at += len[k];
    }
    at = 0;
    for (int k = 0; k < kDirs; ++k) {
      if (peer[k] >= 0) {
        example_stamp(sendbuf + at, len[k], rank, peer[k], it * kDirs + k, 0);
        MPI_Isend(sendbuf + at, (int)len[k], MPI_DOUBLE, peer[k], kTagHalo + k, MPI_COMM_WORLD, &req[nreq++]);
        example_tally_send(&tally, len[k]);
      }
      at += len[k];
    }
    MPI_Waitall(nreq, req, statuses);
    at = 0;
    for (int k = 0; k < kDirs; ++k) {
      const int from = peer[kDirs - 1 - k];
      if (from >= 0) example_tally_recv(&tally, recvbuf + at, len[k], from, rank, it * kDirs + k, 0);
      at += len[k];
    }
  }
  const double elapsed = MPI_Wtime() - t0;

  char params[256], extra[128];
  const int ok = example_tally_check(&tally, extra, sizeof extra);
  const long fx = ghost * vars * l[1] * l[2], fy = ghost * vars * l[0] * l[2], fz = ghost * vars * l[0] * l[1];
  snprintf(params, sizeof params,
           "local=%ldx%ldx%ld grid=%dx%dx%d ghost=%ld vars=%ld periodic=%d iters=%d face_bytes=%ld/%ld/%ld corner_bytes=%ld", l[0],
           l[1], l[2], p[0], p[1], p[2], ghost, vars, periodic, iters, fx * (long)sizeof(double), fy * (long)sizeof(double),
           fz * (long)sizeof(double), ghost * ghost * ghost * vars * (long)sizeof(double));
  const int status = example_report("hydro27", params, iters, elapsed, ok, extra);
  free(sendbuf);
  free(recvbuf);
  free(req);
  free(statuses);
  MPI_Finalize();
  return status;
}
