// Link relief: after the cost search, changes that lower the max link load
// under the real routing for a bounded rise in cost (docs/mapper.md, the
// default's step 5): the placement's image under a symmetry of the torus,
// at no cost (relieve_by_symmetry); swaps of whole node contents between
// torus neighbours (relieve_links), and of single ranks (relieve_rank_links).
#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "default_pipeline.hpp"
#include "detail.hpp"
#include "parallel.hpp"
#include "torus_symmetries.hpp"

namespace rankmap::detail {

namespace {

constexpr int kMaxHotRanks = 16;  // ranks on the busiest links tried per rank-level swap
constexpr size_t kTopLinks = 64;  // busiest links remembered per step (TrialLoads::rank_links)
// Above this many node flows per allocated node (dense traffic) no relief:
// every placement of a full torus loads the links alike.
constexpr size_t kMaxFlowsPerNode = 32;
// Routed flows the images of one placement may cost in all
// (relieve_by_symmetry): 96 images of random partners' 12k node flows at
// 1,024 ranks on 8x4x4x4 route 1.2 million, ~10 ms.
constexpr std::int64_t kMaxImageFlows = 8'000'000;

struct LoadState {
  double max = 0;
  int at_max = 0;     // links within a rounding error of the max
  double squares = 0; // sum over links of (bytes / capacity)^2: how evenly the rest is spread
  // Strictly better on (max, links at the max): what a swap may spend cost on.
  bool better_than(const LoadState& o) const {
    if (max < o.max * (1 - 1e-9)) return true;
    return max <= o.max * (1 + 1e-9) && at_max < o.at_max;
  }
  bool same_top(const LoadState& o) const {
    return max <= o.max * (1 + 1e-9) && max >= o.max * (1 - 1e-9) && at_max == o.at_max;
  }
};

// A step's options, best first: a better (max, links at max) within the cost
// budget; otherwise, at no cost, the same top with a lower sum of squares.
// The squares give the greedy relief a direction across placements whose
// busiest link is equal (on a plateau of equal cost a lower max often lies
// a few such steps away).
bool preferred(const LoadState& s, double cost_delta, double budget, const LoadState& current, const LoadState& best) {
  const bool top_gain = s.better_than(current) && cost_delta <= budget;
  const bool spread_gain = s.same_top(current) && cost_delta <= 0 && s.squares < current.squares * (1 - 1e-9);
  if (!top_gain && !spread_gain) return false;
  if (s.better_than(best)) return true;
  return s.same_top(best) && s.squares < best.squares * (1 - 1e-12);
}

// Lexicographically lower (max, links at the max, sum of squares), then a
// lower cost: the tabu relief's order of placements and of moves.
bool lower_loads(const LoadState& s, double cost, const LoadState& o, double o_cost) {
  if (s.better_than(o)) return true;
  if (!s.same_top(o)) return false;
  if (s.squares < o.squares * (1 - 1e-9)) return true;
  if (s.squares > o.squares * (1 + 1e-9)) return false;
  return cost < o_cost - 1e-9 * std::max(std::abs(cost), std::abs(o_cost));
}

LoadState load_state(const Network& torus, const std::vector<double>& loads) {
  LoadState s;
  for (size_t l = 0; l < loads.size(); ++l) {
    if (loads[l] <= 0) continue;
    const double rel = loads[l] / torus.link_capacity(static_cast<int>(l));
    s.squares += rel * rel;
    if (rel > s.max * (1 + 1e-9)) {
      s.max = rel;
      s.at_max = 1;
    } else if (rel >= s.max * (1 - 1e-9)) {
      ++s.at_max;
    }
  }
  return s;
}

// A flow's route as link ids, in route order.
struct Route {
  const int* first;
  const int* last;
};

// Loads under trial changes: flows are rerouted onto a scratch state, the
// changed links remembered, the new LoadState derived from them alone
// (unless every busiest link got lighter), then undone exactly.
class TrialLoads {
 public:
  TrialLoads(const Network& t, std::vector<double>& loads)
      : t_(t), loads_(loads), mark_(loads.size(), -1), saved_(loads.size(), 0.0) {}

