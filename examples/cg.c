/* cg: the messages of NAS CG's conjugate-gradient iterations on an
 * nprows x npcols process grid, without the arithmetic (a communication
 * skeleton: every payload is stamped and checked, nothing is solved).
 *
 * The matrix (na x na) is split into nprows row blocks R_r and npcols column
 * blocks C_c; rank me = proc_row * npcols + proc_col holds A(R_r, C_c) and
 * the vectors' column block C_c, as in NAS CG. One iteration (--iters counts
 * them; NAS runs 25 per outer step) sends:
 *
 *  1. the mat-vec's row reduction: the partial products w(R_r) are summed
 *     across the process row by exchanges with the column partners
 *     c^1, c^2, c^4, ... (MPI_Irecv + MPI_Send + MPI_Wait, NAS's order).
 *     npcols == nprows: whole R_r every step (NAS's square case).
 *     npcols == 2 nprows: the first step swaps halves (reduce-scatter), the
 *     others exchange the rank's half (NAS's non-square case).
 *     Otherwise, a documented generalisation: whole R_r every step, and when
 *     npcols is not a power of two the columns above the largest power of
 *     two q first fold their w into column c - q and get the sum back at
 *     the end (the usual recursive doubling for any count).
 *  2. the transpose exchange: rank (r, c) needs q(C_c) and gets each piece
 *     R_r' intersected with C_c from rank (r', (r * npcols) / nprows +
 *     c mod max(1, npcols / nprows)). For a square grid that is rank (c, r), for
 *     npcols == 2 nprows rank (c/2, 2r + c mod 2): NAS's exch_proc in both
 *     cases. Other shapes may need two pieces, and then some columns send
 *     nothing. A piece a rank would send itself is copied, not sent.
 *  3. two dot products, each one MPI_Allreduce of one double on
 *     MPI_COMM_WORLD (NAS sums them inside the process row with 8-byte
 *     exchanges; an allreduce is what most CG codes use).
 *
 * At power-of-two rank counts (MPI_Dims_create gives npcols == nprows or
 * 2 nprows) partners and sizes are NAS CG's, up to the rounding of blocks
 * when na is not a multiple of the counts.
 *
 * Self-check: every received word encodes (sender, receiver, phase,
 * position); the dot-product sums are known exactly. */
#include "example_common.h"

static const char *const kOptions[] = {"--na", "--iters", "--prows", "--pcols"};

enum { kMaxSteps = 40, kTagStep = 100, kTagTranspose = 300, kSeqTranspose = 50, kSeqPerIter = 64 };

/* One step of the row reduction: receive recv_len doubles from peer while
 * sending send_len from offset send_off of w (either length may be 0). */
typedef struct {
  int peer, id;
  long send_off, send_len, recv_len;
} RowStep;

/* One transpose piece: global rows [lo, hi) to or from rank peer. */
typedef struct {
  int peer;
  long lo, hi;
} Piece;

static long block_start(long n, int parts, int k) { return (long)((long long)n * k / parts); }

