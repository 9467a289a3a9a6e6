// MPICH's collective algorithms as rounds of messages (rankmap/mpich_collectives.hpp),
// which trace mode writes for sub-communicators and the mapper's collective model sums: exact rounds on hand-worked
// cases, and on every size up to 9, every member and root, that each send
// has its receive with the same bytes in the same order (the replay would
// otherwise deadlock or move other volumes).
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <utility>
#include <vector>

#include "rankmap/mpich_collectives.hpp"

using rankmap::mpich::Message;
using rankmap::mpich::Round;
using rankmap::mpich::Rounds;
namespace rounds = rankmap::mpich;

namespace {

bool same(const std::vector<Message>& a, const std::vector<std::pair<int, std::uint64_t>>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].peer != b[i].first || a[i].bytes != b[i].second) return false;
  return true;
}

// Per ordered pair, the bytes of its messages in the order the sender sends
// them and in the order the receiver posts them: equal when every member's
// rounds belong to one call.
void check_pairs(int n, const std::function<Rounds(int)>& of) {
  std::map<std::pair<int, int>, std::vector<std::uint64_t>> sent, received;
  std::uint64_t messages = 0;
  for (int me = 0; me < n; ++me)
    for (const Round& r : of(me)) {
      for (const Message& m : r.sends) {
        REQUIRE(m.peer >= 0);
        REQUIRE(m.peer < n);
        REQUIRE(m.peer != me);
        sent[{me, m.peer}].push_back(m.bytes);
        ++messages;
      }
      for (const Message& m : r.recvs) received[{m.peer, me}].push_back(m.bytes);
    }
  CHECK(sent == received);
  if (n > 1) CHECK(messages > 0);
}

bool same_messages(const std::vector<Message>& a, const std::vector<Message>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].peer != b[i].peer || a[i].bytes != b[i].bytes) return false;
  return true;
}

// The same rounds: every round's sends and receives, peer and bytes, in order.
bool same_rounds(const Rounds& a, const Rounds& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (!same_messages(a[k].sends, b[k].sends) || !same_messages(a[k].recvs, b[k].recvs)) return false;
  return true;
}

}  // namespace

TEST_CASE("collective rounds: a binomial broadcast from rank 1 of 5") {
  // Relative ranks: the root is 0 and sends to 4, 2, 1 (ranks 0, 3, 2);
  // rank 4 (relative 3) receives from relative 2 (rank 3) and sends nothing.
  const Rounds root = rounds::bcast(5, 1, 1, 100);
  REQUIRE(root.size() == 3);
  CHECK(same(root[0].sends, {{0, 100}}));
  CHECK(same(root[1].sends, {{3, 100}}));
  CHECK(same(root[2].sends, {{2, 100}}));
  const Rounds leaf = rounds::bcast(5, 4, 1, 100);
  REQUIRE(leaf.size() == 1);
  CHECK(same(leaf[0].recvs, {{3, 100}}));
  CHECK(leaf[0].sends.empty());
}

TEST_CASE("collective rounds: allreduce on 6 folds 2 pairs in, then Rabenseifner above 2,048 bytes") {
  // 4 survivors (new ranks 0..3 = ranks 1, 3, 4, 5). Rank 0 hands its data
  // to rank 1 and gets the result back.
  const Rounds folded = rounds::allreduce(6, 0, 4096);
  REQUIRE(folded.size() == 2);
  CHECK(same(folded[0].sends, {{1, 4096}}));
  CHECK(same(folded[1].recvs, {{1, 4096}}));
  // Rank 5 is new rank 3: halving with new ranks 2 (rank 4) and 1 (rank 3),
  // 2,048 then 1,024 bytes; doubling back in reverse.
  const Rounds r5 = rounds::allreduce(6, 5, 4096);
  REQUIRE(r5.size() == 4);
  CHECK(same(r5[0].sends, {{4, 2048}}));
  CHECK(same(r5[0].recvs, {{4, 2048}}));
  CHECK(same(r5[1].sends, {{3, 1024}}));
  CHECK(same(r5[2].sends, {{3, 1024}}));
  CHECK(same(r5[3].sends, {{4, 2048}}));
  // At 2,048 bytes, recursive doubling: the whole vector each step.
  const Rounds small = rounds::allreduce(6, 5, 2048);
  REQUIRE(small.size() == 2);
  CHECK(same(small[0].sends, {{4, 2048}}));
  CHECK(same(small[1].sends, {{3, 2048}}));
}

