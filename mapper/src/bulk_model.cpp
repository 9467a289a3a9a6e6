// The bulk model (docs/mapper.md, "Bulk model"):
// the program `rankmap-sim bulk-trace` writes, run in a flow-level
// simulation of our own instead of SimGrid's.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <queue>

#include "detail.hpp"
#include "rankmap/bulk_rounds.hpp"
#include "rankmap/mapper.hpp"

namespace rankmap {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// One ordered pair of ranks as the program sends it: `rounds` messages of
// `size` bytes, one per round.
struct Pair {
  int src = 0, dst = 0;
  int rounds = 0;
  double size = 0;
  double latency = 0;
  double weight = 1;       // share of a link: 1 / route latency, as SimGrid weighs a flow
  double fixed_bw = 0;     // > 0: inside one package, at this rate, unshared
  bool sender_waits = false;  // rendezvous: the send completes with the transfer
  int first_link = 0, links = 0;  // into route_links
};

class BulkSimulation {
 public:
  BulkSimulation(std::vector<Pair> pairs, std::vector<int> route_links, std::vector<double> capacity, int ranks)
      : pairs_(std::move(pairs)), route_links_(std::move(route_links)), capacity_(std::move(capacity)),
        out_(static_cast<size_t>(ranks)), in_(static_cast<size_t>(ranks)), round_(static_cast<size_t>(ranks), 0),
        last_round_(static_cast<size_t>(ranks), 0), pending_(static_cast<size_t>(ranks), 0),
        send_posted_(pairs_.size()), recv_posted_(pairs_.size()), link_cap_(capacity_.size()),
        link_weight_(capacity_.size()), link_unfixed_(capacity_.size(), 0) {
    for (size_t p = 0; p < pairs_.size(); ++p) {
      const Pair& q = pairs_[p];
      out_[static_cast<size_t>(q.src)].push_back(static_cast<int>(p));
      in_[static_cast<size_t>(q.dst)].push_back(static_cast<int>(p));
      for (int r : {q.src, q.dst}) last_round_[static_cast<size_t>(r)] = std::max(last_round_[static_cast<size_t>(r)], q.rounds);
    }
  }

  // The time the last rank finishes its last round; empty past `max_work`
  // or once `stop` is set.
  std::optional<double> run(std::int64_t max_work, const std::atomic<bool>* stop) {
    for (size_t r = 0; r < out_.size(); ++r) start_round(static_cast<int>(r));
    while (true) {
      double next = queue_.empty() ? kNever : queue_.top().time;
      for (const Active& a : active_)
        if (a.rate > 0) next = std::min(next, now_ + a.remaining / a.rate);
      if (next == kNever) break;
      if (++work_ > max_work || (stop && stop->load(std::memory_order_relaxed))) return std::nullopt;
      const double before = now_, dt = next - now_;
      now_ = next;
      bool changed = false;
      // Transfers that end now, then the queued events. A transfer ends when
      // its own finish time is the event's (within rounding): its remaining
      // bytes may not reach zero when the clock is far larger than the step.
      for (size_t i = 0; i < active_.size();) {
        Active& a = active_[i];
        const bool ends = a.rate > 0 && before + a.remaining / a.rate <= now_ * (1 + 1e-12);
        a.remaining -= a.rate * dt;
        if (ends || a.remaining <= 1e-9 * pairs_[static_cast<size_t>(a.pair)].size) {
          const Active done = a;
          active_[i] = active_.back();
          active_.pop_back();
          changed = true;
          arrive(done.pair);
          continue;
        }
        ++i;
      }
      while (!queue_.empty() && queue_.top().time <= now_ * (1 + 1e-12)) {
        const Event e = queue_.top();
        queue_.pop();
        if (e.arrives) {
          arrive(e.pair);
        } else {
          active_.push_back({e.pair, pairs_[static_cast<size_t>(e.pair)].size, 0});
          changed = true;
        }
      }
      if (changed) share_links();
    }
    // (A transfer left without bandwidth would leave its ranks waiting.)
    for (size_t r = 0; r < round_.size(); ++r)
      if (round_[r] < last_round_[r]) return std::nullopt;
    return finish_;
  }

 private:
  struct Event {
    double time;
    int pair;
    bool arrives;  // false: its latency is over and its bytes start to flow
    bool operator>(const Event& o) const { return time > o.time; }
  };
  struct Active {
    int pair;
    double remaining;
    double rate;
  };

  // Rank r posts its round: a receive per incoming pair, a send per outgoing
  // one; a round without requests ends at once.
  void start_round(int r) {
    while (round_[static_cast<size_t>(r)] < last_round_[static_cast<size_t>(r)]) {
      const int k = round_[static_cast<size_t>(r)];
      for (int p : in_[static_cast<size_t>(r)])
        if (k < pairs_[static_cast<size_t>(p)].rounds) {
          ++pending_[static_cast<size_t>(r)];
          post(p, recv_posted_[static_cast<size_t>(p)], send_posted_[static_cast<size_t>(p)]);
        }
      for (int p : out_[static_cast<size_t>(r)])
        if (k < pairs_[static_cast<size_t>(p)].rounds) {
          if (pairs_[static_cast<size_t>(p)].sender_waits) ++pending_[static_cast<size_t>(r)];
          post(p, send_posted_[static_cast<size_t>(p)], recv_posted_[static_cast<size_t>(p)]);
        }
      if (pending_[static_cast<size_t>(r)] > 0) return;
      ++round_[static_cast<size_t>(r)];
    }
    finish_ = std::max(finish_, now_);
  }

