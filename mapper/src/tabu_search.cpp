// Tabu search on the mapping cost sum w x weighted_distance with at most its
// slots on every allocated node (Taillard's robust tabu search for the
// quadratic assignment problem, on the moves a capacity allows).
//
// The iterated local search (iterated_search.cpp) descends after random
// kicks and keeps a kick when the cost does not rise: which basin it ends in
// depends on its kicks, so two seeds end up several percent apart on
// irregular graphs (random partners, recorded CG and ADI at 6 ranks per
// node). A tabu search instead takes, at every step, the best move of the
// whole neighbourhood, uphill when nothing goes down, and forbids undoing
// recent moves for a while: it walks out of a basin along the cheapest way
// and explores the next one, which a kick that must not raise the cost
// rarely does (docs/mapper.md, step 3, for what it gains and what not).
//
// Moves: a rank to a node with room, or two ranks of different nodes
// swapped. Candidate nodes for a rank are the nodes of its partners and the
// network neighbours of its own node (elsewhere is rarely cheaper, and all
// nodes would multiply each step's work by nodes / degree), kept per rank
// until it or a partner moves. Every rank's cost at every allocated node,
// C[v][j] = sum over v's partners u of w(u, v) x d(j, node of u), is kept
// up to date, so a move is priced in O(1) and applying it costs degree x
// nodes.
//
// Tabu rule (RoTS): moving v back to a node it left less than `tenure`
// steps ago is tabu; a swap is tabu only when both of its moves are.
// Aspiration: a tabu move is taken if it gives the lowest cost seen.
// The tenure is drawn anew every 2 x its upper end of steps.
//
// Deterministic: ties and tenures come from std::mt19937_64 with the given
// seed, and the budget counts evaluated moves and updated entries. The scan
// may run on several threads (below); the search is the same.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <system_error>
#include <thread>

#include "detail.hpp"

namespace rankmap::detail {

namespace {

// Entries of its tables: ranks x allocated nodes (a cost and a tabu step
// each) and allocated nodes x allocated nodes (distances and swap bounds).
constexpr std::int64_t kMaxTableEntries = 4'000'000;
// Tenure drawn from [p, 2p] percent of the ranks with partners. Measured at
// 5 seeds on random graphs, recorded sparse patterns and a shuffled stencil
// (64-1,024 ranks): 8-16% and 15-30% gave mean costs within 1% of each other
// (15-30% lower by 0.6-0.8% on the two largest), 4-8% up to 1% higher;
// 2-4% and 100-200% found almost nothing on recorded CG at 192 ranks.
constexpr int kTenureLowPercent = 15;
// Lanes of the neighbourhood's scan: one per thread where a step's scan is
// long enough to pay for waking them (a few microseconds a step), i.e. from
// kMinUnitsPerLane ranks per lane. At 128 ranks a step scans for ~50 us:
// two lanes of 64 cut the default's wall time to 0.91-0.96x on 2 threads
// (paired timings, CPU 1.16x: the lanes spin).
constexpr int kMinUnitsPerLane = 32;
// Swap bounds in a table per pair of allocated nodes up to this many
// entries (16 bytes each: 512 KB, within a core's cache).
constexpr std::int64_t kMaxBoundTableEntries = 32'768;

int tabu_lanes(int units, int threads) {
  return std::max(1, std::min(threads, units / kMinUnitsPerLane));
}

// Pairs of allocated nodes whose routes the load watch tables (a route is
// its length plus ~4-8 link ids: at most ~40 MB).
constexpr std::int64_t kMaxWatchedRoutes = 1'100'000;

// The directed link loads of the walk's placement, kept up to date move by
// move (TiedLoadWatch): each rank's directed flows, and the route between
// every two allocated nodes as link ids, tabled once.
class WalkLoads {
 public:
  WalkLoads(const Traffic& traffic, const Network& net, const std::vector<int>& nodes, const std::vector<int>& pos)
      : m_(nodes.size()), out_(static_cast<size_t>(traffic.ranks)), in_(static_cast<size_t>(traffic.ranks)),
        loads_(static_cast<size_t>(net.link_slots()), 0.0), inverse_capacity_(loads_.size(), 0.0) {
    for (const Flow& f : traffic.flows) {
      if (f.bytes <= 0 || f.src == f.dst) continue;
      out_[f.src].push_back({f.dst, f.bytes});
      in_[f.dst].push_back({f.src, f.bytes});
    }
    for (size_t l = 0; l < loads_.size(); ++l)
      if (net.link_exists(static_cast<int>(l))) inverse_capacity_[l] = 1.0 / net.link_capacity(static_cast<int>(l));
    route_at_.resize(m_ * m_ + 1);
    std::vector<Hop> path;
    for (size_t i = 0; i < m_; ++i)
      for (size_t j = 0; j < m_; ++j) {
        route_at_[i * m_ + j] = pool_.size();
        if (i == j) continue;
        net.route(nodes[i], nodes[j], path);
        for (const Hop& h : path) pool_.push_back(h.link);
      }
    route_at_[m_ * m_] = pool_.size();
    for (size_t v = 0; v < out_.size(); ++v)
      for (const Peer& q : out_[v]) add(static_cast<size_t>(pos[v]), static_cast<size_t>(pos[q.rank]), q.bytes);
  }
  // Rank v moves from allocated node `from` to `to`; pos holds the others.
  void move(int v, int from, int to, const std::vector<int>& pos) {
    for (const Peer& q : out_[v]) {
      const auto at = static_cast<size_t>(pos[q.rank]);
      add(static_cast<size_t>(from), at, -q.bytes);
      add(static_cast<size_t>(to), at, q.bytes);
    }
    for (const Peer& q : in_[v]) {
      const auto at = static_cast<size_t>(pos[q.rank]);
      add(at, static_cast<size_t>(from), -q.bytes);
      add(at, static_cast<size_t>(to), q.bytes);
    }
  }
  // The busiest link's bytes / capacity, and the sum of squares of them all.
  std::pair<double, double> level() const {
    double top = 0, squares = 0;
    for (size_t l = 0; l < loads_.size(); ++l) {
      const double rel = loads_[l] * inverse_capacity_[l];
      top = std::max(top, rel);
      squares += rel * rel;
    }
    return {top, squares};
  }

