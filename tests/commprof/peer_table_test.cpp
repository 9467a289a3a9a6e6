#include <catch2/catch.hpp>

#include <map>
#include <random>

#include "peer_table.hpp"

using commprof::PeerTable;

TEST_CASE("peer table sums per partner", "[commprof]") {
  PeerTable t;
  t.add(3, 1, 100);
  t.add(3, 1, 50);
  t.add(0, 2, 7);
  auto e = t.entries();
  std::map<int, std::pair<std::uint64_t, std::uint64_t>> m;
  for (const auto& c : e) m[c.peer] = {c.messages, c.bytes};
  REQUIRE(m.size() == 2);
  CHECK(m[3] == std::make_pair(std::uint64_t{2}, std::uint64_t{150}));
  CHECK(m[0] == std::make_pair(std::uint64_t{2}, std::uint64_t{7}));
}

TEST_CASE("peer table grows with partners, not with the rank space", "[commprof]") {
  PeerTable t;
  // Six partners spread over a 100k-rank job: the table stays at its initial size.
  for (int peer : {1, 99999, 50000, 317, 4242, 77777}) t.add(peer, 1, 8);
  CHECK(t.size() == 6);
  CHECK(t.capacity() == 16);

  // Many partners, random order, against a reference map.
  PeerTable big;
  std::map<int, std::uint64_t> reference;
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> peer(0, 1 << 20);
  for (int i = 0; i < 20000; ++i) {
    const int p = peer(rng) % 3000;
    big.add(p, 1, static_cast<std::uint64_t>(p) + 1);
    reference[p] += static_cast<std::uint64_t>(p) + 1;
  }
  CHECK(big.size() == reference.size());
  CHECK(big.capacity() <= 4 * reference.size() + 16);  // load factor kept between 1/4 and 1/2
  for (const auto& c : big.entries()) CHECK(reference.at(c.peer) == c.bytes);
}