  // One side of pair p's next message is posted; it starts when the other
  // side has posted too (messages of a pair match in order).
  void post(int p, int& mine, int& theirs) {
    ++mine;
    if (mine > theirs) return;  // the other side has not posted this one yet
    const Pair& q = pairs_[static_cast<size_t>(p)];
    if (q.fixed_bw > 0 || !(q.size > 0))
      queue_.push({now_ + q.latency + (q.fixed_bw > 0 ? q.size / q.fixed_bw : 0.0), p, true});
    else
      queue_.push({now_ + q.latency, p, false});
  }

  void arrive(int p) {
    const Pair& q = pairs_[static_cast<size_t>(p)];
    complete(q.dst);
    if (q.sender_waits) complete(q.src);
  }

  void complete(int r) {
    if (--pending_[static_cast<size_t>(r)] > 0) return;
    ++round_[static_cast<size_t>(r)];
    start_round(r);
  }

  // Weighted max-min fair rates of the flowing transfers (progressive
  // filling: the link that gives the least per unit of weight fixes its
  // flows' rates, which leave the other links; repeat).
  void share_links() {
    touched_.clear();
    for (const Active& a : active_) {
      const Pair& q = pairs_[static_cast<size_t>(a.pair)];
      work_ += q.links;
      for (int i = 0; i < q.links; ++i) {
        const int l = route_links_[static_cast<size_t>(q.first_link + i)];
        if (link_unfixed_[static_cast<size_t>(l)]++ == 0) {
          touched_.push_back(l);
          link_cap_[static_cast<size_t>(l)] = capacity_[static_cast<size_t>(l)];
          link_weight_[static_cast<size_t>(l)] = 0;
        }
        link_weight_[static_cast<size_t>(l)] += q.weight;
      }
    }
    // Flows per link (CSR over the touched links).
    on_start_.assign(touched_.size() + 1, 0);
    slot_.resize(capacity_.size());
    for (size_t i = 0; i < touched_.size(); ++i) {
      slot_[static_cast<size_t>(touched_[i])] = static_cast<int>(i);
      on_start_[i + 1] = on_start_[i] + link_unfixed_[static_cast<size_t>(touched_[i])];
    }
    on_link_.resize(static_cast<size_t>(on_start_.back()));
    std::vector<int> fill(on_start_.begin(), on_start_.end() - 1);
    for (size_t f = 0; f < active_.size(); ++f) {
      const Pair& q = pairs_[static_cast<size_t>(active_[f].pair)];
      active_[f].rate = -1;
      for (int i = 0; i < q.links; ++i) {
        const int l = route_links_[static_cast<size_t>(q.first_link + i)];
        on_link_[static_cast<size_t>(fill[static_cast<size_t>(slot_[static_cast<size_t>(l)])]++)] = static_cast<int>(f);
      }
    }
    // The links by the level they would give, least first. Fixing a flow at
    // the least level only raises the level of its other links (the flow
    // took less than their average share), so an entry's key is at most
    // its link's level: a popped entry below its link's level goes back in
    // with the new one, and one that is still exact is the least link.
    // The entries are taken in (level, link) order from the initial levels,
    // sorted once, and from a heap of the re-entered ones (few): the same
    // order as one heap of them all, with which a whole `rankmap evaluate`
    // took ~1.4x as long (docs/mapper.md, "Bulk model").
    using Level = std::pair<double, int>;
    auto level_of = [&](int l) { return std::max(link_cap_[static_cast<size_t>(l)], 0.0) / link_weight_[static_cast<size_t>(l)]; };
    sorted_.clear();
    for (int l : touched_) sorted_.push_back({level_of(l), l});
    work_ += static_cast<std::int64_t>(touched_.size());
    std::sort(sorted_.begin(), sorted_.end());
    heap_.clear();
    size_t next = 0;
    while (next < sorted_.size() || !heap_.empty()) {
      Level entry;
      if (heap_.empty() || (next < sorted_.size() && sorted_[next] < heap_.front())) {
        entry = sorted_[next++];
      } else {
        std::pop_heap(heap_.begin(), heap_.end(), std::greater<Level>());
        entry = heap_.back();
        heap_.pop_back();
      }
      const auto [key, l] = entry;
      if (link_unfixed_[static_cast<size_t>(l)] == 0) continue;
      const double level = level_of(l);
      if (level > key * (1 + 1e-12)) {
        heap_.push_back({level, l});
        ++work_;
        std::push_heap(heap_.begin(), heap_.end(), std::greater<Level>());
        continue;
      }
      ++work_;
      const int slot = slot_[static_cast<size_t>(l)];
      for (int j = on_start_[static_cast<size_t>(slot)]; j < on_start_[static_cast<size_t>(slot) + 1]; ++j) {
        Active& a = active_[static_cast<size_t>(on_link_[static_cast<size_t>(j)])];
        if (a.rate >= 0) continue;
        const Pair& q = pairs_[static_cast<size_t>(a.pair)];
        a.rate = level * q.weight;
        for (int i = 0; i < q.links; ++i) {
          const size_t m = static_cast<size_t>(route_links_[static_cast<size_t>(q.first_link + i)]);
          link_cap_[m] -= a.rate;
          link_weight_[m] -= q.weight;
          --link_unfixed_[m];
        }
      }
    }
    for (int l : touched_) link_unfixed_[static_cast<size_t>(l)] = 0;
  }

