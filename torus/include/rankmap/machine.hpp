// The machine description: one line of key=value words (or a file of them, one
// per line, '#' comments) that names the torus, its cabling, the compute node
// and the latency model. parse_machine and to_string round-trip.
// The format is documented in docs/formats.md.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rankmap/node.hpp"
#include "rankmap/result.hpp"
#include "rankmap/torus.hpp"

namespace rankmap {

// What a message between two cores of one node costs. Inside a package it is
// a shared-memory copy, never slowed by other flows; between two packages it
// crosses the inter-socket link (QPI/UPI), one per ordered package pair,
// shared by the flows that cross it in that direction. The defaults of the
// shm values are those rankmap always used; the socket values are a Xeon
// E5-26xx dual-socket node's (docs/formats.md says where they come from).
struct IntraNodeCosts {
  double shm_lat = 300e-9;     // shm-lat=300ns: per message, same package
  double shm_bw = 20e9;        // shm-bw=20GB/s: per flow, same package
  double socket_lat = 500e-9;  // socket-lat=500ns: per message between packages
  double socket_bw = 14.4e9;   // socket-bw=14.4GB/s: per direction of a package pair

  bool operator==(const IntraNodeCosts& o) const {
    return shm_lat == o.shm_lat && shm_bw == o.shm_bw && socket_lat == o.socket_lat && socket_bw == o.socket_bw;
  }
  bool operator!=(const IntraNodeCosts& o) const { return !(*this == o); }
};

struct Machine {
  // Another network than the torus, as its machine word ("fattree=2;4,4;1,2;1,2");
  // empty for a torus. When set, sizes/wrap/links are empty.
  std::string network_word;
  int network_nodes = 0;       // its node count, filled by the parser (nodes() is called per mapping line)
  std::vector<int> sizes;      // torus=4x2x2x2
  std::vector<bool> wrap;      // wrap=1x1x1x1
  std::vector<int> links;      // links=1x1x1x1
  std::string node = "core:1"; // hwloc synthetic string, spaces written as commas
  std::string node_xml;        // node-xml=PATH; replaces node when set
  // Mixed machines: nodes of another kind than `node`, each kind with the
  // node indices it covers (nodes=0-23:package:2,core:6;24-35:core:8).
  // Canonical after parsing: members ascending, kinds ordered by their first
  // member, no kind equal to `node`, no node in two kinds. Empty: every node
  // is `node`.
  struct NodeGroup {
    std::string node;          // hwloc synthetic string, commas for spaces
    std::vector<int> members;  // node indices
    bool operator==(const NodeGroup& o) const { return node == o.node && members == o.members; }
  };
  std::vector<NodeGroup> node_groups;
  double bw = 75e9 / 8;        // bw=75Gbit/s: one physical link, one direction
  double t_inj = 850e-9;       // t_inj=850ns: injection + ejection
  double t_hop = 129e-9;       // t_hop=129ns
  IntraNodeCosts intra_node;   // shm-lat= shm-bw= socket-lat= socket-bw=
  std::string hosts_path;      // hosts=PATH
  std::vector<std::string> host_names;  // per node index; filled by the parser

  int nodes() const;
  // Fails when the machine is another network.
  Result<Torus> torus() const;
  // The machine's network, whichever it is, for code that works on any.
  Result<std::shared_ptr<const Network>> network() const;
  LatencyModel latency() const { return LatencyModel{t_inj, t_hop, bw}; }
  // Loads the topology of every kind of node (synthetic strings or XML file).
  Result<NodeKinds> node_kinds() const;
  const std::string& host_name(int node_index) const { return host_names[node_index]; }
  // Node index of a host name, or -1.
  int node_of_host(std::string_view name) const;
  // The files the description names (hosts=, node-xml=): inputs of every tool
  // that reads this machine, which it must never write over.
  std::vector<std::string> files() const;

  // The same network (shape, cabling, network word), whatever the nodes,
  // hosts and latencies: a mapping made for one fits the other's nodes.
  bool same_network(const Machine& o) const {
    return network_word == o.network_word && sizes == o.sizes && wrap == o.wrap && links == o.links;
  }
  bool operator==(const Machine& o) const;
  bool operator!=(const Machine& o) const { return !(*this == o); }
};

// Most kinds of node a machine may have (each is loaded by hwloc), and most
// node lists all its nodes= words may hold together.
inline constexpr int kMaxNodeKinds = 64;
inline constexpr size_t kMaxNodeGroupItems = 256;

// Names of the dimensions: X Y Z K D4 D5 D6 D7.
std::string dimension_name(int d);

// Parses a one-line description (or preset name, possibly followed by words
// that override it). `where` prefixes error messages ("file:line").
Result<Machine> parse_machine(std::string_view line, const std::string& where = "");
// Accepts a preset/one-line description or the path of a machine file.
Result<Machine> load_machine(const std::string& spec_or_path);
// Canonical one-line form; parse_machine(to_string(m)) == m.
std::string to_string(const Machine& m);

// Preset names and their expansions.
struct MachinePreset {
  const char* name;
  const char* line;
};
const std::vector<MachinePreset>& machine_presets();

}  // namespace rankmap
