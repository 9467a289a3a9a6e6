// 2D halo exchange on a Cartesian communicator created with reorder=1 on top
// of a communicator whose ranks run backwards (split with reversed keys), so
// Cartesian, split and world ranks all differ. Dimension 0 is periodic,
// dimension 1 is not (its border sends go to MPI_PROC_NULL).
#include <mpi.h>

#include <vector>

#include "expect.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  commprof_test::Expected expected;
  const int world = expected.rank();
  MPI_Comm reversed, cart;
  MPI_Comm_split(MPI_COMM_WORLD, 0, -world, &reversed);
  int size = 0;
  MPI_Comm_size(reversed, &size);
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  MPI_Dims_create(size, 2, dims);
  MPI_Cart_create(reversed, 2, dims, periods, 1, &cart);
  const std::vector<int> world_of = commprof_test::world_ranks_by_gather(cart);

  int me = 0, coords[2];
  PMPI_Comm_rank(cart, &me);
  PMPI_Cart_coords(cart, me, 2, coords);
  const int steps = 3;
  for (int step = 0; step < steps; ++step) {
    for (int d = 0; d < 2; ++d) {
      for (int dir = -1; dir <= 1; dir += 2) {
        int source, dest;
        MPI_Cart_shift(cart, d, dir, &source, &dest);
        // Size depends on the direction and the sender, so receivers know it.
        const int tag = 2 * d + (dir > 0);
        auto count_of = [&](int world_rank) { return (tag + 1) * (world_rank + 1); };
        const int out_count = count_of(world);
        const int in_count = source == MPI_PROC_NULL ? 0 : count_of(world_of[static_cast<size_t>(source)]);
        std::vector<int> out(static_cast<size_t>(out_count)), in(static_cast<size_t>(in_count) + 1);
        MPI_Request reqs[2];
        MPI_Irecv(in.data(), in_count, MPI_INT, source, tag, cart, &reqs[0]);
        MPI_Isend(out.data(), out_count, MPI_INT, dest, tag, cart, &reqs[1]);
        MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);

        // Expected neighbour from the coordinates, independently of Cart_shift.
        int nc[2] = {coords[0], coords[1]};
        nc[d] += dir;
        if (periods[d]) nc[d] = (nc[d] + dims[d]) % dims[d];
        if (nc[d] >= 0 && nc[d] < dims[d]) {
          int neighbour = 0;
          PMPI_Cart_rank(cart, nc, &neighbour);
          expected.p2p(world_of[static_cast<size_t>(neighbour)], 4ull * static_cast<unsigned>(out_count));
        }
      }
    }
  }
  MPI_Comm_free(&cart);
  MPI_Comm_free(&reversed);
  expected.write();
  MPI_Finalize();
  return 0;
}
