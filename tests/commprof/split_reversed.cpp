// Sub-communicators: a split with reversed keys, an intercommunicator between
// its two halves (peers named in the remote group), and handle reuse: after
// MPI_Comm_free the next split often gets the same handle value but a
// different rank order, which a handle-keyed cache would get wrong.
#include <mpi.h>

#include <vector>

#include "expect.hpp"

namespace {

// Ring inside `comm`: each rank sends (base + world) ints to the next rank.
void ring(MPI_Comm comm, int base, commprof_test::Expected& expected) {
  int me = 0, n = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  const std::vector<int> world_of = commprof_test::world_ranks_by_gather(comm);
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  const int out_count = base + expected.rank(), in_count = base + world_of[static_cast<size_t>(prev)];
  std::vector<int> out(static_cast<size_t>(out_count)), in(static_cast<size_t>(in_count));
  MPI_Sendrecv(out.data(), out_count, MPI_INT, next, 0, in.data(), in_count, MPI_INT, prev, 0, comm, MPI_STATUS_IGNORE);
  expected.p2p(world_of[static_cast<size_t>(next)], 4ull * static_cast<unsigned>(out_count));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  commprof_test::Expected expected;
  const int world = expected.rank(), size = expected.size();

  MPI_Comm halves;  // two halves, each ordered backwards
  MPI_Comm_split(MPI_COMM_WORLD, world % 2, size - world, &halves);
  ring(halves, 10, expected);
  MPI_Comm first_handle = halves;

  // World ranks of the remote group, worked out by the test: the other half,
  // in its split order (keys size - world ascending, i.e. world descending).
  std::vector<int> colour_of(static_cast<size_t>(size));
  const int my_colour = world % 2;
  PMPI_Allgather(&my_colour, 1, MPI_INT, colour_of.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::vector<int> remote_world;
  for (int w = size - 1; w >= 0; --w)
    if (colour_of[static_cast<size_t>(w)] != my_colour) remote_world.push_back(w);
  // Intercommunicator between the halves; the remote leader is the other half's rank 0.
  MPI_Comm inter;
  MPI_Intercomm_create(halves, 0, MPI_COMM_WORLD, remote_world[0], 7, &inter);
  int me = 0, remote = 0;
  MPI_Comm_rank(inter, &me);
  MPI_Comm_remote_size(inter, &remote);
  if (static_cast<int>(remote_world.size()) != remote) PMPI_Abort(MPI_COMM_WORLD, 4);

  // Local rank i and remote rank i pair up (both halves have >= the smaller size).
  std::vector<char> payload(static_cast<size_t>(100 + world));
  MPI_Request send = MPI_REQUEST_NULL;
  if (me < remote) {
    MPI_Isend(payload.data(), static_cast<int>(payload.size()), MPI_CHAR, me, 1, inter, &send);
    expected.p2p(remote_world[static_cast<size_t>(me)], payload.size());
    MPI_Status st;
    int bytes = 0;
    MPI_Probe(me, 1, inter, &st);
    MPI_Get_count(&st, MPI_CHAR, &bytes);
    std::vector<char> in(static_cast<size_t>(bytes));
    MPI_Recv(in.data(), bytes, MPI_CHAR, me, 1, inter, MPI_STATUS_IGNORE);
  }
  MPI_Wait(&send, MPI_STATUS_IGNORE);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&halves);

  // Same colours, forward keys this time: the handle is usually reused.
  MPI_Comm again;
  MPI_Comm_split(MPI_COMM_WORLD, world % 2, world, &again);
  ring(again, 1000, expected);
  if (again != first_handle && world == 0) std::printf("note: split handle was not reused this time\n");
  MPI_Comm_free(&again);

  expected.write();
  MPI_Finalize();
  return 0;
}
