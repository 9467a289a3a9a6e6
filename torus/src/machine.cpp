#include "rankmap/machine.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>

#include "rankmap/input_file.hpp"
#include "rankmap/limits.hpp"
#include "rankmap/text.hpp"

namespace rankmap {

const std::vector<MachinePreset>& machine_presets() {
  static const std::vector<MachinePreset> presets = {
      // The Desmos cluster: Angara 4D torus, one link along each size-2 dimension.
      {"desmos", "torus=4x2x2x2 links=1x1x1x1 node=package:1,core:6 t_inj=850ns t_hop=129ns"},
      // Angara-K1 (Agarkov et al. 2016): a 3D torus 3x3x4 of 36 nodes, 24 with
      // two 6-core Xeon E5-2630 and 12 with one 8-core Xeon E5-2660. Which
      // nodes have which is not published: here the first 24 in node order.
      // Latencies as Desmos (the same Angara router).
      {"angara-k1",
       "torus=3x3x4 node=package:2,core:6 nodes=24-35:package:1,core:8 t_inj=850ns t_hop=129ns"},
  };
  return presets;
}

std::string dimension_name(int d) {
  static const char* names[] = {"X", "Y", "Z", "K"};
  return d < 4 ? names[d] : "D" + std::to_string(d);
}

// The networks of networks/list.def, by machine word key.
#define RANKMAP_NETWORK(key) Result<std::shared_ptr<const Network>> create_##key(const std::string& parameters, double link_bw);
#include "networks/list.def"
#undef RANKMAP_NETWORK

namespace {

struct NetworkKind {
  const char* key;
  Result<std::shared_ptr<const Network>> (*create)(const std::string& parameters, double link_bw);
};

const std::vector<NetworkKind>& network_kinds() {
#define RANKMAP_NETWORK(key) {#key, &create_##key},
  static const std::vector<NetworkKind> kinds = {
#include "networks/list.def"
  };
#undef RANKMAP_NETWORK
  return kinds;
}

const NetworkKind* find_network_kind(std::string_view key) {
  for (const NetworkKind& k : network_kinds())
    if (key == k.key) return &k;
  return nullptr;
}

// Builds the network of a word "key=parameters" of a registered kind.
Result<std::shared_ptr<const Network>> create_network(const std::string& word, double link_bw) {
  const size_t eq = word.find('=');
  const NetworkKind* kind = eq == std::string::npos ? nullptr : find_network_kind(std::string_view(word).substr(0, eq));
  if (!kind) return make_error("unknown network '" + text::excerpt(word) + "'");
  return kind->create(word.substr(eq + 1), link_bw);
}

}  // namespace

int Machine::nodes() const {
  if (!network_word.empty()) return network_nodes;
  int n = 1;
  for (int s : sizes) n *= s;
  return n;
}

Result<Torus> Machine::torus() const {
  if (!network_word.empty())
    return make_error("the machine is not a torus (" + text::excerpt(network_word) + "); this needs a torus");
  return Torus::create(sizes, wrap, links, bw);
}

Result<std::shared_ptr<const Network>> Machine::network() const {
  if (!network_word.empty()) return create_network(network_word, bw);
  auto t = torus();
  if (!t) return t.error();
  return std::shared_ptr<const Network>(std::make_shared<Torus>(std::move(*t)));
}

Result<NodeKinds> Machine::node_kinds() const {
  std::vector<NodeTopology> kinds;
  auto base = node_xml.empty() ? NodeTopology::from_synthetic(node) : NodeTopology::from_xml(node_xml);
  if (!base) return base.error();
  kinds.push_back(std::move(*base));
  if (node_groups.empty()) return NodeKinds(std::move(kinds), {});
  std::vector<int> kind_of_node(static_cast<size_t>(nodes()), 0);
  for (const NodeGroup& g : node_groups) {
    auto kind = NodeTopology::from_synthetic(g.node);
    if (!kind) return kind.error();
    for (int n : g.members) kind_of_node[static_cast<size_t>(n)] = static_cast<int>(kinds.size());
    kinds.push_back(std::move(*kind));
  }
  return NodeKinds(std::move(kinds), std::move(kind_of_node));
}

int Machine::node_of_host(std::string_view name) const {
  for (size_t i = 0; i < host_names.size(); ++i)
    if (host_names[i] == name) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> Machine::files() const {
  std::vector<std::string> out;
  for (const std::string* path : {&hosts_path, &node_xml})
    if (!path->empty()) out.push_back(*path);
  return out;
}

bool Machine::operator==(const Machine& o) const {
  return network_word == o.network_word && sizes == o.sizes && wrap == o.wrap && links == o.links && node == o.node &&
         node_xml == o.node_xml && node_groups == o.node_groups &&
         bw == o.bw && t_inj == o.t_inj && t_hop == o.t_hop && intra_node == o.intra_node && hosts_path == o.hosts_path &&
         host_names == o.host_names;
}

namespace {

// Accumulates words; remembers which were given explicitly so that a preset's
// per-dimension words give way when the torus shape is overridden.
struct MachineBuilder {
  Machine m;
  bool have_torus = false;
  bool have_network = false;  // a word of networks/list.def
  bool torus_from_preset = false;
  bool wrap_explicit = false, links_explicit = false;
  bool wrap_set = false, links_set = false;
  std::string first_where;
  std::string node_where;  // where node= or node-xml= was given, for its errors
  // nodes= words in order (a later one wins for a node), resolved by
  // resolve_node_groups once the node count is known.
  struct PendingGroup {
    std::string members, node, where;
    bool from_preset;
  };
  std::vector<PendingGroup> pending_groups;

  Status apply(const std::string& word, const std::string& where, bool from_preset);
  Status apply_node_groups(const std::string& value, const std::string& where, bool from_preset);
  Status resolve_node_groups();
  Result<Machine> finish();
  Result<Machine> finish_network();
};

Result<std::vector<int>> parse_dims(const std::string& value, int min_value, int max_value) {
  std::vector<int> out;
  for (const std::string& part : text::split(value, 'x')) {
    auto v = text::parse_int(part);
    if (!v || *v < min_value || *v > max_value) return make_error("");
    out.push_back(static_cast<int>(*v));
  }
  if (out.empty() || out.size() > 8) return make_error("");
  return out;
}

Status MachineBuilder::apply(const std::string& word, const std::string& where, bool from_preset) {
  if (first_where.empty()) first_where = where;
  const size_t eq = word.find('=');
  if (eq == std::string::npos) {
    for (const MachinePreset& p : machine_presets()) {
      if (word == p.name) {
        for (const std::string& w : text::words(p.line)) {
          Status s = apply(w, where, true);
          if (!s) return s;
        }
        return Ok{};
      }
    }
    return located_error(where, "unknown machine word '" + text::excerpt(word) + "' (not key=value and not a preset)");
  }
  const std::string key = word.substr(0, eq);
  const std::string value = word.substr(eq + 1);
  auto bad = [&](const std::string& why) { return located_error(where, "bad machine word '" + text::excerpt(word) + "': " + why); };
  if (value.empty()) return bad("empty value");

  if (find_network_kind(key)) {
    m.network_word = word;
    have_network = true;
  } else if (key == "torus") {
    auto dims = parse_dims(value, 1, limits::kMaxNodes);
    if (!dims)
      return bad("expected sizes like 4x2x2x2 (1 to 8 dimensions, each 1 to " + std::to_string(limits::kMaxNodes) +
                 ", at most " + std::to_string(limits::kMaxNodes) + " nodes in all)");
    m.sizes = *dims;
    have_torus = true;
    torus_from_preset = from_preset;
  } else if (key == "wrap") {
    auto dims = parse_dims(value, 0, 1);
    if (!dims) return bad("expected 1 (ring) or 0 (chain) per dimension, like 1x1x0");
    m.wrap.assign(dims->begin(), dims->end());
    wrap_set = true;
    wrap_explicit = !from_preset;
  } else if (key == "links") {
    auto dims = parse_dims(value, 1, limits::kMaxLinks);
    if (!dims) return bad("expected link counts 1 to " + std::to_string(limits::kMaxLinks) + " per dimension, like 1x2x2");
    m.links = *dims;
    links_set = true;
    links_explicit = !from_preset;
  } else if (key == "node") {
    node_where = where;
    m.node = value;
    m.node_xml.clear();
  } else if (key == "node-xml") {
    node_where = where;
    m.node_xml = value;
  } else if (key == "nodes") {
    return apply_node_groups(value, where, from_preset);
  } else if (key == "bw") {
    auto v = text::parse_bandwidth(value);
    if (!v) return bad("expected a bandwidth like 12.5GB/s or 75Gbit/s");
    m.bw = *v;
  } else if (key == "t_inj" || key == "t_hop") {
    auto v = text::parse_duration(value);
    if (!v) return bad("expected a duration like 850ns or 1.2us");
    (key == "t_inj" ? m.t_inj : m.t_hop) = *v;
  } else if (key == "shm-lat" || key == "socket-lat") {
    auto v = text::parse_duration(value);
    if (!v) return bad("expected a duration like 300ns or 0.5us");
    (key == "shm-lat" ? m.intra_node.shm_lat : m.intra_node.socket_lat) = *v;
  } else if (key == "shm-bw" || key == "socket-bw") {
    auto v = text::parse_bandwidth(value);
    if (!v) return bad("expected a bandwidth like 20GB/s or 14.4GB/s");
    (key == "shm-bw" ? m.intra_node.shm_bw : m.intra_node.socket_bw) = *v;
  } else if (key == "hosts") {
    m.hosts_path = value;
  } else {
    return located_error(where, "unknown machine word '" + text::excerpt(word) + "'");
  }
  return Ok{};
}

// nodes=LIST:DESC;LIST:DESC: LIST of node indices and ranges ("0-3,8"), DESC
// a node= description. Checked here as far as it can be without the node count.
Status MachineBuilder::apply_node_groups(const std::string& value, const std::string& where, bool from_preset) {
  auto bad = [&](const std::string& why) { return located_error(where, "bad machine word 'nodes=" + text::excerpt(value) + "': " + why); };
  for (const std::string& item : text::split(value, ';')) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == item.size())
      return bad("expected node lists with their node kind, like nodes=0-23:package:2,core:6;24-35:core:8");
    // Each item's ranges are walked node by node once the node count is
    // known: a bounded number of them keeps a hostile file from asking for
    // billions of steps.
    if (pending_groups.size() >= kMaxNodeGroupItems)
      return bad("more than " + std::to_string(kMaxNodeGroupItems) + " node lists in nodes= words, the limit");
    PendingGroup g{item.substr(0, colon), item.substr(colon + 1), where, from_preset};
    if (g.members.find_first_not_of("0123456789-,") != std::string::npos)
      return bad("'" + text::excerpt(g.members) + "' is not a list of node indices and ranges like 0-3,8");
    if (auto kind = NodeTopology::from_synthetic(g.node); !kind) return located_error(where, kind.error().message);
    pending_groups.push_back(std::move(g));
  }
  return Ok{};
}

// Gives every node its kind and writes m.node_groups in canonical form. A
// preset's nodes= words give way when the torus shape is given explicitly.
Status MachineBuilder::resolve_node_groups() {
  m.node_groups.clear();
  if (pending_groups.empty()) return Ok{};
  const int n = m.nodes();
  std::vector<int> kind_of(static_cast<size_t>(n), -1);  // index into descriptions, -1: `node`
  std::vector<std::string> descriptions;
  for (const PendingGroup& g : pending_groups) {
    if (g.from_preset && (!torus_from_preset || have_network)) continue;
    // Commas and spaces are the same separator in a node description.
    std::string spaced = g.node, base = m.node;
    std::replace(spaced.begin(), spaced.end(), ' ', ',');
    std::replace(base.begin(), base.end(), ' ', ',');
    int kind = -1;
    if (!(m.node_xml.empty() && spaced == base)) {
      auto found = std::find(descriptions.begin(), descriptions.end(), spaced);
      kind = static_cast<int>(found - descriptions.begin());
      if (found == descriptions.end()) {
        if (static_cast<int>(descriptions.size()) + 1 >= kMaxNodeKinds)
          return located_error(g.where, "nodes=: more than " + std::to_string(kMaxNodeKinds) + " kinds of node, the limit");
        descriptions.push_back(spaced);
      }
    }
    for (const std::string& range : text::split(g.members, ',')) {
      const auto lo_hi = text::parse_range(range);
      if (!lo_hi || lo_hi->second < lo_hi->first)
        return located_error(g.where, "nodes=: '" + text::excerpt(range) + "' is not a node index or a range like 0-3");
      if (lo_hi->second >= n)
        return located_error(g.where, "nodes=: node " + text::excerpt(range) + " out of range 0.." + std::to_string(n - 1));
      for (long long a = lo_hi->first; a <= lo_hi->second; ++a) kind_of[static_cast<size_t>(a)] = kind;
    }
  }
  // Canonical: kinds ordered by their first member.
  std::vector<int> group_of_kind(descriptions.size(), -1);
  for (int a = 0; a < n; ++a) {
    const int k = kind_of[static_cast<size_t>(a)];
    if (k < 0) continue;
    if (group_of_kind[static_cast<size_t>(k)] < 0) {
      group_of_kind[static_cast<size_t>(k)] = static_cast<int>(m.node_groups.size());
      m.node_groups.push_back(Machine::NodeGroup{descriptions[static_cast<size_t>(k)], {}});
    }
    m.node_groups[static_cast<size_t>(group_of_kind[static_cast<size_t>(k)])].members.push_back(a);
  }
  return Ok{};
}

// Calls visit(line, "path:N") for every line of text, stopping at an error.
template <class Visit>
Status for_each_line(std::string_view text, const std::string& path, Visit visit) {
  size_t line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    Status s = visit(text.substr(pos, end - pos), path + ":" + std::to_string(++line_no));
    if (!s) return s;
    pos = end + 1;
  }
  return Ok{};
}