 private:
  struct Peer {
    int rank;
    double bytes;
  };
  void add(size_t i, size_t j, double bytes) {
    const size_t k = i * m_ + j;
    for (size_t h = route_at_[k]; h < route_at_[k + 1]; ++h) loads_[static_cast<size_t>(pool_[h])] += bytes;
  }
  size_t m_;
  std::vector<std::vector<Peer>> out_, in_;
  std::vector<double> loads_, inverse_capacity_;
  std::vector<size_t> route_at_;
  std::vector<int> pool_;
};

}  // namespace

bool tied_load_watch_fits(int allocated_nodes) {
  return static_cast<std::int64_t>(allocated_nodes) * allocated_nodes <= kMaxWatchedRoutes;
}

bool tabu_search_fits(int ranks, int allocated_nodes) {
  // The second table outgrows the first where the allocation has more
  // nodes than the job has ranks (a few ranks spread over a large machine).
  const std::int64_t m = allocated_nodes;
  return std::max<std::int64_t>(ranks, m) * m <= kMaxTableEntries;
}

void tabu_search(const CommGraph& graph, const Network& net, const Allocation& allocation, std::vector<int>& node_of,
                 std::int64_t work, std::uint64_t seed, int threads, const std::function<bool(double)>& go_on,
                 TiedLoadWatch* watch, const std::atomic<bool>* spare_thread) {
  const int n = graph.vertices;
  const std::vector<int>& nodes = allocation.nodes();
  const int m = static_cast<int>(nodes.size());
  if (n < 2 || m < 2 || graph.edges() == 0 || !tabu_search_fits(n, m)) return;
  const auto M = static_cast<size_t>(m);

  std::vector<int> index_of(static_cast<size_t>(net.nodes()), -1);
  for (int j = 0; j < m; ++j) index_of[nodes[j]] = j;
  std::vector<double> D(M * M);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < m; ++j) D[i * M + j] = i == j ? 0.0 : net.weighted_distance(nodes[i], nodes[j]);
  std::vector<std::vector<int>> neighbours(M);  // network neighbours, as indices of allocated nodes
  {
    std::vector<int> adj;
    for (int j = 0; j < m; ++j) {
      net.neighbors(nodes[j], adj);
      for (int b : adj)
        if (index_of[b] >= 0 && index_of[b] != j) neighbours[j].push_back(index_of[b]);
    }
  }

