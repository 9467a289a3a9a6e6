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
//  - one FATPIPE loopback link per node for messages inside a package
//    (Machine::intra_node shm_bw, shm_lat);
//  - a node of several packages is one host per package, "<host>-p<k>",
//    with core= that package's cores; they share the node's NIC and
//    loopback, and each pair of them is joined by a SPLITDUPLEX inter-socket
//    link "so-<node>-<p>-<q>" (p < q; UP carries p -> q) of socket_bw per
//    direction and socket_lat, the only link of a cross-package route. The
//    time model shares it the same way (docs/mapper.md, "Time model").
//    One-package nodes are one host named Machine::host_name(node), as before;
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

// The intra-node bandwidths and latencies are the machine's (shm-bw=,
// shm-lat=, socket-bw=, socket-lat=), which the time model reads too.
struct PlatformOptions {
  double host_speed = 1e9;        // flop/s per core; irrelevant with smpi/simulate-computation:no
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
// The inter-socket link between packages p and q of a node (order irrelevant).
std::string socket_link_id(int node, int p, int q);

// The SimGrid host of package `package` of node `node`, a node of `packages`
// packages: the node's host name when it has one, else "<host>-p<package>".
std::string package_host_id(const Machine& machine, int node, int package, int packages);

// The SimGrid route between two packages of one node: the loopback inside a
// package, else the inter-socket link in the way from -> to.
std::vector<LinkUse> intra_node_route(int node, int from_package, int to_package);

// SimGrid link id of directed link `link` of a network other than a torus.
std::string network_link_id(int link);

// The SimGrid route from node a to node b: loopback when a == b, else
// nic(a), the hops of Network::route(a, b) in order, nic(b).
std::vector<LinkUse> platform_route(const Network& network, int a, int b);

// The whole platform file. Fails on options out of range or nodes out of
// range in route_nodes.
Result<std::string> platform_xml(const Machine& machine, const PlatformOptions& options = {});

// SMPI hostfile: line i is the host of rank i's core's package on its node
// (smpirun places ranks in hostfile order; no "host:n" counts, which smpirun
// would unroll through a temporary file in the working directory). Fails if
// a node topology cannot be loaded.
Result<std::string> hostfile(const Mapping& mapping);

// Distinct nodes used by a mapping, ascending.
std::vector<int> used_nodes(const Mapping& mapping);

}  // namespace rankmap::simulation