// Another network's hosts file: "hostname INDEX" per line, every node once.
Status load_network_hosts(Machine& m, const Network& network) {
  auto text = read_input_file(m.hosts_path);
  if (!text) return text.error();
  m.host_names.assign(static_cast<size_t>(network.nodes()), std::string());
  std::unordered_map<std::string, int> seen_names;
  Status read = for_each_line(*text, m.hosts_path, [&](std::string_view line, const std::string& where) -> Status {
    auto w = text::words(text::strip_comment(line));
    if (w.empty()) return Ok{};
    if (w.size() != 2) return located_error(where, "expected 'hostname' and a node index");
    auto v = text::parse_int(w[1]);
    if (!v || *v < 0 || *v >= network.nodes())
      return located_error(where, "node index '" + text::excerpt(w[1]) + "' out of range 0.." + std::to_string(network.nodes() - 1));
    const int node = static_cast<int>(*v);
    if (!m.host_names[node].empty()) return located_error(where, "node " + std::to_string(node) + " already given to host " + m.host_names[node]);
    if (seen_names.count(w[0])) return located_error(where, "host name " + text::excerpt(w[0]) + " listed twice");
    seen_names[w[0]] = node;
    m.host_names[node] = w[0];
    return Ok{};
  });
  if (!read) return read;
  for (int n = 0; n < network.nodes(); ++n)
    if (m.host_names[n].empty()) return located_error(m.hosts_path, "no host for node " + std::to_string(n) + " (every node needs a line)");
  return Ok{};
}