  std::vector<int> pos(static_cast<size_t>(n)), room(M);
  std::vector<std::vector<int>> members(M);
  for (int j = 0; j < m; ++j) room[j] = allocation.slots(nodes[j]);
  for (int v = 0; v < n; ++v) {
    pos[v] = index_of[node_of[v]];
    if (pos[v] < 0) return;  // off the allocation: not a placement to search from
    members[pos[v]].push_back(v);
    --room[pos[v]];
  }
  std::vector<double> C(static_cast<size_t>(n) * M, 0.0);
  for (int v = 0; v < n; ++v)
    for (auto e = graph.xadj[v]; e < graph.xadj[v + 1]; ++e) {
      const double w = graph.weight[e];
      const double* d = &D[static_cast<size_t>(pos[graph.adjncy[e]]) * M];
      double* c = &C[static_cast<size_t>(v) * M];
      for (int j = 0; j < m; ++j) c[j] += w * d[j];
    }
  work -= static_cast<std::int64_t>(graph.adjncy.size()) * m;

  std::vector<int> active;
  for (int v = 0; v < n; ++v)
    if (graph.xadj[v + 1] > graph.xadj[v]) active.push_back(v);
  const bool free_nodes = one_slot_with_free_nodes(allocation, n);
  const int units = static_cast<int>(active.size());
  std::mt19937_64 rng(seed);
  const int tenure_lo = std::max(2, units * kTenureLowPercent / 100), tenure_hi = std::max(tenure_lo + 1, 2 * tenure_lo);
  auto draw_tenure = [&] { return tenure_lo + static_cast<int>(rng() % static_cast<unsigned>(tenure_hi - tenure_lo + 1)); };
  int tenure = draw_tenure();
  // Step until which moving v to node j is tabu.
  // (32 bits, half the memory of a table read at every candidate: the
  // search stops before a step plus a tenure could pass them, which the
  // callers' budgets never come near.)
  std::vector<std::int32_t> tabu_until(static_cast<size_t>(n) * M, 0);

  double cost = 0;
  for (int v = 0; v < n; ++v) cost += C[static_cast<size_t>(v) * M + pos[v]];
  cost /= 2;  // every edge counted from both ends
  double best_cost = cost;
  const double tol = 1e-12 * std::max(cost, 1.0);
  std::vector<int> best_pos = pos;

  // The load watch: the least loaded placement within the tie of the lowest
  // cost, by (max link load, sum of squares), and the cost it was seen at.
  std::unique_ptr<WalkLoads> walk_loads;
  if (watch && watch->traffic && watch->traffic->ranks == n && tied_load_watch_fits(m))
    walk_loads = std::make_unique<WalkLoads>(*watch->traffic, net, nodes, pos);
  std::vector<int> watched_pos;
  double watched_cost = 0, watched_max = 0, watched_squares = 0;
  auto watch_step = [&] {
    if (!walk_loads || cost > best_cost * (1 + watch->tie_share) + tol) return;
    ++watch->placements_seen;
    const auto [top, squares] = walk_loads->level();
    const bool stale = watched_pos.empty() || watched_cost > best_cost * (1 + watch->tie_share) + tol;
    const bool lower = top < watched_max * (1 - 1e-9) ||
                       (top <= watched_max * (1 + 1e-9) && squares < watched_squares * (1 - 1e-9));
    if (stale || lower) {
      watched_pos = pos;
      watched_cost = cost;
      watched_max = top;
      watched_squares = squares;
    }
  };
  watch_step();

