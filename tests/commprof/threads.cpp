// MPI_THREAD_MULTIPLE: four threads per rank send at once, each to a
// different partner with its own tag and size; per-thread counters must add
// up exactly.
#include <mpi.h>

#include <thread>
#include <vector>

#include "expect.hpp"

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    std::fprintf(stderr, "MPI_THREAD_MULTIPLE not provided\n");
    MPI_Abort(MPI_COMM_WORLD, 5);
  }
  commprof_test::Expected expected;
  const int rank = expected.rank(), size = expected.size();
  const int threads = 4, messages = 25;
  auto work = [&](int t) {
    const int dest = (rank + 1 + t) % size, source = (rank + size - 1 - t % size + size) % size;
    const int count = (t + 1) * (rank + 1), source_count = (t + 1) * (source + 1);
    std::vector<int> out(static_cast<size_t>(count)), in(static_cast<size_t>(source_count));
    for (int i = 0; i < messages; ++i) {
      MPI_Request req;
      MPI_Irecv(in.data(), source_count, MPI_INT, source, t, MPI_COMM_WORLD, &req);
      MPI_Send(out.data(), count, MPI_INT, dest, t, MPI_COMM_WORLD);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) {
    const int dest = (rank + 1 + t) % size;
    expected.p2p(dest, 4ull * messages * static_cast<unsigned>((t + 1) * (rank + 1)), messages);
  }
  expected.write();
  MPI_Finalize();
  return 0;
}
