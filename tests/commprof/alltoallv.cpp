// Alltoall(v/w), blocking, non-blocking and persistent, expanded into exact
// per-pair bytes; MPI_IN_PLACE uses the receive description; zero-size
// blocks and the block to oneself are not traffic.
#include <mpi.h>

#include <vector>

#include "expect.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  commprof_test::Expected expected;
  const int world = expected.rank(), size = expected.size();
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - world, &reversed);
  const std::vector<int> world_of = commprof_test::world_ranks_by_gather(reversed);
  int me = 0;
  MPI_Comm_rank(reversed, &me);

  // Alltoallv on the reversed communicator: block j has (me + j) % 3 ints, so some are empty.
  std::vector<int> sendcounts(static_cast<size_t>(size)), sdispls(static_cast<size_t>(size)),
      recvcounts(static_cast<size_t>(size)), rdispls(static_cast<size_t>(size));
  for (int j = 0; j < size; ++j) {
    sendcounts[j] = (me + j) % 3;
    recvcounts[j] = (j + me) % 3;
    sdispls[j] = rdispls[j] = 4 * j;
  }
  std::vector<int> out(static_cast<size_t>(4 * size)), in(static_cast<size_t>(4 * size));
  MPI_Alltoallv(out.data(), sendcounts.data(), sdispls.data(), MPI_INT, in.data(), recvcounts.data(), rdispls.data(),
                MPI_INT, reversed);
  for (int j = 0; j < size; ++j)
    if (sendcounts[j] > 0) expected.p2p(world_of[static_cast<size_t>(j)], 4ull * static_cast<unsigned>(sendcounts[j]));

  // Non-blocking alltoall on world: 2 doubles per block.
  MPI_Request req;
  std::vector<double> dout(static_cast<size_t>(2 * size)), din(static_cast<size_t>(2 * size));
  MPI_Ialltoall(dout.data(), 2, MPI_DOUBLE, din.data(), 2, MPI_DOUBLE, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  for (int j = 0; j < size; ++j) expected.p2p(j, 16);

  // In place: the receive arguments describe the data (3 ints per block).
  std::vector<int> inplace(static_cast<size_t>(3 * size));
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, inplace.data(), 3, MPI_INT, MPI_COMM_WORLD);
  for (int j = 0; j < size; ++j) expected.p2p(j, 12);

  // Alltoallw with a different type per block: what goes to an odd rank is double, to an even one char.
  std::vector<MPI_Datatype> types(static_cast<size_t>(size)), recvtypes(static_cast<size_t>(size), world % 2 ? MPI_DOUBLE : MPI_CHAR);
  std::vector<int> wcounts(static_cast<size_t>(size), 2), wdispls(static_cast<size_t>(size));
  for (int j = 0; j < size; ++j) {
    types[j] = j % 2 ? MPI_DOUBLE : MPI_CHAR;
    wdispls[j] = 16 * j;
  }
  std::vector<char> wout(static_cast<size_t>(16 * size)), win_(static_cast<size_t>(16 * size));
  MPI_Alltoallw(wout.data(), wcounts.data(), wdispls.data(), types.data(), win_.data(), wcounts.data(),
                wdispls.data(), recvtypes.data(), MPI_COMM_WORLD);
  for (int j = 0; j < size; ++j) expected.p2p(j, j % 2 ? 16 : 2);

  // Persistent alltoall: counted at each start. MPI 3.1 (Open MPI 4.1) has no
  // persistent collectives: the same two rounds as plain alltoalls, same matrix.
#if MPI_VERSION >= 4
  MPI_Alltoall_init(dout.data(), 1, MPI_DOUBLE, din.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
#endif
  for (int round = 0; round < 2; ++round) {
#if MPI_VERSION >= 4
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
#else
    MPI_Alltoall(dout.data(), 1, MPI_DOUBLE, din.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
#endif
    for (int j = 0; j < size; ++j) expected.p2p(j, 8);
  }
#if MPI_VERSION >= 4
  MPI_Request_free(&req);
#endif

  MPI_Comm_free(&reversed);
  expected.write();
  MPI_Finalize();
  return 0;
}
