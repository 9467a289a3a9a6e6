// The point-to-point messages MPICH's default algorithms send for one
// collective call, from one member's side, as rounds: in each round the
// member posts its receives, starts its sends and waits for all of them
// before the next round. One model, two users: libcommprof's trace mode
// writes the collectives of a sub-communicator this way (SimGrid's
// time-independent replay runs every collective action on MPI_COMM_WORLD, so
// a row's all-to-all written as "alltoall" would replay as an all-to-all of
// the whole job), and the mapper's collective model (mapper/src/collectives.cpp)
// sums every member's sends into the communication graph.
//
// Ranks are the communicator's (0..n-1), sizes bytes. The algorithms and
// switch points are MPICH 4.0's defaults for commutative built-in
// operations and flat (not SMP-aware) communicators, with simplifications
// listed in docs/profiler.md: all-to-all's short-message Bruck algorithm is
// written as the medium one (every block at once). No MPI here: unit-tested
// on its own (tests/unit).
#pragma once

#include <cstdint>
#include <vector>

namespace rankmap::mpich {

struct Message {
  int peer;             // communicator rank
  std::uint64_t bytes;  // may be 0 (barrier)
};
struct Round {
  std::vector<Message> sends, recvs;
};
using Rounds = std::vector<Round>;

// Dissemination: ceil(log2 n) rounds of one empty message.
Rounds barrier(int n, int me);
// Under 12,288 bytes or on fewer than 8 members: the binomial tree from
// `root`, one receive, then one send per child, each a round. Longer: the
// buffer cut in n pieces of ceil(bytes / n) (the last ones shorter or
// empty), scattered down the same tree (bcast_scatter), then gathered back
// by recursive doubling (a power of two under 524,288 bytes) or the ring
// (bcast_uses_ring: n - 1 rounds, piece after piece to me + 1).
Rounds bcast(int n, int me, int root, std::uint64_t bytes);
Rounds bcast_scatter(int n, int me, int root, std::uint64_t bytes);
bool bcast_scatters(int n, std::uint64_t bytes);
bool bcast_uses_ring(int n, std::uint64_t bytes);
// Bytes of the pieces first..first+count-1 of a scattered broadcast.
std::uint64_t bcast_pieces(int n, std::uint64_t bytes, int first, int count);
// Binomial tree to `root`: a receive per child, then the send to the parent.
Rounds reduce(int n, int me, int root, std::uint64_t bytes);
// Recursive doubling up to 2,048 bytes, else Rabenseifner (recursive halving,
// then doubling); ranks beyond the largest power of two fold in first.
Rounds allreduce(int n, int me, std::uint64_t bytes);
// Blocks up to 32,768 bytes all at once; above, the pairwise exchange.
Rounds alltoall(int n, int me, std::uint64_t block);
// Every non-empty block at once; to[i] / from[i] are the bytes to and from i.
Rounds alltoallv(int n, int me, const std::vector<std::uint64_t>& to, const std::vector<std::uint64_t>& from);
// Recursive doubling (power of two, under 524,288 bytes in all), else Bruck
// under 81,920, else the ring (allgather_uses_ring).
Rounds allgather(int n, int me, std::uint64_t block);
bool allgather_uses_ring(int n, std::uint64_t block);
// The same algorithms and switch points on the sum of the blocks; blocks[i]
// is member i's contribution. With equal blocks, allgather's rounds.
Rounds allgatherv(int n, int me, const std::vector<std::uint64_t>& blocks);
// Binomial trees: subtrees' blocks move up (gather) or down (scatter).
Rounds gather(int n, int me, int root, std::uint64_t block);
Rounds scatter(int n, int me, int root, std::uint64_t block);
// Linear: the root exchanges with every member at once; blocks[i] is member
// i's block (read at the root; elsewhere only blocks[me] is used).
Rounds gatherv(int n, int me, int root, const std::vector<std::uint64_t>& blocks);
Rounds scatterv(int n, int me, int root, const std::vector<std::uint64_t>& blocks);
// Inclusive and exclusive scan: recursive doubling, partner me ^ 2^k while it
// is a member (MPIR_Scan_intra_recursive_doubling; no folding).
Rounds scan(int n, int me, std::uint64_t bytes);
// blocks[i] is member i's share of the result. Under 524,288 bytes in all,
// recursive halving from the farthest partner in (the half of the vector
// the partner keeps, then a quarter, ...), the members beyond a power of
// two folded in first; else the pairwise exchange
// (reduce_scatter_uses_pairwise): in round i member me sends blocks[me + i]
// to me + i and receives blocks[me] from me - i.
Rounds reduce_scatter(int n, int me, const std::vector<std::uint64_t>& blocks);
// The same with every block of `block` bytes (MPI_Reduce_scatter_block), in
// O(log n) for the halving.
Rounds reduce_scatter_block(int n, int me, std::uint64_t block);
bool reduce_scatter_uses_pairwise(std::uint64_t total);

}  // namespace rankmap::mpich