TEST_CASE("collective rounds: all-to-all at once up to 32 KiB blocks, pairwise above") {
  const Rounds medium = rounds::alltoall(3, 0, 32768);
  REQUIRE(medium.size() == 1);
  CHECK(same(medium[0].sends, {{1, 32768}, {2, 32768}}));
  CHECK(same(medium[0].recvs, {{1, 32768}, {2, 32768}}));
  const Rounds large = rounds::alltoall(3, 0, 40000);
  REQUIRE(large.size() == 2);
  CHECK(same(large[0].sends, {{1, 40000}}));
  CHECK(same(large[0].recvs, {{2, 40000}}));
  CHECK(same(large[1].sends, {{2, 40000}}));
  CHECK(same(large[1].recvs, {{1, 40000}}));
  const Rounds xor4 = rounds::alltoall(4, 1, 40000);  // power of two: partners 1^1, 1^2, 1^3
  REQUIRE(xor4.size() == 3);
  CHECK(same(xor4[0].sends, {{0, 40000}}));
  CHECK(same(xor4[1].sends, {{3, 40000}}));
  CHECK(same(xor4[2].sends, {{2, 40000}}));
}

TEST_CASE("collective rounds: gather and scatter move whole subtrees") {
  // 6 members, root 0: relative 4 holds 4 and 5, relative 2 holds 2 and 3.
  const Rounds root = rounds::gather(6, 0, 0, 10);
  REQUIRE(root.size() == 3);
  CHECK(same(root[0].recvs, {{1, 10}}));
  CHECK(same(root[1].recvs, {{2, 20}}));
  CHECK(same(root[2].recvs, {{4, 20}}));
  const Rounds four = rounds::gather(6, 4, 0, 10);
  REQUIRE(four.size() == 2);
  CHECK(same(four[0].recvs, {{5, 10}}));
  CHECK(same(four[1].sends, {{0, 20}}));
  const Rounds down = rounds::scatter(6, 0, 0, 10);
  REQUIRE(down.size() == 3);
  CHECK(same(down[0].sends, {{4, 20}}));
  CHECK(same(down[1].sends, {{2, 20}}));
  CHECK(same(down[2].sends, {{1, 10}}));
}

TEST_CASE("collective rounds: allgather by recursive doubling, Bruck and the ring") {
  const Rounds doubling = rounds::allgather(4, 2, 100);  // 400 bytes in all, power of two
  REQUIRE(doubling.size() == 2);
  CHECK(same(doubling[0].sends, {{3, 100}}));
  CHECK(same(doubling[1].sends, {{0, 200}}));
  const Rounds bruck = rounds::allgather(5, 0, 100);  // not a power of two, under 80 KB
  REQUIRE(bruck.size() == 3);
  CHECK(same(bruck[0].sends, {{4, 100}}));
  CHECK(same(bruck[1].sends, {{3, 200}}));
  CHECK(same(bruck[2].sends, {{1, 100}}));  // the last step: 5 - 4 = 1 block
  const Rounds ring = rounds::allgather(5, 0, 20000);  // 100 KB in all
  REQUIRE(ring.size() == 4);
  for (const Round& r : ring) CHECK(same(r.sends, {{1, 20000}}));
}