Status load_hosts(Machine& m, const Torus& torus) {
  auto text = read_input_file(m.hosts_path);
  if (!text) return text.error();
  m.host_names.assign(static_cast<size_t>(torus.nodes()), std::string());
  std::unordered_map<std::string, int> seen_names;
  Status read = for_each_line(*text, m.hosts_path, [&](std::string_view line, const std::string& where) -> Status {
    auto w = text::words(text::strip_comment(line));
    if (w.empty()) return Ok{};
    if (static_cast<int>(w.size()) != 1 + torus.dims())
      return located_error(where, "expected 'hostname' and " + std::to_string(torus.dims()) + " coordinates");
    std::vector<int> c;
    for (int d = 0; d < torus.dims(); ++d) {
      auto v = text::parse_int(w[1 + d]);
      if (!v || *v < 0 || *v >= torus.size(d))
        return located_error(where, "coordinate '" + text::excerpt(w[1 + d]) + "' out of range for dimension " + dimension_name(d));
      c.push_back(static_cast<int>(*v));
    }
    const int node = torus.node_at(c);
    if (!m.host_names[node].empty()) return located_error(where, "coordinates already given to host " + m.host_names[node]);
    if (seen_names.count(w[0])) return located_error(where, "host name " + text::excerpt(w[0]) + " listed twice");
    seen_names[w[0]] = node;
    m.host_names[node] = w[0];
    return Ok{};
  });
  if (!read) return read;
  for (int n = 0; n < torus.nodes(); ++n)
    if (m.host_names[n].empty())
      return located_error(m.hosts_path, "no host at coordinates of node " + std::to_string(n) + " (every torus node needs a line)");
  return Ok{};
}