  // The kTopLinks busiest links of the current loads, busiest first: lets
  // state_after find the runner-up without a scan of every link.
  void rank_links() {
    top_.clear();
    for (size_t l = 0; l < loads_.size(); ++l)
      if (loads_[l] > 0) top_.push_back(static_cast<int>(l));
    auto rel = [&](int l) { return loads_[l] / t_.link_capacity(l); };
    const size_t k = std::min(top_.size(), kTopLinks);
    std::partial_sort(top_.begin(), top_.begin() + static_cast<std::ptrdiff_t>(k), top_.end(),
                      [&](int a, int b) { return rel(a) > rel(b); });
    top_.resize(k);
    top_complete_ = k == static_cast<size_t>(std::count_if(loads_.begin(), loads_.end(), [](double v) { return v > 0; }));
  }
  void begin() {
    ++stamp_;
    changed_.clear();
  }
  // Moves `bytes` from the route src -> dst, whose links (in route order)
  // are given, to the route new_src -> new_dst; returns the change of
  // bytes x weighted distance.
  double reroute(const Route& route, int src, int dst, int new_src, int new_dst, double bytes) {
    add_links(route, -bytes);
    add(new_src, new_dst, bytes);
    return bytes * (t_.weighted_distance(new_src, new_dst) - t_.weighted_distance(src, dst));
  }
  void add(int src, int dst, double bytes) {
    if (src == dst) return;
    t_.route(src, dst, path_);
    for (const Hop& h : path_) add_to(h.link, bytes);
  }
  void add_links(const Route& route, double bytes) {
    for (const int* l = route.first; l != route.last; ++l) add_to(*l, bytes);
  }
  LoadState state_after(const LoadState& state) const {
    LoadState s = state;
    double changed_max = 0;
    int left_max = 0, joined_max = 0;
    for (int l : changed_) {
      const double cap = t_.link_capacity(l);
      const double was = saved_[l] / cap, now = loads_[l] / cap;
      s.squares += now * now - was * was;
      changed_max = std::max(changed_max, now);
      const bool was_at = was >= state.max * (1 - 1e-9), now_at = now >= state.max * (1 - 1e-9);
      left_max += was_at && !now_at;
      joined_max += !was_at && now_at && now <= state.max * (1 + 1e-9);
    }
    if (changed_max > state.max * (1 + 1e-9)) {
      s.max = changed_max;
      s.at_max = 0;
      for (int l : changed_)
        if (loads_[l] / t_.link_capacity(l) >= changed_max * (1 - 1e-9)) ++s.at_max;
    } else if (state.at_max - left_max + joined_max > 0) {
      s.at_max = state.at_max - left_max + joined_max;
    } else if (!runner_up(changed_max, s)) {
      s = load_state(t_, loads_);
    }
    return s;
  }
  void undo() {
    for (int l : changed_) loads_[l] = saved_[l];
  }

 private:
  void add_to(int link, double bytes) {
    if (mark_[link] != stamp_) {
      mark_[link] = stamp_;
      changed_.push_back(link);
      saved_[link] = loads_[link];
    }
    loads_[link] += bytes;
  }
  // Every busiest link got lighter: the new max is the busiest unchanged
  // link (from the ranked list, whose unchanged loads are still exact) or a
  // changed one. False when the list cannot tell (all of it changed or tied).
  bool runner_up(double changed_max, LoadState& s) const {
    double unchanged_max = -1;
    int unchanged_at = 0;
    bool decided = top_complete_;
    for (int l : top_) {
      if (mark_[l] == stamp_) continue;
      const double rel = loads_[l] / t_.link_capacity(l);
      if (unchanged_max < 0) {
        unchanged_max = rel;
        unchanged_at = 1;
      } else if (rel >= unchanged_max * (1 - 1e-9)) {
        ++unchanged_at;
      } else {
        decided = true;
        break;
      }
    }
    if (!decided) return false;
    s.max = std::max(changed_max, std::max(unchanged_max, 0.0));
    s.at_max = unchanged_max >= s.max * (1 - 1e-9) ? unchanged_at : 0;
    for (int l : changed_)
      if (loads_[l] > 0 && loads_[l] / t_.link_capacity(l) >= s.max * (1 - 1e-9)) ++s.at_max;
    return true;
  }