  // The step's choice (Taillard's): the best move, ties broken uniformly
  // at random in scan order (reservoir sampling with the seeded rng).
  struct Move {
    double delta;
    int r, s, to;  // s < 0: r moves to a node with room
  };
  struct Choice {
    Move move{std::numeric_limits<double>::infinity(), -1, -1, -1};
    int ties = 0;
  };
  auto offer = [&](Choice& c, const Move& mv) {
    if (mv.delta < c.move.delta - tol) {
      c.move = mv;
      c.ties = 1;
    } else if (mv.delta <= c.move.delta + tol && rng() % static_cast<unsigned>(++c.ties) == 0) {
      c.move = mv;
    }
  };
  // A swap of r with a rank s of node j, out of j into r's node a, has a
  // second half bounded below by min over the ranks s of j of
  // C[s][a] - C[s][j] (the pair term 2 w(r, s) d(a, j) is never negative).
  // Computed when first needed and kept until node j's ranks or their costs
  // change (changed_at below); a swap whose bound cannot come within reach
  // of the best so far is not priced rank by rank (the same choice).
  // Kept per pair of nodes (j, a), shared by a's ranks, in a lane's
  // table where that table is small; else in the candidate's entry: at 512
  // nodes a table look-up was a cache miss each (1,024 ranks: the tabu
  // search in 0.6x the time), where at 32-64 nodes the shared table saves
  // the recomputations (1.1-1.25x the time without it).
  struct SwapBound {
    double value = 0;
    std::int64_t step = 0;  // the step it was computed at; 0: none yet
  };
  const bool bound_table = static_cast<std::int64_t>(m) * m <= kMaxBoundTableEntries;
  // The neighbourhood's scan, nearly all of a step's cost, runs in lanes
  // over consecutive slices of the ranks, one thread each, the caller's
  // first. The first lane chooses as a sequential scan would; the others
  // record, in scan order, every move that could take part in that choice
  // (within 2 tol of their own best so far: the sequential best is at most
  // tol above the lowest delta seen before), and the caller replays them
  // after the first lane's choice. The choice, the rng's draws and so the
  // whole search are those of one thread, whatever the lane count.
  struct Lane {
    size_t lo = 0, hi = 0;             // slice of `active`
    std::vector<std::int64_t> listed;  // per allocated node: the visit that last listed it
    std::int64_t visit = 0;
    std::vector<double> partner_w;
    std::vector<SwapBound> swap_bound;  // per (j, a), where bound_table
    Choice choice;             // first lane
    double lowest = 0;         // other lanes: the lowest delta so far
    std::vector<Move> record;  // other lanes: the moves to replay
    std::int64_t evaluated = 0;
    std::chrono::steady_clock::duration busy{};  // lanes on threads of their own: time spent scanning
  };
  // Each rank's candidate nodes (its partners' nodes, then its node's
  // network neighbours, in first-seen order), rebuilt only after it or a
  // partner moved: a step moves one or two ranks, so most lists still hold.
  // Nothing else changes a rank's cost row or its tabu row, so each entry
  // also keeps the rank's cost difference and tabu step there: the scan
  // reads them in a row instead of from two tables of ranks x nodes (a
  // cache miss each at 1,024 ranks).
  struct CandNode {
    int node;
    std::int32_t tabu_until;  // moving the rank there is tabu before this step
    double delta;             // C[r][node] - C[r][pos[r]]
    SwapBound bound;          // where the lanes keep no table
  };
  std::vector<std::vector<CandNode>> cand_of(static_cast<size_t>(n));
  // At one slot per node with nodes free, the nodes next to a rank's
  // partners' nodes, for moves only (listed after its candidates, scanned
  // after them): node ids alone, their cost difference and tabu step read
  // from the rank's rows, which hold still as long as the list does (4x
  // the entries on recorded CG: the full entries were 1.3x the time).
  std::vector<std::vector<int>> free_near_of(free_nodes ? static_cast<size_t>(n) : 0);
  std::vector<char> stale(static_cast<size_t>(n), 1);
  // A spare thread to come (spare_thread) gets a lane of its own when it
  // comes; until then the caller scans that lane too.
  const int lane_count = tabu_lanes(units, threads + (spare_thread ? 1 : 0));
  std::vector<Lane> lanes(static_cast<size_t>(lane_count));
  for (int l = 0; l < lane_count; ++l) {
    Lane& L = lanes[l];
    L.lo = static_cast<size_t>(units) * l / lane_count;
    L.hi = static_cast<size_t>(units) * (l + 1) / lane_count;
    L.listed.assign(M, 0);
    L.partner_w.assign(static_cast<size_t>(n), 0.0);
    if (bound_table) L.swap_bound.assign(M * M, SwapBound{});
  }
  // The last step whose move changed node j's ranks or the cost row of one
  // of them (a partner of a moved rank): the swap bounds out of j computed
  // before it are stale. A step moves one or two ranks, so most bounds hold
  // (their recomputation was a third of the scan at 192 ranks on 32 nodes).
  std::vector<std::int64_t> changed_at(M, 0);
  auto bound_of = [&](Lane& L, CandNode& cn, int a, std::int64_t step) {
    const int j = cn.node;
    SwapBound& b = bound_table ? L.swap_bound[static_cast<size_t>(j) * M + a] : cn.bound;
    if (b.step <= changed_at[j]) {
      b.step = step;
      double lo = std::numeric_limits<double>::infinity();
      for (int s : members[j]) {
        const double* cs = &C[static_cast<size_t>(s) * M];
        lo = std::min(lo, cs[a] - cs[j]);
      }
      b.value = lo;
    }
    return b.value;
  };
  auto scan = [&](Lane& L, bool first, std::int64_t step) {
    L.choice = Choice{};
    L.lowest = std::numeric_limits<double>::infinity();
    L.record.clear();
    L.evaluated = 0;
    // Moves above this cannot be chosen (first lane) or take part (others).
    auto reach = [&] { return first ? L.choice.move.delta + tol : L.lowest + 2 * tol; };
    auto consider = [&](double delta, bool tabu, int r, int s, int j) {
      ++L.evaluated;
      if (tabu && cost + delta >= best_cost - tol) return;  // tabu, and no new best: aspiration fails
      if (first) {
        offer(L.choice, Move{delta, r, s, j});
      } else if (delta <= L.lowest + 2 * tol) {
        L.lowest = std::min(L.lowest, delta);
        L.record.push_back(Move{delta, r, s, j});
      }
    };
    for (size_t k = L.lo; k < L.hi; ++k) {
      const int r = active[k];
      const int a = pos[r];
      std::vector<CandNode>& cand = cand_of[r];
      if (stale[r]) {
        stale[r] = 0;
        ++L.visit;
        cand.clear();
        const double* cr = &C[static_cast<size_t>(r) * M];
        const std::int32_t* tr = &tabu_until[static_cast<size_t>(r) * M];
        auto list = [&](int j) {
          L.listed[j] = L.visit;
          cand.push_back(CandNode{j, tr[j], cr[j] - cr[a], {}});
        };
        for (auto e = graph.xadj[r]; e < graph.xadj[r + 1]; ++e) {
          const int j = pos[graph.adjncy[e]];
          if (j != a && L.listed[j] != L.visit) list(j);
        }
        for (int j : neighbours[a])
          if (L.listed[j] != L.visit) list(j);
        if (free_nodes) {
          // At one slot per node r's partners' nodes are full, and the free
          // nodes next to them are where r should go: listed for moves,
          // whatever their room now.
          std::vector<int>& near = free_near_of[r];
          near.clear();
          for (auto e = graph.xadj[r]; e < graph.xadj[r + 1]; ++e)
            for (int j : neighbours[pos[graph.adjncy[e]]])
              if (j != a && L.listed[j] != L.visit) {
                L.listed[j] = L.visit;
                near.push_back(j);
              }
        }
      }
      bool weights_listed = false;  // r's edge weights in partner_w, for the swaps' pair term
      for (CandNode& cn : cand) {
        const int j = cn.node;
        const double dr = cn.delta;
        const bool r_tabu = cn.tabu_until > step;
        if (room[j] > 0) consider(dr, r_tabu, r, -1, j);
        if (members[j].empty()) continue;
        if (dr + bound_of(L, cn, a, step) > reach()) {
          L.evaluated += static_cast<std::int64_t>(members[j].size());  // the budget counts them all the same
          continue;
        }
        if (!weights_listed) {
          weights_listed = true;
          for (auto e = graph.xadj[r]; e < graph.xadj[r + 1]; ++e) L.partner_w[graph.adjncy[e]] = graph.weight[e];
        }
        for (int s : members[j]) {
          const double* cs = &C[static_cast<size_t>(s) * M];
          const double delta = dr + cs[a] - cs[j] + 2 * L.partner_w[s] * D[static_cast<size_t>(a) * M + j];
          consider(delta, r_tabu && tabu_until[static_cast<size_t>(s) * M + a] > step, r, s, j);
        }
      }
      if (weights_listed)
        for (auto e = graph.xadj[r]; e < graph.xadj[r + 1]; ++e) L.partner_w[graph.adjncy[e]] = 0;
      if (free_nodes) {
        const double* cr = &C[static_cast<size_t>(r) * M];
        const std::int32_t* tr = &tabu_until[static_cast<size_t>(r) * M];
        for (int j : free_near_of[r])
          if (room[j] > 0) consider(cr[j] - cr[a], tr[j] > step, r, -1, j);
      }
    }
  };
  auto apply_move = [&](int v, int to, std::int64_t step) {
    const int from = pos[v];
    changed_at[from] = changed_at[to] = step;
    if (walk_loads) walk_loads->move(v, from, to, pos);
    auto& mf = members[from];
    mf.erase(std::find(mf.begin(), mf.end(), v));
    members[to].push_back(v);
    ++room[from];
    --room[to];
    pos[v] = to;
    stale[v] = 1;
    const double* dt = &D[static_cast<size_t>(to) * M];
    const double* df = &D[static_cast<size_t>(from) * M];
    for (auto e = graph.xadj[v]; e < graph.xadj[v + 1]; ++e) {
      stale[graph.adjncy[e]] = 1;
      changed_at[pos[graph.adjncy[e]]] = step;
      const double w = graph.weight[e];
      double* c = &C[static_cast<size_t>(graph.adjncy[e]) * M];
      for (int j = 0; j < m; ++j) c[j] += w * (dt[j] - df[j]);
    }
    work -= (graph.xadj[v + 1] - graph.xadj[v]) * m;
  };

