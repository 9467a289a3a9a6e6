/* adi: the messages of NAS BT's ADI time steps on a multipartitioned grid,
 * without the arithmetic (a communication skeleton: every payload is
 * stamped and checked, nothing is solved).
 *
 * Multipartition. The ranks form an a x b grid (MPI_Dims_create, a >= b;
 * rank = i + a * j). The --nx x --ny x --nz grid is cut into a cells along
 * x, b along y and m = lcm(a, b) along z (uneven cuts allowed). In z-slab c
 * rank (i, j) owns the cell (x, y) = ((i + c) mod a, (j + c) mod b), so
 * every slab holds one cell of every rank, and the neighbour of every cell
 * of a rank in a sweep direction belongs to one fixed rank:
 *   x: (i + 1, j)   y: (i, j + 1)   z: (i - 1, j - 1)    (mod a, mod b)
 * When the rank count is a perfect square (a = b = m = sqrt(P)) this is NAS
 * BT/SP's multipartition (sqrt(P) cells per rank, one per stage of every
 * sweep). Otherwise it is the generalisation: lcm(a, b) cells per rank,
 * lcm/a of them at each of the a stages of an x sweep, lcm/b at each y stage,
 * one per z stage; each stage's cells travel in one message, so the
 * messages per sweep are a - 1, b - 1 and m - 1 per rank and direction.
 * A prime rank count P gives a P x 1 grid: no y messages.
 *
 * One time step (--iters counts them) sends, as NAS BT:
 *  1. copy_faces: to each of the six neighbour ranks one message with the
 *     faces of all cells that touch one of its cells (2 layers x 5
 *     variables per face point; the domain is not periodic).
 *  2. x, y and z solves, each a forward elimination (stage by stage,
 *     receive from the predecessor, send to the successor: 5x5 block + 5
 *     right-hand sides = 30 doubles per face point) and a back
 *     substitution in reverse (5 doubles per face point).
 *
 * Self-check: every received word encodes (sender, receiver, phase,
 * position). */
#include "example_common.h"

static const char *const kOptions[] = {"--nx", "--ny", "--nz", "--px", "--py", "--iters"};

enum { kFaceWords = 10, kForwardWords = 30, kBackWords = 5, kTagFaces = 10, kTagSweep = 20 };

static long block_start(long n, int parts, int k) { return (long)((long long)n * k / parts); }
static long block_size(long n, int parts, int k) { return block_start(n, parts, k + 1) - block_start(n, parts, k); }
static int gcd(int u, int v) { return v == 0 ? u : gcd(v, u % v); }

typedef struct {
  int rank;
  double *send[2], *recv;
  MPI_Request pending[2];
  ExampleTally tally;
} Ctx;

/* One solve along an axis with `stages` stages: face_pts[t] is the face
 * points of my cells at stage t, the same as those of the neighbour's cells
 * at the adjacent stage (same slabs, same cross-section). Forward: receive from
 * pred, then send to succ; backward the reverse. Sends are nonblocking (the
 * predecessor/successor chain of a multipartition is a ring: blocking sends
 * could wait on each other all the way round), at most two outstanding. */
