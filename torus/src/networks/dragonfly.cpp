// A dragonfly (Cray Cascade style, as SimGrid's DRAGONFLY cluster builds it),
// written with SimGrid's topo_parameters:
//
//   dragonfly=G,blue;C,black;B,green;N
//
// G groups of C chassis of B routers (blades), N hosts per router. Inside a
// chassis every router pair is joined by `green` cables; inside a group the
// routers of the same blade position in every chassis pair by `black`
// cables; every group pair by `blue` cables, attached as in SimGrid: group i
// reaches group j through router (chassis 0, blade j) of group i, so
// G <= B. Hosts are numbered host fastest, then blade, chassis, group.
//
// Routing (minimal for this wiring, SimGrid's order): inside a group, green
// to the destination's blade, then black to its chassis. To another group:
// green to blade (destination group), black to chassis 0, the blue link, then
// as inside the destination group. hops = 2 (host links) + up to 5.
// (SimGrid 3.32 takes the same links except inside a group when the source
// chassis is not 0, where its route continues from chassis 0: not copied.)
//
// Links: each direction of a host link, of a green, black or blue cable group
// is one directed link (parallel cables summed, as on the torus). Hop::dim is
// 0 host link, 1 green, 2 black, 3 blue; Hop::dir plus towards the higher
// vertex number.
//
// This file is the whole network: it registers through one line of
// networks/list.def (docs/network.md).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "rankmap/limits.hpp"
#include "rankmap/network.hpp"
#include "rankmap/text.hpp"

namespace rankmap {

namespace {

class Dragonfly final : public Network {
 public:
  static Result<std::shared_ptr<const Network>> create(const std::string& parameters, double link_bw);

  std::string kind() const override { return "dragonfly"; }
  int nodes() const override { return hosts_; }
  std::string node_label(int node) const override {
    const Router r = router_of(node);
    return "(" + std::to_string(r.group) + "," + std::to_string(r.chassis) + "," + std::to_string(r.blade) + "," +
           std::to_string(node % per_router_) + ")";
  }

  int hops(int a, int b) const override {
    if (a == b) return 0;
    Walk w{this, router_of(a), nullptr, 0};
    w.to_router(router_of(b));
    return 2 + w.hops;
  }

  void route(int a, int b, std::vector<Hop>& out) const override {
    out.clear();
    if (a == b) return;
    const Router from = router_of(a), to = router_of(b);
    out.push_back(Hop{a, vertex(from), 0, Direction::plus, 2 * a});
    Walk w{this, from, &out, 0};
    w.to_router(to);
    out.push_back(Hop{vertex(to), b, 0, Direction::minus, 2 * b + 1});
  }

  int link_slots() const override { return blue_base_ + groups_ * groups_; }
  bool link_exists(int link) const override {
    if (link < 0 || link >= link_slots()) return false;
    if (link < green_base_) return true;
    if (link < black_base_) return (link - green_base_) / blades_ % blades_ != (link - green_base_) % blades_;
    if (link < blue_base_) return (link - black_base_) / chassis_ % chassis_ != (link - black_base_) % chassis_;
    return (link - blue_base_) / groups_ != (link - blue_base_) % groups_;
  }
  double link_capacity(int link) const override {
    if (link < green_base_) return link_bw_;
    if (link < black_base_) return green_ * link_bw_;
    if (link < blue_base_) return black_ * link_bw_;
    return blue_ * link_bw_;
  }

  // The other hosts of the same chassis (one green hop at most apart), in order.
  void neighbors(int node, std::vector<int>& out) const override {
    out.clear();
    const int span = per_router_ * blades_;
    const int first = node / span * span;
    for (int b = first; b < first + span; ++b)
      if (b != node) out.push_back(b);
  }

  // Between whole groups, else chassis, else routers: as close to half the
  // hosts as those units allow.
  void split(std::vector<int>& nodes, size_t& half) const override {
    std::sort(nodes.begin(), nodes.end());
    const int units[] = {per_router_ * blades_ * chassis_, per_router_ * blades_, per_router_, 1};
    int group = 1;
    for (int u : units)
      if (nodes.front() / u != nodes.back() / u) {
        group = u;
        break;
      }
    half = cut_between_blocks(nodes, group);
  }

  int representative(const std::vector<int>& nodes) const override { return median_node(nodes); }

 protected:
  double weighted_distance_computed(int a, int b) const override {
    std::vector<Hop> path;
    route(a, b, path);
    double w = 0;
    for (const Hop& h : path) w += link_bw_ / link_capacity(h.link);
    return w;
  }

 private:
  struct Router {
    int group, chassis, blade;
    bool operator==(const Router& o) const { return group == o.group && chassis == o.chassis && blade == o.blade; }
  };

  // Router moves of the routing, recorded as hops when `out` is set, counted always.
  struct Walk {
    const Dragonfly* net;
    Router at;
    std::vector<Hop>* out;
    int hops;