  // Lanes 1.. run on threads of their own, woken per step by `go` (the step
  // to scan; -1: stop), each reporting through `done`. The step's state is
  // written only between scans; the release/acquire pairs order it.
  std::atomic<std::int64_t> go{0};
  std::atomic<int> done{0};
  auto wait_until = [](auto&& ready) {
    for (int spins = 0; !ready(); ++spins)
      if (spins > 64) std::this_thread::yield();
  };
  std::vector<std::thread> pool;
  // Starts lane l's thread, which scans from the next step on; false if the
  // system has no thread to give.
  auto start_lane = [&](int l) {
    const std::int64_t scanned = go.load(std::memory_order_relaxed);
    try {
      pool.emplace_back([&, l, scanned] {
        for (std::int64_t seen = scanned;;) {
          std::int64_t step = 0;
          wait_until([&] { return (step = go.load(std::memory_order_acquire)) != seen; });
          if (step < 0) return;
          seen = step;
          const auto woken = std::chrono::steady_clock::now();
          scan(lanes[l], false, step);
          lanes[l].busy += std::chrono::steady_clock::now() - woken;
          done.fetch_add(1, std::memory_order_release);
        }
      });
      return true;
    } catch (const std::system_error&) {
      return false;  // no thread to be had: the caller scans the lanes left
    }
  };
  const int own_threads = std::min(lane_count, std::max(1, threads));
  for (int l = 1; l < own_threads; ++l)
    if (!start_lane(l)) break;
  int threaded = static_cast<int>(pool.size());  // lanes 1..threaded run on their own thread
  // Stops and joins them however the search ends (an exception included).
  struct StopLanes {
    std::atomic<std::int64_t>& go;
    std::vector<std::thread>& pool;
    ~StopLanes() {
      go.store(-1, std::memory_order_release);
      for (std::thread& t : pool)
        if (t.joinable()) t.join();
    }
  } stop_lanes{go, pool};

