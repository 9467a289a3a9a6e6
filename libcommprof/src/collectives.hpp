// Per-communicator facts the collectives need, and the expansion of
// all-to-all and neighbourhood collectives into exact per-pair bytes.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace commprof {

// Rooted/reduction collective counts of one communicator. Owned by the
// runtime, not by the communicator, so they survive MPI_Comm_free until
// finalize. Only the member with rank 0 keeps the member list; the others
// name the communicator by a hash of it (sizes of everything stay O(P) in total).
struct CommStats {
  struct Entry {
    std::uint8_t op;
    int root;
    std::uint64_t calls;
    std::uint64_t bytes;
  };
  std::uint64_t members_hash = 0;
  int size = 0;
  std::vector<int> members;  // world ranks in communicator order, on its rank 0 only
  std::vector<Entry> entries;
};

// Cached as an attribute on each communicator (and window) the first time it
// carries counted traffic; freed by MPI with the communicator, so a reused
// handle starts clean.
struct CommInfo {
  int size = 0;        // size of the group peers are named in (remote group for intercommunicators)
  int my_rank = -1;    // this process's rank, -1 for intercommunicators
  bool inter = false;
  bool identity = false;       // rank i is world rank i: no table
  std::vector<int> world;      // world rank of each rank, -1 if outside MPI_COMM_WORLD
  int topology = MPI_UNDEFINED;  // MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH or MPI_UNDEFINED
  std::vector<int> out_neighbors;  // communicator ranks that neighbourhood sends go to, in MPI order
  CommStats* stats = nullptr;      // intracommunicators only

  int world_of(int rank) const {
    if (identity) return rank;
    return (rank >= 0 && rank < size) ? world[static_cast<size_t>(rank)] : -1;
  }
};

const CommInfo& comm_info(MPI_Comm comm);

// The destinations of a neighbourhood collective's send blocks, in the order
// MPI defines: Cartesian: for each dimension the -1 then the +1 neighbour
// (MPI_PROC_NULL kept, so block i always goes to out_neighbors[i]); graph:
// MPI_Graph_neighbors; distributed graph: the destinations.
std::vector<int> out_neighbors_of(MPI_Comm comm, int* topology);

// What one Start of a persistent request sends.
struct PlannedSend {
  int world_dest;
  std::uint64_t bytes;
};

void register_plan(MPI_Request request, std::vector<PlannedSend> sends);

}  // namespace commprof
