#include "rankmap/simgrid_platform.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <tuple>

#include "rankmap/limits.hpp"
#include "rankmap/text.hpp"

namespace rankmap::simulation {

namespace {

// Generated numbers must be exact: shortest decimal that round-trips.
std::string num(double v) { return text::format_double(v); }
using text::xml_escape;

void append_route(std::string& xml, const std::string& src_host, const std::string& dst_host, const std::vector<LinkUse>& route) {
  xml += "  <route src=\"";
  xml += xml_escape(src_host);
  xml += "\" dst=\"";
  xml += xml_escape(dst_host);
  xml += "\" symmetrical=\"NO\">";
  for (const LinkUse& use : route) {
    xml += "<link_ctn id=\"";
    xml += use.id;
    xml += use.way == LinkUse::Way::none ? "\"/>" : use.way == LinkUse::Way::up ? "\" direction=\"UP\"/>" : "\" direction=\"DOWN\"/>";
  }
  xml += "</route>\n";
}

// The NIC link carries t_inj and must never be the bottleneck: the torus
// links are. Twice the node's total port capacity, not the port capacity
// itself: in SimGrid 3.32 a FATPIPE link whose bandwidth equals that of a
// SHARED link on the same route slowed non-contending flows down (a ring over
// nodes 6, 7, 0 of desmos ran 1.77x slower than without the NIC links).
double nic_bandwidth(const Torus& torus, int node) {
  double ports = 0;
  for (int d = 0; d < torus.dims(); ++d)
    for (Direction dir : {Direction::plus, Direction::minus}) {
      const int link = torus.link_index(node, d, dir);
      if (torus.link_exists(link)) ports += torus.link_capacity(link);
    }
  return 2 * std::max(ports, torus.link_bw());
}

// The same for any network: the links a node's routes to the routed nodes
// leave it by (only routed nodes' NICs carry traffic).
double nic_bandwidth(const Network& network, int node, const std::vector<int>& route_nodes, double link_bw) {
  std::set<int> first_links;
  std::vector<Hop> path;
  for (int b : route_nodes) {
    network.route(node, b, path);
    if (!path.empty()) first_links.insert(path.front().link);
  }
  double ports = 0;
  for (int link : first_links) ports += network.link_capacity(link);
  return 2 * std::max(ports, link_bw);
}

}  // namespace

std::string torus_link_id(int a, int b, int d) {
  return "t" + std::to_string(d) + "-" + std::to_string(std::min(a, b)) + "-" + std::to_string(std::max(a, b));
}

LinkUse torus_link_use(int from, int to, int d) {
  return LinkUse{torus_link_id(from, to, d), from < to ? LinkUse::Way::up : LinkUse::Way::down};
}

std::string nic_link_id(int node) { return "nic-" + std::to_string(node); }
std::string loopback_link_id(int node) { return "lo-" + std::to_string(node); }

std::string network_link_id(int link) { return "l" + std::to_string(link); }

std::string socket_link_id(int node, int p, int q) {
  return "so-" + std::to_string(node) + "-" + std::to_string(std::min(p, q)) + "-" + std::to_string(std::max(p, q));
}

std::string package_host_id(const Machine& machine, int node, int package, int packages) {
  if (packages == 1) return machine.host_name(node);
  return machine.host_name(node) + "-p" + std::to_string(package);
}

std::vector<LinkUse> intra_node_route(int node, int from_package, int to_package) {
  if (from_package == to_package) return {LinkUse{loopback_link_id(node), LinkUse::Way::none}};
  return {LinkUse{socket_link_id(node, from_package, to_package), from_package < to_package ? LinkUse::Way::up : LinkUse::Way::down}};
}

std::vector<LinkUse> platform_route(const Network& network, int a, int b) {
  if (a == b) return {LinkUse{loopback_link_id(a), LinkUse::Way::none}};
  const Torus* torus = network.as_torus();
  std::vector<LinkUse> route;
  route.push_back(LinkUse{nic_link_id(a), LinkUse::Way::none});
  for (const Hop& hop : network.route(a, b))
    route.push_back(torus ? torus_link_use(hop.from, hop.to, hop.dim) : LinkUse{network_link_id(hop.link), LinkUse::Way::none});
  route.push_back(LinkUse{nic_link_id(b), LinkUse::Way::none});
  return route;
}

namespace {
Result<std::string> network_platform_xml(const Machine& machine, const Network& network, const PlatformOptions& options);

// Per node, the core count of each of its packages (nodes may differ: nodes=).
Result<std::vector<std::vector<int>>> package_cores(const Machine& machine, int nodes) {
  auto kinds = machine.node_kinds();
  if (!kinds) return kinds.error();
  std::vector<std::vector<int>> cores(static_cast<size_t>(nodes));
  for (int n = 0; n < nodes; ++n) {
    const NodeTopology& node = kinds->of(n);
    cores[n].assign(static_cast<size_t>(node.packages()), 0);
    for (int c = 0; c < node.cores(); ++c) ++cores[n][node.package_of_core(c)];
  }
  return cores;
}

// Nodes of several packages have a host per package, and every pair of hosts
// gets a route: the same limit as checked_route_nodes, on hosts.
Status check_route_hosts(const std::vector<std::vector<int>>& package_cores, const std::vector<int>& route_nodes) {
  size_t hosts = 0;
  for (int n : route_nodes) hosts += package_cores[n].size();
  if (hosts <= static_cast<size_t>(limits::kMaxPlatformRouteNodes)) return Ok{};
  return make_error("platform: routes between " + std::to_string(hosts) + " package hosts of " + std::to_string(route_nodes.size()) +
                    " nodes (" + std::to_string(hosts * hosts) + " routes) are above the limit of " +
                    std::to_string(limits::kMaxPlatformRouteNodes) +
                    " hosts; route only the nodes a mapping uses (platform --routes-for, run --routes used)");
}

// One host per package of every node (one per node for one-package nodes).
void append_hosts(std::string& xml, const Machine& machine, const std::vector<std::vector<int>>& package_cores,
                  const PlatformOptions& options) {
  for (size_t n = 0; n < package_cores.size(); ++n) {
    const int packages = static_cast<int>(package_cores[n].size());
    for (int p = 0; p < packages; ++p)
      xml += "  <host id=\"" + xml_escape(package_host_id(machine, static_cast<int>(n), p, packages)) + "\" speed=\"" +
             num(options.host_speed) + "f\" core=\"" + std::to_string(package_cores[n][p]) + "\"/>\n";
  }
}

// The inter-socket links of the nodes of several packages, one per package pair.
void append_socket_links(std::string& xml, const Machine& machine, const std::vector<std::vector<int>>& package_cores) {
  for (size_t n = 0; n < package_cores.size(); ++n)
    for (size_t p = 0; p < package_cores[n].size(); ++p)
      for (size_t q = p + 1; q < package_cores[n].size(); ++q)
        xml += "  <link id=\"" + socket_link_id(static_cast<int>(n), static_cast<int>(p), static_cast<int>(q)) + "\" bandwidth=\"" +
               num(machine.intra_node.socket_bw) + "Bps\" latency=\"" + num(machine.intra_node.socket_lat) +
               "s\" sharing_policy=\"SPLITDUPLEX\"/>\n";
}

// The routes between every package host of node a and every one of node b:
// `route` between nodes (the same from every package: they share the NIC),
// intra_node_route inside one.
void append_node_routes(std::string& xml, const Machine& machine, const std::vector<std::vector<int>>& package_cores, int a, int b,
                        const std::vector<LinkUse>& route) {
  const int packages_a = static_cast<int>(package_cores[a].size()), packages_b = static_cast<int>(package_cores[b].size());
  for (int p = 0; p < packages_a; ++p)
    for (int q = 0; q < packages_b; ++q)
      append_route(xml, package_host_id(machine, a, p, packages_a), package_host_id(machine, b, q, packages_b),
                   a == b ? intra_node_route(a, p, q) : route);
}

// The checks every platform makes of its options and machine, and the nodes
// to route between: options.route_nodes sorted and unique, or all `nodes`.
Result<std::vector<int>> checked_route_nodes(const Machine& machine, const PlatformOptions& options, int nodes) {
  if (!(options.host_speed > 0)) return make_error("platform: host speed must be > 0");
  const IntraNodeCosts& intra = machine.intra_node;
  if (!(machine.bw > 0) || !(machine.t_inj >= 0) || !(machine.t_hop >= 0) || !(intra.shm_bw > 0) || !(intra.socket_bw > 0) ||
      !(intra.shm_lat >= 0) || !(intra.socket_lat >= 0))
    return make_error("platform: machine bandwidths must be > 0 and latencies >= 0");
  std::vector<int> route_nodes = options.route_nodes;
  if (route_nodes.empty()) {
    route_nodes.resize(static_cast<size_t>(nodes));
    for (int n = 0; n < nodes; ++n) route_nodes[n] = n;
  }
  std::sort(route_nodes.begin(), route_nodes.end());
  route_nodes.erase(std::unique(route_nodes.begin(), route_nodes.end()), route_nodes.end());
  for (int n : route_nodes)
    if (n < 0 || n >= nodes)
      return make_error("platform: route node " + std::to_string(n) + " out of range 0.." + std::to_string(nodes - 1));
  // Full routing lists every ordered pair: the file grows as the square.
  if (route_nodes.size() > static_cast<size_t>(limits::kMaxPlatformRouteNodes))
    return make_error("platform: routes between " + std::to_string(route_nodes.size()) + " nodes (" +
                      std::to_string(route_nodes.size() * route_nodes.size()) + " routes) are above the limit of " +
                      std::to_string(limits::kMaxPlatformRouteNodes) +
                      " nodes; route only the nodes a mapping uses (platform --routes-for, run --routes used)");
  return route_nodes;
}
}  // namespace

Result<std::string> platform_xml(const Machine& machine, const PlatformOptions& options) {
  if (!machine.network_word.empty()) {
    auto network = machine.network();
    if (!network) return network.error();
    return network_platform_xml(machine, **network, options);
  }
  auto torus = machine.torus();
  if (!torus) return torus.error();
  auto routed_nodes = checked_route_nodes(machine, options, torus->nodes());
  if (!routed_nodes) return routed_nodes.error();
  auto packages = package_cores(machine, torus->nodes());
  if (!packages) return packages.error();
  Status hosts_fit = check_route_hosts(*packages, *routed_nodes);
  if (!hosts_fit) return hosts_fit.error();
  const std::vector<int>& route_nodes = *routed_nodes;

  std::string xml;
  xml.reserve(static_cast<size_t>(route_nodes.size() * route_nodes.size()) * 200 + 100000);
  xml += "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";
  xml += "<!-- Generated by rankmap-sim from: " + xml_escape(to_string(machine)) + "\n";
  xml += "     Routes follow rankmap's Torus::route (Angara direction order); see docs/simulation.md. -->\n";
  xml += "<platform version=\"4.1\">\n<zone id=\"torus\" routing=\"Full\">\n";
  append_hosts(xml, machine, *packages, options);
  for (int n = 0; n < torus->nodes(); ++n) {
    xml += "  <link id=\"" + nic_link_id(n) + "\" bandwidth=\"" + num(nic_bandwidth(*torus, n)) + "Bps\" latency=\"" +
           num(machine.t_inj / 2) + "s\" sharing_policy=\"FATPIPE\"/>\n";
    xml += "  <link id=\"" + loopback_link_id(n) + "\" bandwidth=\"" + num(machine.intra_node.shm_bw) + "Bps\" latency=\"" +
           num(machine.intra_node.shm_lat) + "s\" sharing_policy=\"FATPIPE\"/>\n";
  }
  append_socket_links(xml, machine, *packages);
  // Every existing directed connection of torus/ belongs to exactly one
  // neighbour pair; declare each pair's link once.
  std::set<std::tuple<int, int, int>> declared;
  for (int n = 0; n < torus->nodes(); ++n)
    for (int d = 0; d < torus->dims(); ++d)
      for (Direction dir : {Direction::plus, Direction::minus}) {
        if (!torus->link_exists(torus->link_index(n, d, dir))) continue;
        const int to = torus->neighbor(n, d, dir);
        if (to < 0 || to == n) continue;
        if (!declared.emplace(std::min(n, to), std::max(n, to), d).second) continue;
        xml += "  <link id=\"" + torus_link_id(n, to, d) + "\" bandwidth=\"" + num(torus->link_capacity(torus->link_index(n, d, dir))) +
               "Bps\" latency=\"" + num(machine.t_hop) + "s\" sharing_policy=\"SPLITDUPLEX\"/>\n";
      }
  for (int a : route_nodes)
    for (int b : route_nodes) append_node_routes(xml, machine, *packages, a, b, platform_route(*torus, a, b));
  xml += "</zone>\n</platform>\n";
  return xml;
}

namespace {

// Any network but the torus: one SHARED SimGrid link per directed link of the
// network (the capacity model of Network: flows crossing it share it), the
// same hosts, NIC and loopback links, and the routes of Network::route.
// With t_inj = 0 the NIC links carry nothing and are left out: SimGrid
// weighs a flow's share by a term per link on its route (network/weight-S),
// so a link of no latency still shifts how flows of different lengths share;
// without them the platform is link for link SimGrid's own cluster.
Result<std::string> network_platform_xml(const Machine& machine, const Network& network, const PlatformOptions& options) {
  auto routed_nodes = checked_route_nodes(machine, options, network.nodes());
  if (!routed_nodes) return routed_nodes.error();
  auto packages = package_cores(machine, network.nodes());
  if (!packages) return packages.error();
  Status hosts_fit = check_route_hosts(*packages, *routed_nodes);
  if (!hosts_fit) return hosts_fit.error();
  const std::vector<int>& route_nodes = *routed_nodes;
  std::vector<char> routed(static_cast<size_t>(network.nodes()), 0);
  for (int n : route_nodes) routed[n] = 1;

  std::string xml;
  xml.reserve(static_cast<size_t>(route_nodes.size() * route_nodes.size()) * 200 + 100000);
  xml += "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";
  xml += "<!-- Generated by rankmap-sim from: " + xml_escape(to_string(machine)) + "\n";
  xml += "     Routes follow rankmap's " + network.kind() + " routing; see docs/simulation.md. -->\n";
  xml += "<platform version=\"4.1\">\n<zone id=\"" + network.kind() + "\" routing=\"Full\">\n";
  append_hosts(xml, machine, *packages, options);
  const bool nics = machine.t_inj > 0;
  for (int n = 0; n < network.nodes(); ++n) {
    const double nic = routed[n] ? nic_bandwidth(network, n, route_nodes, machine.bw) : 2 * machine.bw;
    if (nics)
      xml += "  <link id=\"" + nic_link_id(n) + "\" bandwidth=\"" + num(nic) + "Bps\" latency=\"" + num(machine.t_inj / 2) +
             "s\" sharing_policy=\"FATPIPE\"/>\n";
    xml += "  <link id=\"" + loopback_link_id(n) + "\" bandwidth=\"" + num(machine.intra_node.shm_bw) + "Bps\" latency=\"" +
           num(machine.intra_node.shm_lat) + "s\" sharing_policy=\"FATPIPE\"/>\n";
  }
  append_socket_links(xml, machine, *packages);
  for (int l = 0; l < network.link_slots(); ++l)
    if (network.link_exists(l))
      xml += "  <link id=\"" + network_link_id(l) + "\" bandwidth=\"" + num(network.link_capacity(l)) + "Bps\" latency=\"" +
             num(machine.t_hop) + "s\" sharing_policy=\"SHARED\"/>\n";
  for (int a : route_nodes)
    for (int b : route_nodes) {
      std::vector<LinkUse> route = platform_route(network, a, b);
      if (!nics && a != b) route = std::vector<LinkUse>(route.begin() + 1, route.end() - 1);
      append_node_routes(xml, machine, *packages, a, b, route);
    }
  xml += "</zone>\n</platform>\n";
  return xml;
}

}  // namespace

Result<std::string> hostfile(const Mapping& mapping) {
  auto kinds = mapping.machine.node_kinds();
  if (!kinds) return kinds.error();
  std::string out;
  for (const Placement& p : mapping.placement) {
    const NodeTopology& node = kinds->of(p.node);
    if (p.core < 0 || p.core >= node.cores())
      return make_error("hostfile: core " + std::to_string(p.core) + " is not on node " + std::to_string(p.node));
    out += package_host_id(mapping.machine, p.node, node.package_of_core(p.core), node.packages());
    out += '\n';
  }
  return out;
}

std::vector<int> used_nodes(const Mapping& mapping) {
  std::vector<int> nodes;
  nodes.reserve(mapping.placement.size());
  for (const Placement& p : mapping.placement) nodes.push_back(p.node);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

}  // namespace rankmap::simulation