std::string join_dims(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
  return s;
}

Result<Machine> MachineBuilder::finish() {
  if (have_network) return finish_network();
  if (!have_torus) return located_error(first_where, "machine description has no torus= word");
  const size_t dims = m.sizes.size();
  // Per-dimension words from a preset give way to a new shape; explicit ones must match.
  if (wrap_set && m.wrap.size() != dims) {
    if (wrap_explicit) return located_error(first_where, "wrap= has " + std::to_string(m.wrap.size()) + " dimensions, torus= has " + std::to_string(dims));
    wrap_set = false;
  }
  if (links_set && m.links.size() != dims) {
    if (links_explicit) return located_error(first_where, "links= has " + std::to_string(m.links.size()) + " dimensions, torus= has " + std::to_string(dims));
    links_set = false;
  }
  if (!wrap_set) m.wrap.assign(dims, true);
  if (!links_set) {
    // A fully cabled torus has two links between the members of a size-2 ring.
    m.links.resize(dims);
    for (size_t d = 0; d < dims; ++d) m.links[d] = (m.sizes[d] == 2 && m.wrap[d]) ? 2 : 1;
  }
  // The two nodes of a size-2 ring are joined by the ring's two cables, or by
  // one where a machine saves it (Desmos): links counts those cables. More
  // parallel cables between two nodes are a chain of 2 with links=N.
  for (size_t d = 0; d < dims; ++d)
    if (m.sizes[d] == 2 && m.wrap[d] && m.links[d] > 2)
      return located_error(first_where, "links=" + join_dims(m.links) + ": dimension " + dimension_name(static_cast<int>(d)) +
                                            " is a ring of 2 nodes, which has 1 or 2 links (2: both cables of the ring); "
                                            "for more parallel cables make it a chain, wrap=0 with links=N");
  auto torus = m.torus();
  if (!torus) return located_error(first_where, torus.error().message);
  if (Status s = resolve_node_groups(); !s) return s.error();
  auto node = m.node_kinds();
  if (!node) return located_error(node_where.empty() ? first_where : node_where, node.error().message);
  if (m.hosts_path.empty()) {
    m.host_names.resize(static_cast<size_t>(torus->nodes()));
    for (int n = 0; n < torus->nodes(); ++n) m.host_names[n] = "node-" + std::to_string(n);
  } else {
    Status s = load_hosts(m, *torus);
    if (!s) return s.error();
  }
  return m;
}

