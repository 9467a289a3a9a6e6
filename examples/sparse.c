/* sparse: every rank sends to --partners randomly chosen ranks each
 * iteration (a fixed, seeded random graph; message sizes vary per pair
 * between --bytes/4 and --bytes), with nonblocking sends and receives. No
 * locality in rank order at all: placement can only help by co-locating the
 * partners the graph happens to join, which is what a graph-based mapper
 * finds and a launcher cannot.
 *
 * Every rank builds the same graph from --seed (its own LCG: rand() differs
 * across libcs), so each knows whom it receives from without extra messages.
 *
 * Self-check: every received word encodes (sender, receiver, iteration,
 * position) and is checked; the total bytes received must equal the total
 * sent. */
#include "example_common.h"

static const char *const kOptions[] = {"--partners", "--bytes", "--iters", "--seed"};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  example_check_options(argc, argv, kOptions, (int)(sizeof kOptions / sizeof *kOptions));
  const int want = (int)example_option(argc, argv, "--partners", 3, 1, 1 << 16);
  const long max_bytes = example_option(argc, argv, "--bytes", 16384, 16, 1L << 28);
  const int iters = (int)example_option(argc, argv, "--iters", 100, 0, 1 << 30);
  const unsigned long long seed = (unsigned long long)example_option(argc, argv, "--seed", 1, 0, 1L << 40);
  const int k = want < size - 1 ? want : size - 1; /* cannot have more distinct partners than other ranks */

  /* partner[s*k + j]: j-th destination of rank s; words[...]: its size in 4-byte words. */
  int *partner = malloc(sizeof(int) * (size_t)size * (size_t)(k > 0 ? k : 1));
  long *words = malloc(sizeof(long) * (size_t)size * (size_t)(k > 0 ? k : 1));
  for (int s = 0; s < size; ++s) {
    unsigned long long state = seed * 1000003ULL + (unsigned long long)s;
    for (int j = 0; j < k; ++j) {
      int t, dup;
      do { /* distinct partners, never self */
        t = (int)(example_lcg_next(&state) % (unsigned long long)size);
        dup = t == s;
        for (int q = 0; q < j; ++q) dup |= partner[s * k + q] == t;
      } while (dup);
      partner[s * k + j] = t;
      words[s * k + j] = max_bytes / 4 * (long)(1 + example_lcg_next(&state) % 4) / 4;
      if (words[s * k + j] < 1) words[s * k + j] = 1;
    }
  }
  int nrecv = 0;
  for (int e = 0; e < size * k; ++e) nrecv += partner[e] == rank;
  int *from = malloc(sizeof(int) * (size_t)(nrecv + 1));
  long *from_words = malloc(sizeof(long) * (size_t)(nrecv + 1));
  nrecv = 0;
  for (int e = 0; e < size * k; ++e)
    if (partner[e] == rank) {
      from[nrecv] = e / k;
      from_words[nrecv++] = words[e];
    }

  unsigned **sendbuf = malloc(sizeof(unsigned *) * (size_t)(k + 1));
  unsigned **recvbuf = malloc(sizeof(unsigned *) * (size_t)(nrecv + 1));
  for (int j = 0; j < k; ++j) sendbuf[j] = malloc(sizeof(unsigned) * (size_t)words[rank * k + j]);
  for (int q = 0; q < nrecv; ++q) recvbuf[q] = malloc(sizeof(unsigned) * (size_t)from_words[q]);
  MPI_Request *req = malloc(sizeof(MPI_Request) * (size_t)(k + nrecv + 1));
  /* Real statuses rather than MPI_STATUSES_IGNORE: GCC 12 warns on MPICH's
   * (MPI_Status *)1 sentinel, and a clean build matters more than 20 bytes. */
  MPI_Status *statuses = malloc(sizeof(MPI_Status) * (size_t)(k + nrecv + 1));

  int ok = 1;
  long long bytes_sent = 0, bytes_received = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) {
    for (int q = 0; q < nrecv; ++q)
      MPI_Irecv(recvbuf[q], (int)from_words[q], MPI_UNSIGNED, from[q], it % 32768, MPI_COMM_WORLD, &req[q]);
    for (int j = 0; j < k; ++j) {
      const int t = partner[rank * k + j];
      for (long i = 0; i < words[rank * k + j]; ++i) sendbuf[j][i] = example_word(rank, t, it, i);
      MPI_Isend(sendbuf[j], (int)words[rank * k + j], MPI_UNSIGNED, t, it % 32768, MPI_COMM_WORLD, &req[nrecv + j]);
      bytes_sent += 4 * words[rank * k + j];
    }
    MPI_Waitall(nrecv + k, req, statuses);
    for (int q = 0; q < nrecv; ++q) {
      for (long i = 0; i < from_words[q]; ++i) ok &= recvbuf[q][i] == example_word(from[q], rank, it, i);
      bytes_received += 4 * from_words[q];
    }
  }
  const double elapsed = MPI_Wtime() - t0;

  long long totals[2] = {bytes_sent, bytes_received}, global[2];
  MPI_Allreduce(totals, global, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  ok &= global[0] == global[1];
  char params[160], extra[96];
  snprintf(params, sizeof params, "partners=%d bytes<=%ld seed=%llu iters=%d", k, max_bytes, seed, iters);
  snprintf(extra, sizeof extra, "total_bytes=%lld", global[0]);
  const int status = example_report("sparse", params, iters, elapsed, ok, extra);
  for (int j = 0; j < k; ++j) free(sendbuf[j]);
  for (int q = 0; q < nrecv; ++q) free(recvbuf[q]);
  free(sendbuf);
  free(recvbuf);
  free(req);
  free(statuses);
  free(from);
  free(from_words);
  free(partner);
  free(words);
  MPI_Finalize();
  return status;
}