TEST_CASE("collective rounds: allgatherv switches as allgather does, on the sum of the blocks") {
  // Recursive doubling on 4: member 1 swaps its block (20) for 0's (10),
  // then blocks 0-1 (30) for blocks 2-3 (70).
  const std::vector<std::uint64_t> four{10, 20, 30, 40};
  const Rounds doubling = rounds::allgatherv(4, 1, four);
  REQUIRE(doubling.size() == 2);
  CHECK(same(doubling[0].sends, {{0, 20}}));
  CHECK(same(doubling[0].recvs, {{0, 10}}));
  CHECK(same(doubling[1].sends, {{3, 30}}));
  CHECK(same(doubling[1].recvs, {{3, 70}}));
  // Bruck on 3: member 0 sends its block to 2 and takes 1's, then its own
  // again (one block at the last round) to 1 and takes 2's.
  const Rounds bruck = rounds::allgatherv(3, 0, {10, 20, 30});
  REQUIRE(bruck.size() == 2);
  CHECK(same(bruck[0].sends, {{2, 10}}));
  CHECK(same(bruck[0].recvs, {{1, 20}}));
  CHECK(same(bruck[1].sends, {{1, 10}}));
  CHECK(same(bruck[1].recvs, {{2, 30}}));
  // Every member receives every block but its own; equal blocks are allgather.
  for (int n = 1; n <= 12; ++n)
    for (std::uint64_t block : {std::uint64_t{8}, std::uint64_t{30000}, std::uint64_t{200000}}) {
      std::vector<std::uint64_t> blocks(static_cast<size_t>(n));
      for (int i = 0; i < n; ++i) blocks[static_cast<size_t>(i)] = block + static_cast<std::uint64_t>(i);
      const std::uint64_t total = std::accumulate(blocks.begin(), blocks.end(), std::uint64_t{0});
      for (int me = 0; me < n; ++me) {
        std::uint64_t got = 0;
        for (const Round& r : rounds::allgatherv(n, me, blocks))
          for (const Message& m : r.recvs) got += m.bytes;
        CHECK(got == total - blocks[static_cast<size_t>(me)]);
        CHECK(same_rounds(rounds::allgatherv(n, me, std::vector<std::uint64_t>(static_cast<size_t>(n), block)),
                          rounds::allgather(n, me, block)));
      }
    }
}

TEST_CASE("collective rounds: a long broadcast scatters, then gathers by doubling or the ring") {
  // 8 members, 16,000 bytes: pieces of 2,000. The root hands 4 the pieces
  // 4-7, 2 the pieces 2-3, 1 piece 1, then exchanges 2,000, 4,000 and 8,000
  // bytes with 1, 2 and 4 (recursive doubling: a power of two under 512 KiB).
  const Rounds root = rounds::bcast(8, 0, 0, 16000);
  REQUIRE(root.size() == 6);
  CHECK(same(root[0].sends, {{4, 8000}}));
  CHECK(same(root[1].sends, {{2, 4000}}));
  CHECK(same(root[2].sends, {{1, 2000}}));
  CHECK(same(root[3].sends, {{1, 2000}}));
  CHECK(same(root[3].recvs, {{1, 2000}}));
  CHECK(same(root[4].sends, {{2, 4000}}));
  CHECK(same(root[5].sends, {{4, 8000}}));
  CHECK(same(root[5].recvs, {{4, 8000}}));
  // Member 5 (root 1, so relative 4): the pieces 4-7 from the root, pieces
  // 6-7 on to relative 6 (member 7), piece 5 to relative 5 (member 6).
  const Rounds five = rounds::bcast(8, 5, 1, 16000);
  CHECK(same(five[0].recvs, {{1, 8000}}));
  CHECK(same(five[1].sends, {{7, 4000}}));
  CHECK(same(five[2].sends, {{6, 2000}}));
  // 9 members: the ring. 20,000 bytes in pieces of 2,223 (the last 2,216).
  // Member 0 (the root) first passes its own piece to 1 and takes piece 8 from 8.
  const Rounds ring = rounds::bcast(9, 0, 0, 20000);
  const size_t scattered = rounds::bcast_scatter(9, 0, 0, 20000).size();
  REQUIRE(ring.size() == scattered + 8);
  CHECK(same(ring[scattered].sends, {{1, 2223}}));
  CHECK(same(ring[scattered].recvs, {{8, 2216}}));
  // Below 12,288 bytes or 8 members: the binomial tree, the whole buffer.
  CHECK(same(rounds::bcast(8, 0, 0, 12287)[0].sends, {{4, 12287}}));
  CHECK(same(rounds::bcast(7, 0, 0, 100000)[0].sends, {{4, 100000}}));
}

