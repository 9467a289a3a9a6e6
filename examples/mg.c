/* mg: the messages of a NAS-MG-style multigrid V-cycle on a px x py x pz
 * process grid, without the arithmetic (a communication skeleton: every
 * payload is stamped and checked, nothing is smoothed).
 *
 * Level 0 is the finest grid (--nx x --ny x --nz, periodic, split evenly
 * over the process grid); each coarser level halves every axis, down to 2
 * points on the shortest one (or --levels levels). Every smoother,
 * residual, restriction and interpolation ends with NAS's comm3: a halo
 * exchange axis by axis, two messages per axis (to the + and the -
 * neighbour), the later axes including the ghost cells the earlier ones
 * filled (x faces ey*ez points, y faces (ex+2)*ez, z faces (ex+2)*(ey+2);
 * one double per point).
 *
 * Coarse levels: while a level's axis has fewer than 2 points per process,
 * only the ranks whose coordinate on that axis is a multiple of a stride
 * s = 2, 4, ... stay active, each holding the block of s ranks; active ranks
 * exchange halos with the next active rank along each axis (distance s, the
 * wrap-around one maybe shorter), and an axis with a single active rank
 * exchanges nothing. Going down, a rank that becomes inactive sends its part
 * of the coarser grid to the active rank that takes its block over (the
 * rank with its coordinates rounded down to the new strides); going up, that
 * rank sends it back. This is the communication of NAS MG's "dead" processes
 * at coarse levels, generalised to any grid.
 *
 * One V-cycle (--iters counts them), in NAS mg3P's order, with L levels:
 *   down   for l = 1 .. L-1: [hand-over l-1 -> l], halo(l)       (rprj3)
 *   bottom halo(L-1)                                              (psinv)
 *   up     for l = L-2 .. 0: [hand-back l+1 -> l], halo(l) x 3    (interp,
 *                                                      resid, psinv)
 *   then   halo(0) (resid) and one MPI_Allreduce of one double (residual norm)
 * so the finest level exchanges 4 halos per cycle, the coarsest 2.
 *
 * Self-check: every received word encodes (sender, receiver, phase,
 * position); the norm allreduce's sum is known exactly. */
#include "example_common.h"

static const char *const kOptions[] = {"--nx", "--ny", "--nz", "--px", "--py", "--pz", "--iters", "--levels"};

enum { kMaxLevels = 30, kSeqPerIter = 4096, kTagHalo = 10, kTagDown = 30, kTagUp = 31 };

typedef struct {
  int stride[3], active_count[3];
  long ext[3];     /* local block per axis (the larger one where the split is uneven) */
  int active;      /* does this rank work on this level? */
  int plus[3], minus[3]; /* neighbour ranks along each axis (self: nothing to send) */
} Level;

static long ceil_div(long a, long b) { return (a + b - 1) / b; }

static int rank_of(const int c[3], const int p[3]) { return c[0] + p[0] * (c[1] + p[1] * c[2]); }

typedef struct {
  int rank, p[3], c[3];
  double *send[2], *recv[2];
  ExampleTally tally;
} Ctx;

