// Unit tests of the SimGrid export: no SimGrid needed. The routes are read
// back from the generated XML text and walked link by link, so a wrong id, a
// wrong direction or a reordered hop fails.
#include <catch2/catch.hpp>

#include <map>
#include <regex>
#include <sstream>

#include "rankmap/simgrid_platform.hpp"
#include "rankmap/smpi_run.hpp"

using namespace rankmap;
namespace sim = rankmap::simulation;

namespace {

Machine machine_of(const std::string& line) {
  auto m = parse_machine(line);
  REQUIRE(m.ok());
  return *m;
}

std::string xml_of(const Machine& m, const sim::PlatformOptions& opt = {}) {
  auto xml = sim::platform_xml(m, opt);
  REQUIRE(xml.ok());
  return *xml;
}

struct XmlLink {
  double bandwidth;
  double latency;
  std::string sharing;
};

std::map<std::string, XmlLink> links_of(const std::string& xml) {
  std::map<std::string, XmlLink> links;
  static const std::regex re(R"re(<link id="([^"]+)" bandwidth="([^"]+)Bps" latency="([^"]+)s" sharing_policy="([A-Z]+)"/>)re");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), re); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    links[m[1]] = XmlLink{std::stod(m[2]), std::stod(m[3]), m[4]};
  }
  return links;
}

// (src host, dst host) -> list of (link id, direction or "")
using RouteTable = std::map<std::pair<std::string, std::string>, std::vector<std::pair<std::string, std::string>>>;

RouteTable routes_of(const std::string& xml) {
  RouteTable table;
  static const std::regex route_re(R"re(<route src="([^"]+)" dst="([^"]+)"[^>]*>(.*?)</route>)re");
  static const std::regex ctn_re(R"re(<link_ctn id="([^"]+)"(?: direction="(UP|DOWN)")?/>)re");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), route_re); it != std::sregex_iterator(); ++it) {
    const std::string body = (*it)[3];
    auto& route = table[{(*it)[1], (*it)[2]}];
    for (auto c = std::sregex_iterator(body.begin(), body.end(), ctn_re); c != std::sregex_iterator(); ++c)
      route.emplace_back((*c)[1], (*c)[2]);
  }
  return table;
}

// Walks one generated route and checks it hop by hop against Torus::route.
void check_route(const Torus& torus, const Machine& m, const std::map<std::string, XmlLink>& links, int a, int b,
                 const std::vector<std::pair<std::string, std::string>>& route) {
  INFO("route " << a << " -> " << b);
  if (a == b) {
    REQUIRE(route.size() == 1);
    CHECK(route[0].first == sim::loopback_link_id(a));
    return;
  }
  const std::vector<Hop> hops = torus.route(a, b);
  REQUIRE(route.size() == hops.size() + 2);
  CHECK(route.front() == std::make_pair(sim::nic_link_id(a), std::string()));
  CHECK(route.back() == std::make_pair(sim::nic_link_id(b), std::string()));
  int at = a;
  for (size_t i = 0; i < hops.size(); ++i) {
    const auto& [id, way] = route[i + 1];
    REQUIRE(links.count(id) == 1);
    // Decode "t<d>-<low>-<high>" and the direction into the traversed edge.
    int d = -1, low = -1, high = -1;
    REQUIRE(std::sscanf(id.c_str(), "t%d-%d-%d", &d, &low, &high) == 3);
    const int from = way == "UP" ? low : high;
    const int to = way == "UP" ? high : low;
    CHECK(from == at);
    CHECK(from == hops[i].from);
    CHECK(to == hops[i].to);
    CHECK(d == hops[i].dim);
    CHECK(links.at(id).bandwidth == Approx(torus.link_capacity(hops[i].link)).epsilon(1e-15));
    CHECK(links.at(id).latency == Approx(m.t_hop).epsilon(1e-15));
    at = to;
  }
  CHECK(at == b);
}

}  // namespace

TEST_CASE("platform: link counts honour links= and the size-2 rule") {
  // desmos: X is a 4-ring (4 pairs per ring, 8 rings), Y/Z/K are size-2 rings
  // with one neighbour pair each (16 pairs per dimension).
  SECTION("desmos, partial size-2 dimensions") {
    const Machine m = machine_of("desmos");
    const auto links = links_of(xml_of(m));
    int per_dim[4] = {0, 0, 0, 0}, nic = 0, lo = 0;
    for (const auto& [id, link] : links) {
      if (id.rfind("nic-", 0) == 0) {
        ++nic;
        CHECK(link.sharing == "FATPIPE");
        CHECK(link.latency == Approx(m.t_inj / 2));
      } else if (id.rfind("lo-", 0) == 0) {
        ++lo;
      } else {
        int d = -1, a = -1, b = -1;
        REQUIRE(std::sscanf(id.c_str(), "t%d-%d-%d", &d, &a, &b) == 3);
        ++per_dim[d];
        CHECK(link.sharing == "SPLITDUPLEX");
        CHECK(link.bandwidth == m.bw);
      }
    }
    CHECK(per_dim[0] == 32);
    CHECK(per_dim[1] == 16);
    CHECK(per_dim[2] == 16);
    CHECK(per_dim[3] == 16);
    CHECK(nic == 32);
    CHECK(lo == 32);
  }
  SECTION("full size-2 dimensions: same pairs, double capacity") {
    const Machine m = machine_of("desmos links=1x2x2x1");
    const auto links = links_of(xml_of(m));
    CHECK(links.at("t0-0-1").bandwidth == m.bw);
    CHECK(links.at("t1-0-4").bandwidth == 2 * m.bw);
    CHECK(links.at("t2-0-8").bandwidth == 2 * m.bw);
    CHECK(links.at("t3-0-16").bandwidth == m.bw);
    CHECK(links.size() == 80 + 64);
  }
  SECTION("chain and size-1 dimensions have no wrap links") {
    const Machine m = machine_of("torus=3x1x2 wrap=0x1x1 node=core:2");
    const auto links = links_of(xml_of(m));
    CHECK(links.count("t0-0-1") == 1);
    CHECK(links.count("t0-1-2") == 1);
    CHECK(links.count("t0-0-2") == 0);  // a chain does not close
    CHECK(links.count("t2-0-3") == 1);
    CHECK(links.size() == 4 + 3 + 6 + 6);  // X: 2 per chain x 2, Z: 3 pairs, 6 nic, 6 loopback
  }
}

TEST_CASE("platform: every route is Torus::route, link by link") {
  for (const char* line : {"desmos", "torus=4x3x2 wrap=1x0x1 links=2x1x2 node=core:2 t_inj=1us t_hop=50ns",
                           "torus=5x4 links=1x2 node=core:1"}) {
    INFO(line);
    const Machine m = machine_of(line);
    auto torus = m.torus();
    REQUIRE(torus.ok());
    const std::string xml = xml_of(m);
    const auto links = links_of(xml);
    const RouteTable routes = routes_of(xml);
    REQUIRE(routes.size() == static_cast<size_t>(torus->nodes()) * torus->nodes());
    for (int a = 0; a < torus->nodes(); ++a)
      for (int b = 0; b < torus->nodes(); ++b) check_route(*torus, m, links, a, b, routes.at({m.host_name(a), m.host_name(b)}));
  }
}

TEST_CASE("platform: host lines carry the node's cores, one host per package") {
  const std::string one = xml_of(machine_of("torus=2x2 node=package:1,core:6"));
  CHECK(one.find("<host id=\"node-3\" speed=\"1e+09f\" core=\"6\"/>") != std::string::npos);
  const std::string xml = xml_of(machine_of("torus=2x2 node=package:2,core:3"));
  CHECK(xml.find("<host id=\"node-3\" ") == std::string::npos);
  CHECK(xml.find("<host id=\"node-3-p0\" speed=\"1e+09f\" core=\"3\"/>") != std::string::npos);
  CHECK(xml.find("<host id=\"node-3-p1\" speed=\"1e+09f\" core=\"3\"/>") != std::string::npos);
  CHECK(xml.find("<zone id=\"torus\" routing=\"Full\">") != std::string::npos);
}

TEST_CASE("platform: routes restricted to the nodes a mapping uses") {
  Mapping mapping;
  mapping.machine = machine_of("desmos");
  mapping.placement = {{5, 0}, {0, 0}, {5, 1}, {31, 2}};
  REQUIRE(mapping.check().ok());
  CHECK(sim::used_nodes(mapping) == std::vector<int>{0, 5, 31});
  sim::PlatformOptions opt;
  opt.route_nodes = sim::used_nodes(mapping);
  const std::string xml = xml_of(mapping.machine, opt);
  const RouteTable routes = routes_of(xml);
  CHECK(routes.size() == 9);
  CHECK(routes.count({"node-31", "node-5"}) == 1);
  CHECK(routes.count({"node-1", "node-5"}) == 0);
  CHECK(links_of(xml).size() == 144);  // all links stay declared

  opt.route_nodes = {0, 32};
  auto bad = sim::platform_xml(mapping.machine, opt);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("route node 32 out of range 0..31") != std::string::npos);
}

TEST_CASE("platform: dual-socket nodes, package hosts joined by a socket link, sharing the node's NIC") {
  const Machine m = machine_of("torus=3 node=package:2,core:2 socket-lat=1us socket-bw=10GB/s shm-lat=200ns");
  const std::string xml = xml_of(m);
  const auto links = links_of(xml);
  // Per node: nic, lo and one socket link; 3 pairs along X.
  CHECK(links.size() == 3 * 3 + 3);
  REQUIRE(links.count("so-1-0-1") == 1);
  CHECK(links.at("so-1-0-1").bandwidth == 10e9);
  CHECK(links.at("so-1-0-1").latency == 1e-6);
  CHECK(links.at("so-1-0-1").sharing == "SPLITDUPLEX");
  CHECK(links.at("lo-1").bandwidth == 20e9);
  CHECK(links.at("lo-1").latency == 200e-9);
  const RouteTable routes = routes_of(xml);
  CHECK(routes.size() == 6 * 6);
  using Route = std::vector<std::pair<std::string, std::string>>;
  CHECK(routes.at({"node-1-p0", "node-1-p0"}) == Route{{"lo-1", ""}});
  CHECK(routes.at({"node-1-p1", "node-1-p1"}) == Route{{"lo-1", ""}});
  CHECK(routes.at({"node-1-p0", "node-1-p1"}) == Route{{"so-1-0-1", "UP"}});
  CHECK(routes.at({"node-1-p1", "node-1-p0"}) == Route{{"so-1-0-1", "DOWN"}});
  // Between nodes the route is the node's, from either package.
  const Route one_hop = {{"nic-0", ""}, {"t0-0-1", "UP"}, {"nic-1", ""}};
  for (const char* from : {"node-0-p0", "node-0-p1"})
    for (const char* to : {"node-1-p0", "node-1-p1"}) CHECK(routes.at({from, to}) == one_hop);
  CHECK(sim::intra_node_route(2, 1, 0) == std::vector<sim::LinkUse>{{"so-2-0-1", sim::LinkUse::Way::down}});
}

TEST_CASE("platform: the route limit counts package hosts") {
  auto bad = sim::platform_xml(machine_of("torus=32x33 node=package:2,core:2"));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message ==
        "platform: routes between 2112 package hosts of 1056 nodes (4460544 routes) are above the limit of 2048 hosts; route only the "
        "nodes a mapping uses (platform --routes-for, run --routes used)");
}