TEST_CASE("collective rounds: after a scattered broadcast's scatter, every member receives all it lacks") {
  for (int n = 8; n <= 17; ++n)
    for (std::uint64_t bytes : {std::uint64_t{12288}, std::uint64_t{100003}, std::uint64_t{600000}})
      for (int root : {0, n / 2, n - 1})
        for (int me = 0; me < n; ++me) {
          const Rounds all = rounds::bcast(n, me, root, bytes);
          const size_t scattered = rounds::bcast_scatter(n, me, root, bytes).size();
          std::uint64_t gathered = 0;
          for (size_t k = scattered; k < all.size(); ++k)
            for (const Message& m : all[k].recvs) gathered += m.bytes;
          const int vr = (me - root + n) % n;
          CHECK(gathered == bytes - rounds::bcast_pieces(n, bytes, vr, 1));
        }
}

TEST_CASE("collective rounds: reduce-scatter halves on a power of two, pairwise otherwise; scan") {
  // Member 1 of 4, blocks of 10, 20, 30, 40: it keeps [0, 2), sends the
  // other half (70) to 3, then keeps [1, 2) and sends block 0 to 0.
  const std::vector<std::uint64_t> blocks{10, 20, 30, 40};
  const Rounds halving = rounds::reduce_scatter(4, 1, blocks);
  REQUIRE(halving.size() == 2);
  CHECK(same(halving[0].sends, {{3, 70}}));
  CHECK(same(halving[0].recvs, {{3, 30}}));
  CHECK(same(halving[1].sends, {{0, 10}}));
  CHECK(same(halving[1].recvs, {{0, 20}}));
  // Not a power of two: 0 folds its whole vector (60) into 1, which halves
  // with 2 (30 each way: blocks 0-1 against block 2) and returns block 0.
  const std::vector<std::uint64_t> three{10, 20, 30};
  const Rounds even = rounds::reduce_scatter(3, 0, three), odd = rounds::reduce_scatter(3, 1, three);
  REQUIRE(even.size() == 2);
  CHECK(same(even[0].sends, {{1, 60}}));
  CHECK(same(even[1].recvs, {{1, 10}}));
  REQUIRE(odd.size() == 3);
  CHECK(same(odd[0].recvs, {{0, 60}}));
  CHECK(same(odd[1].sends, {{2, 30}}));
  CHECK(same(odd[1].recvs, {{2, 30}}));
  CHECK(same(odd[2].sends, {{0, 10}}));
  // 512 KiB in all: the pairwise exchange, member 1 sends block 1 + i to 1 + i.
  const std::vector<std::uint64_t> large(4, 131072);
  const Rounds pairwise = rounds::reduce_scatter(4, 1, large);
  REQUIRE(pairwise.size() == 3);
  CHECK(same(pairwise[0].sends, {{2, 131072}}));
  CHECK(same(pairwise[0].recvs, {{0, 131072}}));
  // Scan on 6: member 5 pairs with 4 (distance 1); 5 ^ 2 = 7 and 5 ^ 4 = 1: only 1.
  const Rounds scan = rounds::scan(6, 5, 8);
  REQUIRE(scan.size() == 2);
  CHECK(same(scan[0].sends, {{4, 8}}));
  CHECK(same(scan[1].sends, {{1, 8}}));
}

