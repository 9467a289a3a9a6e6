// One-sided Put, Get, Accumulate, Get_accumulate, Fetch_and_op and
// Compare_and_swap under MPI_Win_fence, on a window whose communicator runs
// backwards: records are in world ranks and in the direction the data moves
// (Get: target -> origin).
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

  std::vector<double> base(256, 0.0), local(64, 1.0), result(64);
  MPI_Win win;
  MPI_Win_create(base.data(), static_cast<MPI_Aint>(base.size() * sizeof(double)), sizeof(double), MPI_INFO_NULL,
                 reversed, &win);
  const int put_to = world_of[static_cast<size_t>((me + 1) % size)];
  const int get_from = world_of[static_cast<size_t>((me + 2) % size)];

  MPI_Win_fence(0, win);
  const int put_count = world + 1;
  MPI_Put(local.data(), put_count, MPI_DOUBLE, (me + 1) % size, 0, put_count, MPI_DOUBLE, win);
  expected.osc(world, put_to, 8ull * static_cast<unsigned>(put_count));
  MPI_Win_fence(0, win);
  MPI_Get(result.data(), 3, MPI_DOUBLE, (me + 2) % size, 8, 3, MPI_DOUBLE, win);
  expected.osc(get_from, world, 24);
  MPI_Win_fence(0, win);
  MPI_Accumulate(local.data(), 2, MPI_DOUBLE, (me + 1) % size, 16, 2, MPI_DOUBLE, MPI_SUM, win);
  expected.osc(world, put_to, 16);
  MPI_Win_fence(0, win);
  MPI_Get_accumulate(local.data(), 4, MPI_DOUBLE, result.data(), 4, MPI_DOUBLE, (me + 2) % size, 32, 4, MPI_DOUBLE,
                     MPI_SUM, win);
  expected.osc(world, get_from, 32);
  expected.osc(get_from, world, 32);
  MPI_Win_fence(0, win);
  // MPI_NO_OP only reads: data moves back only.
  MPI_Fetch_and_op(local.data(), result.data(), MPI_DOUBLE, (me + 1) % size, 40, MPI_NO_OP, win);
  expected.osc(put_to, world, 8);
  MPI_Win_fence(0, win);
  // Compare_and_swap takes integer types only.
  long long cas_values[3] = {1, 0, 0};
  MPI_Compare_and_swap(&cas_values[0], &cas_values[1], &cas_values[2], MPI_LONG_LONG, (me + 1) % size, 48, win);
  expected.osc(world, put_to, 16);  // compare value and new value
  expected.osc(put_to, world, 8);   // old value
  MPI_Win_fence(0, win);
  // Request-based form inside a passive-target epoch.
  MPI_Request req;
  MPI_Win_lock_all(0, win);
  MPI_Rput(local.data(), 5, MPI_DOUBLE, (me + 1) % size, 64, 5, MPI_DOUBLE, win, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Win_unlock_all(win);
  expected.osc(world, put_to, 40);
  MPI_Win_fence(0, win);

  MPI_Win_free(&win);
  MPI_Comm_free(&reversed);
  expected.write();
  MPI_Finalize();
  return 0;
}