  std::vector<Pair> pairs_;
  std::vector<int> route_links_;
  std::vector<double> capacity_;
  std::vector<std::vector<int>> out_, in_;
  std::vector<int> round_, last_round_, pending_;
  std::vector<int> send_posted_, recv_posted_;  // messages posted so far, per pair and side
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> queue_;
  std::vector<Active> active_;
  double now_ = 0, finish_ = 0;
  std::int64_t work_ = 0;  // flow-links visited and heap entries: what the run costs
  // share_links' scratch.
  std::vector<double> link_cap_, link_weight_;
  std::vector<int> link_unfixed_, touched_, on_start_, on_link_, slot_;
  std::vector<std::pair<double, int>> sorted_, heap_;
};

}  // namespace

std::optional<double> predicted_bulk_time(const Traffic& traffic, const std::vector<Placement>& placement,
                                          const Platform& platform, const BulkModelOptions& options) {
  return detail::predicted_bulk_time(traffic, placement, platform, options, nullptr);
}

std::optional<double> detail::predicted_bulk_time(const Traffic& traffic, const std::vector<Placement>& placement,
                                                  const Platform& platform, const BulkModelOptions& options,
                                                  const std::atomic<bool>* stop) {
  const Network& net = platform.net();
  const LatencyModel& lat = platform.latency;
  const IntraNodeCosts& intra = platform.intra_node;
  // Links: the network's, then the inter-socket ones, as the time model's.
  detail::SharedLinks links = detail::shared_links(platform);
  std::vector<double> counts;
  std::vector<const Flow*> flows;
  for (const Flow& f : traffic.flows) {
    // (At most 2^62 messages: a hostile profile's count still converts.)
    const double m = std::min(std::round(f.messages), 0x1p62);
    if (!(m >= 1)) continue;
    counts.push_back(m);
    flows.push_back(&f);
  }
  // Every pair's first message alone passes the cap: not worth routing them.
  if (static_cast<std::int64_t>(flows.size()) > options.max_work) return std::nullopt;
  // The rounds of rankmap-sim bulk-trace's program.
  std::uint64_t gcd = 0, most = 0;
  for (double c : counts) {
    gcd = std::gcd(gcd, static_cast<std::uint64_t>(c));
    most = std::max(most, static_cast<std::uint64_t>(c));
  }
  const BulkRounds rounds = bulk_rounds(gcd, most, options.min_rounds, options.max_rounds);
  std::vector<Pair> pairs;
  std::vector<int> route_links;
  std::vector<Hop> hops;
  for (size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = *flows[i];
    Pair q;
    q.src = f.src;
    q.dst = f.dst;
    q.rounds = static_cast<int>(std::min<std::uint64_t>(bulk_pair_rounds(static_cast<std::uint64_t>(counts[i]), rounds.divisor), INT_MAX));
    q.size = f.bytes / counts[i];
    q.sender_waits = q.size >= options.detached_below;
    q.first_link = static_cast<int>(route_links.size());
    const int a = placement[static_cast<size_t>(f.src)].node, b = placement[static_cast<size_t>(f.dst)].node;
    if (a == b) {
      const std::int64_t socket =
          links.socket_link(platform, a, placement[static_cast<size_t>(f.src)].core, placement[static_cast<size_t>(f.dst)].core);
      if (socket < 0) {
        q.latency = intra.shm_lat;
        q.fixed_bw = intra.shm_bw;
      } else {
        q.latency = intra.socket_lat;
        route_links.push_back(static_cast<int>(socket));
      }
    } else {
      net.route(a, b, hops);
      q.latency = lat.t_inj + static_cast<double>(hops.size()) * lat.t_hop;
      for (const Hop& h : hops) route_links.push_back(h.link);
    }
    q.links = static_cast<int>(route_links.size()) - q.first_link;
    q.weight = q.latency > 0 ? 1.0 / q.latency : 1.0;
    pairs.push_back(q);
  }
  BulkSimulation sim(std::move(pairs), std::move(route_links), std::move(links.capacity), traffic.ranks);
  // The program's rounds repeat `divisor` times.
  const std::optional<double> time = sim.run(options.max_work, stop);
  if (!time) return std::nullopt;
  return *time * static_cast<double>(rounds.divisor);
}

}  // namespace rankmap
