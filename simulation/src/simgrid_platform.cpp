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

void append_route(std::string& xml, const Machine& machine, int a, int b, const std::vector<LinkUse>& route) {
  xml += "  <route src=\"";
  xml += xml_escape(machine.host_name(a));
  xml += "\" dst=\"";
  xml += xml_escape(machine.host_name(b));
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

// The checks every platform makes of its options and machine, and the nodes
// to route between: options.route_nodes sorted and unique, or all `nodes`.
Result<std::vector<int>> checked_route_nodes(const Machine& machine, const PlatformOptions& options, int nodes) {
  if (!(options.host_speed > 0) || !(options.loopback_bw > 0) || !(options.loopback_lat >= 0))
    return make_error("platform: host speed and loopback bandwidth must be > 0, loopback latency >= 0");
  if (!(machine.bw > 0) || !(machine.t_inj >= 0) || !(machine.t_hop >= 0))
    return make_error("platform: machine bandwidth must be > 0 and latencies >= 0");
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
  auto kinds = machine.node_kinds();
  if (!kinds) return kinds.error();
  auto routed_nodes = checked_route_nodes(machine, options, torus->nodes());
  if (!routed_nodes) return routed_nodes.error();
  const std::vector<int>& route_nodes = *routed_nodes;

  std::string xml;
  xml.reserve(static_cast<size_t>(route_nodes.size() * route_nodes.size()) * 200 + 100000);
  xml += "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";
  xml += "<!-- Generated by rankmap-sim from: " + xml_escape(to_string(machine)) + "\n";
  xml += "     Routes follow rankmap's Torus::route (Angara direction order); see docs/simulation.md. -->\n";
  xml += "<platform version=\"4.1\">\n<zone id=\"torus\" routing=\"Full\">\n";
  for (int n = 0; n < torus->nodes(); ++n)
    xml += "  <host id=\"" + xml_escape(machine.host_name(n)) + "\" speed=\"" + num(options.host_speed) + "f\" core=\"" + std::to_string(kinds->cores(n)) + "\"/>\n";
  for (int n = 0; n < torus->nodes(); ++n) {
    xml += "  <link id=\"" + nic_link_id(n) + "\" bandwidth=\"" + num(nic_bandwidth(*torus, n)) + "Bps\" latency=\"" +
           num(machine.t_inj / 2) + "s\" sharing_policy=\"FATPIPE\"/>\n";
    xml += "  <link id=\"" + loopback_link_id(n) + "\" bandwidth=\"" + num(options.loopback_bw) + "Bps\" latency=\"" +
           num(options.loopback_lat) + "s\" sharing_policy=\"FATPIPE\"/>\n";
  }
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
    for (int b : route_nodes) append_route(xml, machine, a, b, platform_route(*torus, a, b));
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
  auto kinds = machine.node_kinds();
  if (!kinds) return kinds.error();
  auto routed_nodes = checked_route_nodes(machine, options, network.nodes());
  if (!routed_nodes) return routed_nodes.error();
  const std::vector<int>& route_nodes = *routed_nodes;
  std::vector<char> routed(static_cast<size_t>(network.nodes()), 0);
  for (int n : route_nodes) routed[n] = 1;

  std::string xml;
  xml.reserve(static_cast<size_t>(route_nodes.size() * route_nodes.size()) * 200 + 100000);
  xml += "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";
  xml += "<!-- Generated by rankmap-sim from: " + xml_escape(to_string(machine)) + "\n";
  xml += "     Routes follow rankmap's " + network.kind() + " routing; see docs/simulation.md. -->\n";
  xml += "<platform version=\"4.1\">\n<zone id=\"" + network.kind() + "\" routing=\"Full\">\n";
  for (int n = 0; n < network.nodes(); ++n)
    xml += "  <host id=\"" + xml_escape(machine.host_name(n)) + "\" speed=\"" + num(options.host_speed) + "f\" core=\"" + std::to_string(kinds->cores(n)) + "\"/>\n";
  const bool nics = machine.t_inj > 0;
  for (int n = 0; n < network.nodes(); ++n) {
    const double nic = routed[n] ? nic_bandwidth(network, n, route_nodes, machine.bw) : 2 * machine.bw;
    if (nics)
      xml += "  <link id=\"" + nic_link_id(n) + "\" bandwidth=\"" + num(nic) + "Bps\" latency=\"" + num(machine.t_inj / 2) +
             "s\" sharing_policy=\"FATPIPE\"/>\n";
    xml += "  <link id=\"" + loopback_link_id(n) + "\" bandwidth=\"" + num(options.loopback_bw) + "Bps\" latency=\"" +
           num(options.loopback_lat) + "s\" sharing_policy=\"FATPIPE\"/>\n";
  }
  for (int l = 0; l < network.link_slots(); ++l)
    if (network.link_exists(l))
      xml += "  <link id=\"" + network_link_id(l) + "\" bandwidth=\"" + num(network.link_capacity(l)) + "Bps\" latency=\"" +
             num(machine.t_hop) + "s\" sharing_policy=\"SHARED\"/>\n";
  for (int a : route_nodes)
    for (int b : route_nodes) {
      std::vector<LinkUse> route = platform_route(network, a, b);
      if (!nics && a != b) route = std::vector<LinkUse>(route.begin() + 1, route.end() - 1);
      append_route(xml, machine, a, b, route);
    }
  xml += "</zone>\n</platform>\n";
  return xml;
}

}  // namespace

std::string hostfile(const Mapping& mapping) {
  std::string out;
  for (const Placement& p : mapping.placement) {
    out += mapping.machine.host_name(p.node);
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