TEST_CASE("platform: a fat-tree of dual-socket nodes has package hosts too") {
  const std::string xml = xml_of(machine_of("fattree=2;4,4;1,2;1,2 node=package:2,core:2"));
  const auto routes = routes_of(xml);
  CHECK(routes.size() == 32 * 32);
  CHECK(routes.at({"node-5-p1", "node-5-p0"}) == std::vector<std::pair<std::string, std::string>>{{"so-5-0-1", "DOWN"}});
  CHECK(links_of(xml).count("so-15-0-1") == 1);
}

TEST_CASE("platform: mixed nodes, package hosts only on the nodes of several packages") {
  Mapping mapping;
  mapping.machine = machine_of("torus=2 node=package:2,core:2 nodes=1:core:4");
  mapping.placement = {{0, 3}, {1, 3}, {0, 1}};
  REQUIRE(mapping.check().ok());
  const std::string xml = xml_of(mapping.machine);
  CHECK(xml.find("<host id=\"node-0-p1\" speed=\"1e+09f\" core=\"2\"/>") != std::string::npos);
  CHECK(xml.find("<host id=\"node-1\" speed=\"1e+09f\" core=\"4\"/>") != std::string::npos);
  const auto links = links_of(xml);
  CHECK(links.count("so-0-0-1") == 1);
  CHECK(links.count("so-1-0-1") == 0);
  const RouteTable routes = routes_of(xml);
  CHECK(routes.size() == 3 * 3);
  CHECK(routes.at({"node-0-p1", "node-1"}) == std::vector<std::pair<std::string, std::string>>{{"nic-0", ""}, {"t0-0-1", "UP"}, {"nic-1", ""}});
  auto hosts = sim::hostfile(mapping);
  REQUIRE(hosts.ok());
  CHECK(*hosts == "node-0-p1\nnode-1\nnode-0-p0\n");
}

