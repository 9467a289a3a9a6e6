// Sendrecv, Sendrecv_replace and their large-count forms on a non-periodic
// line: the ends exchange with MPI_PROC_NULL, which is not recorded; only the
// send half of each call counts (with its own count and type).
#include <mpi.h>

#include <vector>

#include "expect.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  commprof_test::Expected expected;
  const int rank = expected.rank(), size = expected.size();
  const int right = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  std::vector<double> buf(64);
  std::vector<char> in(1024);

  // Rightwards: send 2*(rank+1) doubles, receive as bytes.
  MPI_Sendrecv(buf.data(), 2 * (rank + 1), MPI_DOUBLE, right, 0, in.data(), 1024, MPI_CHAR, left, 0, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  if (right != MPI_PROC_NULL) expected.p2p(right, 16ull * static_cast<unsigned>(rank + 1));

  // Leftwards, large-count form: 3 shorts.
  MPI_Sendrecv_c(buf.data(), MPI_Count{3}, MPI_SHORT, left, 1, in.data(), MPI_Count{1024}, MPI_CHAR, right, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (left != MPI_PROC_NULL) expected.p2p(left, 6);

  // In-place exchange with the right neighbour; everyone sends 5 ints right.
  MPI_Sendrecv_replace(buf.data(), 5, MPI_INT, right, 2, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (right != MPI_PROC_NULL) expected.p2p(right, 20);
  MPI_Sendrecv_replace_c(buf.data(), MPI_Count{7}, MPI_INT, left, 3, right, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (left != MPI_PROC_NULL) expected.p2p(left, 28);

  expected.write();
  MPI_Finalize();
  return 0;
}
