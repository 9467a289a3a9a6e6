// The communication profile written by libcommprof and read by the mapper
// ("commprof 1", documented in docs/formats.md). Ranks are MPI_COMM_WORLD ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rankmap/result.hpp"

namespace rankmap {

struct RankInfo {
  std::string host;
  int core = -1;      // CPU the rank ran on at start, -1 unknown
  double wall = 0;    // seconds from init to finalize
  double mpi = 0;     // seconds inside MPI calls
  bool yield = false; // waits went through libcommprof-yield (written yield=1; absent means 0)
};

// Directed traffic between two world ranks.
struct PairTraffic {
  int src;
  int dst;
  std::uint64_t messages;
  std::uint64_t bytes;
  bool operator==(const PairTraffic& o) const {
    return src == o.src && dst == o.dst && messages == o.messages && bytes == o.bytes;
  }
};

// A communicator on which collectives were recorded: its members as world
// ranks, in communicator rank order.
struct CommunicatorRecord {
  int id;
  std::vector<int> world_ranks;
  bool operator==(const CommunicatorRecord& o) const { return id == o.id && world_ranks == o.world_ranks; }
};

// Calls of one rooted or reduction collective on one communicator with one root.
struct CollectiveRecord {
  int comm;               // CommunicatorRecord::id
  std::string op;         // "bcast", "allreduce", ... (docs/formats.md)
  int root;               // communicator rank of the root, -1 for rootless operations
  std::uint64_t calls;
  std::uint64_t bytes;    // payload bytes summed over calls (docs/formats.md)
  bool operator==(const CollectiveRecord& o) const {
    return comm == o.comm && op == o.op && root == o.root && calls == o.calls && bytes == o.bytes;
  }
};

struct Profile {
  int ranks = 0;
  std::vector<RankInfo> rank_info;            // one per rank
  std::vector<PairTraffic> p2p;               // point-to-point and expanded all-to-all/neighbourhood collectives
  std::vector<PairTraffic> one_sided;         // RMA data flow, src -> dst is the direction the data moves
  std::vector<CommunicatorRecord> communicators;
  std::vector<CollectiveRecord> collectives;

  // Ranks in range, no self or duplicate pairs, nonzero records, known communicators.
  Status check() const;
};

// Reads a profile; `filename` is used in error messages ("file:line: ...").
// Unknown record types are skipped with a warning appended to `warnings`.
Result<Profile> parse_profile(const std::string& text, const std::string& filename,
                              std::vector<std::string>* warnings = nullptr);
Result<Profile> read_profile(const std::string& path, std::vector<std::string>* warnings = nullptr);
// Canonical text: records sorted by (src, dst), communicators by id.
std::string format_profile(const Profile& profile);
Status write_profile(const std::string& path, const Profile& profile);

}  // namespace rankmap
