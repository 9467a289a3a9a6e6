// MPICH 4.0's default collective algorithms as rounds of messages
// (rankmap/mpich_collectives.hpp). The loops follow MPICH's intra-communicator
// implementations (src/mpi/coll/*/): the same partners, in the same order,
// with the same sizes, where the header says nothing else.
#include "rankmap/mpich_collectives.hpp"

#include <algorithm>
#include <numeric>

namespace rankmap::mpich {

namespace {

constexpr std::uint64_t kBcastShort = 12288;       // MPIR_CVAR_BCAST_SHORT_MSG_SIZE
constexpr int kBcastMinProcs = 8;                  // MPIR_CVAR_BCAST_MIN_PROCS
constexpr std::uint64_t kBcastLong = 524288;       // MPIR_CVAR_BCAST_LONG_MSG_SIZE
constexpr std::uint64_t kAllreduceShort = 2048;    // MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE
constexpr std::uint64_t kAlltoallMedium = 32768;   // MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE
constexpr std::uint64_t kAllgatherShort = 81920;   // MPIR_CVAR_ALLGATHER_SHORT_MSG_SIZE
constexpr std::uint64_t kAllgatherLong = 524288;   // MPIR_CVAR_ALLGATHER_LONG_MSG_SIZE
constexpr std::uint64_t kReduceScatterLong = 524288;  // MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }
int largest_power_of_two(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

void send(Rounds& r, int peer, std::uint64_t bytes) { r.push_back(Round{{{peer, bytes}}, {}}); }
void recv(Rounds& r, int peer, std::uint64_t bytes) { r.push_back(Round{{}, {{peer, bytes}}}); }
void exchange(Rounds& r, int peer, std::uint64_t out, std::uint64_t in) {
  r.push_back(Round{{{peer, out}}, {{peer, in}}});
}

// Binomial tree rooted at `root`, relative rank vr = (me - root) mod n: the
// parent is vr with its lowest set bit cleared; the children are vr + mask
// for the masks below that bit, largest first (MPIR_Bcast_intra_binomial).
int relative(int n, int me, int root) { return (me - root + n) % n; }
int absolute(int n, int vr, int root) { return (vr + root) % n; }
int lowest_bit_or_top(int n, int vr) {
  if (vr != 0) return vr & -vr;
  int top = 1;
  while (top < n) top <<= 1;
  return top;
}

// MPICH's reduction to a power of two (allreduce, reduce-scatter): the first
// 2 x rem members fold in pairs, an even one handing `bytes` to the odd one
// after it and sitting out (new rank -1); the survivors take new ranks
// 0..pof2-1, and real() turns one back into a member.
struct Fold {
  int pof2 = 1, rem = 0, newrank = -1;
  int real(int v) const { return v < rem ? 2 * v + 1 : v + rem; }
};
Fold fold_in(Rounds& r, int n, int me, std::uint64_t bytes) {
  Fold f;
  f.pof2 = largest_power_of_two(n);
  f.rem = n - f.pof2;
  f.newrank = me - f.rem;
  if (me < 2 * f.rem) {
    if (me % 2 == 0) {
      send(r, me + 1, bytes);
      f.newrank = -1;
    } else {
      recv(r, me - 1, bytes);
      f.newrank = me / 2;
    }
  }
  return f;
}

// Allgather and allgatherv switch on the bytes in all (MPIR_Allgather(v)_intra_auto).
enum class Allgather { recursive_doubling, bruck, ring };
Allgather allgather_algorithm(int n, std::uint64_t total) {
  if (total < kAllgatherLong && power_of_two(n)) return Allgather::recursive_doubling;
  return total < kAllgatherShort ? Allgather::bruck : Allgather::ring;
}

}  // namespace

Rounds barrier(int n, int me) {
  Rounds r;
  for (int k = 1; k < n; k <<= 1) r.push_back(Round{{{(me + k) % n, 0}}, {{(me - k + n) % n, 0}}});
  return r;
}

bool bcast_scatters(int n, std::uint64_t bytes) { return bytes >= kBcastShort && n >= kBcastMinProcs; }
bool bcast_uses_ring(int n, std::uint64_t bytes) {
  return bcast_scatters(n, bytes) && !(bytes < kBcastLong && power_of_two(n));
}

std::uint64_t bcast_pieces(int n, std::uint64_t bytes, int first, int count) {
  const std::uint64_t piece = (bytes + static_cast<std::uint64_t>(n) - 1) / static_cast<std::uint64_t>(n);
  const std::uint64_t start = piece * static_cast<std::uint64_t>(first);
  if (start >= bytes) return 0;
  return std::min(piece * static_cast<std::uint64_t>(count), bytes - start);
}

Rounds bcast_scatter(int n, int me, int root, std::uint64_t bytes) {
  // MPII_Scatter_for_bcast: relative rank vr gets the pieces of its subtree
  // from its parent, then hands each child the pieces of the child's.
  Rounds r;
  const int vr = relative(n, me, root), low = lowest_bit_or_top(n, vr);
  if (vr != 0)
    if (const std::uint64_t b = bcast_pieces(n, bytes, vr, low); b > 0) recv(r, absolute(n, vr - low, root), b);
  for (int mask = low >> 1; mask > 0; mask >>= 1)
    if (vr + mask < n)
      if (const std::uint64_t b = bcast_pieces(n, bytes, vr + mask, mask); b > 0)
        send(r, absolute(n, vr + mask, root), b);
  return r;
}

Rounds bcast(int n, int me, int root, std::uint64_t bytes) {
  Rounds r;
  const int vr = relative(n, me, root), low = lowest_bit_or_top(n, vr);
  if (!bcast_scatters(n, bytes)) {
    if (vr != 0) recv(r, absolute(n, vr - low, root), bytes);
    for (int mask = low >> 1; mask > 0; mask >>= 1)
      if (vr + mask < n) send(r, absolute(n, vr + mask, root), bytes);
    return r;
  }
  r = bcast_scatter(n, me, root, bytes);
  if (bcast_uses_ring(n, bytes)) {
    // MPIR_Bcast_intra_scatter_ring_allgather: round i passes piece
    // vr - i + 1 on to me + 1 and takes piece vr - i from me - 1 (empty
    // pieces are still sent, as MPICH's Sendrecv of 0 bytes).
    for (int i = 1; i < n; ++i)
      r.push_back(Round{{{(me + 1) % n, bcast_pieces(n, bytes, (vr - i + 1 + n) % n, 1)}},
                        {{(me - 1 + n) % n, bcast_pieces(n, bytes, (vr - i + n) % n, 1)}}});
  } else {
    // MPIR_Bcast_intra_scatter_recursive_doubling_allgather (a power of
    // two): at distance 2^k the pieces of the two subtrees of 2^k.
    for (int mask = 1; mask < n; mask <<= 1) {
      const int partner = vr ^ mask, mine = vr & ~(mask - 1), theirs = partner & ~(mask - 1);
      exchange(r, absolute(n, partner, root), bcast_pieces(n, bytes, mine, mask), bcast_pieces(n, bytes, theirs, mask));
    }
  }
  return r;
}

Rounds reduce(int n, int me, int root, std::uint64_t bytes) {
  // MPIR_Reduce_intra_binomial: children in increasing distance, then the parent.
  Rounds r;
  const int vr = relative(n, me, root);
  for (int mask = 1; mask < n; mask <<= 1) {
    if ((vr & mask) == 0) {
      if ((vr | mask) < n) recv(r, absolute(n, vr | mask, root), bytes);
    } else {
      send(r, absolute(n, vr - mask, root), bytes);
      break;
    }
  }
  return r;
}

Rounds allreduce(int n, int me, std::uint64_t bytes) {
  Rounds r;
  const Fold f = fold_in(r, n, me, bytes);
  const int pof2 = f.pof2, rem = f.rem, newrank = f.newrank;
  if (newrank >= 0) {
    if (bytes <= kAllreduceShort) {
      for (int mask = 1; mask < pof2; mask <<= 1) exchange(r, f.real(newrank ^ mask), bytes, bytes);
    } else {
      // Recursive halving (half, a quarter, ... at distances 1, 2, ...),
      // then recursive doubling back (the pieces grow again).
      std::vector<std::uint64_t> piece;
      std::uint64_t left = bytes;
      for (int mask = 1; mask < pof2; mask <<= 1) {
        left /= 2;
        piece.push_back(left);
        exchange(r, f.real(newrank ^ mask), left, left);
      }
      for (int mask = pof2 >> 1, k = static_cast<int>(piece.size()) - 1; mask > 0; mask >>= 1, --k)
        exchange(r, f.real(newrank ^ mask), piece[static_cast<size_t>(k)], piece[static_cast<size_t>(k)]);
    }
  }
  if (me < 2 * rem) {
    if (me % 2 == 1)
      send(r, me - 1, bytes);
    else
      recv(r, me + 1, bytes);
  }
  return r;
}

Rounds alltoall(int n, int me, std::uint64_t block) {
  Rounds r;
  if (block <= kAlltoallMedium) {
    // MPIR_Alltoall_intra_scattered: every block at once, starting at me + 1.
    Round all;
    for (int i = 1; i < n; ++i) {
      all.recvs.push_back({(me + i) % n, block});
      all.sends.push_back({(me + i) % n, block});
    }
    if (n > 1) r.push_back(std::move(all));
    return r;
  }
  // MPIR_Alltoall_intra_pairwise: XOR partners on a power of two, else shifts.
  for (int i = 1; i < n; ++i) {
    if (power_of_two(n)) {
      exchange(r, me ^ i, block, block);
    } else {
      r.push_back(Round{{{(me + i) % n, block}}, {{(me - i + n) % n, block}}});
    }
  }
  return r;
}

Rounds alltoallv(int n, int me, const std::vector<std::uint64_t>& to, const std::vector<std::uint64_t>& from) {
  Round all;
  for (int i = 1; i < n; ++i) {
    const int peer = (me + i) % n;
    if (from[static_cast<size_t>(peer)] > 0) all.recvs.push_back({peer, from[static_cast<size_t>(peer)]});
    if (to[static_cast<size_t>(peer)] > 0) all.sends.push_back({peer, to[static_cast<size_t>(peer)]});
  }
  Rounds r;
  if (!all.sends.empty() || !all.recvs.empty()) r.push_back(std::move(all));
  return r;
}

bool allgather_uses_ring(int n, std::uint64_t block) {
  return allgather_algorithm(n, block * static_cast<std::uint64_t>(n)) == Allgather::ring;
}

Rounds allgather(int n, int me, std::uint64_t block) {
  Rounds r;
  const Allgather algorithm = allgather_algorithm(n, block * static_cast<std::uint64_t>(n));
  if (algorithm == Allgather::recursive_doubling) {
    for (int mask = 1; mask < n; mask <<= 1) exchange(r, me ^ mask, block * mask, block * mask);
  } else if (algorithm == Allgather::bruck) {
    // Bruck: round k sends 2^k blocks (fewer at the last) to me - 2^k.
    for (int k = 1; k < n; k <<= 1) {
      const std::uint64_t b = block * static_cast<std::uint64_t>(std::min(k, n - k));
      r.push_back(Round{{{(me - k + n) % n, b}}, {{(me + k) % n, b}}});
    }
  } else {
    for (int i = 1; i < n; ++i) r.push_back(Round{{{(me + 1) % n, block}}, {{(me - 1 + n) % n, block}}});
  }
  return r;
}

Rounds allgatherv(int n, int me, const std::vector<std::uint64_t>& blocks) {
  // MPIR_Allgatherv_intra_auto: allgather's switch points on the total.
  std::vector<std::uint64_t> prefix(blocks.size() + 1, 0);
  std::partial_sum(blocks.begin(), blocks.end(), prefix.begin() + 1);
  const std::uint64_t total = prefix.back();
  // Blocks of members first, first + 1, ..., count of them, around the ring.
  auto blocks_from = [&](int first, int count) {
    const int end = first + count;
    if (end <= n) return prefix[static_cast<size_t>(end)] - prefix[static_cast<size_t>(first)];
    return total - prefix[static_cast<size_t>(first)] + prefix[static_cast<size_t>(end - n)];
  };
  Rounds r;
  const Allgather algorithm = allgather_algorithm(n, total);
  if (algorithm == Allgather::recursive_doubling) {
    // Recursive doubling: the blocks of the two subtrees of 2^k.
    for (int mask = 1; mask < n; mask <<= 1) {
      const int partner = me ^ mask;
      exchange(r, partner, blocks_from(me & ~(mask - 1), mask), blocks_from(partner & ~(mask - 1), mask));
    }
  } else if (algorithm == Allgather::bruck) {
    // Bruck: round k sends the blocks of me .. me + 2^k - 1 (fewer at the
    // last) to me - 2^k and takes those of me + 2^k onwards.
    for (int k = 1; k < n; k <<= 1) {
      const int count = std::min(k, n - k);
      r.push_back(Round{{{(me - k + n) % n, blocks_from(me, count)}}, {{(me + k) % n, blocks_from((me + k) % n, count)}}});
    }
  } else {
    // Ring: in round i member me passes on the block of me - i + 1 and
    // receives that of me - i.
    for (int i = 1; i < n; ++i) {
      const std::uint64_t out = blocks[static_cast<size_t>((me - i + 1 + n) % n)];
      const std::uint64_t in = blocks[static_cast<size_t>((me - i + n) % n)];
      r.push_back(Round{{{(me + 1) % n, out}}, {{(me - 1 + n) % n, in}}});
    }
  }
  return r;
}

Rounds gather(int n, int me, int root, std::uint64_t block) {
  // MPIR_Gather_intra_binomial: a child's whole subtree moves up at once.
  Rounds r;
  const int vr = relative(n, me, root);
  std::uint64_t held = block;
  for (int mask = 1; mask < n; mask <<= 1) {
    if ((vr & mask) == 0) {
      const int child = vr | mask;
      if (child < n) {
        const std::uint64_t b = block * static_cast<std::uint64_t>(std::min(mask, n - child));
        recv(r, absolute(n, child, root), b);
        held += b;
      }
    } else {
      send(r, absolute(n, vr - mask, root), held);
      break;
    }
  }
  return r;
}

Rounds scatter(int n, int me, int root, std::uint64_t block) {
  // MPIR_Scatter_intra_binomial: the subtree's blocks come down from the
  // parent, then each child gets its own subtree's.
  Rounds r;
  const int vr = relative(n, me, root), low = lowest_bit_or_top(n, vr);
  if (vr != 0) recv(r, absolute(n, vr - low, root), block * static_cast<std::uint64_t>(std::min(low, n - vr)));
  for (int mask = low >> 1; mask > 0; mask >>= 1)
    if (vr + mask < n)
      send(r, absolute(n, vr + mask, root), block * static_cast<std::uint64_t>(std::min(mask, n - vr - mask)));
  return r;
}

namespace {

// The linear v-collectives: every member but the root exchanges its block
// with the root, which posts all of them at once.
Rounds linear(int n, int me, int root, const std::vector<std::uint64_t>& blocks, bool to_root) {
  Rounds r;
  if (me != root) {
    const std::uint64_t own = blocks[static_cast<size_t>(me)];
    if (own > 0) (to_root ? send : recv)(r, root, own);
    return r;
  }
  Round all;
  std::vector<Message>& side = to_root ? all.recvs : all.sends;
  for (int i = 0; i < n; ++i)
    if (i != root && blocks[static_cast<size_t>(i)] > 0) side.push_back({i, blocks[static_cast<size_t>(i)]});
  if (!side.empty()) r.push_back(std::move(all));
  return r;
}

}  // namespace

Rounds gatherv(int n, int me, int root, const std::vector<std::uint64_t>& blocks) {
  return linear(n, me, root, blocks, true);
}

Rounds scatterv(int n, int me, int root, const std::vector<std::uint64_t>& blocks) {
  return linear(n, me, root, blocks, false);
}

Rounds scan(int n, int me, std::uint64_t bytes) {
  Rounds r;
  for (int mask = 1; mask < n; mask <<= 1)
    if ((me ^ mask) < n) exchange(r, me ^ mask, bytes, bytes);
  return r;
}

bool reduce_scatter_uses_pairwise(std::uint64_t total) { return total >= kReduceScatterLong; }

namespace {

// MPIR_Reduce_scatter_intra_recursive_halving. The first 2 x rem members
// (rem = n - the largest power of two) fold in pairs: an even one hands its
// whole vector to the odd one after it, which works for both and hands the
// even one its block at the end. The survivors, new ranks 0..pof2-1 (new
// rank i stands for members 2i and 2i + 1 below rem, for i + rem above: a
// run of members), halve from the farthest partner in: each keeps the half
// of its range that holds it and sends the partner the other half's blocks;
// empty sides are not sent, as in MPICH. sum(from, to) is the bytes of
// members from..to-1's blocks.
template <class Sum>
Rounds recursive_halving(int n, int me, Sum sum) {
  Rounds r;
  const std::uint64_t total = sum(0, n);
  if (total == 0) return r;
  const Fold f = fold_in(r, n, me, total);
  const int pof2 = f.pof2, rem = f.rem, newrank = f.newrank;
  auto first_member = [&](int v) { return v < rem ? 2 * v : v + rem; };
  if (newrank >= 0) {
    auto range = [&](int lo, int hi) { return sum(first_member(lo), hi == pof2 ? n : first_member(hi)); };
    int lo = 0, hi = pof2;
    for (int mask = pof2 >> 1; mask > 0; mask >>= 1) {
      const int mid = lo + mask, peer = f.real(newrank ^ mask);
      const bool lower = newrank < mid;
      const std::uint64_t out = lower ? range(mid, hi) : range(lo, mid), in = lower ? range(lo, mid) : range(mid, hi);
      Round round;
      if (out > 0) round.sends.push_back({peer, out});
      if (in > 0) round.recvs.push_back({peer, in});
      if (out > 0 || in > 0) r.push_back(std::move(round));
      (lower ? hi : lo) = mid;
    }
  }
  if (me < 2 * rem) {
    if (me % 2 == 1) {
      if (const std::uint64_t b = sum(me - 1, me); b > 0) send(r, me - 1, b);
    } else if (const std::uint64_t b = sum(me, me + 1); b > 0) {
      recv(r, me + 1, b);
    }
  }
  return r;
}

template <class Block>
Rounds pairwise(int n, int me, Block block) {
  Rounds r;
  for (int i = 1; i < n; ++i) {
    const int to = (me + i) % n, from = (me - i + n) % n;
    r.push_back(Round{{{to, block(to)}}, {{from, block(me)}}});
  }
  return r;
}

}  // namespace

Rounds reduce_scatter(int n, int me, const std::vector<std::uint64_t>& blocks) {
  std::vector<std::uint64_t> prefix(blocks.size() + 1, 0);
  std::partial_sum(blocks.begin(), blocks.end(), prefix.begin() + 1);
  if (!reduce_scatter_uses_pairwise(prefix.back()))
    return recursive_halving(n, me, [&](int from, int to) { return prefix[static_cast<size_t>(to)] - prefix[static_cast<size_t>(from)]; });
  return pairwise(n, me, [&](int i) { return blocks[static_cast<size_t>(i)]; });
}

Rounds reduce_scatter_block(int n, int me, std::uint64_t block) {
  if (!reduce_scatter_uses_pairwise(block * static_cast<std::uint64_t>(n)))
    return recursive_halving(n, me, [&](int from, int to) { return block * static_cast<std::uint64_t>(to - from); });
  return pairwise(n, me, [&](int) { return block; });
}

}  // namespace rankmap::mpich
