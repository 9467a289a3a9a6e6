// A fat-tree (k-ary n-tree, or any extended generalised fat-tree) with
// up*/down* routing, written as SimGrid's FAT_TREE cluster writes it:
//
//   fattree=L;m1,...,mL;w1,...,wL;p1,...,pL[;taper=T]
//
// L switch levels; a level-l switch has m_l children; a level-(l-1) vertex
// (a host for l = 1) has w_l parents, joined to each by p_l parallel links.
// Hosts = m1 x ... x mL. `taper` (ours, not SimGrid's; default 1) divides the
// bandwidth of every link between two switch levels: an oversubscribed tree.
// fattree=2;4,4;1,2;1,2 is 16 hosts under 4 leaf switches, each leaf with
// two double links up to two spines.
//
// Labels (Ohring's XGFT): host (a1,...,aL), a1 fastest; a level-l switch
// (b1..bl; a_{l+1}..aL): which parent was taken at each level below, then
// the subtree it serves. Vertices are numbered hosts first, then switches
// level by level (Hop::from/to use these numbers).
//
// Routing: up to the lowest common level t of the two hosts, then down. At
// level l going up the route takes parent (dst / (w1 ... wl)) mod w_{l+1}
// (d-mod-k, as SimGrid's FatTreeZone and InfiniBand's ftree engine do):
// deterministic, and it spreads destinations over the spines. The way down
// from a switch is unique. hops = 2t.
//
// Links: one directed link per child-parent pair and direction, carrying the
// p parallel cables together (capacity p x bw, as a torus link's multiplicity;
// / taper between switch levels). Hop::dim is the level of the child end,
// Hop::dir plus going up, minus going down.
//
// This file is the whole network: it registers through one line of
// networks/list.def (docs/network.md).
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "rankmap/limits.hpp"
#include "rankmap/network.hpp"
#include "rankmap/text.hpp"

namespace rankmap {

namespace {

class FatTree final : public Network {
 public:
  static constexpr int kMaxLevels = 4;

  static Result<std::shared_ptr<const Network>> create(const std::string& parameters, double link_bw);

  std::string kind() const override { return "fattree"; }
  int nodes() const override { return hosts_; }
  std::string node_label(int node) const override {
    std::string s = "(";
    for (int l = 0; l < levels_; ++l) {
      s += (l ? "," : "") + std::to_string(node % down_[l]);
      node /= down_[l];
    }
    return s + ")";
  }

  int hops(int a, int b) const override { return 2 * top_level(a, b); }

  void route(int a, int b, std::vector<Hop>& out) const override {
    out.clear();
    const int t = top_level(a, b);
    // Up: vertex index within its level, and the parents taken (b digits).
    int at = a;
    for (int l = 0; l < t; ++l) {
      const int choice = (b / parents_below_[l]) % up_[l];
      const int parent = parent_of(l, at, choice);
      out.push_back(Hop{vertex(l, at), vertex(l + 1, parent), l, Direction::plus, 2 * edge(l, at, choice)});
      at = parent;
    }
    // Down: the child on b's side; the edge is the one the child reaches this switch by.
    for (int l = t - 1; l >= 0; --l) {
      const int choice = (at % parents_below_[l + 1]) / parents_below_[l];
      const int child = child_of(l, at, digit(b, l));
      out.push_back(Hop{vertex(l + 1, at), vertex(l, child), l, Direction::minus, 2 * edge(l, child, choice) + 1});
      at = child;
    }
  }

  int link_slots() const override { return 2 * edges_; }
  bool link_exists(int link) const override { return link >= 0 && link < link_slots(); }
  double link_capacity(int link) const override { return capacity_[edge_level(link / 2)]; }

  // The other hosts of the smallest subtree with more than one host.
  void neighbors(int node, std::vector<int>& out) const override {
    out.clear();
    long long span = 1;
    for (int l = 0; l < levels_ && span == 1; ++l) span *= down_[l];
    const int first = static_cast<int>(node / span * span);
    for (int b = first; b < first + span; ++b)
      if (b != node) out.push_back(b);
  }

