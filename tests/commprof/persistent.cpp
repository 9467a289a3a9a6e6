// Persistent sends: counted at every MPI_Start / MPI_Startall, not at
// *_init; a request freed without being started counts nothing; a persistent
// send on a sub-communicator is translated to world ranks.
#include <mpi.h>

#include <vector>

#include "expect.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  commprof_test::Expected expected;
  const int rank = expected.rank(), size = expected.size();
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const int count = rank + 3, prev_count = prev + 3;
  std::vector<long> out(static_cast<size_t>(count)), in(static_cast<size_t>(prev_count));

  MPI_Request sends[3], recvs[3];
  MPI_Send_init(out.data(), count, MPI_LONG, next, 0, MPI_COMM_WORLD, &sends[0]);
  MPI_Ssend_init(out.data(), count, MPI_LONG, next, 1, MPI_COMM_WORLD, &sends[1]);
  MPI_Send_init_c(out.data(), MPI_Count{count}, MPI_LONG, next, 2, MPI_COMM_WORLD, &sends[2]);
  for (int i = 0; i < 3; ++i) MPI_Recv_init(in.data(), prev_count, MPI_LONG, prev, i, MPI_COMM_WORLD, &recvs[i]);

  const int rounds = 4;
  for (int round = 0; round < rounds; ++round) {
    MPI_Startall(3, recvs);
    MPI_Start(&sends[0]);
    MPI_Startall(2, &sends[1]);
    MPI_Waitall(3, sends, MPI_STATUSES_IGNORE);
    MPI_Waitall(3, recvs, MPI_STATUSES_IGNORE);
    expected.p2p(next, 3 * 8ull * static_cast<unsigned>(count), 3);
  }
  for (int i = 0; i < 3; ++i) {
    MPI_Request_free(&sends[i]);
    MPI_Request_free(&recvs[i]);
  }

  // Created and freed, never started: nothing to count.
  MPI_Request unused;
  MPI_Send_init(out.data(), count, MPI_LONG, next, 5, MPI_COMM_WORLD, &unused);
  MPI_Request_free(&unused);

  // On a reversed communicator: comm rank i is world rank size-1-i.
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
  int me = 0;
  MPI_Comm_rank(reversed, &me);
  const int sub_next = (me + 1) % size, sub_prev = (me + size - 1) % size;
  MPI_Request s, r;
  MPI_Send_init(out.data(), 1, MPI_LONG, sub_next, 9, reversed, &s);
  MPI_Recv_init(in.data(), 1, MPI_LONG, sub_prev, 9, reversed, &r);
  for (int round = 0; round < 2; ++round) {
    MPI_Start(&r);
    MPI_Start(&s);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    expected.p2p(size - 1 - sub_next, 8);
  }
  MPI_Request_free(&s);
  MPI_Request_free(&r);
  MPI_Comm_free(&reversed);

  expected.write();
  MPI_Finalize();
  return 0;
}