    void step(Router next, int dim, int link) {
      if (out) {
        const int from = net->vertex(at), to = net->vertex(next);
        out->push_back(Hop{from, to, dim, to > from ? Direction::plus : Direction::minus, link});
      }
      at = next;
      ++hops;
    }
    void green_to(int blade) {
      if (at.blade != blade) step(Router{at.group, at.chassis, blade}, 1, net->green_link(at, blade));
    }
    void black_to(int chassis) {
      if (at.chassis != chassis) step(Router{at.group, chassis, at.blade}, 2, net->black_link(at, chassis));
    }
    void to_router(Router target) {
      if (at.group != target.group) {
        green_to(target.group);
        black_to(0);
        step(Router{target.group, 0, at.group}, 3, net->blue_base_ + at.group * net->groups_ + target.group);
      }
      green_to(target.blade);
      black_to(target.chassis);
    }
  };

  Dragonfly() = default;

  Router router_of(int node) const {
    int r = node / per_router_;
    const int blade = r % blades_;
    r /= blades_;
    return Router{r / chassis_, r % chassis_, blade};
  }
  int vertex(Router r) const { return hosts_ + (r.group * chassis_ + r.chassis) * blades_ + r.blade; }
  int green_link(Router from, int blade) const {
    return green_base_ + ((from.group * chassis_ + from.chassis) * blades_ + from.blade) * blades_ + blade;
  }
  int black_link(Router from, int chassis) const {
    return black_base_ + ((from.group * blades_ + from.blade) * chassis_ + from.chassis) * chassis_ + chassis;
  }

  int groups_ = 0, chassis_ = 0, blades_ = 0, per_router_ = 0;
  int blue_ = 0, black_ = 0, green_ = 0;
  int hosts_ = 0, green_base_ = 0, black_base_ = 0, blue_base_ = 0;
  double link_bw_ = 0;
};

Result<std::vector<int>> parse_pair(const std::string& field, size_t count, const char* what) {
  std::vector<int> out;
  for (const std::string& part : text::split(field, ',')) {
    auto v = text::parse_int(part);
    if (!v || *v < 1 || *v > limits::kMaxNodes) return make_error(std::string("dragonfly: bad ") + what + " '" + text::excerpt(part) + "'");
    out.push_back(static_cast<int>(*v));
  }
  if (out.size() != count) return make_error(std::string("dragonfly: ") + what + " needs " + std::to_string(count) + " numbers");
  return out;
}

Result<std::shared_ptr<const Network>> Dragonfly::create(const std::string& parameters, double link_bw) {
  const std::vector<std::string> fields = text::split(parameters, ';');
  if (fields.size() != 4)
    return make_error("dragonfly: " + std::to_string(fields.size()) +
                      " fields (expected G,blue;C,black;B,green;N, e.g. 3,4;4,3;5,1;2)");
  auto groups = parse_pair(fields[0], 2, "groups,blue");
  if (!groups) return groups.error();
  auto chassis = parse_pair(fields[1], 2, "chassis,black");
  if (!chassis) return chassis.error();
  auto blades = parse_pair(fields[2], 2, "routers,green");
  if (!blades) return blades.error();
  auto hosts = parse_pair(fields[3], 1, "hosts per router");
  if (!hosts) return hosts.error();
  if (!(link_bw > 0)) return make_error("link bandwidth must be positive");
  Dragonfly t;
  t.groups_ = (*groups)[0];
  t.blue_ = (*groups)[1];
  t.chassis_ = (*chassis)[0];
  t.black_ = (*chassis)[1];
  t.blades_ = (*blades)[0];
  t.green_ = (*blades)[1];
  t.per_router_ = (*hosts)[0];
  t.link_bw_ = link_bw;
  if (t.groups_ > t.blades_)
    return make_error("dragonfly: " + std::to_string(t.groups_) + " groups need as many routers per chassis (group j's "
                      "global link sits on router j of chassis 0), not " + std::to_string(t.blades_));
  const long long routers = static_cast<long long>(t.groups_) * t.chassis_ * t.blades_;
  const long long host_count = routers * t.per_router_;
  if (host_count > limits::kMaxNodes) return make_error("dragonfly has more than " + std::to_string(limits::kMaxNodes) + " hosts, the limit");
  const long long green = routers * t.blades_, black = routers * t.chassis_;
  if (2 * host_count + green + black + static_cast<long long>(t.groups_) * t.groups_ > 16LL * limits::kMaxNodes)
    return make_error("dragonfly: too many links");
  t.hosts_ = static_cast<int>(host_count);
  t.green_base_ = 2 * t.hosts_;
  t.black_base_ = t.green_base_ + static_cast<int>(green);
  t.blue_base_ = t.black_base_ + static_cast<int>(black);
  t.build_distance_table();
  return std::shared_ptr<const Network>(std::make_shared<Dragonfly>(std::move(t)));
}

}  // namespace

Result<std::shared_ptr<const Network>> create_dragonfly(const std::string& parameters, double link_bw) {
  return Dragonfly::create(parameters, link_bw);
}

}  // namespace rankmap