 private:
  const Network& t_;
  std::vector<double>& loads_;
  std::vector<int> mark_;
  std::vector<double> saved_;
  std::vector<int> changed_;
  std::vector<int> top_;
  bool top_complete_ = false;
  std::vector<Hop> path_;
  int stamp_ = 0;
};

// The flows crossing each link and the route of each flow, kept up to date
// as flows move: each step of the relief needs the flows on its busiest
// links, and each trial the routes its flows leave. Routing every flow to
// find the first was most of the relief's time at 32k ranks (196k rank flows
// of the random pattern, ~10 hops each, 16 steps per call); the second
// halves the routing of the trials.
// Memory is one int per hop plus a few words per flow and per link: the
// lists are one array in link order, built once, and a flow that moves is
// marked and listed anew in `moved_on_`, which only moved flows enter (a few
// hundred per relief). Vectors per link cost 60 MB at 262,144 ranks.
class FlowsOnLinks {
 public:
  FlowsOnLinks(const Network& t, size_t flows)
      : t_(t), route_at_(flows, 0), moved_(flows, 0), has_moved_on_(static_cast<size_t>(t.link_slots()), 0) {
    pool_.push_back(0);  // at 0: the empty route of every flow not added
  }
  // Routes the flow src -> dst; every flow before index().
  void add(int flow, int src, int dst) { route_at_[static_cast<size_t>(flow)] = append_route(src, dst); }
  // Lists the flows added so far on the links of their routes.
  void index() {
    start_.assign(has_moved_on_.size() + 1, 0);
    for (size_t f = 0; f < route_at_.size(); ++f) {
      const Route r = route(static_cast<int>(f));
      for (const int* l = r.first; l != r.last; ++l) ++start_[static_cast<size_t>(*l) + 1];
    }
    for (size_t l = 1; l < start_.size(); ++l) start_[l] += start_[l - 1];
    listed_.resize(start_.back());
    std::vector<size_t> fill(start_.begin(), start_.end() - 1);
    for (size_t f = 0; f < route_at_.size(); ++f) {
      const Route r = route(static_cast<int>(f));
      for (const int* l = r.first; l != r.last; ++l) listed_[fill[static_cast<size_t>(*l)]++] = static_cast<int>(f);
    }
  }
  // Moves the flow onto the route src -> dst (after index()).
  void move(int flow, int src, int dst) {
    const auto f = static_cast<size_t>(flow);
    if (moved_[f]) {
      const Route r = route(flow);
      for (const int* l = r.first; l != r.last; ++l) {
        std::vector<int>& on = moved_on_[*l];
        *std::find(on.begin(), on.end(), flow) = on.back();
        on.pop_back();
      }
    }
    moved_[f] = 1;  // its entries in listed_ are stale from now on
    route_at_[f] = append_route(src, dst);
    const Route r = route(flow);
    for (const int* l = r.first; l != r.last; ++l) {
      moved_on_[*l].push_back(flow);
      has_moved_on_[static_cast<size_t>(*l)] = 1;
    }
  }
  // The links of the flow's current route, in route order (valid until the
  // next add or move).
  Route route(int flow) const {
    const int* at = pool_.data() + route_at_[static_cast<size_t>(flow)];
    return Route{at + 1, at + 1 + *at};
  }
  // Calls visit(flow) for every flow whose route crosses a link loaded to at
  // least `level` (bytes / capacity) within a rounding error; a flow crossing
  // several such links is visited once per link, in no particular order.
  template <class Visit>
  void each_on_busiest(const std::vector<double>& loads, double level, Visit visit) const {
    for (size_t l = 0; l + 1 < start_.size(); ++l) {
      if (start_[l] == start_[l + 1] && !has_moved_on_[l]) continue;
      if (loads[l] / t_.link_capacity(static_cast<int>(l)) < level * (1 - 1e-9)) continue;
      for (size_t k = start_[l]; k < start_[l + 1]; ++k)
        if (!moved_[static_cast<size_t>(listed_[k])]) visit(listed_[k]);
      if (has_moved_on_[l])
        for (int f : moved_on_.at(static_cast<int>(l))) visit(f);
    }
  }