static void sweep(Ctx *x, int stages, const long *face_pts, int pred, int succ, int tag, int seq_base) {
  for (int dir = 0; dir < 2; ++dir) {
    const int words = dir == 0 ? kForwardWords : kBackWords;
    const int from = dir == 0 ? pred : succ, to = dir == 0 ? succ : pred;
    const int seq = seq_base + dir * stages;
    int slot = 0;
    for (int k = 0; k < stages; ++k) {
      const int t = dir == 0 ? k : stages - 1 - k; /* this stage */
      if (k > 0) { /* from the neighbour's previous stage */
        const int prev = dir == 0 ? t - 1 : t + 1;
        const long n = words * face_pts[t]; /* my stage-t cells' faces = its stage's cells' */
        MPI_Recv(x->recv, (int)n, MPI_DOUBLE, from, tag + dir, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        example_tally_recv(&x->tally, x->recv, n, from, x->rank, seq + prev, 0);
      }
      if (k < stages - 1) {
        const long n = words * face_pts[t];
        MPI_Wait(&x->pending[slot], MPI_STATUS_IGNORE);
        example_stamp(x->send[slot], n, x->rank, to, seq + t, 0);
        MPI_Isend(x->send[slot], (int)n, MPI_DOUBLE, to, tag + dir, MPI_COMM_WORLD, &x->pending[slot]);
        example_tally_send(&x->tally, n);
        slot ^= 1;
      }
    }
    MPI_Status statuses[2]; /* not MPI_STATUSES_IGNORE: GCC 12 warns on MPICH's sentinel */
    MPI_Waitall(2, x->pending, statuses);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  example_check_options(argc, argv, kOptions, (int)(sizeof kOptions / sizeof *kOptions));
  const long n[3] = {example_option(argc, argv, "--nx", 64, 1, 1L << 14), example_option(argc, argv, "--ny", 64, 1, 1L << 14),
                     example_option(argc, argv, "--nz", 64, 1, 1L << 14)};
  int p[2] = {(int)example_option(argc, argv, "--px", 0, 0, 1 << 20), (int)example_option(argc, argv, "--py", 0, 0, 1 << 20)};
  const int iters = (int)example_option(argc, argv, "--iters", 5, 0, 1 << 20);
  example_dims(argv[0], size, 2, p);
  const int a = p[0], b = p[1], m = a / gcd(a, b) * b;
  if (n[0] < a || n[1] < b || n[2] < m) {
    char msg[160];
    snprintf(msg, sizeof msg, "the %dx%d multipartition cuts the grid into %dx%dx%d cells: --nx --ny --nz must be at least that",
             a, b, a, b, m);
    example_fail(argv[0], msg);
  }
  const int i = rank % a, j = rank / a;
  const int xsucc = (i + 1) % a + a * j, xpred = (i + a - 1) % a + a * j;
  const int ysucc = i + a * ((j + 1) % b), ypred = i + a * ((j + b - 1) % b);
  const int zsucc = (i + a - 1) % a + a * ((j + b - 1) % b), zpred = (i + 1) % a + a * ((j + 1) % b);

  /* Face points per stage of each sweep, and the copy_faces message sizes. */
  long *fx = calloc((size_t)a, sizeof(long)), *fy = calloc((size_t)b, sizeof(long)), *fz = calloc((size_t)m, sizeof(long));
  long faces[6] = {0, 0, 0, 0, 0, 0}; /* to xsucc, xpred, ysucc, ypred, zsucc, zpred */
  if (!fx || !fy || !fz) example_fail(argv[0], "out of memory");
  for (int c = 0; c < m; ++c) {
    const int cx = (i + c) % a, cy = (j + c) % b;
    const long sx = block_size(n[0], a, cx), sy = block_size(n[1], b, cy), sz = block_size(n[2], m, c);
    fx[cx] += sy * sz;
    fy[cy] += sx * sz;
    fz[c] += sx * sy;
    if (cx < a - 1) faces[0] += sy * sz;
    if (cx > 0) faces[1] += sy * sz;
    if (cy < b - 1) faces[2] += sx * sz;
    if (cy > 0) faces[3] += sx * sz;
    if (c < m - 1) faces[4] += sx * sy;
    if (c > 0) faces[5] += sx * sy;
  }
  const int face_to[6] = {xsucc, xpred, ysucc, ypred, zsucc, zpred};
  /* The message from neighbour face_to[d] comes from its opposite direction d ^ 1. */
  long max_stage = 1, max_face = 1;
  for (int t = 0; t < a; ++t) max_stage = fx[t] > max_stage ? fx[t] : max_stage;
  for (int t = 0; t < b; ++t) max_stage = fy[t] > max_stage ? fy[t] : max_stage;
  for (int t = 0; t < m; ++t) max_stage = fz[t] > max_stage ? fz[t] : max_stage;
  for (int d = 0; d < 6; ++d) max_face = faces[d] > max_face ? faces[d] : max_face;

  Ctx x = {.rank = rank, .pending = {MPI_REQUEST_NULL, MPI_REQUEST_NULL}};
  for (int k = 0; k < 2; ++k) x.send[k] = malloc(sizeof(double) * (size_t)(kForwardWords * max_stage));
  x.recv = malloc(sizeof(double) * (size_t)(kForwardWords * max_stage));
  double *fsend = malloc(sizeof(double) * (size_t)(6 * kFaceWords * max_face));
  double *frecv = malloc(sizeof(double) * (size_t)(6 * kFaceWords * max_face));
  if (!x.send[0] || !x.send[1] || !x.recv || !fsend || !frecv) example_fail(argv[0], "out of memory");

  const int seq_per_iter = 8 + 2 * (a + b + m);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    const int seq0 = it * seq_per_iter;
    /* 1. copy_faces: six messages (fewer at the domain's boundaries). */
    MPI_Request req[12];
    MPI_Status statuses[12]; /* not MPI_STATUSES_IGNORE: GCC 12 warns on MPICH's sentinel */
    int nreq = 0;
    for (int d = 0; d < 6; ++d) /* what I send towards d, my neighbour there sends towards d ^ 1 */
      if (faces[d ^ 1] > 0)
        MPI_Irecv(frecv + (size_t)d * kFaceWords * max_face, (int)(kFaceWords * faces[d ^ 1]), MPI_DOUBLE, face_to[d ^ 1],
                  kTagFaces + d, MPI_COMM_WORLD, &req[nreq++]);
    for (int d = 0; d < 6; ++d)
      if (faces[d] > 0) {
        double *buf = fsend + (size_t)d * kFaceWords * max_face;
        example_stamp(buf, kFaceWords * faces[d], rank, face_to[d], seq0 + d, 0);
        MPI_Isend(buf, (int)(kFaceWords * faces[d]), MPI_DOUBLE, face_to[d], kTagFaces + d, MPI_COMM_WORLD, &req[nreq++]);
        example_tally_send(&x.tally, kFaceWords * faces[d]);
      }
    MPI_Waitall(nreq, req, statuses);
    for (int d = 0; d < 6; ++d)
      if (faces[d ^ 1] > 0)
        example_tally_recv(&x.tally, frecv + (size_t)d * kFaceWords * max_face, kFaceWords * faces[d ^ 1], face_to[d ^ 1],
                           rank, seq0 + d, 0);
    /* 2. x, y, z solves. */
    sweep(&x, a, fx, xpred, xsucc, kTagSweep, seq0 + 8);
    sweep(&x, b, fy, ypred, ysucc, kTagSweep + 2, seq0 + 8 + 2 * a);
    sweep(&x, m, fz, zpred, zsucc, kTagSweep + 4, seq0 + 8 + 2 * a + 2 * b);
  }
  const double elapsed = MPI_Wtime() - t0;

  char params[200], extra[128];
  const int ok = example_tally_check(&x.tally, extra, sizeof extra);
  snprintf(params, sizeof params, "n=%ldx%ldx%ld grid=%dx%d cells=%dx%dx%d cells_per_rank=%d iters=%d", n[0], n[1], n[2], a, b, a,
           b, m, m, iters);
  const int status = example_report("adi", params, iters, elapsed, ok, extra);
  free(fx);
  free(fy);
  free(fz);
  free(x.send[0]);
  free(x.send[1]);
  free(x.recv);
  free(fsend);
  free(frecv);
  MPI_Finalize();
  return status;
}