/* NAS comm3 at one level: axis by axis, send to + and -, receive from both. */
static void halo(Ctx *x, const Level *lv, int seq) {
  if (!lv->active) return;
  for (int d = 0; d < 3; ++d) {
    if (lv->active_count[d] == 1) continue; /* periodic onto itself: a local copy */
    long n;
    if (d == 0)
      n = lv->ext[1] * lv->ext[2];
    else if (d == 1)
      n = (lv->ext[0] + 2) * lv->ext[2];
    else
      n = (lv->ext[0] + 2) * (lv->ext[1] + 2);
    MPI_Request req[4];
    const int s_up = seq + 2 * d, s_down = seq + 2 * d + 1;
    MPI_Irecv(x->recv[0], (int)n, MPI_DOUBLE, lv->minus[d], kTagHalo + 2 * d, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(x->recv[1], (int)n, MPI_DOUBLE, lv->plus[d], kTagHalo + 2 * d + 1, MPI_COMM_WORLD, &req[1]);
    example_stamp(x->send[0], n, x->rank, lv->plus[d], s_up, 0);
    example_stamp(x->send[1], n, x->rank, lv->minus[d], s_down, 0);
    MPI_Isend(x->send[0], (int)n, MPI_DOUBLE, lv->plus[d], kTagHalo + 2 * d, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(x->send[1], (int)n, MPI_DOUBLE, lv->minus[d], kTagHalo + 2 * d + 1, MPI_COMM_WORLD, &req[3]);
    example_tally_send(&x->tally, n);
    example_tally_send(&x->tally, n);
    MPI_Status statuses[4]; /* not MPI_STATUSES_IGNORE: GCC 12 warns on MPICH's sentinel */
    MPI_Waitall(4, req, statuses);
    example_tally_recv(&x->tally, x->recv[0], n, lv->minus[d], x->rank, s_up, 0);
    example_tally_recv(&x->tally, x->recv[1], n, lv->plus[d], x->rank, s_down, 0);
  }
}

/* Between a fine level f and the next coarser one: ranks active on f but not
 * on the coarser level hand their part of the coarse grid to the rank taking
 * their block over (up = 0), or get it back from it (up = 1). The part is the
 * rank's level-f block halved per axis. */
static void hand_over(Ctx *x, const Level *f, const Level *coarse, int up, int seq, double *buf) {
  if (!f->active) return;
  long n = 1;
  for (int d = 0; d < 3; ++d) n *= ceil_div(f->ext[d], 2);
  const int tag = up ? kTagUp : kTagDown;
  if (!coarse->active) {
    int pc[3];
    for (int d = 0; d < 3; ++d) pc[d] = x->c[d] / coarse->stride[d] * coarse->stride[d];
    const int parent = rank_of(pc, x->p);
    if (up) {
      MPI_Recv(buf, (int)n, MPI_DOUBLE, parent, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      example_tally_recv(&x->tally, buf, n, parent, x->rank, seq, 0);
    } else {
      example_stamp(buf, n, x->rank, parent, seq, 0);
      MPI_Send(buf, (int)n, MPI_DOUBLE, parent, tag, MPI_COMM_WORLD);
      example_tally_send(&x->tally, n);
    }
    return;
  }
  /* Active on both: the children are the level-f active ranks in my new block. */
  int k[3], span[3];
  for (int d = 0; d < 3; ++d) span[d] = coarse->stride[d] / f->stride[d];
  for (k[2] = 0; k[2] < span[2]; ++k[2])
    for (k[1] = 0; k[1] < span[1]; ++k[1])
      for (k[0] = 0; k[0] < span[0]; ++k[0]) {
        int cc[3], inside = 1, self = 1;
        for (int d = 0; d < 3; ++d) {
          cc[d] = x->c[d] + k[d] * f->stride[d];
          inside &= cc[d] < x->p[d];
          self &= k[d] == 0;
        }
        if (!inside || self) continue;
        const int child = rank_of(cc, x->p);
        if (up) {
          example_stamp(buf, n, x->rank, child, seq, 0);
          MPI_Send(buf, (int)n, MPI_DOUBLE, child, tag, MPI_COMM_WORLD);
          example_tally_send(&x->tally, n);
        } else {
          MPI_Recv(buf, (int)n, MPI_DOUBLE, child, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          example_tally_recv(&x->tally, buf, n, child, x->rank, seq, 0);
        }
      }
}

static int strides_differ(const Level *a, const Level *b) {
  return a->stride[0] != b->stride[0] || a->stride[1] != b->stride[1] || a->stride[2] != b->stride[2];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  example_check_options(argc, argv, kOptions, (int)(sizeof kOptions / sizeof *kOptions));
  const long n[3] = {example_option(argc, argv, "--nx", 64, 2, 1L << 14), example_option(argc, argv, "--ny", 64, 2, 1L << 14),
                     example_option(argc, argv, "--nz", 64, 2, 1L << 14)};
  Ctx x = {.rank = rank};
  x.p[0] = (int)example_option(argc, argv, "--px", 0, 0, 1 << 20);
  x.p[1] = (int)example_option(argc, argv, "--py", 0, 0, 1 << 20);
  x.p[2] = (int)example_option(argc, argv, "--pz", 0, 0, 1 << 20);
  const int iters = (int)example_option(argc, argv, "--iters", 4, 0, 1 << 20);
  const int want_levels = (int)example_option(argc, argv, "--levels", 0, 0, kMaxLevels);
  example_dims(argv[0], size, 3, x.p);
  for (int d = 0; d < 3; ++d)
    if (n[d] % x.p[d] != 0 || n[d] / x.p[d] < 2)
      example_fail(argv[0], "each of --nx --ny --nz must be a multiple of its process count, with at least 2 points per rank");
  int levels = 1;
  while (levels < kMaxLevels && (n[0] >> levels) >= 2 && (n[1] >> levels) >= 2 && (n[2] >> levels) >= 2) ++levels;
  if (want_levels > levels) example_fail(argv[0], "--levels: the grid has fewer levels (2 points on the shortest axis at most)");
  if (want_levels > 0) levels = want_levels;
  x.c[0] = rank % x.p[0];
  x.c[1] = rank / x.p[0] % x.p[1];
  x.c[2] = rank / (x.p[0] * x.p[1]);

  Level lv[kMaxLevels];
  long max_face = 1, max_part = 1;
  for (int l = 0; l < levels; ++l) {
    Level *L = &lv[l];
    L->active = 1;
    for (int d = 0; d < 3; ++d) {
      const long g = n[d] >> l;
      int s = 1;
      while (s < x.p[d] && g < 2 * ceil_div(x.p[d], s)) s *= 2;
      L->stride[d] = s;
      L->active_count[d] = (int)ceil_div(x.p[d], s);
      L->ext[d] = ceil_div(g, L->active_count[d]);
      L->active &= x.c[d] % s == 0;
    }
    for (int d = 0; d < 3; ++d) {
      const int s = L->stride[d], last = (x.p[d] - 1) / s * s;
      int cu[3] = {x.c[0], x.c[1], x.c[2]}, cd[3] = {x.c[0], x.c[1], x.c[2]};
      cu[d] = x.c[d] + s < x.p[d] ? x.c[d] + s : 0;
      cd[d] = x.c[d] - s >= 0 ? x.c[d] - s : last;
      L->plus[d] = rank_of(cu, x.p);
      L->minus[d] = rank_of(cd, x.p);
    }
    const long faces[3] = {L->ext[1] * L->ext[2], (L->ext[0] + 2) * L->ext[2], (L->ext[0] + 2) * (L->ext[1] + 2)};
    for (int d = 0; d < 3; ++d) max_face = faces[d] > max_face ? faces[d] : max_face;
    const long part = ceil_div(L->ext[0], 2) * ceil_div(L->ext[1], 2) * ceil_div(L->ext[2], 2);
    max_part = part > max_part ? part : max_part;
  }
  for (int k = 0; k < 2; ++k) {
    x.send[k] = malloc(sizeof(double) * (size_t)max_face);
    x.recv[k] = malloc(sizeof(double) * (size_t)max_face);
    if (!x.send[k] || !x.recv[k]) example_fail(argv[0], "out of memory");
  }
  double *part = malloc(sizeof(double) * (size_t)max_part);
  if (!part) example_fail(argv[0], "out of memory");

  int norm_ok = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    /* Every rank counts every event, active or not, so sender and receiver agree on seq. */
    int event = 0;
#define SEQ() (it * kSeqPerIter + 8 * event++)
    for (int l = 1; l < levels; ++l) {
      if (strides_differ(&lv[l - 1], &lv[l])) hand_over(&x, &lv[l - 1], &lv[l], 0, SEQ(), part);
      halo(&x, &lv[l], SEQ());
    }
    halo(&x, &lv[levels - 1], SEQ());
    for (int l = levels - 2; l >= 0; --l) {
      if (strides_differ(&lv[l], &lv[l + 1])) hand_over(&x, &lv[l], &lv[l + 1], 1, SEQ(), part);
      for (int k = 0; k < 3; ++k) halo(&x, &lv[l], SEQ());
    }
    halo(&x, &lv[0], SEQ());
#undef SEQ
    const double mine = (double)(rank + 1) * (it + 1), expect = (double)size * (size + 1) / 2 * (it + 1);
    double norm = 0;
    MPI_Allreduce(&mine, &norm, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    norm_ok &= norm == expect;
  }
  const double elapsed = MPI_Wtime() - t0;

  char params[256], extra[128], coarse[64] = "";
  int first_agg = levels;
  for (int l = 0; l < levels && first_agg == levels; ++l)
    if (lv[l].stride[0] * lv[l].stride[1] * lv[l].stride[2] > 1) first_agg = l;
  if (first_agg < levels) snprintf(coarse, sizeof coarse, " subset_from_level=%d", first_agg);
  const int ok = example_tally_check(&x.tally, extra, sizeof extra) && norm_ok;
  snprintf(params, sizeof params, "n=%ldx%ldx%ld grid=%dx%dx%d levels=%d%s iters=%d face_bytes=%ld/%ld/%ld", n[0], n[1],
           n[2], x.p[0], x.p[1], x.p[2], levels, coarse, iters, lv[0].ext[1] * lv[0].ext[2] * (long)sizeof(double),
           (lv[0].ext[0] + 2) * lv[0].ext[2] * (long)sizeof(double),
           (lv[0].ext[0] + 2) * (lv[0].ext[1] + 2) * (long)sizeof(double));
  const int status = example_report("mg", params, iters, elapsed, ok, extra);
  for (int k = 0; k < 2; ++k) {
    free(x.send[k]);
    free(x.recv[k]);
  }
  free(part);
  MPI_Finalize();
  return status;
}
