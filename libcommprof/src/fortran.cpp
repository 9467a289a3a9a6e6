#include "fortran.hpp"

namespace commprof::fortran {

const void* in_place_address() {
  // Open MPI's mpif.h, `use mpi` and `use mpi_f08` all name this common block.
  static const void* const address = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
  return address;
}

}  // namespace commprof::fortran