  // Across the highest level that separates the set: whole subtrees go to
  // each side, the cut as close to half the hosts as subtrees allow.
  void split(std::vector<int>& nodes, size_t& half) const override {
    std::sort(nodes.begin(), nodes.end());
    int l = levels_ - 1;
    while (l > 0 && nodes.front() / hosts_under_[l] == nodes.back() / hosts_under_[l]) --l;
    const int group = hosts_under_[l];
    // Candidate cuts: where the subtree (of `group` hosts) changes.
    half = cut_between_blocks(nodes, group);
  }

  int representative(const std::vector<int>& nodes) const override { return median_node(nodes); }

  // Distance cuts: every subtree under a switch level below the top (a
  // single host at level 0) against the rest, at one hop and the weighted
  // price of one link between its level and the next. Two hosts whose
  // lowest common level is t lie in different subtrees at each level below
  // t, two cuts per level (one around each): 2t, their hops, and the
  // weighted distance exactly.
  int distance_cuts() const override { return cut_offset_.back(); }
  CutPrice distance_cut_price(int cut) const override {
    const int l = cut_level(cut);
    return {1.0, link_bw_ / capacity_[l]};
  }
  int distance_cut_side(int cut, int node) const override {
    const int l = cut_level(cut);
    return node / hosts_under_[l] == cut - cut_offset_[l] ? 1 : 0;
  }

  // Every host sees the same tree.
  bool vertex_transitive() const override { return true; }
  int diameter() const override { return hosts_ > 1 ? 2 * top_level(0, hosts_ - 1) : 0; }

 protected:
  double weighted_distance_computed(int a, int b) const override {
    double w = 0;
    for (int l = 0; l < top_level(a, b); ++l) w += 2 * link_bw_ / capacity_[l];
    return w;
  }

 private:
  FatTree() = default;

  int digit(int host, int l) const { return (host / hosts_under_[l]) % down_[l]; }
  // The lowest level whose subtree holds both hosts.
  int top_level(int a, int b) const {
    int t = 0;
    while (a != b) {
      a /= down_[t];
      b /= down_[t];
      ++t;
    }
    return t;
  }
  // Index of the parent (at level l+1) of the level-l vertex `index` through parent `choice`.
  int parent_of(int l, int index, int choice) const {
    const int taken = index % parents_below_[l];
    const int served = index / parents_below_[l];
    return taken + parents_below_[l] * choice + parents_below_[l + 1] * (served / down_[l]);
  }
  // Index of the child (at level l) of the level-(l+1) switch `index` towards digit a.
  int child_of(int l, int index, int a) const {
    const int taken = index % parents_below_[l];
    const int served = index / parents_below_[l + 1];
    return taken + parents_below_[l] * (a + down_[l] * served);
  }
  int vertex(int level, int index) const { return vertex_offset_[level] + index; }
  // The level whose block of ids (first ids in `offsets`, ascending) holds `id`.
  static int level_at(const std::vector<int>& offsets, int id) {
    return static_cast<int>(std::upper_bound(offsets.begin(), offsets.end(), id) - offsets.begin()) - 1;
  }
  int cut_level(int cut) const { return level_at(cut_offset_, cut); }
  int edge(int l, int child, int choice) const { return edge_offset_[l] + child * up_[l] + choice; }
  int edge_level(int e) const { return level_at(edge_offset_, e); }

