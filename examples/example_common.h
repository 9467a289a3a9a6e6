/* Shared by the C examples: option parsing that every rank agrees on, and
 * the one-line report each example prints. Header-only so that an example is
 * a single compile with mpicc or smpicc (no library to build twice). */
#ifndef RANKMAP_EXAMPLE_COMMON_H
#define RANKMAP_EXAMPLE_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every rank parses the same argv, so every rank reaches the same verdict and
 * they all stop together: rank 0 explains, nobody hangs in a collective. */
static inline void example_fail(const char *prog, const char *why) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) fprintf(stderr, "%s: %s\n", prog, why);
  MPI_Finalize();
  exit(2);
}

/* Options are "--name value"; a value must be a whole number in [lo, hi]. */
static inline long example_option(int argc, char **argv, const char *name, long fallback, long lo, long hi) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], name) != 0) continue;
    char msg[256];
    if (i + 1 >= argc) {
      snprintf(msg, sizeof msg, "option %s needs a value", name);
      example_fail(argv[0], msg);
    }
    char *end = NULL;
    long v = strtol(argv[i + 1], &end, 10);
    if (*argv[i + 1] == '\0' || *end != '\0' || v < lo || v > hi) {
      snprintf(msg, sizeof msg, "option %s: '%s' is not a whole number in [%ld, %ld]", name, argv[i + 1], lo, hi);
      example_fail(argv[0], msg);
    }
    return v;
  }
  return fallback;
}

/* A word option ("--order yfast"); returns the index of the value in `choices`. */
static inline int example_choice(int argc, char **argv, const char *name, const char *const *choices, int nchoices,
                                 int fallback) {
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], name) != 0) continue;
    if (i + 1 < argc)
      for (int c = 0; c < nchoices; ++c)
        if (strcmp(argv[i + 1], choices[c]) == 0) return c;
    char msg[256];
    int n = snprintf(msg, sizeof msg, "option %s expects one of:", name);
    for (int c = 0; c < nchoices && n > 0 && n < (int)sizeof msg; ++c)
      n += snprintf(msg + n, sizeof msg - (size_t)n, " %s", choices[c]);
    example_fail(argv[0], msg);
  }
  return fallback;
}

/* Rejects options the example does not know, so a typo cannot silently run
 * the default size. `known` lists option names, each taking one value. */
static inline void example_check_options(int argc, char **argv, const char *const *known, int nknown) {
  for (int i = 1; i < argc; i += 2) {
    int ok = 0;
    for (int k = 0; k < nknown; ++k) ok |= strcmp(argv[i], known[k]) == 0;
    if (!ok) {
      char msg[256];
      snprintf(msg, sizeof msg, "unknown option '%s'", argv[i]);
      example_fail(argv[0], msg);
    }
  }
}

/* The slowest rank's time is the run time. Prints one line a script can
 * parse: "<name> ranks=P <params> time=<s> per_iter=<s> check=ok|FAILED <extra>". */
static inline int example_report(const char *name, const char *params, int iters, double elapsed, int local_ok,
                                 const char *extra) {
  int rank = 0, size = 1, all_ok = 0;
  double slowest = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Allreduce(&local_ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("%s ranks=%d %s time=%.9f per_iter=%.9f check=%s%s%s\n", name, size, params, slowest,
           iters > 0 ? slowest / iters : 0.0, all_ok ? "ok" : "FAILED", extra && *extra ? " " : "", extra ? extra : "");
    fflush(stdout);
  }
  return all_ok ? 0 : 1;
}

/* A tiny LCG every rank can run identically (rand() differs across libcs). */
static inline unsigned long long example_lcg_next(unsigned long long *state) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return *state >> 33;
}

/* Seeded Fisher-Yates shuffle, identical on every rank. */
static inline void example_shuffle(int *a, int n, unsigned long long seed) {
  unsigned long long state = seed;
  for (int r = n - 1; r > 0; --r) {
    const int j = (int)(example_lcg_next(&state) % (unsigned long long)(r + 1));
    const int t = a[r];
    a[r] = a[j];
    a[j] = t;
  }
}

/* The word a receiver expects at position i of the message src sent to dst in
 * iteration it: a wrong sender, receiver or iteration shows in the check. */
static inline unsigned example_word(int src, int dst, int it, long i) {
  return (unsigned)src * 2654435761u ^ (unsigned)dst * 40503u ^ (unsigned)it * 97u ^ (unsigned)i;
}

/* MPI_Dims_create with the user's fixed extents (0 = free) checked first:
 * MPICH aborts on extents that do not divide the rank count. */
static inline void example_dims(const char *prog, int size, int ndims, int *dims) {
  long fixed = 1;
  for (int d = 0; d < ndims; ++d) fixed *= dims[d] > 0 ? dims[d] : 1;
  if (size % fixed != 0 || MPI_Dims_create(size, ndims, dims) != MPI_SUCCESS)
    example_fail(prog, "the process grid's fixed extents must divide the number of ranks");
  long product = 1;
  for (int d = 0; d < ndims; ++d) product *= dims[d];
  if (product != size) example_fail(prog, "the process grid must have as many positions as ranks");
}

/* The mini-apps (cg, mg, lu, adi, hydro27) send a kernel's messages without
 * its arithmetic. Each payload is `n` doubles stamped with the words
 * example_word(src, dst, seq, first + i): a message from the wrong peer, of
 * the wrong phase (`seq`) or cut short shows in the receiver's check. */
static inline void example_stamp(double *buf, long n, int src, int dst, int seq, long first) {
  for (long i = 0; i < n; ++i) buf[i] = (double)example_word(src, dst, seq, first + i);
}

/* Number of words of a received payload that differ from example_stamp's. */
static inline long example_stamp_errors(const double *buf, long n, int src, int dst, int seq, long first) {
  long bad = 0;
  for (long i = 0; i < n; ++i) bad += buf[i] != (double)example_word(src, dst, seq, first + i);
  return bad;
}

/* What a mini-app's rank sent and received, for the closing check. */
typedef struct {
  long long messages, bytes_sent, bytes_received, bad_words;
} ExampleTally;

static inline void example_tally_send(ExampleTally *t, long doubles) {
  t->messages += 1;
  t->bytes_sent += (long long)doubles * (long long)sizeof(double);
}

static inline void example_tally_recv(ExampleTally *t, const double *buf, long n, int src, int dst, int seq, long first) {
  t->bytes_received += (long long)n * (long long)sizeof(double);
  t->bad_words += example_stamp_errors(buf, n, src, dst, seq, first);
}

/* Sums the tallies over all ranks (one allreduce, after the timed loop).
 * Returns 1 when every word arrived right and as many bytes were received as
 * sent; writes "messages=M total_bytes=B" (point-to-point, all ranks) into
 * `extra`, the numbers to compare with a profile's p2p lines. */
static inline int example_tally_check(const ExampleTally *t, char *extra, size_t extra_size) {
  long long mine[4] = {t->messages, t->bytes_sent, t->bytes_received, t->bad_words}, all[4];
  MPI_Allreduce(mine, all, 4, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  snprintf(extra, extra_size, "messages=%lld total_bytes=%lld", all[0], all[1]);
  return all[1] == all[2] && all[3] == 0;
}

#endif