TEST_CASE("collective rounds: every send has its receive, on every size, member and root") {
  for (int n = 1; n <= 9; ++n) {
    std::vector<std::uint64_t> blocks(static_cast<size_t>(n)), to(static_cast<size_t>(n) * n);
    for (int i = 0; i < n; ++i) blocks[static_cast<size_t>(i)] = 8 * static_cast<std::uint64_t>(i + 1);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) to[static_cast<size_t>(a * n + b)] = static_cast<std::uint64_t>((a + 2 * b) % 3);
    auto row = [&](int a) {
      std::vector<std::uint64_t> r(static_cast<size_t>(n));
      for (int b = 0; b < n; ++b) r[static_cast<size_t>(b)] = to[static_cast<size_t>(a * n + b)];
      return r;
    };
    auto column = [&](int b) {
      std::vector<std::uint64_t> c(static_cast<size_t>(n));
      for (int a = 0; a < n; ++a) c[static_cast<size_t>(a)] = to[static_cast<size_t>(a * n + b)];
      return c;
    };
    check_pairs(n, [&](int me) { return rounds::barrier(n, me); });
    check_pairs(n, [&](int me) { return rounds::scan(n, me, 8); });
    for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{100}, std::uint64_t{2048}, std::uint64_t{100000}}) {
      check_pairs(n, [&](int me) { return rounds::allreduce(n, me, bytes); });
      check_pairs(n, [&](int me) { return rounds::alltoall(n, me, bytes); });
      check_pairs(n, [&](int me) { return rounds::allgather(n, me, bytes); });
    }
    for (int root = 0; root < n; ++root) {
      for (std::uint64_t bytes : {std::uint64_t{64}, std::uint64_t{20000}, std::uint64_t{600000}})
        check_pairs(n, [&](int me) { return rounds::bcast(n, me, root, bytes); });
      check_pairs(n, [&](int me) { return rounds::reduce(n, me, root, 64); });
      check_pairs(n, [&](int me) { return rounds::gather(n, me, root, 64); });
      check_pairs(n, [&](int me) { return rounds::scatter(n, me, root, 64); });
      check_pairs(n, [&](int me) { return rounds::gatherv(n, me, root, blocks); });
      check_pairs(n, [&](int me) { return rounds::scatterv(n, me, root, blocks); });
    }
    check_pairs(n, [&](int me) { return rounds::alltoallv(n, me, row(me), column(me)); });
    check_pairs(n, [&](int me) { return rounds::allgatherv(n, me, blocks); });
    check_pairs(n, [&](int me) { return rounds::allgatherv(n, me, std::vector<std::uint64_t>(static_cast<size_t>(n), 100000)); });
    check_pairs(n, [&](int me) { return rounds::reduce_scatter(n, me, blocks); });
    check_pairs(n, [&](int me) { return rounds::reduce_scatter(n, me, std::vector<std::uint64_t>(static_cast<size_t>(n), 200000)); });
    // The equal-block form is the same algorithm (halving below 512 KiB in all, pairwise above).
    for (std::uint64_t block : {std::uint64_t{8}, std::uint64_t{200000}})
      for (int me = 0; me < n; ++me) {
        CHECK(same_rounds(rounds::reduce_scatter_block(n, me, block),
                          rounds::reduce_scatter(n, me, std::vector<std::uint64_t>(static_cast<size_t>(n), block))));
      }
  }
}

TEST_CASE("collective rounds: the volumes MPICH moves") {
  // Binomial gather: the root receives every other block once; a broadcast
  // sends n - 1 messages in all; the ring allgatherv passes n - 1 blocks.
  for (int n = 2; n <= 9; ++n) {
    std::uint64_t gathered = 0, bcast_messages = 0;
    for (const Round& r : rounds::gather(n, 0, 0, 10))
      for (const Message& m : r.recvs) gathered += m.bytes;
    for (int me = 0; me < n; ++me)
      for (const Round& r : rounds::bcast(n, me, 0, 1)) bcast_messages += r.sends.size();
    CHECK(gathered == 10 * static_cast<std::uint64_t>(n - 1));
    CHECK(bcast_messages == static_cast<std::uint64_t>(n - 1));
  }
}
