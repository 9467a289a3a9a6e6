// SimGrid (SMPI) export of a machine: a platform file whose hosts, links and
// routes are the torus of torus/, and the hostfile that places a mapping's
// ranks on it. The model is documented in docs/simulation.md.
//
// Model, in short:
//  - one host per torus node, named Machine::host_name(node), with core= the
//    node's core count;
//  - one SPLITDUPLEX link per neighbour pair and dimension: UP carries the
//    lower-numbered node's traffic towards the higher one, DOWN the reverse.
//    Its bandwidth is links[d] * bw per direction (the capacity of
//    Torus::link_capacity) and its latency t_hop. A size-2 ring has one such
//    link per pair (both directions of the routing use it), as torus/ says;
//  - one FATPIPE "nic" link per node with latency t_inj / 2, first and last
//    on every inter-node route, so the route latency is exactly
//    t_inj + hops * t_hop (LatencyModel). It carries latency only: its
//    bandwidth (twice the node's port capacity) never binds, so a single
//    message may use both physical links of a doubled pair, as the capacity
//    model of torus/ assumes;
//  - one FATPIPE loopback link per node for intra-node messages;
//  - routes listed explicitly (<zone routing="Full">) for every ordered pair of
//    nodes, in the order of Torus::route: the one routing implementation.
//
// Other networks (Network, e.g. a fat-tree): the same hosts, NIC and loopback
// links; one SHARED link "l<id>" per directed link of the network, with its
// capacity and latency t_hop (switches are not hosts: a route is just the
// links it crosses); routes in the order of Network::route. With t_inj = 0
// the NIC links are left out (docs/simulation.md says why).
#pragma once

#include <string>
#include <vector>

#include "rankmap/machine.hpp"
#include "rankmap/mapping.hpp"
#include "rankmap/result.hpp"

namespace rankmap::simulation {

struct PlatformOptions {
  double host_speed = 1e9;        // flop/s per core; irrelevant with smpi/simulate-computation:no
  double loopback_bw = 20e9;      // bytes/s of an intra-node message (shared-memory copy)
  double loopback_lat = 300e-9;   // seconds, intra-node message latency
  // Nodes between which routes are written; empty means all. Routes are
  // nodes^2, so for large machines restrict them to the nodes a mapping uses.
  std::vector<int> route_nodes;
};

// One element of a SimGrid route: a link id and the direction taken through
// it (SPLITDUPLEX links only; FATPIPE links have none).
struct LinkUse {
  std::string id;
  enum class Way { none, up, down } way = Way::none;
  bool operator==(const LinkUse& o) const { return id == o.id && way == o.way; }
};

// SimGrid link id of the connection between neighbours a and b along d
// (order of a and b irrelevant), and the way a -> b goes through it.
std::string torus_link_id(int a, int b, int d);
LinkUse torus_link_use(int from, int to, int d);
std::string nic_link_id(int node);
std::string loopback_link_id(int node);

// SimGrid link id of directed link `link` of a network other than a torus.
std::string network_link_id(int link);

// The SimGrid route from node a to node b: loopback when a == b, else
// nic(a), the hops of Network::route(a, b) in order, nic(b).
std::vector<LinkUse> platform_route(const Network& network, int a, int b);

// The whole platform file. Fails on options out of range or nodes out of
// range in route_nodes.
Result<std::string> platform_xml(const Machine& machine, const PlatformOptions& options = {});

// SMPI hostfile: line i is the host of rank i's node (smpirun places ranks in
// hostfile order; no "host:n" counts, which smpirun would unroll through a
// temporary file in the working directory).
std::string hostfile(const Mapping& mapping);

// Distinct nodes used by a mapping, ascending.
std::vector<int> used_nodes(const Mapping& mapping);

}  // namespace rankmap::simulation