TEST_CASE("hostfile: a rank goes to its core's package host") {
  Mapping mapping;
  mapping.machine = machine_of("torus=2 node=package:2,core:3");
  mapping.placement = {{1, 5}, {0, 0}, {0, 3}, {1, 2}};
  REQUIRE(mapping.check().ok());
  auto hosts = sim::hostfile(mapping);
  REQUIRE(hosts.ok());
  CHECK(*hosts == "node-1-p1\nnode-0-p0\nnode-0-p1\nnode-1-p0\n");
}

TEST_CASE("hostfile: one host per rank, in rank order") {
  Mapping mapping;
  mapping.machine = machine_of("torus=4 node=core:2");
  mapping.placement = {{2, 0}, {0, 1}, {2, 1}, {3, 0}, {0, 0}};
  auto hosts = sim::hostfile(mapping);
  REQUIRE(hosts.ok());
  CHECK(*hosts == "node-2\nnode-0\nnode-2\nnode-3\nnode-0\n");
}

TEST_CASE("smpirun: command line and simulated time") {
  sim::RunRequest req;
  req.platform_path = "p.xml";
  req.hostfile_path = "h.txt";
  req.ranks = 12;
  req.command = {"./ring", "--iters", "5"};
  req.extra_flags = {"--cfg=smpi/host-speed:1Gf"};
  const auto argv = sim::smpirun_argv(req);
  REQUIRE(argv.size() == 1 + sim::default_smpirun_flags().size() + 1 + 6 + 3);
  CHECK(argv.front() == "smpirun");
  CHECK(std::find(argv.begin(), argv.end(), "--cfg=smpi/simulate-computation:no") != argv.end());
  const std::vector<std::string> tail(argv.end() - 10, argv.end());
  CHECK(tail == std::vector<std::string>{"--cfg=smpi/host-speed:1Gf", "-np", "12", "-platform", "p.xml", "-hostfile", "h.txt",
                                         "./ring", "--iters", "5"});

  CHECK(sim::parse_simulated_time("ring ok\n[0.000755] [smpi_utils/INFO] Simulated time: 0.00075471 seconds. \n") ==
        Approx(0.00075471));
  CHECK_FALSE(sim::parse_simulated_time("Simulated time: seconds").has_value());
  CHECK_FALSE(sim::parse_simulated_time("nothing here").has_value());
}

