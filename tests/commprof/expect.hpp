// Test-side bookkeeping for the libcommprof integration tests: each rank
// notes what it sends, computed from the test's own logic (never from the
// profiler), and rank 0 writes the whole expected profile for
// commprof_check to compare with what the profiler wrote. All MPI calls
// here use PMPI_* so the profiler does not see the test's own bookkeeping.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "mpi3_compat.hpp"
#include "rankmap/profile.hpp"

namespace commprof_test {

class Expected {
 public:
  Expected() {
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    PMPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  int rank() const { return rank_; }
  int size() const { return size_; }

  // This rank sends `bytes` to world rank `dst` in one message.
  void p2p(int dst, std::uint64_t bytes, std::uint64_t messages = 1) { add(kP2p, rank_, dst, messages, bytes); }
  // One-sided data moving src -> dst (either may be this rank).
  void osc(int src, int dst, std::uint64_t bytes) { add(kOsc, src, dst, 1, bytes); }

  // One rooted/reduction collective record of the communicator whose members
  // (world ranks, in communicator order) are given; note it on one member only.
  void coll(const std::vector<int>& members, const std::string& op, int root, std::uint64_t calls,
            std::uint64_t bytes) {
    colls_ += op + " " + std::to_string(root) + " " + std::to_string(calls) + " " + std::to_string(bytes);
    for (int m : members) colls_ += " " + std::to_string(m);
    colls_ += "\n";
  }

  // Collective over MPI_COMM_WORLD (PMPI): rank 0 writes the expected
  // profile. Call before MPI_Finalize.
  void write() const {
    std::vector<std::uint64_t> mine;
    for (const auto& kv : counts_) {
      mine.insert(mine.end(), {static_cast<std::uint64_t>(std::get<0>(kv.first)),
                               static_cast<std::uint64_t>(std::get<1>(kv.first)),
                               static_cast<std::uint64_t>(std::get<2>(kv.first)), kv.second.first, kv.second.second});
    }
    int n = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<size_t>(size_)), displs(static_cast<size_t>(size_));
    PMPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    for (int i = 0; i < size_; ++i) displs[i] = total, total += counts[i];
    std::vector<std::uint64_t> all(static_cast<size_t>(rank_ == 0 ? total : 0) + 1);
    PMPI_Gatherv(mine.data(), n, MPI_UINT64_T, all.data(), counts.data(), displs.data(), MPI_UINT64_T, 0,
                 MPI_COMM_WORLD);
    rankmap::Profile p;
    add_collectives(&p);
    if (rank_ != 0) return;
    std::map<std::tuple<int, int, int>, std::pair<std::uint64_t, std::uint64_t>> merged;
    for (int i = 0; i + 5 <= total; i += 5) {
      auto& m = merged[{static_cast<int>(all[i]), static_cast<int>(all[i + 1]), static_cast<int>(all[i + 2])}];
      m.first += all[i + 3];
      m.second += all[i + 4];
    }
    p.ranks = size_;
    p.rank_info.assign(static_cast<size_t>(size_), rankmap::RankInfo{"expected", -1, 0, 0});
    for (const auto& kv : merged) {
      const auto [kind, src, dst] = kv.first;
      rankmap::PairTraffic t{src, dst, kv.second.first, kv.second.second};
      (kind == kP2p ? p.p2p : p.one_sided).push_back(t);
    }
    // $COMMPROF_TEST_EXPECTED, else next to the profile.
    const char* out = std::getenv("COMMPROF_OUTPUT");
    const char* where = std::getenv("COMMPROF_TEST_EXPECTED");
    if (!out && !where) {
      std::fprintf(stderr, "test: COMMPROF_OUTPUT not set\n");
      PMPI_Abort(MPI_COMM_WORLD, 3);
    }
    const auto written = rankmap::write_profile(where ? std::string(where) : std::string(out) + ".expected", p);
    if (!written) {
      std::fprintf(stderr, "test: %s\n", written.error().message.c_str());
      PMPI_Abort(MPI_COMM_WORLD, 3);
    }
  }

 private:
  enum { kP2p = 0, kOsc = 1 };

  // Gathers the coll lines (collective over world) and, on rank 0, turns them
  // into communicator and collective records.
  void add_collectives(rankmap::Profile* p) const {
    int n = static_cast<int>(colls_.size());
    std::vector<int> counts(static_cast<size_t>(size_)), displs(static_cast<size_t>(size_));
    PMPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    int total = 0;
    for (int i = 0; i < size_; ++i) displs[i] = total, total += counts[i];
    std::string all(static_cast<size_t>(total) + 1, '\0');
    PMPI_Gatherv(colls_.data(), n, MPI_CHAR, all.data(), counts.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank_ != 0) return;
    std::map<std::vector<int>, int> ids;
    size_t at = 0;
    while (at < static_cast<size_t>(total)) {
      const size_t end = all.find('\n', at);
      std::istringstream line(all.substr(at, end - at));
      at = end + 1;
      rankmap::CollectiveRecord c{};
      line >> c.op >> c.root >> c.calls >> c.bytes;
      std::vector<int> members;
      for (int m; line >> m;) members.push_back(m);
      auto it = ids.find(members);
      if (it == ids.end()) {
        it = ids.emplace(members, static_cast<int>(ids.size())).first;
        p->communicators.push_back({it->second, members});
      }
      c.comm = it->second;
      p->collectives.push_back(c);
    }
  }
  std::string colls_;
  void add(int kind, int src, int dst, std::uint64_t messages, std::uint64_t bytes) {
    if (src == dst) return;  // the profile leaves out traffic to oneself
    auto& c = counts_[{kind, src, dst}];
    c.first += messages;
    c.second += bytes;
  }
  int rank_ = 0, size_ = 0;
  std::map<std::tuple<int, int, int>, std::pair<std::uint64_t, std::uint64_t>> counts_;
};

// World rank of every rank of `comm`, gathered by the test itself (not via
// group translation, which is what the profiler uses).
inline std::vector<int> world_ranks_by_gather(MPI_Comm comm) {
  int size = 0, world = 0;
  PMPI_Comm_size(comm, &size);
  PMPI_Comm_rank(MPI_COMM_WORLD, &world);
  std::vector<int> out(static_cast<size_t>(size));
  PMPI_Allgather(&world, 1, MPI_INT, out.data(), 1, MPI_INT, comm);
  return out;
}

}  // namespace commprof_test
