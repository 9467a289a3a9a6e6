// Ring over MPI_COMM_WORLD with every blocking and non-blocking send mode
// (and the MPI 4 large-count forms); sends to MPI_PROC_NULL and to oneself
// must not appear in the profile.
#include <mpi.h>

#include <vector>

#include "expect.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  commprof_test::Expected expected;
  const int rank = expected.rank(), size = expected.size();
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  // Message sizes differ per sender so a wrong attribution cannot cancel out.
  const int count = 10 * (rank + 1), prev_count = 10 * (prev + 1);
  std::vector<double> out(static_cast<size_t>(count), 1.0), in(static_cast<size_t>(prev_count));
  std::vector<char> bsend_buffer(static_cast<size_t>(4 * (count * 8 + MPI_BSEND_OVERHEAD)));
  MPI_Buffer_attach(bsend_buffer.data(), static_cast<int>(bsend_buffer.size()));

  enum Mode { kSend, kBsend, kSsend, kRsend, kIsend, kIbsend, kIssend, kIrsend, kSendC, kIsendC, kModes };
  for (int mode = 0; mode < kModes; ++mode) {
    MPI_Request recv, send = MPI_REQUEST_NULL;
    MPI_Irecv(in.data(), prev_count, MPI_DOUBLE, prev, mode, MPI_COMM_WORLD, &recv);
    MPI_Barrier(MPI_COMM_WORLD);  // every receive is posted: ready sends are legal
    switch (mode) {
      case kSend: MPI_Send(out.data(), count, MPI_DOUBLE, next, mode, MPI_COMM_WORLD); break;
      case kBsend: MPI_Bsend(out.data(), count, MPI_DOUBLE, next, mode, MPI_COMM_WORLD); break;
      case kSsend: MPI_Ssend(out.data(), count, MPI_DOUBLE, next, mode, MPI_COMM_WORLD); break;
      case kRsend: MPI_Rsend(out.data(), count, MPI_DOUBLE, next, mode, MPI_COMM_WORLD); break;
      case kIsend: MPI_Isend(out.data(), count, MPI_DOUBLE, next, mode, MPI_COMM_WORLD, &send); break;
      case kIbsend: MPI_Ibsend(out.data(), count, MPI_DOUBLE, next, mode, MPI_COMM_WORLD, &send); break;
      case kIssend: MPI_Issend(out.data(), count, MPI_DOUBLE, next, mode, MPI_COMM_WORLD, &send); break;
      case kIrsend: MPI_Irsend(out.data(), count, MPI_DOUBLE, next, mode, MPI_COMM_WORLD, &send); break;
      case kSendC: MPI_Send_c(out.data(), MPI_Count{count}, MPI_DOUBLE, next, mode, MPI_COMM_WORLD); break;
      case kIsendC: MPI_Isend_c(out.data(), MPI_Count{count}, MPI_DOUBLE, next, mode, MPI_COMM_WORLD, &send); break;
    }
    MPI_Wait(&send, MPI_STATUS_IGNORE);
    MPI_Wait(&recv, MPI_STATUS_IGNORE);
    expected.p2p(next, 8ull * static_cast<unsigned>(count));
  }
  // Not recorded: MPI_PROC_NULL, and a message to oneself.
  MPI_Send(out.data(), count, MPI_DOUBLE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
  MPI_Request self;
  MPI_Isend(out.data(), 5, MPI_DOUBLE, rank, 99, MPI_COMM_WORLD, &self);
  MPI_Recv(in.data(), 5, MPI_DOUBLE, rank, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&self, MPI_STATUS_IGNORE);

  // The barriers that made the ready sends legal: one record on MPI_COMM_WORLD.
  if (rank == 0) {
    std::vector<int> world(static_cast<size_t>(size));
    for (int i = 0; i < size; ++i) world[static_cast<size_t>(i)] = i;
    expected.coll(world, "barrier", -1, kModes, 0);
  }

  void* detached;
  int detached_size;
  MPI_Buffer_detach(&detached, &detached_size);
  expected.write();
  MPI_Finalize();
  return 0;
}