TEST_CASE("smpirun: a missing smpirun is an error value, not a crash") {
  sim::RunRequest req;
  req.smpirun = "/nonexistent/smpirun";
  req.ranks = 1;
  req.command = {"true"};
  auto r = sim::run_smpirun(req);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("cannot run '/nonexistent/smpirun'") != std::string::npos);
}

TEST_CASE("platform: other networks' routes are Network::route, one SHARED link per directed link") {
  for (const char* line : {"fattree=2;4,4;1,2;1,2;taper=2 node=core:2 t_inj=1us t_hop=50ns",
                           "dragonfly=3,2;2,1;3,1;2 node=core:2 t_inj=1us t_hop=50ns"}) {
    INFO(line);
    const Machine m = machine_of(line);
    auto net = m.network();
    REQUIRE(net.ok());
    const Network& n = **net;
    const std::string xml = xml_of(m);
    const auto links = links_of(xml);
    const RouteTable routes = routes_of(xml);
    REQUIRE(routes.size() == static_cast<size_t>(n.nodes()) * n.nodes());
    int declared = 0;
    for (const auto& [id, link] : links)
      if (id[0] == 'l' && id[1] != 'o') {
        ++declared;
        CHECK(link.sharing == "SHARED");
        CHECK(link.latency == Approx(m.t_hop).epsilon(1e-15));
      }
    CHECK(declared == n.link_count());
    for (int a = 0; a < n.nodes(); ++a)
      for (int b = 0; b < n.nodes(); ++b) {
        INFO("route " << a << " -> " << b);
        const auto& route = routes.at({m.host_name(a), m.host_name(b)});
        if (a == b) {
          CHECK(route == std::vector<std::pair<std::string, std::string>>{{sim::loopback_link_id(a), ""}});
          continue;
        }
        const std::vector<Hop> hops = n.route(a, b);
        REQUIRE(route.size() == hops.size() + 2);
        CHECK(route.front().first == sim::nic_link_id(a));
        CHECK(route.back().first == sim::nic_link_id(b));
        for (size_t i = 0; i < hops.size(); ++i) {
          CHECK(route[i + 1].first == sim::network_link_id(hops[i].link));
          CHECK(links.at(route[i + 1].first).bandwidth == Approx(n.link_capacity(hops[i].link)).epsilon(1e-15));
        }
      }
  }
}

TEST_CASE("platform: with t_inj = 0 another network's platform has no NIC links") {
  const std::string xml = xml_of(machine_of("fattree=2;4,4;1,2;1,2 t_inj=0ns"));
  CHECK(xml.find("nic-") == std::string::npos);
  const RouteTable routes = routes_of(xml);
  CHECK(routes.at({"node-0", "node-4"}).size() == 4);
}