static int is_pow2(int x) { return x > 0 && (x & (x - 1)) == 0; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  example_check_options(argc, argv, kOptions, (int)(sizeof kOptions / sizeof *kOptions));
  const long na = example_option(argc, argv, "--na", 14000, 1, 1L << 30);
  const int iters = (int)example_option(argc, argv, "--iters", 25, 0, 1 << 20);
  /* dims[0] = npcols >= dims[1] = nprows, as NAS (npcols = nprows or 2 nprows). */
  int dims[2] = {(int)example_option(argc, argv, "--pcols", 0, 0, 1 << 20), (int)example_option(argc, argv, "--prows", 0, 0, 1 << 20)};
  example_dims(argv[0], size, 2, dims);
  const int npcols = dims[0], nprows = dims[1];
  if (na < npcols || na < nprows) example_fail(argv[0], "--na must be at least the number of process rows and columns");
  const int r = rank / npcols, c = rank % npcols;
  const long rlo = block_start(na, nprows, r), rows = block_start(na, nprows, r + 1) - rlo;
  const long clo = block_start(na, npcols, c), cols = block_start(na, npcols, c + 1) - clo;

  /* ---- row reduction schedule ---- */
  const int nas_half = is_pow2(npcols) && npcols == 2 * nprows;
  int q = 1, levels = 0;
  while (2 * q <= npcols) {
    q *= 2;
    ++levels;
  }
  RowStep steps[kMaxSteps];
  int nsteps = 0;
  /* After the reduction the rank holds the sum on [keep_off, keep_off + keep_len) of R_r. */
  long keep_off = 0, keep_len = rows;
  if (nas_half) {
    /* My half of R_r is C_{2r + c%2}; the first exchange (partner c^1) swaps halves. */
    const int h = c % 2;
    keep_off = block_start(na, npcols, 2 * r + h) - rlo;
    keep_len = block_start(na, npcols, 2 * r + h + 1) - rlo - keep_off;
    const long other_off = block_start(na, npcols, 2 * r + 1 - h) - rlo;
    const long other_len = rows - keep_len;
    steps[nsteps++] = (RowStep){r * npcols + (c ^ 1), 1, other_off, other_len, keep_len};
    for (int j = 2; j <= levels; ++j)
      steps[nsteps++] = (RowStep){r * npcols + (c ^ (1 << (j - 1))), j, keep_off, keep_len, keep_len};
  } else if (c >= q) {
    /* Fold into c - q, get the row's sum back at the end. */
    steps[nsteps++] = (RowStep){r * npcols + c - q, 0, 0, rows, 0};
    steps[nsteps++] = (RowStep){r * npcols + c - q, levels + 1, 0, 0, rows};
  } else {
    if (c + q < npcols) steps[nsteps++] = (RowStep){r * npcols + c + q, 0, 0, 0, rows};
    for (int j = 1; j <= levels; ++j) steps[nsteps++] = (RowStep){r * npcols + (c ^ (1 << (j - 1))), j, 0, rows, rows};
    if (c + q < npcols) steps[nsteps++] = (RowStep){r * npcols + c + q, levels + 1, 0, rows, 0};
  }

  /* ---- transpose schedule ---- */
  const int ratio = npcols >= nprows ? npcols / nprows : 1;
  Piece *sends = malloc(sizeof(Piece) * (size_t)(size + 1));
  Piece *recvs = malloc(sizeof(Piece) * (size_t)(nprows + 1));
  int nsend = 0, nrecv = 0;
  for (int r2 = 0; r2 < nprows; ++r2)
    for (int c2 = 0; c2 < npcols; ++c2) {
      const int sender_col = (int)((long long)r2 * npcols / nprows) + c2 % ratio;
      const long lo2 = block_start(na, npcols, c2), hi2 = block_start(na, npcols, c2 + 1);
      if (sender_col == c) { /* I send my row block's share of C_c2, if any. */
        const long lo = lo2 > rlo ? lo2 : rlo, hi = hi2 < rlo + rows ? hi2 : rlo + rows;
        if (lo < hi) {
          if (r2 * npcols + c2 != rank) sends[nsend++] = (Piece){r2 * npcols + c2, lo, hi};
        }
      }
      if (r2 == r && c2 == c) /* I receive C_c from every row block it meets. */
        for (int r1 = 0; r1 < nprows; ++r1) {
          const long a = block_start(na, nprows, r1), b = block_start(na, nprows, r1 + 1);
          const long lo = lo2 > a ? lo2 : a, hi = hi2 < b ? hi2 : b;
          const int from = r1 * npcols + sender_col;
          if (lo < hi && from != rank) recvs[nrecv++] = (Piece){from, lo, hi};
        }
    }
  /* The sender of a piece must hold it after the row reduction. */
  for (int k = 0; k < nsend; ++k)
    if (sends[k].lo < rlo + keep_off || sends[k].hi > rlo + keep_off + keep_len) {
      fprintf(stderr, "%s: rank %d: internal error: transpose piece outside the reduced block\n", argv[0], rank);
      MPI_Abort(MPI_COMM_WORLD, 3); /* one rank's finding: the others would wait in a collective */
    }

  double *w = malloc(sizeof(double) * (size_t)(rows + 1));
  double *in = malloc(sizeof(double) * (size_t)(rows + 1));
  double *qcol = malloc(sizeof(double) * (size_t)(cols + 1));
  long out_len = 0;
  for (int k = 0; k < nsend; ++k) out_len += sends[k].hi - sends[k].lo;
  double *out = malloc(sizeof(double) * (size_t)(out_len + 1)); /* transpose pieces, packed */
  MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(nsend + nrecv + 1));
  MPI_Status *statuses = malloc(sizeof(MPI_Status) * (size_t)(nsend + nrecv + 1));
  if (!w || !in || !qcol || !out || !req || !statuses || !sends || !recvs) example_fail(argv[0], "out of memory");

  ExampleTally tally = {0, 0, 0, 0};
  int dots_ok = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    const int seq0 = it * kSeqPerIter;
    /* 1. q = A p: sum w(R_r) across the process row. */
    for (int s = 0; s < nsteps; ++s) {
      const RowStep *st = &steps[s];
      MPI_Request rq = MPI_REQUEST_NULL;
      if (st->recv_len > 0)
        MPI_Irecv(in, (int)st->recv_len, MPI_DOUBLE, st->peer, kTagStep + st->id, MPI_COMM_WORLD, &rq);
      if (st->send_len > 0) {
        example_stamp(w + st->send_off, st->send_len, rank, st->peer, seq0 + st->id, st->send_off);
        MPI_Send(w + st->send_off, (int)st->send_len, MPI_DOUBLE, st->peer, kTagStep + st->id, MPI_COMM_WORLD);
        example_tally_send(&tally, st->send_len);
      }
      if (st->recv_len > 0) {
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        /* The peer sent the part of R_r I keep (at keep_off; all of R_r when not halving). */
        example_tally_recv(&tally, in, st->recv_len, st->peer, rank, seq0 + st->id, keep_off);
      }
    }
    /* 2. Transpose: q(C_c) from the ranks holding its rows. */
    for (int k = 0; k < nrecv; ++k)
      MPI_Irecv(qcol + (recvs[k].lo - clo), (int)(recvs[k].hi - recvs[k].lo), MPI_DOUBLE, recvs[k].peer, kTagTranspose,
                MPI_COMM_WORLD, &req[k]);
    long packed = 0;
    for (int k = 0; k < nsend; ++k) {
      const long n = sends[k].hi - sends[k].lo;
      example_stamp(out + packed, n, rank, sends[k].peer, seq0 + kSeqTranspose, sends[k].lo);
      MPI_Isend(out + packed, (int)n, MPI_DOUBLE, sends[k].peer, kTagTranspose, MPI_COMM_WORLD, &req[nrecv + k]);
      example_tally_send(&tally, n);
      packed += n;
    }
    MPI_Waitall(nrecv + nsend, req, statuses);
    for (int k = 0; k < nrecv; ++k)
      example_tally_recv(&tally, qcol + (recvs[k].lo - clo), recvs[k].hi - recvs[k].lo, recvs[k].peer, rank,
                         seq0 + kSeqTranspose, recvs[k].lo);
    /* 3. Two dot products (p.q and r.r). */
    for (int d = 0; d < 2; ++d) {
      const double mine = (double)(rank + 1) * (double)(it + 1 + d), expect = (double)size * (size + 1) / 2 * (it + 1 + d);
      double sum = 0;
      MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      dots_ok &= sum == expect;
    }
  }
  const double elapsed = MPI_Wtime() - t0;

  char params[200], extra[128];
  const int ok = example_tally_check(&tally, extra, sizeof extra) && dots_ok;
  snprintf(params, sizeof params, "na=%ld grid=%dx%d reduce=%s iters=%d row_bytes=%ld transpose_bytes=%ld", na, nprows,
           npcols, nas_half ? "halving" : (q == npcols ? "doubling" : "doubling+fold"), iters,
           rows * (long)sizeof(double), cols * (long)sizeof(double));
  const int status = example_report("cg", params, iters, elapsed, ok, extra);
  free(w);
  free(in);
  free(qcol);
  free(out);
  free(req);
  free(statuses);
  free(sends);
  free(recvs);
  MPI_Finalize();
  return status;
}
