// All-to-all and neighbourhood collectives expanded into per-pair bytes at
// call time: each rank records what it sends to each peer, exactly as a
// point-to-point send would be recorded, so the profile's p2p matrix is the
// data the collective moves between processes (not the MPI library's
// internal algorithm, which the mapper may model separately).

#include "collectives.hpp"

#include <vector>

#include "hooks.hpp"

namespace commprof {

std::vector<int> out_neighbors_of(MPI_Comm comm, int* topology) {
  std::vector<int> out;
#if defined(COMMPROF_SMPI)
  // SimGrid 3.32 aborts in MPI_Topo_test ("not yet implemented"): the SMPI
  // build sees no topology, so neighbourhood collectives are not expanded.
  (void)comm;
  *topology = MPI_UNDEFINED;
  return out;
#endif
  PMPI_Topo_test(comm, topology);
  if (*topology == MPI_CART) {
    int ndims = 0;
    PMPI_Cartdim_get(comm, &ndims);
    for (int d = 0; d < ndims; ++d) {
      int source = MPI_PROC_NULL, dest = MPI_PROC_NULL;
      PMPI_Cart_shift(comm, d, 1, &source, &dest);
      out.push_back(source);  // block 2d goes to the -1 neighbour
      out.push_back(dest);    // block 2d+1 to the +1 neighbour
    }
  } else if (*topology == MPI_GRAPH) {
    int rank = 0, count = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, &count);
    out.resize(static_cast<size_t>(count));
    PMPI_Graph_neighbors(comm, rank, count, out.data());
  } else if (*topology == MPI_DIST_GRAPH) {
    int indegree = 0, outdegree = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &indegree, &outdegree, &weighted);
    std::vector<int> sources(static_cast<size_t>(indegree) + 1), source_weights(sources.size());
    out.resize(static_cast<size_t>(outdegree) + 1);  // +1: never pass a null pointer for an empty list
    std::vector<int> out_weights(out.size());
    // Weight arrays rather than MPI_UNWEIGHTED, which MPICH declares as a
    // variable: the MPICH build takes nothing but functions from libmpi
    // (weak references, see make_mpi_visible in profiler.cpp).
    PMPI_Dist_graph_neighbors(comm, indegree, sources.data(), source_weights.data(), outdegree, out.data(),
                              out_weights.data());
    out.resize(static_cast<size_t>(outdegree));
  }
  return out;
}

namespace {

// Where an expansion's sends go: straight into this thread's counters, or
// into the plan of a persistent request.
struct CountNow {
  PeerTable& table;
  void operator()(int world, std::uint64_t bytes) { table.add(world, 1, bytes); }
};
struct Collect {
  std::vector<PlannedSend>& sends;
  void operator()(int world, std::uint64_t bytes) { sends.push_back({world, bytes}); }
};

// Block i goes to rank i; the block to oneself moves no data between processes.
// bytes_to(i) gives the size of block i. Zero-byte blocks are not messages.
template <class BytesTo, class Emit>
void expand_alltoall(const CommInfo& info, BytesTo bytes_to, Emit emit) {
  for (int i = 0; i < info.size; ++i) {
    if (i == info.my_rank) continue;
    const std::uint64_t bytes = bytes_to(i);
    const int world = info.world_of(i);
    if (bytes > 0 && world >= 0) emit(world, bytes);
  }
}

template <class BytesTo, class Emit>
void expand_neighbors(const CommInfo& info, BytesTo bytes_to, Emit emit) {
  for (size_t i = 0; i < info.out_neighbors.size(); ++i) {
    const int dest = info.out_neighbors[i];
    if (dest < 0) continue;  // MPI_PROC_NULL on a non-periodic Cartesian border
    const std::uint64_t bytes = bytes_to(static_cast<int>(i));
    const int world = info.world_of(dest);
    if (bytes > 0 && world >= 0) emit(world, bytes);
  }
}

// With MPI_IN_PLACE the data sent is described by the receive arguments.
struct Uniform {
  std::uint64_t block;
  std::uint64_t operator()(int) const { return block; }
};
std::uint64_t uniform_block(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            MPI_Count recvcount, MPI_Datatype recvtype) {
  return sendbuf == MPI_IN_PLACE ? static_cast<std::uint64_t>(recvcount) * type_size(recvtype)
                                 : static_cast<std::uint64_t>(sendcount) * type_size(sendtype);
}
template <class Count>
struct Vector {
  const Count* counts;
  MPI_Datatype type;
  std::uint64_t operator()(int i) const { return static_cast<std::uint64_t>(counts[i]) * type_size(type); }
};
template <class Count>
struct VectorW {
  const Count* counts;
  const MPI_Datatype* types;
  std::uint64_t operator()(int i) const { return static_cast<std::uint64_t>(counts[i]) * type_size(types[i]); }
};

}  // namespace

void on_alltoall(MPI_Comm comm, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                 MPI_Count recvcount, MPI_Datatype recvtype) {
  expand_alltoall(comm_info(comm), Uniform{uniform_block(sendbuf, sendcount, sendtype, recvcount, recvtype)},
                  CountNow{thread_state().p2p});
}

template <class Count>
void on_alltoallv(MPI_Comm comm, const void* sendbuf, const Count sendcounts[], MPI_Datatype sendtype,
                  const Count recvcounts[], MPI_Datatype recvtype) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  expand_alltoall(comm_info(comm), Vector<Count>{in_place ? recvcounts : sendcounts, in_place ? recvtype : sendtype},
                  CountNow{thread_state().p2p});
}