 private:
  // Appends the route src -> dst to the pool as its length, then its links.
  size_t append_route(int src, int dst) {
    const size_t at = pool_.size();
    pool_.push_back(0);
    if (src != dst) {
      t_.route(src, dst, path_);
      for (const Hop& h : path_) pool_.push_back(h.link);
      pool_[at] = static_cast<int>(path_.size());
    }
    return at;
  }

  const Network& t_;
  std::vector<int> pool_;         // routes: length, then link ids
  std::vector<size_t> route_at_;  // per flow: its route in the pool
  std::vector<char> moved_;       // per flow: moved since index()
  std::vector<size_t> start_;     // per link: its flows in listed_
  std::vector<int> listed_;
  std::vector<char> has_moved_on_;  // per link: moved_on_ has an entry
  std::unordered_map<int, std::vector<int>> moved_on_;  // link -> moved flows on it
  std::vector<Hop> path_;
};

}  // namespace

int relieve_rank_links(const Traffic& traffic, const Network& torus, const Allocation& allocation,
                       std::vector<int>& node_of, int max_swaps, double cost_budget, const RankReliefTabu& tabu,
                       int threads) {
  const int nn = torus.nodes();
  const int n = traffic.ranks;
  // Every flow is routed and listed on its links: on dense traffic
  // (all-to-all: a million flows at 1,024 ranks, and every placement of a
  // full torus loads the links alike) that costs seconds for nothing.
  if (traffic.flows.size() > 32 * static_cast<size_t>(std::max(n, 1))) return 0;
  std::vector<std::vector<int>> incident(static_cast<size_t>(n)), members(static_cast<size_t>(nn));
  for (size_t i = 0; i < traffic.flows.size(); ++i) {
    const Flow& f = traffic.flows[i];
    if (f.bytes <= 0) continue;
    incident[f.src].push_back(static_cast<int>(i));
    incident[f.dst].push_back(static_cast<int>(i));
  }
  for (int r = 0; r < n; ++r) members[node_of[r]].push_back(r);
  const std::vector<int> start_node_of = tabu.tenure > 0 ? node_of : std::vector<int>{};
  std::vector<double> loads = torus.link_loads(node_flows(traffic, node_of));
  LoadState state = load_state(torus, loads);
  double cost = 0;
  for (const Flow& f : traffic.flows) cost += f.bytes * torus.weighted_distance(node_of[f.src], node_of[f.dst]);
  double budget = 1e-12 * cost + cost_budget;
  FlowsOnLinks on_links(torus, traffic.flows.size());
  for (size_t i = 0; i < traffic.flows.size(); ++i) {
    const Flow& f = traffic.flows[i];
    if (f.bytes > 0) on_links.add(static_cast<int>(i), node_of[f.src], node_of[f.dst]);
  }
  on_links.index();
  // A step's trials are independent (each is undone exactly), so they are
  // priced on up to `threads` workers, each on its own copy of the loads
  // (the first on `loads` itself), and then taken in their fixed order: the
  // same steps on any number of threads. At 32k ranks a step prices ~1,500
  // trials of ~14 rerouted flows each.
  struct Worker {
    std::vector<double> own_loads;  // empty for the first worker
    std::optional<TrialLoads> trial;
    std::vector<int> stamp, affected;
    int stamp_id = 0;
  };
  std::vector<Worker> workers(static_cast<size_t>(std::max(1, threads)));
  for (size_t w = 0; w < workers.size(); ++w) {
    Worker& wk = workers[w];
    if (w > 0) wk.own_loads = loads;
    wk.trial.emplace(torus, w == 0 ? loads : wk.own_loads);
    wk.stamp.assign(traffic.flows.size(), -1);
  }
  TrialLoads& trial = *workers[0].trial;
  std::vector<int> hot_ranks, cand;
  std::vector<char> is_hot_rank(static_cast<size_t>(n), 0);
  std::vector<std::pair<double, int>> attached;
  // Tabu mode: the step a rank may move again, and the best placement seen
  // (by max, links at the max, sum of squares, then cost).
  const bool tabu_mode = tabu.tenure > 0;
  std::vector<int> frozen_until(tabu_mode ? static_cast<size_t>(n) : 0, 0);
  LoadState best_seen = state;
  double cost_now = 0, best_seen_cost = 0;
  std::vector<int> best_seen_node_of;
  int since_best = 0;
  // The flows of r and s, each once, into the worker's `affected`.
  auto collect = [&](Worker& wk, int r, int s) {
    ++wk.stamp_id;
    wk.affected.clear();
    for (int v : {r, s})
      if (v >= 0)
        for (int i : incident[v])
          if (wk.stamp[i] != wk.stamp_id) {
            wk.stamp[i] = wk.stamp_id;
            wk.affected.push_back(i);
          }
  };
  // A trial: rank r to node b, and s (or none: -1) from b to r's node.
  struct Trial {
    int r, b, s;
    LoadState after;
    double cost_delta = 0;
  };
  std::vector<Trial> trials;
  int swap = 0;
  for (; swap < max_swaps && state.max > 0; ++swap) {
    // Ranks with a flow across a busiest link, the heaviest such flow first.
    // (A flow on several busiest links is listed once per link: the
    // duplicates are equal pairs and change neither the order nor the pick.)
    std::vector<std::pair<double, int>> hot;
    on_links.each_on_busiest(loads, state.max, [&](int i) {
      const Flow& f = traffic.flows[i];
      hot.push_back({f.bytes, f.src});
      hot.push_back({f.bytes, f.dst});
    });
    std::sort(hot.begin(), hot.end(), [](auto& x, auto& y) { return x.first != y.first ? x.first > y.first : x.second < y.second; });
    // A tabu search tries the ranks free to move first, so that frozen ones
    // do not fill the list.
    if (tabu_mode)
      std::stable_partition(hot.begin(), hot.end(), [&](const auto& h) { return frozen_until[h.second] <= swap; });
    hot_ranks.clear();
    for (auto [bytes, r] : hot)
      if (!is_hot_rank[r] && static_cast<int>(hot_ranks.size()) < kMaxHotRanks) {
        is_hot_rank[r] = 1;
        hot_ranks.push_back(r);
      }
    for (int r : hot_ranks) is_hot_rank[r] = 0;
    trials.clear();
    for (int r : hot_ranks) {
      const int a = node_of[r];
      // Places: a's torus neighbours and the nodes of r's partners.
      torus.neighbors(a, cand);
      // ... and the three nodes it exchanges most bytes with.
      attached.clear();
      for (int i : incident[r]) {
        const Flow& f = traffic.flows[i];
        attached.push_back({f.bytes, node_of[f.src == r ? f.dst : f.src]});
      }
      std::sort(attached.begin(), attached.end(), [](auto& x, auto& y) { return x.second < y.second; });
      size_t merged = 0;
      for (size_t i = 0; i < attached.size();) {
        auto q = attached[i++];
        while (i < attached.size() && attached[i].second == q.second) q.first += attached[i++].first;
        attached[merged++] = q;
      }
      attached.resize(merged);
      std::sort(attached.begin(), attached.end(), [](auto& x, auto& y) { return x.first != y.first ? x.first > y.first : x.second < y.second; });
      for (size_t i = 0; i < attached.size() && i < 3; ++i) cand.push_back(attached[i].second);
      std::sort(cand.begin(), cand.end());
      cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
      for (int b : cand) {
        if (b < 0 || b == a || !allocation.contains(b)) continue;
        const bool room = static_cast<int>(members[b].size()) < allocation.slots(b);
        const size_t options = members[b].size() + (room ? 1 : 0);
        for (size_t k = 0; k < options; ++k) trials.push_back(Trial{r, b, k < members[b].size() ? members[b][k] : -1, {}, 0});
      }
    }
    // Each worker prices a contiguous share of the trials. The copies are
    // made before any trial: the first worker's trials change `loads` while
    // they run.
    const size_t shares = std::min(workers.size(), std::max<size_t>(1, trials.size()));
    for (size_t w = 1; w < shares; ++w) std::copy(loads.begin(), loads.end(), workers[w].own_loads.begin());
    parallel_for(shares, static_cast<int>(shares), [&](size_t w) {
      Worker& wk = workers[w];
      wk.trial->rank_links();
      for (size_t t = trials.size() * w / shares; t < trials.size() * (w + 1) / shares; ++t) {
        Trial& tr = trials[t];
        const int a = node_of[tr.r];
        auto place = [&](int v) { return v == tr.r ? tr.b : (v == tr.s ? a : node_of[v]); };
        collect(wk, tr.r, tr.s);
        wk.trial->begin();
        for (int i : wk.affected) {
          const Flow& f = traffic.flows[i];
          tr.cost_delta += wk.trial->reroute(on_links.route(i), node_of[f.src], node_of[f.dst], place(f.src), place(f.dst), f.bytes);
        }
        tr.after = wk.trial->state_after(state);
        wk.trial->undo();
      }
    });
    LoadState best = state;
    int best_r = -1, best_b = -1, best_s = -1;
    double best_delta = 0;
    // Tabu mode: the best move allowed, uphill too.
    LoadState step_best;
    double step_delta = 0;
    int step_r = -1, step_b = -1, step_s = -1;
    for (const Trial& tr : trials) {
      const int r = tr.r, b = tr.b, s = tr.s;
      const LoadState& after = tr.after;
      const double cost_delta = tr.cost_delta;
      if (tabu_mode) {
        if (cost_delta > budget) continue;
        const bool free_to_move = frozen_until[r] <= swap && (s < 0 || frozen_until[s] <= swap);
        if (!free_to_move && !lower_loads(after, cost_now + cost_delta, best_seen, best_seen_cost)) continue;
        if (step_r < 0 || lower_loads(after, cost_delta, step_best, step_delta)) {
          step_best = after;
          step_delta = cost_delta;
          step_r = r;
          step_b = b;
          step_s = s;
        }
        continue;
      }
      if (preferred(after, cost_delta, budget, state, best)) {
        best = after;
        best_delta = cost_delta;
        best_r = r;
        best_b = b;
        best_s = s;
      }
    }
    if (tabu_mode) {
      if (step_r < 0) break;
      best_r = step_r;
      best_b = step_b;
      best_s = step_s;
      best_delta = step_delta;
      // Frozen for a tenure drawn in [tenure, 2 tenure): a fixed one can
      // cycle (Taillard's robust tabu search).
      const int hold = tabu.tenure + static_cast<int>(derived_seed(tabu.seed, swap + 1) % static_cast<std::uint64_t>(tabu.tenure));
      frozen_until[step_r] = swap + 1 + hold;
      if (step_s >= 0) frozen_until[step_s] = swap + 1 + hold;
    }
    if (best_r < 0) break;
    budget -= best_delta;
    cost_now += best_delta;
    const int a = node_of[best_r];
    auto place = [&](int v) { return v == best_r ? best_b : (v == best_s ? a : node_of[v]); };
    collect(workers[0], best_r, best_s);
    trial.begin();
    for (int i : workers[0].affected) {
      const Flow& f = traffic.flows[i];
      trial.reroute(on_links.route(i), node_of[f.src], node_of[f.dst], place(f.src), place(f.dst), f.bytes);
      on_links.move(i, place(f.src), place(f.dst));
    }
    auto& ma = members[a];
    ma.erase(std::find(ma.begin(), ma.end(), best_r));
    members[best_b].push_back(best_r);
    if (best_s >= 0) {
      auto& mb = members[best_b];
      mb.erase(std::find(mb.begin(), mb.end(), best_s));
      ma.push_back(best_s);
      node_of[best_s] = a;
    }
    node_of[best_r] = best_b;
    state = load_state(torus, loads);
    if (tabu_mode) {
      if (lower_loads(state, cost_now, best_seen, best_seen_cost)) {
        best_seen = state;
        best_seen_cost = cost_now;
        best_seen_node_of = node_of;
        since_best = 0;
      } else if (++since_best >= tabu.patience) {
        ++swap;
        break;
      }
    }
  }
  if (tabu_mode) {
    // The best placement seen; the start when nothing beat it.
    if (best_seen_node_of.empty()) {
      node_of = start_node_of;
      return 0;
    }
    node_of = std::move(best_seen_node_of);
  }
  return swap;
}

int relieve_links(const Traffic& traffic, const Network& torus, const Allocation& allocation, std::vector<int>& node_of,
                  int max_swaps, double cost_budget) {
  const std::vector<int>& nodes = allocation.nodes();
  const int nn = torus.nodes();
  std::vector<NodeFlow> flows = node_flows(traffic, node_of);
  // Every flow is routed and listed on its links: on dense traffic
  // (all-to-all, where every placement of a full torus loads the links alike
  // anyway) that costs seconds for nothing.
  if (flows.size() > kMaxFlowsPerNode * nodes.size()) return 0;
  std::vector<std::vector<int>> touching(static_cast<size_t>(nn)), members(static_cast<size_t>(nn));
  for (size_t i = 0; i < flows.size(); ++i) {
    touching[flows[i].src].push_back(static_cast<int>(i));
    touching[flows[i].dst].push_back(static_cast<int>(i));
  }
  for (size_t r = 0; r < node_of.size(); ++r) members[node_of[r]].push_back(static_cast<int>(r));
  std::vector<double> loads = torus.link_loads(flows);
  LoadState state = load_state(torus, loads);
  double cost = 0;
  for (const NodeFlow& f : flows) cost += f.bytes * torus.weighted_distance(f.src, f.dst);
  double budget = 1e-12 * cost + cost_budget;
  TrialLoads trial(torus, loads);
  FlowsOnLinks on_links(torus, flows.size());
  for (size_t i = 0; i < flows.size(); ++i) on_links.add(static_cast<int>(i), flows[i].src, flows[i].dst);
  on_links.index();
  std::vector<int> stamp(flows.size(), -1), affected;
  int stamp_id = 0;
  // The flows with an end on x or y, each once: the only ones a swap reroutes.
  auto collect_affected = [&](int x, int y) {
    ++stamp_id;
    affected.clear();
    for (int n : {x, y})
      for (int i : touching[n])
        if (stamp[i] != stamp_id) {
          stamp[i] = stamp_id;
          affected.push_back(i);
        }
  };
  int swap = 0;
  for (; swap < max_swaps; ++swap) {
    // The busiest links and the nodes whose flows cross them.
    std::vector<int> ends;
    on_links.each_on_busiest(loads, state.max, [&](int i) {
      ends.push_back(flows[i].src);
      ends.push_back(flows[i].dst);
    });
    std::sort(ends.begin(), ends.end());
    ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
    trial.rank_links();
    LoadState best = state;
    int best_x = -1, best_y = -1;
    double best_delta = 0;
    std::vector<int> near;
    for (int x : ends) {
      torus.neighbors(x, near);
      for (size_t k = 0; k < near.size(); ++k) {
        const int y = near[k];
        // A neighbour listed twice in a row (both ways round a ring of two)
        // is the same trial twice: the second cannot beat the first.
        if (k > 0 && y == near[k - 1]) continue;
        // Contents are swapped whole: each must fit the other node's slots.
        if (y == x || !allocation.contains(y) || static_cast<int>(members[x].size()) > allocation.slots(y) ||
            static_cast<int>(members[y].size()) > allocation.slots(x))
          continue;
        // Swap the contents of x and y on the scratch loads: the flows
        // touching either change ends, the others keep their routes.
        auto moved = [&](int a) { return a == x ? y : (a == y ? x : a); };
        collect_affected(x, y);
        trial.begin();
        double cost_delta = 0;
        for (int i : affected) {
          const NodeFlow& f = flows[i];
          cost_delta += trial.reroute(on_links.route(i), f.src, f.dst, moved(f.src), moved(f.dst), f.bytes);
        }
        const LoadState s = trial.state_after(state);
        trial.undo();
        if (preferred(s, cost_delta, budget, state, best)) {
          best_delta = cost_delta;
          best = s;
          best_x = x;
          best_y = y;
        }
      }
    }
    if (best_x < 0) break;
    budget -= best_delta;
    const int x = best_x, y = best_y;
    auto moved = [&](int a) { return a == x ? y : (a == y ? x : a); };
    collect_affected(x, y);
    trial.begin();
    for (int i : affected) {
      NodeFlow& f = flows[i];
      trial.reroute(on_links.route(i), f.src, f.dst, moved(f.src), moved(f.dst), f.bytes);
      on_links.move(i, moved(f.src), moved(f.dst));
      f.src = moved(f.src);
      f.dst = moved(f.dst);
    }
    std::swap(touching[x], touching[y]);
    std::swap(members[x], members[y]);
    for (int r : members[x]) node_of[r] = x;
    for (int r : members[y]) node_of[r] = y;
    state = load_state(torus, loads);
  }
  return swap;
}

bool relieve_by_symmetry(const Traffic& traffic, const Network& net, const Allocation& allocation,
                         std::vector<int>& node_of) {
  const Torus* const t = net.as_torus();
  if (!t) return false;
  const std::vector<NodeFlow> flows = node_flows(traffic, node_of);
  if (flows.empty() || flows.size() > kMaxFlowsPerNode * allocation.nodes().size()) return false;
  LoadState best = load_state(net, net.link_loads(flows));
  std::vector<int> best_map;
  std::vector<NodeFlow> image(flows.size());
  std::int64_t budget = kMaxImageFlows;
  bool identity = true;
  TorusSymmetries(*t, TorusSymmetries::kWithoutTranslations).for_each([&](const std::vector<int>& map) {
    if (identity) {  // the placement itself, scored above
      identity = false;
      return;
    }
    if (budget <= 0) return;
    if (!keeps_allocation(allocation, map)) return;
    budget -= static_cast<std::int64_t>(flows.size());
    for (size_t i = 0; i < flows.size(); ++i)
      image[i] = NodeFlow{map[static_cast<size_t>(flows[i].src)], map[static_cast<size_t>(flows[i].dst)], flows[i].bytes};
    const LoadState s = load_state(net, net.link_loads(image));
    if (s.better_than(best)) {
      best = s;
      best_map = map;
    }
  });
  if (best_map.empty()) return false;
  for (int& a : node_of) a = best_map[static_cast<size_t>(a)];
  return true;
}

}  // namespace rankmap::detail