  // Lanes on threads of their own pay only while those threads run as soon
  // as they are woken. On a loaded machine (more runnable threads than
  // cores) a woken lane can wait for a time slice, milliseconds against a
  // scan's tens of microseconds: recorded ADI at 192 ranks on desmos took
  // 15 s on 2 threads, 2.8 s on one, beside another job busy on both cores.
  // Once the main thread has waited for the lanes longer than they took to
  // scan (what scanning them itself would have cost), it scans every lane
  // itself: the same moves, the same result.
  using Clock = std::chrono::steady_clock;
  Clock::duration waits{};
  bool lanes_here = false;  // the lanes' threads were stopped for good
  auto keep_lanes_here = [&] {
    go.store(-1, std::memory_order_release);
    for (std::thread& t : pool) t.join();
    pool.clear();
    threaded = 0;
    lanes_here = true;
  };

  bool spare_taken = false;  // the spare thread came (whether a lane got it or not)
  const std::int64_t last_step = std::numeric_limits<std::int32_t>::max() - static_cast<std::int64_t>(tenure_hi);
  for (std::int64_t step = 1; work > 0 && step < last_step; ++step) {
    if (spare_thread && !spare_taken && !lanes_here && spare_thread->load(std::memory_order_acquire)) {
      spare_taken = true;
      if (threaded + 1 < lane_count && start_lane(threaded + 1)) ++threaded;
    }
    done.store(0, std::memory_order_relaxed);
    go.store(step, std::memory_order_release);
    scan(lanes[0], true, step);
    for (int l = threaded + 1; l < lane_count; ++l) scan(lanes[l], false, step);
    if (threaded > 0) {
      const Clock::time_point scanned = Clock::now();
      wait_until([&] { return done.load(std::memory_order_acquire) == threaded; });
      waits += Clock::now() - scanned;
      // Every 64 steps, on the totals so far (one preemption does not decide).
      if (step % 64 == 0) {
        Clock::duration lanes_busy{};
        for (int l = 1; l <= threaded; ++l) lanes_busy += lanes[l].busy;
        if (waits > lanes_busy) keep_lanes_here();
      }
    }
    Choice choice = lanes[0].choice;
    std::int64_t evaluated = 0;
    for (const Lane& L : lanes) {
      evaluated += L.evaluated;
      for (const Move& recorded : L.record) offer(choice, recorded);
    }
    work -= evaluated + units;
    if (choice.move.r < 0) break;  // every move tabu and none aspirated
    const Move mv = choice.move;
    const int a = pos[mv.r];
    tabu_until[static_cast<size_t>(mv.r) * M + a] = static_cast<std::int32_t>(step + tenure);
    apply_move(mv.r, mv.to, step);
    if (mv.s >= 0) {
      tabu_until[static_cast<size_t>(mv.s) * M + mv.to] = static_cast<std::int32_t>(step + tenure);
      apply_move(mv.s, a, step);
    }
    cost += mv.delta;
    if (cost < best_cost - tol) {
      best_cost = cost;
      best_pos = pos;
    }
    watch_step();
    if (step % (2 * tenure_hi) == 0) tenure = draw_tenure();
    if (go_on && !go_on(best_cost)) break;
  }
  go.store(-1, std::memory_order_release);
  for (std::thread& t : pool) t.join();  // idle from here on
  // The running cost drifts by rounding; the input is kept unless the best
  // really is cheaper.
  if (walk_loads && !watched_pos.empty() && watched_cost <= best_cost * (1 + watch->tie_share) + tol) {
    watch->node_of.assign(node_of.size(), 0);
    for (int v = 0; v < n; ++v) watch->node_of[v] = nodes[watched_pos[v]];
    watch->max_load = watched_max;
  }
  std::vector<int> found(node_of.size());
  for (int v = 0; v < n; ++v) found[v] = nodes[best_pos[v]];
  if (weighted_cost(graph, net, found) < weighted_cost(graph, net, node_of)) node_of = std::move(found);
}

}  // namespace rankmap::detail