template <class Count>
void on_alltoallw(MPI_Comm comm, const void* sendbuf, const Count sendcounts[], const MPI_Datatype sendtypes[],
                  const Count recvcounts[], const MPI_Datatype recvtypes[]) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  expand_alltoall(comm_info(comm),
                  VectorW<Count>{in_place ? recvcounts : sendcounts, in_place ? recvtypes : sendtypes},
                  CountNow{thread_state().p2p});
}

void on_alltoall_init(MPI_Request request, MPI_Comm comm, const void* sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, MPI_Count recvcount, MPI_Datatype recvtype) {
  std::vector<PlannedSend> sends;
  expand_alltoall(comm_info(comm), Uniform{uniform_block(sendbuf, sendcount, sendtype, recvcount, recvtype)},
                  Collect{sends});
  register_plan(request, std::move(sends));
}

template <class Count>
void on_alltoallv_init(MPI_Request request, MPI_Comm comm, const void* sendbuf, const Count sendcounts[],
                       MPI_Datatype sendtype, const Count recvcounts[], MPI_Datatype recvtype) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::vector<PlannedSend> sends;
  expand_alltoall(comm_info(comm), Vector<Count>{in_place ? recvcounts : sendcounts, in_place ? recvtype : sendtype},
                  Collect{sends});
  register_plan(request, std::move(sends));
}

template <class Count>
void on_alltoallw_init(MPI_Request request, MPI_Comm comm, const void* sendbuf, const Count sendcounts[],
                       const MPI_Datatype sendtypes[], const Count recvcounts[], const MPI_Datatype recvtypes[]) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::vector<PlannedSend> sends;
  expand_alltoall(comm_info(comm),
                  VectorW<Count>{in_place ? recvcounts : sendcounts, in_place ? recvtypes : sendtypes},
                  Collect{sends});
  register_plan(request, std::move(sends));
}

// Neighbour allgather(v) sends the same block to every out-neighbour, as
// neighbour alltoall does with its per-neighbour blocks of equal size.
void on_neighbor_uniform(MPI_Comm comm, MPI_Count sendcount, MPI_Datatype sendtype) {
  expand_neighbors(comm_info(comm), Uniform{static_cast<std::uint64_t>(sendcount) * type_size(sendtype)},
                   CountNow{thread_state().p2p});
}

template <class Count>
void on_neighbor_v(MPI_Comm comm, const Count sendcounts[], MPI_Datatype sendtype) {
  expand_neighbors(comm_info(comm), Vector<Count>{sendcounts, sendtype}, CountNow{thread_state().p2p});
}

template <class Count>
void on_neighbor_w(MPI_Comm comm, const Count sendcounts[], const MPI_Datatype sendtypes[]) {
  expand_neighbors(comm_info(comm), VectorW<Count>{sendcounts, sendtypes}, CountNow{thread_state().p2p});
}

void on_neighbor_uniform_init(MPI_Request request, MPI_Comm comm, MPI_Count sendcount, MPI_Datatype sendtype) {
  std::vector<PlannedSend> sends;
  expand_neighbors(comm_info(comm), Uniform{static_cast<std::uint64_t>(sendcount) * type_size(sendtype)},
                   Collect{sends});
  register_plan(request, std::move(sends));
}

template <class Count>
void on_neighbor_v_init(MPI_Request request, MPI_Comm comm, const Count sendcounts[], MPI_Datatype sendtype) {
  std::vector<PlannedSend> sends;
  expand_neighbors(comm_info(comm), Vector<Count>{sendcounts, sendtype}, Collect{sends});
  register_plan(request, std::move(sends));
}

template <class Count>
void on_neighbor_w_init(MPI_Request request, MPI_Comm comm, const Count sendcounts[],
                        const MPI_Datatype sendtypes[]) {
  std::vector<PlannedSend> sends;
  expand_neighbors(comm_info(comm), VectorW<Count>{sendcounts, sendtypes}, Collect{sends});
  register_plan(request, std::move(sends));
}

// The wrappers use both the int and the MPI_Count (large-count) forms.
#define COMMPROF_INSTANTIATE(Count)                                                                           \
  template void on_alltoallv<Count>(MPI_Comm, const void*, const Count[], MPI_Datatype, const Count[],         \
                                    MPI_Datatype);                                                            \
  template void on_alltoallw<Count>(MPI_Comm, const void*, const Count[], const MPI_Datatype[], const Count[], \
                                    const MPI_Datatype[]);                                                    \
  template void on_alltoallv_init<Count>(MPI_Request, MPI_Comm, const void*, const Count[], MPI_Datatype,      \
                                         const Count[], MPI_Datatype);                                        \
  template void on_alltoallw_init<Count>(MPI_Request, MPI_Comm, const void*, const Count[],                    \
                                         const MPI_Datatype[], const Count[], const MPI_Datatype[]);          \
  template void on_neighbor_v<Count>(MPI_Comm, const Count[], MPI_Datatype);                                   \
  template void on_neighbor_w<Count>(MPI_Comm, const Count[], const MPI_Datatype[]);                           \
  template void on_neighbor_v_init<Count>(MPI_Request, MPI_Comm, const Count[], MPI_Datatype);                 \
  template void on_neighbor_w_init<Count>(MPI_Request, MPI_Comm, const Count[], const MPI_Datatype[]);
COMMPROF_INSTANTIATE(int)
COMMPROF_INSTANTIATE(MPI_Count)
#undef COMMPROF_INSTANTIATE

}  // namespace commprof
