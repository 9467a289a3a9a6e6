// The program traced by commprof.trace_*: every kind of event the trace
// mode writes, at <= 8 ranks, with sizes that differ per sender so that a
// wrong attribution cannot cancel out.
//  - a halo ring in both directions with isend/irecv + waitall, 3 iterations,
//    each followed by ~2 ms of computation (the trace's compute actions);
//  - rank 0 collects one message from every other rank with MPI_ANY_SOURCE
//    (irecv + waitany, and blocking recv with MPI_STATUS_IGNORE): the trace
//    must name the real sources;
//  - an MPI_Test polling loop, one wait completing an older isend while a
//    newer one stays outstanding, a sendrecv inside a split communicator
//    (ranks translated to world ranks);
//  - the collectives SimGrid replays, on MPI_COMM_WORLD and on a dup of it,
//    and one on MPI_COMM_SELF (not written: it moves nothing);
//  - every collective the trace writes as its messages, on the split
//    communicator.
// With --intercomm-barrier it also calls MPI_Barrier on an intercommunicator
// between the two halves, which a TI trace cannot express: tracing must
// stop, the run go on.
#include <mpi.h>
#include <time.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

// Busy for `seconds` of this thread's CPU time: what the trace calls
// computation (by default; wall time would shrink under load on shared cores).
double spin(double seconds) {
  timespec start{}, now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  double x = 0;
  do {
    for (int i = 0; i < 1000; ++i) x += 1e-9 * i;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  } while (static_cast<double>(now.tv_sec - start.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec - start.tv_nsec) <
           seconds);
  return x;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  double sink = 0;

  // Halo ring, both directions.
  const int count = 100 * (rank + 1);
  std::vector<double> out(static_cast<size_t>(100 * size), 1.0), from_prev(out.size()), from_next(out.size());
  for (int iter = 0; iter < 3; ++iter) {
    MPI_Request requests[4];
    MPI_Irecv(from_prev.data(), 100 * (prev + 1), MPI_DOUBLE, prev, iter, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(from_next.data(), 100 * (next + 1), MPI_DOUBLE, next, iter, MPI_COMM_WORLD, &requests[1]);
    MPI_Isend(out.data(), count, MPI_DOUBLE, next, iter, MPI_COMM_WORLD, &requests[2]);
    MPI_Isend(out.data(), count, MPI_DOUBLE, prev, iter, MPI_COMM_WORLD, &requests[3]);
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
    sink += spin(0.002);
  }

  // MPI_ANY_SOURCE at rank 0: irecv + waitany, then blocking receives.
  std::vector<int> ints(static_cast<size_t>(8 * size));
  if (rank == 0) {
    std::vector<MPI_Request> requests(static_cast<size_t>(size - 1));
    for (int i = 0; i < size - 1; ++i)
      MPI_Irecv(&ints[static_cast<size_t>(8 * i)], 8, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &requests[static_cast<size_t>(i)]);
    for (int i = 0; i < size - 1; ++i) {
      int index = MPI_UNDEFINED;
      MPI_Waitany(size - 1, requests.data(), &index, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < size - 1; ++i)
      MPI_Recv(ints.data(), 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Send(ints.data(), rank % 8 + 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    MPI_Send(ints.data(), 2, MPI_INT, 0, 20 + rank, MPI_COMM_WORLD);
  }
  // MPI_ANY_TAG above must not catch the messages below.
  MPI_Barrier(MPI_COMM_WORLD);

  // Test polling, and a wait on the older of two requests to the same peer.
  {
    MPI_Request recv_first, recv_second, send_first, send_second;
    MPI_Irecv(from_prev.data(), 3, MPI_DOUBLE, prev, 40, MPI_COMM_WORLD, &recv_first);
    MPI_Irecv(from_next.data(), 5, MPI_DOUBLE, prev, 40, MPI_COMM_WORLD, &recv_second);
    MPI_Isend(out.data(), 3, MPI_DOUBLE, next, 40, MPI_COMM_WORLD, &send_first);
    MPI_Isend(out.data(), 5, MPI_DOUBLE, next, 40, MPI_COMM_WORLD, &send_second);
    int done = 0;
    while (!done) MPI_Test(&recv_first, &done, MPI_STATUS_IGNORE);
    MPI_Wait(&send_first, MPI_STATUS_IGNORE);
    MPI_Wait(&recv_second, MPI_STATUS_IGNORE);
    MPI_Wait(&send_second, MPI_STATUS_IGNORE);
  }

  // MPI_Sendrecv: with tag 0 on both sides (SimGrid's sendRecv action), and
  // with other tags against an irecv + send on the partner (SimGrid's
  // sendRecv would use tag 0 there and deadlock the replay).
  MPI_Sendrecv(out.data(), 7, MPI_DOUBLE, next, 0, from_prev.data(), 7, MPI_DOUBLE, prev, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  if (size % 2 == 0) {
    const int partner = rank ^ 1;
    if (rank % 2 == 0) {
      MPI_Sendrecv(out.data(), 9, MPI_DOUBLE, partner, 60, from_prev.data(), 11, MPI_DOUBLE, partner, 61,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Request r;
      MPI_Irecv(from_prev.data(), 9, MPI_DOUBLE, partner, 60, MPI_COMM_WORLD, &r);
      MPI_Send(out.data(), 11, MPI_DOUBLE, partner, 61, MPI_COMM_WORLD);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
  }

  // Point-to-point on a sub-communicator: even and odd world ranks, reversed.
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
  int half_rank = 0, half_size = 0;
  MPI_Comm_rank(half, &half_rank);
  MPI_Comm_size(half, &half_size);
  if (half_size > 1)
    MPI_Sendrecv(out.data(), 10 + rank, MPI_DOUBLE, (half_rank + 1) % half_size, 50, from_prev.data(),
                 static_cast<int>(from_prev.size()), MPI_DOUBLE, (half_rank + half_size - 1) % half_size, 50, half,
                 MPI_STATUS_IGNORE);
  {
    // Every collective on the split communicator (members reversed: its rank
    // 0 is the highest world rank of that parity): written as the messages
    // MPICH sends for it. Allreduce both below and above 2,048 bytes, so
    // both of its algorithms; alltoall's blocks are p2p in the profile too.
    std::vector<double> a(4096, 1.0), b(4096);
    const int n = half_size;
    std::vector<int> cnt(static_cast<size_t>(n)), at(static_cast<size_t>(n)), to(static_cast<size_t>(n)),
        from(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      cnt[static_cast<size_t>(i)] = i + 2;
      at[static_cast<size_t>(i)] = 16 * i;
      to[static_cast<size_t>(i)] = (half_rank + 2 * i) % 3 + 1;  // what this member sends to i
      from[static_cast<size_t>(i)] = (i + 2 * half_rank) % 3 + 1;
    }
    MPI_Barrier(half);
    MPI_Bcast(a.data(), 16, MPI_DOUBLE, 1 % n, half);
    MPI_Reduce(a.data(), b.data(), 12, MPI_DOUBLE, MPI_SUM, n - 1, half);
    MPI_Allreduce(a.data(), b.data(), 6, MPI_DOUBLE, MPI_SUM, half);
    MPI_Allreduce(a.data(), b.data(), 1000, MPI_DOUBLE, MPI_SUM, half);
    MPI_Alltoall(a.data(), 3, MPI_DOUBLE, b.data(), 3, MPI_DOUBLE, half);
    MPI_Alltoallv(a.data(), to.data(), at.data(), MPI_DOUBLE, b.data(), from.data(), at.data(), MPI_DOUBLE, half);
    MPI_Gather(a.data(), 4, MPI_DOUBLE, b.data(), 4, MPI_DOUBLE, n - 1, half);
    MPI_Scatter(a.data(), 2, MPI_DOUBLE, b.data(), 2, MPI_DOUBLE, 0, half);
    MPI_Gatherv(a.data(), half_rank + 2, MPI_DOUBLE, b.data(), cnt.data(), at.data(), MPI_DOUBLE, 0, half);
    MPI_Scatterv(a.data(), cnt.data(), at.data(), MPI_DOUBLE, b.data(), half_rank + 2, MPI_DOUBLE, 1 % n, half);
    MPI_Allgather(a.data(), 5, MPI_DOUBLE, b.data(), 5, MPI_DOUBLE, half);
    MPI_Allgatherv(a.data(), half_rank + 2, MPI_DOUBLE, b.data(), cnt.data(), at.data(), MPI_DOUBLE, half);
    MPI_Reduce_scatter(a.data(), b.data(), cnt.data(), MPI_DOUBLE, MPI_SUM, half);
    MPI_Reduce_scatter_block(a.data(), b.data(), 3, MPI_DOUBLE, MPI_SUM, half);
    sink += b[0];
  }
  if (argc > 1 && std::strcmp(argv[1], "--intercomm-barrier") == 0) {
    // The two halves joined by an intercommunicator, whose collectives a TI
    // trace cannot express: tracing must stop, the run go on. Each half's
    // leader is its highest world rank; the other's is the remote leader.
    const int even_leader = size % 2 == 0 ? size - 2 : size - 1, odd_leader = size % 2 == 0 ? size - 1 : size - 2;
    MPI_Comm inter;
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? odd_leader : even_leader, 77, &inter);
    MPI_Barrier(inter);
    MPI_Comm_free(&inter);
  }
  MPI_Comm_free(&half);

  // Collectives on MPI_COMM_WORLD and on a dup of it (world's ranks: replayable).
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  std::vector<double> in(static_cast<size_t>(64 * size));
  std::vector<int> counts(static_cast<size_t>(size)), displs(static_cast<size_t>(size));
  for (int i = 0; i < size; ++i) counts[static_cast<size_t>(i)] = i + 1, displs[static_cast<size_t>(i)] = 8 * i;
  std::vector<int> to_each(static_cast<size_t>(size)), from_each(static_cast<size_t>(size));
  for (int i = 0; i < size; ++i) {
    to_each[static_cast<size_t>(i)] = (rank + i) % 3 + 1;  // what this rank sends to i
    from_each[static_cast<size_t>(i)] = (i + rank) % 3 + 1;  // what i sends to this rank
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Bcast(out.data(), 16, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  MPI_Reduce(out.data(), in.data(), 12, MPI_DOUBLE, MPI_SUM, 2, dup);
  MPI_Allreduce(out.data(), in.data(), 6, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  sink += spin(0.002);
  MPI_Alltoall(out.data(), 4, MPI_DOUBLE, in.data(), 4, MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Alltoallv(out.data(), to_each.data(), displs.data(), MPI_DOUBLE, in.data(), from_each.data(), displs.data(),
                MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Gather(out.data(), 3, MPI_DOUBLE, in.data(), 3, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  MPI_Scatter(out.data(), 3, MPI_DOUBLE, in.data(), 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Allgather(out.data(), 2, MPI_INT, in.data(), 2, MPI_INT, dup);
  MPI_Allgatherv(out.data(), rank + 1, MPI_DOUBLE, in.data(), counts.data(), displs.data(), MPI_DOUBLE, MPI_COMM_WORLD);
  MPI_Reduce_scatter(out.data(), in.data(), counts.data(), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  // On one rank: moves nothing, written as nothing, does not stop the trace.
  MPI_Allreduce(out.data(), in.data(), 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF);
  MPI_Comm_free(&dup);
  sink += spin(0.002);

  if (rank == 0) std::printf("trace_app: %d ranks done (%g)\n", size, sink > 0 ? 1.0 : 0.0);
  MPI_Finalize();
  return 0;
}