  int levels_ = 0;
  std::vector<int> down_, up_, cables_;    // m, w, p per level (index l = level l+1 of the syntax)
  std::vector<int> hosts_under_;           // m1 ... ml: hosts under a level-l switch (hosts_under_[0] = 1)
  std::vector<int> parents_below_;         // w1 ... wl (parents_below_[0] = 1)
  std::vector<int> vertex_offset_, edge_offset_;
  std::vector<double> capacity_;           // per edge level
  std::vector<int> cut_offset_;            // first distance cut of each level (subtrees under it), then the total
  double link_bw_ = 0;
  int hosts_ = 0, edges_ = 0;
};

Result<std::vector<int>> parse_counts(const std::string& field, size_t levels, const char* what) {
  std::vector<int> out;
  for (const std::string& part : text::split(field, ',')) {
    auto v = text::parse_int(part);
    if (!v || *v < 1 || *v > limits::kMaxNodes) return make_error(std::string("fattree: bad ") + what + " '" + text::excerpt(part) + "'");
    out.push_back(static_cast<int>(*v));
  }
  if (out.size() != levels)
    return make_error(std::string("fattree: ") + what + " has " + std::to_string(out.size()) + " values for " +
                      std::to_string(levels) + " levels");
  return out;
}

Result<std::shared_ptr<const Network>> FatTree::create(const std::string& parameters, double link_bw) {
  const char* syntax = " (expected L;m1,..,mL;w1,..,wL;p1,..,pL[;taper=T], e.g. 2;4,4;1,2;1,2)";
  std::vector<std::string> fields = text::split(parameters, ';');
  double taper = 1;
  if (fields.size() == 5 && fields[4].rfind("taper=", 0) == 0) {
    const std::string value = fields[4].substr(6);
    char* end = nullptr;
    taper = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(taper >= 1) || taper > 1e6)
      return make_error("fattree: taper must be a number >= 1, not '" + text::excerpt(value) + "'");
    fields.pop_back();
  }
  if (fields.size() != 4) return make_error(std::string("fattree: ") + std::to_string(fields.size()) + " fields" + syntax);
  auto levels = text::parse_int(fields[0]);
  if (!levels || *levels < 1 || *levels > kMaxLevels)
    return make_error("fattree: 1 to " + std::to_string(kMaxLevels) + " levels, not '" + text::excerpt(fields[0]) + "'" + syntax);
  if (!(link_bw > 0)) return make_error("link bandwidth must be positive");
  const size_t n = static_cast<size_t>(*levels);
  auto down = parse_counts(fields[1], n, "children count");
  if (!down) return down.error();
  auto up = parse_counts(fields[2], n, "parent count");
  if (!up) return up.error();
  auto cables = parse_counts(fields[3], n, "parallel link count");
  if (!cables) return cables.error();

  FatTree t;
  t.levels_ = static_cast<int>(n);
  t.down_ = *down;
  t.up_ = *up;
  t.cables_ = *cables;
  t.link_bw_ = link_bw;
  // Vertices per level: prod_{i>l} m_i x prod_{i<=l} w_i; every count is
  // bounded so that ids stay ints (and the machine stays a sane size).
  long long hosts = 1;
  for (int m : t.down_) hosts *= m;
  if (hosts > limits::kMaxNodes) return make_error("fattree has more than " + std::to_string(limits::kMaxNodes) + " hosts, the limit");
  t.hosts_ = static_cast<int>(hosts);
  t.hosts_under_.assign(n + 1, 1);
  t.parents_below_.assign(n + 1, 1);
  for (size_t l = 0; l < n; ++l) {
    t.hosts_under_[l + 1] = t.hosts_under_[l] * t.down_[l];
    const long long w = static_cast<long long>(t.parents_below_[l]) * t.up_[l];
    if (w > limits::kMaxNodes) return make_error("fattree: too many top switches");
    t.parents_below_[l + 1] = static_cast<int>(w);
  }
  long long vertices = 0, edges = 0;
  for (size_t l = 0; l <= n; ++l) {
    const long long count = hosts / t.hosts_under_[l] * t.parents_below_[l];
    t.vertex_offset_.push_back(static_cast<int>(vertices));
    vertices += count;
    if (l < n) {
      t.edge_offset_.push_back(static_cast<int>(edges));
      edges += count * t.up_[l];
    }
    if (vertices > 16LL * limits::kMaxNodes || edges > 16LL * limits::kMaxNodes)
      return make_error("fattree: too many switches or links");
  }
  t.edges_ = static_cast<int>(edges);
  for (size_t l = 0; l < n; ++l) t.capacity_.push_back(t.cables_[l] * link_bw / (l > 0 ? taper : 1.0));
  t.cut_offset_.assign(1, 0);
  for (size_t l = 0; l < n; ++l) t.cut_offset_.push_back(t.cut_offset_.back() + t.hosts_ / t.hosts_under_[l]);
  t.build_distance_table();
  return std::shared_ptr<const Network>(std::make_shared<FatTree>(std::move(t)));
}

}  // namespace

Result<std::shared_ptr<const Network>> create_fattree(const std::string& parameters, double link_bw) {
  return FatTree::create(parameters, link_bw);
}

}  // namespace rankmap