Result<Machine> MachineBuilder::finish_network() {
  // A preset's torus words give way to a network word; explicit ones conflict.
  if ((have_torus && !m.sizes.empty() && !torus_from_preset) || wrap_explicit || links_explicit)
    return located_error(first_where, "torus=, wrap= and links= describe a torus; '" + text::excerpt(m.network_word) +
                                          "' is another network");
  m.sizes.clear();
  m.wrap.clear();
  m.links.clear();
  auto network = m.network();
  if (!network) return located_error(first_where, network.error().message);
  m.network_nodes = (*network)->nodes();
  if (Status s = resolve_node_groups(); !s) return s.error();
  auto node = m.node_kinds();
  if (!node) return located_error(node_where.empty() ? first_where : node_where, node.error().message);
  if (m.hosts_path.empty()) {
    m.host_names.resize(static_cast<size_t>((*network)->nodes()));
    for (int n = 0; n < (*network)->nodes(); ++n) m.host_names[n] = "node-" + std::to_string(n);
  } else {
    Status s = load_network_hosts(m, **network);
    if (!s) return s.error();
  }
  return m;
}

}  // namespace

Result<Machine> parse_machine(std::string_view line, const std::string& where) {
  MachineBuilder b;
  b.first_where = where;
  auto w = text::words(line);
  if (w.empty()) return located_error(where, "empty machine description");
  for (const std::string& word : w) {
    Status s = b.apply(word, where, false);
    if (!s) return s.error();
  }
  return b.finish();
}

