// Neighbourhood collectives expanded into per-pair bytes: alltoall and
// allgather on a Cartesian communicator (block order -1/+1 per dimension,
// MPI_PROC_NULL on the non-periodic border), alltoallv on a distributed graph.
#include <mpi.h>

#include <vector>

#include "expect.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  commprof_test::Expected expected;
  const int world = expected.rank(), size = expected.size();
  MPI_Comm reversed, cart, graph;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - world, &reversed);

  int dims[2] = {0, 0}, periods[2] = {1, 0};
  MPI_Dims_create(size, 2, dims);
  MPI_Cart_create(reversed, 2, dims, periods, 1, &cart);
  const std::vector<int> cart_world = commprof_test::world_ranks_by_gather(cart);
  int me = 0, coords[2];
  MPI_Comm_rank(cart, &me);
  PMPI_Cart_coords(cart, me, 2, coords);
  // Neighbours in MPI's block order, from coordinates: (d0-, d0+, d1-, d1+).
  std::vector<int> neighbour_world;
  for (int d = 0; d < 2; ++d) {
    for (int dir = -1; dir <= 1; dir += 2) {
      int nc[2] = {coords[0], coords[1]};
      nc[d] += dir;
      if (periods[d]) nc[d] = (nc[d] + dims[d]) % dims[d];
      int r = -1;
      if (nc[d] >= 0 && nc[d] < dims[d]) PMPI_Cart_rank(cart, nc, &r);
      neighbour_world.push_back(r < 0 ? -1 : cart_world[static_cast<size_t>(r)]);
    }
  }
  std::vector<int> out(64), in(64);
  MPI_Neighbor_alltoall(out.data(), 3, MPI_INT, in.data(), 3, MPI_INT, cart);
  for (int w : neighbour_world)
    if (w >= 0) expected.p2p(w, 12);
  MPI_Request req;
  MPI_Ineighbor_allgather(out.data(), 2, MPI_DOUBLE, in.data(), 2, MPI_DOUBLE, cart, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  for (int w : neighbour_world)
    if (w >= 0) expected.p2p(w, 16);

  // Distributed graph on world: i sends to i+1 and i+3 (mod size), blocks of (k+1)*(world+1) chars.
  const int dests[2] = {(world + 1) % size, (world + 3) % size};
  const int sources[2] = {(world + size - 1) % size, (world + size - 3) % size};
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, MPI_UNWEIGHTED, 2, dests, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                 0, &graph);
  const int sendcounts[2] = {world + 1, 2 * (world + 1)}, sdispls[2] = {0, 64};
  const int recvcounts[2] = {sources[0] + 1, 2 * (sources[1] + 1)}, rdispls[2] = {0, 64};
  std::vector<char> cout_(128), cin_(128);
  MPI_Neighbor_alltoallv(cout_.data(), sendcounts, sdispls, MPI_CHAR, cin_.data(), recvcounts, rdispls, MPI_CHAR,
                         graph);
  expected.p2p(dests[0], static_cast<unsigned>(sendcounts[0]));
  expected.p2p(dests[1], static_cast<unsigned>(sendcounts[1]));

  MPI_Comm_free(&graph);
  MPI_Comm_free(&cart);
  MPI_Comm_free(&reversed);
  expected.write();
  MPI_Finalize();
  return 0;
}
