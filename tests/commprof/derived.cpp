// Derived datatypes: bytes are count x MPI_Type_size (the data, not the
// extent with its holes). A type freed and replaced by one of another size
// (the handle is often reused) must be measured afresh.
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "expect.hpp"

namespace {
struct Particle {
  int id;
  double x[3];
};
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  commprof_test::Expected expected;
  const int rank = expected.rank(), size = expected.size();
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  std::vector<char> in(1 << 16), out(1 << 16);

  auto exchange = [&](MPI_Datatype type, int count, std::uint64_t bytes) {
    MPI_Sendrecv(out.data(), count, type, next, 0, in.data(), static_cast<int>(in.size()), MPI_BYTE, prev, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    expected.p2p(next, bytes);
  };

  // 3 blocks of 2 ints, stride 5: 24 bytes of data in a 52-byte extent.
  MPI_Datatype vector;
  MPI_Type_vector(3, 2, 5, MPI_INT, &vector);
  MPI_Type_commit(&vector);
  exchange(vector, rank + 1, 24ull * static_cast<unsigned>(rank + 1));

  // A struct with padding: 4 + 24 bytes of data, extent 32.
  MPI_Datatype particle;
  const int lengths[2] = {1, 3};
  const MPI_Aint displs[2] = {offsetof(Particle, id), offsetof(Particle, x)};
  const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Type_create_struct(2, lengths, displs, types, &particle);
  MPI_Type_commit(&particle);
  exchange(particle, 2, 2 * 28);

  // Free the vector and build a different type, likely under the same handle.
  MPI_Type_free(&vector);
  MPI_Datatype contiguous;
  MPI_Type_contiguous(7, MPI_SHORT, &contiguous);
  MPI_Type_commit(&contiguous);
  exchange(contiguous, 3, 3 * 14);

  // Predefined pair type (MPICH encodes its size in the handle).
  exchange(MPI_2INT, 4, 4 * 8);
  exchange(MPI_DOUBLE_INT, 1, sizeof(double) + sizeof(int));

  MPI_Type_free(&particle);
  MPI_Type_free(&contiguous);
  expected.write();
  MPI_Finalize();
  return 0;
}
