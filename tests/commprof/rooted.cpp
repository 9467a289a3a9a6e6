// Rooted and reduction collectives are recorded per communicator (by its
// members), operation and root: calls and payload bytes (docs/formats.md).
// Covers a reversed sub-communicator that is freed before finalize, a dup
// of MPI_COMM_WORLD (same members: merged with it), v-variants whose total
// only the root knows, and non-blocking forms.
#include <mpi.h>

#include <numeric>
#include <vector>

#include "expect.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  commprof_test::Expected expected;
  const int world = expected.rank(), size = expected.size();
  std::vector<int> world_members(static_cast<size_t>(size));
  std::iota(world_members.begin(), world_members.end(), 0);
  std::vector<double> buf(1024), out(1024);

  MPI_Bcast(buf.data(), 10, MPI_DOUBLE, 2, MPI_COMM_WORLD);
  MPI_Bcast(buf.data(), 5, MPI_DOUBLE, 2, MPI_COMM_WORLD);
  MPI_Bcast(buf.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Allreduce(buf.data(), out.data(), 7, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Request req;
  MPI_Iallreduce(buf.data(), out.data(), 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Reduce(buf.data(), out.data(), 4, MPI_INT, MPI_MAX, 1, MPI_COMM_WORLD);
  // Gatherv: rank i contributes i+1 ints; only the root knows the total.
  std::vector<int> counts(static_cast<size_t>(size)), displs(static_cast<size_t>(size));
  for (int i = 0; i < size; ++i) counts[i] = i + 1, displs[i] = 8 * i;
  MPI_Gatherv(buf.data(), world + 1, MPI_INT, out.data(), counts.data(), displs.data(), MPI_INT, 3, MPI_COMM_WORLD);
  MPI_Scatter(buf.data(), 2, MPI_DOUBLE, out.data(), 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);

  // A dup has the same members as MPI_COMM_WORLD: its calls join the world records.
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Allreduce(buf.data(), out.data(), 7, MPI_DOUBLE, MPI_SUM, dup);
  MPI_Barrier(dup);
  MPI_Comm_free(&dup);

  // Odd world ranks, backwards; freed before finalize.
  MPI_Comm odd;
  MPI_Comm_split(MPI_COMM_WORLD, world % 2 ? 1 : MPI_UNDEFINED, -world, &odd);
  std::vector<int> odd_members;
  for (int w = size - 1; w >= 0; --w)
    if (w % 2) odd_members.push_back(w);
  if (odd != MPI_COMM_NULL) {
    MPI_Allgather(buf.data(), 3, MPI_CHAR, out.data(), 3, MPI_CHAR, odd);
    MPI_Ibcast(buf.data(), 6, MPI_CHAR, 1, odd, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Scan(buf.data(), out.data(), 2, MPI_LONG, MPI_SUM, odd);
    MPI_Comm_free(&odd);
  }

  if (world == 0) {
    const std::uint64_t n = static_cast<std::uint64_t>(size);
    expected.coll(world_members, "bcast", 2, 2, 15 * 8);
    expected.coll(world_members, "bcast", 0, 1, 4);
    expected.coll(world_members, "allreduce", -1, 3, 7 * 8 + 3 * 8 + 7 * 8);
    expected.coll(world_members, "reduce", 1, 1, 16);
    expected.coll(world_members, "gatherv", 3, 1, 4 * n * (n + 1) / 2);
    expected.coll(world_members, "scatter", 0, 1, 16 * n);
    expected.coll(world_members, "barrier", -1, 1, 0);
    const std::uint64_t m = odd_members.size();
    expected.coll(odd_members, "allgather", -1, 1, 3 * m);
    expected.coll(odd_members, "bcast", 1, 1, 6);
    expected.coll(odd_members, "scan", -1, 1, 2 * sizeof(long));
  }
  expected.write();
  MPI_Finalize();
  return 0;
}
