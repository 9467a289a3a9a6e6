// The collective model: which point-to-point messages MPICH's default
// algorithms send for one call, simplified to a few size-independent or
// size-switched shapes. docs/mapper.md has the table; the thresholds are
// MPICH 4.0's defaults (MPIR_CVAR_*_SHORT_MSG_SIZE and friends).
#include <algorithm>
#include <string>

#include "rankmap/comm_graph.hpp"

namespace rankmap {

namespace {

constexpr double kAllreduceShort = 2048;     // recursive doubling below, Rabenseifner above
constexpr double kAllgatherLong = 524288;    // ring at or above (total bytes)
constexpr double kAllgatherShort = 81920;    // recursive doubling (power of two) / Bruck below

struct Emitter {
  const std::vector<int>& members;
  double calls;
  std::vector<Flow>& out;
  // One message per call from communicator rank a to b carrying `bytes`.
  void send(int a, int b, double bytes) const {
    if (a == b) return;
    out.push_back(Flow{members[a], members[b], calls, calls * bytes});
  }
};

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// Binomial tree rooted at `root`: calls visit(parent, child, subtree_size) for
// every tree edge. Relative rank vr = (rank - root) mod n; vr's parent is vr
// with its lowest set bit cleared, as in MPICH's MPIR_Bcast_intra_binomial.
template <class Visit>
void binomial_tree(int n, int root, Visit visit) {
  for (int vr = 1; vr < n; ++vr) {
    const int low = vr & -vr;
    const int parent = vr - low;
    const int subtree = std::min(low, n - vr);
    visit((parent + root) % n, (vr + root) % n, subtree);
  }
}

// Pairs of recursive doubling among the first power of two ranks after the
// non-power-of-two remainder is folded in (MPICH: the first 2*rem ranks pair
// up, odd ones carry on). visit(a, b, step) for each exchange, both directions.
template <class Fold, class Visit>
void recursive_doubling(int n, Fold fold, Visit visit) {
  int p2 = 1;
  while (p2 * 2 <= n) p2 *= 2;
  const int rem = n - p2;
  for (int i = 0; i < rem; ++i) fold(2 * i, 2 * i + 1);
  // New rank of the survivors: odd ranks below 2*rem, then everyone above.
  auto real = [&](int newrank) { return newrank < rem ? 2 * newrank + 1 : newrank + rem; };
  int step = 0;
  for (int mask = 1; mask < p2; mask <<= 1, ++step)
    for (int v = 0; v < p2; ++v) {
      const int partner = v ^ mask;
      visit(real(v), real(partner), step, p2);
    }
}

}  // namespace

bool expand_collective(const CollectiveRecord& record, const std::vector<int>& members, std::vector<Flow>& out) {
  const int n = static_cast<int>(members.size());
  const double calls = static_cast<double>(record.calls);
  const double m = calls > 0 ? static_cast<double>(record.bytes) / calls : 0;  // payload of one call
  // gather/scatter/allgather/reduce_scatter records carry the whole buffer
  // (n blocks, docs/profiler.md); the algorithms move blocks.
  const double block = m / n;
  const int root = record.root < 0 ? 0 : record.root;
  const std::string& op = record.op;
  Emitter e{members, calls, out};
  if (n <= 1) return true;

  if (op == "bcast") {
    binomial_tree(n, root, [&](int parent, int child, int) { e.send(parent, child, m); });
  } else if (op == "reduce") {
    binomial_tree(n, root, [&](int parent, int child, int) { e.send(child, parent, m); });
  } else if (op == "gather" || op == "gatherv") {
    // A child forwards its whole subtree's blocks.
    binomial_tree(n, root, [&](int parent, int child, int subtree) { e.send(child, parent, block * subtree); });
  } else if (op == "scatter" || op == "scatterv") {
    binomial_tree(n, root, [&](int parent, int child, int subtree) { e.send(parent, child, block * subtree); });
  } else if (op == "allreduce" || op == "scan" || op == "exscan") {
    const bool rabenseifner = op == "allreduce" && m > kAllreduceShort;
    recursive_doubling(
        n,
        [&](int even, int odd) {
          e.send(even, odd, m);  // fold in
          if (op == "allreduce") e.send(odd, even, m);  // result back out
        },
        [&](int a, int b, int step, int p2) {
          if (!rabenseifner) {
            e.send(a, b, m);
            return;
          }
          // Reduce-scatter by recursive halving sends m/2, m/4, ... over the
          // partners at distance p2/2, p2/4, ...; the allgather retraces the
          // same pairs with the same sizes. Step k of doubling pairs with the
          // halving step of the same distance.
          int steps = 0;
          while ((1 << steps) < p2) ++steps;
          const double part = m / static_cast<double>(1 << (steps - step));
          e.send(a, b, 2 * part);
        });
  } else if (op == "allgather" || op == "allgatherv") {
    const double total = m;
    if (total >= kAllgatherLong) {
      for (int i = 0; i < n; ++i) e.out.push_back(Flow{members[i], members[(i + 1) % n], calls * (n - 1), calls * block * (n - 1)});
    } else if (is_power_of_two(n) && total < kAllgatherShort) {
      for (int mask = 1; mask < n; mask <<= 1)
        for (int i = 0; i < n; ++i) e.send(i, i ^ mask, block * mask);
    } else {
      // Bruck: step k sends 2^k blocks (fewer at the last step) to rank i - 2^k.
      for (int k = 1; k < n; k <<= 1)
        for (int i = 0; i < n; ++i) e.send(i, (i - k + n) % n, block * std::min(k, n - k));
    }
  } else if (op == "reduce_scatter" || op == "reduce_scatter_block") {
    // Power of two: recursive halving (half the vector, then a quarter, ...);
    // otherwise modelled as a ring reduce-scatter (n-1 steps of one block to i+1).
    if (is_power_of_two(n)) {
      for (int mask = n / 2; mask >= 1; mask >>= 1)
        for (int i = 0; i < n; ++i) e.send(i, i ^ mask, block * mask);
    } else {
      for (int i = 0; i < n; ++i) e.out.push_back(Flow{members[i], members[(i + 1) % n], calls * (n - 1), calls * block * (n - 1)});
    }
  } else if (op == "barrier") {
    // Dissemination: messages only (zero bytes; they still cost latency).
    for (int k = 1; k < n; k <<= 1)
      for (int i = 0; i < n; ++i) e.send(i, (i + k) % n, 0);
  } else {
    return false;
  }
  return true;
}

}  // namespace rankmap
