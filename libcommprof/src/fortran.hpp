// What the generated Fortran entry points (wrappers_fortran.cpp, Open MPI
// build only) need on top of hooks.hpp: the real Fortran routine, Fortran's
// MPI_IN_PLACE, and arrays of Fortran handles converted to C handles.
#pragma once

#include <dlfcn.h>
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "collectives.hpp"
#include "hooks.hpp"

namespace commprof::fortran {

static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are read as int arrays");

// Looked up, never linked: C-only programs do not load the Fortran libraries,
// and the preloaded library must not pull them in.
template <class Fn>
Fn next(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

// Fortran's MPI_IN_PLACE is the address of a common block, not C's sentinel.
const void* in_place_address();

inline const void* buffer(const void* fortran_buffer) {
  return fortran_buffer != nullptr && fortran_buffer == in_place_address() ? MPI_IN_PLACE : fortran_buffer;
}

template <class Handle, class F2c>
std::vector<Handle> f2c_array(const MPI_Fint* handles, std::size_t n, F2c f2c) {
  std::vector<Handle> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = f2c(handles[i]);
  return out;
}

// Blocks of an all-to-all (the group peers are named in) and of a
// neighbourhood collective (its out-neighbours) on `comm`.
inline std::size_t alltoall_blocks(MPI_Comm comm) { return static_cast<std::size_t>(comm_info(comm).size); }
inline std::size_t neighbor_blocks(MPI_Comm comm) { return comm_info(comm).out_neighbors.size(); }

}  // namespace commprof::fortran
