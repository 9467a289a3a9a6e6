#include <stdint.h>
#include <stdio.h>
#include <scotch.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "detail.hpp"

namespace rankmap::detail {

namespace {

// RAII for the Scotch objects (C API with init/exit pairs).
struct ScotchGraph {
  SCOTCH_Graph g;
  ScotchGraph() { SCOTCH_graphInit(&g); }
  ~ScotchGraph() { SCOTCH_graphExit(&g); }
};
struct ScotchArch {
  SCOTCH_Arch a;
  ScotchArch() { SCOTCH_archInit(&a); }
  ~ScotchArch() { SCOTCH_archExit(&a); }
};
// Scotch 7 runs threaded by default, and then its results vary from run to
// run. A context with one thread and the deterministic option makes the same
// seed give the same mapping (and leaves the shared cores alone).
struct ScotchContext {
  SCOTCH_Context c;
  ScotchContext() { SCOTCH_contextInit(&c); }
  ~ScotchContext() { SCOTCH_contextExit(&c); }
};
struct ScotchStrat {
  SCOTCH_Strat s;
  ScotchStrat() { SCOTCH_stratInit(&s); }
  ~ScotchStrat() { SCOTCH_stratExit(&s); }
};

constexpr int kScotchMaxTorusDims = 5;  // SCOTCH_archTorusX/MeshX limit (Scotch 7.0)

// The torus as a Scotch graph; edge weight = integer cost of one hop along d
// (proportional to 1/links[d]) when weighted, else 1.
void build_torus_graph(const Torus& torus, bool weighted, std::vector<SCOTCH_Num>& verttab,
                       std::vector<SCOTCH_Num>& edgetab, std::vector<SCOTCH_Num>& edlotab) {
  int lcm = 1;
  for (int d = 0; d < torus.dims(); ++d) lcm = std::lcm(lcm, torus.links(d));
  verttab.assign(1, 0);
  for (int a = 0; a < torus.nodes(); ++a) {
    std::vector<int> seen;
    for (int d = 0; d < torus.dims(); ++d)
      for (Direction dir : {Direction::plus, Direction::minus}) {
        const int b = torus.neighbor(a, d, dir);
        if (b < 0 || b == a || std::find(seen.begin(), seen.end(), b) != seen.end()) continue;
        seen.push_back(b);
        edgetab.push_back(b);
        edlotab.push_back(weighted ? lcm / torus.links(d) : 1);
      }
    verttab.push_back(static_cast<SCOTCH_Num>(edgetab.size()));
  }
}

// Any other network as a complete Scotch graph whose edge weights are its
// distances (hops, or the weighted distance in hundredths): Scotch's deco
// target then prices a pair as the network does. nodes^2 edges.
void build_distance_graph(const Network& network, bool weighted, std::vector<SCOTCH_Num>& verttab,
                          std::vector<SCOTCH_Num>& edgetab, std::vector<SCOTCH_Num>& edlotab) {
  verttab.assign(1, 0);
  for (int a = 0; a < network.nodes(); ++a) {
    for (int b = 0; b < network.nodes(); ++b) {
      if (b == a) continue;
      edgetab.push_back(b);
      edlotab.push_back(weighted ? std::max<SCOTCH_Num>(1, static_cast<SCOTCH_Num>(std::lround(100 * network.weighted_distance(a, b))))
                                 : network.hops(a, b));
    }
    verttab.push_back(static_cast<SCOTCH_Num>(edgetab.size()));
  }
}

}  // namespace

Result<std::vector<int>> scotch_map(const CommGraph& graph, const Network& network, const std::vector<int>& nodes,
                                    bool weighted, bool strict_balance, std::uint64_t seed,
                                    std::vector<std::string>& notes) {
  const int n = graph.vertices;
  std::vector<int> node_of(static_cast<size_t>(n), nodes.front());
  if (n == 0) return node_of;
  if (nodes.size() == 1) return node_of;

  std::vector<SCOTCH_Num> verttab(graph.xadj.begin(), graph.xadj.end());
  std::vector<SCOTCH_Num> edgetab(graph.adjncy.begin(), graph.adjncy.end());
  auto w = integer_weights(graph.weight, 1e7);
  std::vector<SCOTCH_Num> edlotab(w.begin(), w.end());
  ScotchGraph sg;
  if (SCOTCH_graphBuild(&sg.g, 0, n, verttab.data(), nullptr, nullptr, nullptr, static_cast<SCOTCH_Num>(edgetab.size()),
                        edgetab.data(), edgetab.empty() ? nullptr : edlotab.data()) != 0)
    return make_error("internal: SCOTCH_graphBuild failed");

  // Plain targets keep Scotch's own torusXD/meshXD (what `scotch_gmap` uses);
  // the weighted one (and tori Scotch's torus cannot describe) are built from
  // the torus graph; other networks from their distances.
  const Torus* torus = network.as_torus();
  std::vector<SCOTCH_Num> sizes;
  bool all_wrap = true, no_wrap = true;
  for (int d = 0; torus && d < torus->dims(); ++d) {
    if (torus->size(d) == 1) continue;  // size-1 dimensions change nothing
    sizes.push_back(torus->size(d));
    all_wrap = all_wrap && torus->wraps(d);
    no_wrap = no_wrap && !torus->wraps(d);
  }
  if (sizes.empty()) sizes.push_back(1);
  const bool plain_ok = torus && static_cast<int>(sizes.size()) <= kScotchMaxTorusDims && (all_wrap || no_wrap);
  ScotchArch full, sub;
  std::vector<SCOTCH_Num> tverttab, tedgetab, tedlotab;
  ScotchGraph target;
  ScotchStrat arch_strat;
  if (!weighted && plain_ok) {
    const int rc = all_wrap ? SCOTCH_archTorusX(&full.a, static_cast<SCOTCH_Num>(sizes.size()), sizes.data())
                            : SCOTCH_archMeshX(&full.a, static_cast<SCOTCH_Num>(sizes.size()), sizes.data());
    if (rc != 0) return make_error("internal: Scotch rejected the torus target");
  } else {
    if (!weighted && torus)
      notes.push_back("scotch: Scotch's torusXD target supports at most 5 dimensions, all wrapped or none; this torus is "
                      "described to Scotch as a graph target (deco) built from its links instead");
    if (torus)
      build_torus_graph(*torus, weighted, tverttab, tedgetab, tedlotab);
    else
      build_distance_graph(network, weighted, tverttab, tedgetab, tedlotab);
    if (SCOTCH_graphBuild(&target.g, 0, network.nodes(), tverttab.data(), nullptr, nullptr, nullptr,
                          static_cast<SCOTCH_Num>(tedgetab.size()), tedgetab.data(), tedlotab.data()) != 0)
      return make_error("internal: SCOTCH_graphBuild failed on the torus graph");
    SCOTCH_randomSeed(static_cast<SCOTCH_Num>(seed % 2147483647));
    SCOTCH_randomReset();
    if (SCOTCH_archBuild0(&full.a, &target.g, 0, nullptr, &arch_strat.s) != 0)
      return make_error("internal: SCOTCH_archBuild0 failed on the torus graph");
  }
  const SCOTCH_Arch* arch = &full.a;
  std::vector<SCOTCH_Num> subset(nodes.begin(), nodes.end());
  const bool is_subset = static_cast<int>(nodes.size()) != network.nodes();
  if (is_subset) {
    if (SCOTCH_archSub(&sub.a, &full.a, static_cast<SCOTCH_Num>(subset.size()), subset.data()) != 0)
      return make_error("internal: SCOTCH_archSub failed");
    arch = &sub.a;
  }
  ScotchStrat strat;
  // Default: what scotch_gmap does by default (with 1% imbalance). Strict:
  // quality and balance flags with zero imbalance (scotch_gmap -cqb -b0),
  // which often finds tighter embeddings of regular graphs.
  if (strict_balance)
    SCOTCH_stratGraphMapBuild(&strat.s, SCOTCH_STRATQUALITY | SCOTCH_STRATBALANCE, static_cast<SCOTCH_Num>(nodes.size()), 0.0);
  else
    SCOTCH_stratGraphMapBuild(&strat.s, SCOTCH_STRATDEFAULT, static_cast<SCOTCH_Num>(nodes.size()), 0.01);
  std::vector<SCOTCH_Num> parttab(static_cast<size_t>(n), 0);
  ScotchContext ctx;
  if (SCOTCH_contextRandomClone(&ctx.c) != 0 ||
      SCOTCH_contextOptionSetNum(&ctx.c, SCOTCH_OPTIONNUMDETERMINISTIC, 1) != 0 ||
      SCOTCH_contextOptionSetNum(&ctx.c, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1) != 0 ||
      SCOTCH_contextThreadSpawn(&ctx.c, 1, nullptr) != 0)
    return make_error("internal: cannot set up a Scotch context");
  SCOTCH_contextRandomSeed(&ctx.c, static_cast<SCOTCH_Num>(seed % 2147483647));
  ScotchGraph bound;  // declared after ctx: released before it
  if (SCOTCH_contextBindGraph(&ctx.c, &sg.g, &bound.g) != 0) return make_error("internal: SCOTCH_contextBindGraph failed");
  if (SCOTCH_graphMap(&bound.g, arch, &strat.s, parttab.data()) != 0) return make_error("internal: SCOTCH_graphMap failed");
  for (int v = 0; v < n; ++v) {
    const SCOTCH_Num t = parttab[v];
    // Sub-architecture terminals are numbered by position in the subset list.
    node_of[v] = is_subset ? nodes.at(static_cast<size_t>(t)) : static_cast<int>(t);
  }
  return node_of;
}

}  // namespace rankmap::detail
