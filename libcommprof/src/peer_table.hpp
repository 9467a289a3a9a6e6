// Per-thread traffic counters keyed by world rank. Open addressing with
// linear probing: memory grows with the number of partners a thread actually
// talks to (at most 2x that many slots plus 16), never with the job size, so a
// rank of a 100k-rank nearest-neighbour code keeps a few hundred bytes.
// Not thread-safe by design: each thread owns one table; finalize merges them.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace commprof {

struct PeerCount {
  int peer;
  std::uint64_t messages;
  std::uint64_t bytes;
};

class PeerTable {
 public:
  PeerTable() : slots_(new Slot[kInitialCapacity]), mask_(kInitialCapacity - 1) {}

  // The hot path: one multiply, usually one probe, two adds. Only the first
  // message to a new partner (and table growth) leaves it.
  void add(int peer, std::uint64_t messages, std::uint64_t bytes) {
    for (std::uint32_t i = slot_of(peer);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.peer == peer) {
        s.messages += messages;
        s.bytes += bytes;
        return;
      }
      if (s.peer == kEmpty) {
        insert_new(i, peer, messages, bytes);
        return;
      }
    }
  }

  std::size_t size() const { return used_; }
  std::size_t capacity() const { return mask_ + 1; }
  std::size_t memory_bytes() const { return capacity() * sizeof(Slot); }

  // Every partner with its totals, in no particular order.
  std::vector<PeerCount> entries() const {
    std::vector<PeerCount> out;
    out.reserve(used_);
    for (std::uint32_t i = 0; i <= mask_; ++i)
      if (slots_[i].peer != kEmpty) out.push_back({slots_[i].peer, slots_[i].messages, slots_[i].bytes});
    return out;
  }

 private:
  static constexpr int kEmpty = -1;  // world ranks are never negative
  static constexpr std::uint32_t kInitialCapacity = 16;
  struct Slot {
    int peer = kEmpty;
    std::uint64_t messages = 0;
    std::uint64_t bytes = 0;
  };

  std::uint32_t slot_of(int peer) const {
    // Fibonacci hashing spreads the consecutive ranks of halo patterns.
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(static_cast<std::uint32_t>(peer)) *
                                       0x9E3779B97F4A7C15ull) >> 32) & mask_;
  }

  // Cold: first message to a partner. Grows at load factor 1/2 so probes stay short.
  __attribute__((noinline)) void insert_new(std::uint32_t slot, int peer, std::uint64_t messages,
                                            std::uint64_t bytes) {
    if (2 * (used_ + 1) > capacity()) {
      grow();
      add(peer, messages, bytes);
      return;
    }
    slots_[slot] = Slot{peer, messages, bytes};
    ++used_;
  }

  void grow() {
    const std::uint32_t old_capacity = mask_ + 1;
    std::unique_ptr<Slot[]> old = std::move(slots_);
    slots_.reset(new Slot[2 * old_capacity]);
    mask_ = 2 * old_capacity - 1;
    for (std::uint32_t i = 0; i < old_capacity; ++i) {
      if (old[i].peer == kEmpty) continue;
      std::uint32_t j = slot_of(old[i].peer);
      while (slots_[j].peer != kEmpty) j = (j + 1) & mask_;
      slots_[j] = old[i];
    }
  }

  std::unique_ptr<Slot[]> slots_;
  std::uint32_t mask_;
  std::size_t used_ = 0;
};

}  // namespace commprof