Result<Machine> load_machine(const std::string& spec_or_path) {
  const bool looks_like_line = spec_or_path.find('=') != std::string::npos || spec_or_path.find(' ') != std::string::npos;
  // A directory is never a machine file: "desmos" stays the preset when the
  // user has a directory of that name.
  struct stat st {};
  const bool exists = !looks_like_line && ::stat(spec_or_path.c_str(), &st) == 0;
  if (looks_like_line || !exists || S_ISDIR(st.st_mode)) {
    for (const MachinePreset& p : machine_presets())
      if (spec_or_path == p.name) return parse_machine(spec_or_path);
    if (exists) return located_error(spec_or_path, "is a directory, not a machine file");
    if (!looks_like_line) return make_error(text::excerpt(spec_or_path) + ": neither a machine file nor a preset (" + machine_presets()[0].name + ") nor key=value words");
    return parse_machine(spec_or_path);
  }
  auto text = read_input_file(spec_or_path);
  if (!text) return text.error();
  MachineBuilder b;
  b.first_where = spec_or_path;
  Status read = for_each_line(*text, spec_or_path, [&](std::string_view line, const std::string& where) -> Status {
    for (const std::string& word : text::words(text::strip_comment(line))) {
      Status s = b.apply(word, where, false);
      if (!s) return s;
    }
    return Ok{};
  });
  if (!read) return read.error();
  return b.finish();
}

std::string to_string(const Machine& m) {
  std::vector<int> wrap(m.wrap.begin(), m.wrap.end());
  std::string s = !m.network_word.empty()
                      ? m.network_word
                      : "torus=" + join_dims(m.sizes) + " wrap=" + join_dims(wrap) + " links=" + join_dims(m.links);
  if (m.node_xml.empty()) {
    std::string node = m.node;
    std::replace(node.begin(), node.end(), ' ', ',');
    s += " node=" + node;
  } else {
    s += " node-xml=" + m.node_xml;
  }
  for (size_t i = 0; i < m.node_groups.size(); ++i) {
    const Machine::NodeGroup& g = m.node_groups[i];
    s += i == 0 ? " nodes=" : ";";
    for (size_t j = 0; j < g.members.size();) {
      size_t k = j;
      while (k + 1 < g.members.size() && g.members[k + 1] == g.members[k] + 1) ++k;
      s += (j ? "," : "") + std::to_string(g.members[j]) + (k > j ? "-" + std::to_string(g.members[k]) : "");
      j = k + 1;
    }
    std::string node = g.node;
    std::replace(node.begin(), node.end(), ' ', ',');
    s += ":" + node;
  }
  s += " bw=" + text::format_bandwidth(m.bw) + " t_inj=" + text::format_duration(m.t_inj) +
       " t_hop=" + text::format_duration(m.t_hop);
  // Intra-node costs only when they differ from the defaults: the canonical
  // line is written into every mapping file and platform, and those of
  // machines described before these words existed stay byte for byte.
  const IntraNodeCosts defaults;
  if (m.intra_node.shm_lat != defaults.shm_lat) s += " shm-lat=" + text::format_duration(m.intra_node.shm_lat);
  if (m.intra_node.shm_bw != defaults.shm_bw) s += " shm-bw=" + text::format_bandwidth(m.intra_node.shm_bw);
  if (m.intra_node.socket_lat != defaults.socket_lat) s += " socket-lat=" + text::format_duration(m.intra_node.socket_lat);
  if (m.intra_node.socket_bw != defaults.socket_bw) s += " socket-bw=" + text::format_bandwidth(m.intra_node.socket_bw);
  if (!m.hosts_path.empty()) s += " hosts=" + m.hosts_path;
  return s;
}

}  // namespace rankmap
