// The documented limits on what rankmap reads (docs/formats.md, "Limits").
// They keep a hostile or broken file from costing memory or time out of
// proportion to what it holds: every reader checks them and reports a
// file:line error (exit status 2) instead of allocating or looping.
#pragma once

#include <cstdint>

namespace rankmap::limits {

// Any input read whole (profile, mapping, machine file, hosts file).
constexpr std::uint64_t kMaxInputFileBytes = std::uint64_t{1} << 32;  // 4 GiB
// Ranks of a profile or a mapping. Beyond today's largest MPI jobs (~8M).
constexpr int kMaxRanks = 1 << 24;  // 16,777,216
// Message and byte counts of one record: the largest integers a double holds
// exactly, since the mapper and the evaluator compute in doubles.
constexpr std::uint64_t kMaxTrafficCount = std::uint64_t{1} << 53;
// Torus nodes in all, and hence the size of any one dimension.
constexpr int kMaxNodes = 1 << 20;  // 1,048,576
// Parallel links between two neighbours.
constexpr int kMaxLinks = 64;
// Processing units (hardware threads) of one node, and children of one object
// in a node description: hwloc's synthetic loader is superlinear in both
// (core:8192 takes 11 s, core:16384 over 2 minutes; the limits take < 0.5 s).
constexpr int kMaxNodePus = 4096;
constexpr int kMaxNodeArity = 1024;
// Nodes between which a SimGrid platform lists every route (nodes^2 routes:
// 512 nodes make 85 MB, 2,048 about 1.4 GB).
constexpr int kMaxPlatformRouteNodes = 2048;
// An hwloc XML file of one node.
constexpr std::uint64_t kMaxNodeXmlBytes = std::uint64_t{64} << 20;  // 64 MiB

}  // namespace rankmap::limits
