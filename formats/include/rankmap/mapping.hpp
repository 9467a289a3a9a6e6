// A placement of MPI ranks on torus nodes and cores ("rankmap-mapping 1",
// documented in docs/formats.md), written by the mapper and read by
// rankfile-gen and the evaluator.
#pragma once

#include <string>
#include <vector>

#include "rankmap/machine.hpp"
#include "rankmap/result.hpp"

namespace rankmap {

struct Placement {
  int node;  // torus node index
  int core;  // hwloc logical index of the core inside the node
  bool operator==(const Placement& o) const { return node == o.node && core == o.core; }
};

struct Mapping {
  Machine machine;
  std::vector<Placement> placement;  // indexed by rank
  // What made it, e.g. "rankmap preset=default seed=1" (the optional
  // `algorithm` record; empty when absent). The first word names the
  // algorithm: reports label their columns with it.
  std::string algorithm;

  int ranks() const { return static_cast<int>(placement.size()); }
  // Nodes and cores exist; no two ranks share a core.
  Status check() const;
};

Result<Mapping> parse_mapping(const std::string& text, const std::string& filename);
Result<Mapping> read_mapping(const std::string& path);
std::string format_mapping(const Mapping& mapping);
Status write_mapping(const std::string& path, const Mapping& mapping);

}  // namespace rankmap
