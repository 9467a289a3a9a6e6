// The collective model: the point-to-point messages MPICH 4.0's default
// algorithm sends for one call (rankmap/mpich_collectives.hpp, the same
// rounds trace mode writes for sub-communicators), every member's sends
// summed, each counted `calls` times. docs/mapper.md has the table.
//
// The rings (allgather, allgatherv, a long broadcast's second half) and the
// pairwise exchange take n - 1 rounds per member, n^2 in all: those are
// summed here in closed form (a ring is one flow per member; the pairwise
// exchange n - 1), so a world communicator of 32k ranks costs O(n) or
// O(n^2) flows, never n^2 rounds built and thrown away.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>

#include "rankmap/comm_graph.hpp"
#include "rankmap/mpich_collectives.hpp"

namespace rankmap {

namespace {

// The rounds are computed at a whole number of bytes per call; a record's
// mean payload can be fractional (calls of different sizes), so each message
// is scaled back to it and the flows carry the record's bytes exactly.
struct Payload {
  std::uint64_t bytes = 0;  // what the algorithms are run with
  double scale = 0;         // bytes of the record per byte of `bytes`
};
Payload payload(double mean) {
  if (mean <= 0) return {};
  const auto whole = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(mean)));
  return {whole, mean / static_cast<double>(whole)};
}

// Above this many members the pairwise exchange (every member to every other,
// n (n - 1) flows: a million at 1,024, and as dense a graph) is modelled as
// the ring instead: the same bytes leave every member, to one partner.
constexpr int kMaxPairwiseMembers = 1024;

}  // namespace

bool expand_collective(const CollectiveRecord& record, const std::vector<int>& members, std::vector<Flow>& out) {
  const int n = static_cast<int>(members.size());
  const double calls = static_cast<double>(record.calls);
  const double m = calls > 0 ? static_cast<double>(record.bytes) / calls : 0;  // payload of one call
  const int root = record.root < 0 ? 0 : record.root;
  const std::string& op = record.op;
  // gather/scatter/allgather/reduce_scatter records carry the whole buffer
  // (n blocks, docs/profiler.md); their algorithms take one member's block.
  const bool by_block = op == "gather" || op == "gatherv" || op == "scatter" || op == "scatterv" ||
                        op == "allgather" || op == "allgatherv" || op == "reduce_scatter" ||
                        op == "reduce_scatter_block";
  const Payload p = payload(by_block && n > 0 ? m / n : m);

  if (n <= 1) return true;
  auto emit = [&](int from, int to, double messages, double bytes) {
    out.push_back(Flow{members[static_cast<size_t>(from)], members[static_cast<size_t>(to)], calls * messages,
                       calls * bytes * p.scale});
  };
  // n - 1 blocks from every member to the next: the ring, summed.
  auto ring = [&] {
    for (int me = 0; me < n; ++me) emit(me, (me + 1) % n, n - 1, static_cast<double>(p.bytes) * (n - 1));
  };
  const std::uint64_t total = p.bytes * static_cast<std::uint64_t>(n);
  // allgatherv's blocks are the record's total split evenly: allgather's rounds.
  if ((op == "allgather" || op == "allgatherv") && mpich::allgather_uses_ring(n, p.bytes)) {
    ring();
    return true;
  }
  if (op == "bcast" && mpich::bcast_uses_ring(n, p.bytes)) {
    // The scatter down the tree, then the ring: member me passes every
    // piece but that of the member after it on to me + 1.
    for (int me = 0; me < n; ++me) {
      for (const mpich::Round& round : mpich::bcast_scatter(n, me, root, p.bytes))
        for (const mpich::Message& message : round.sends) emit(me, message.peer, 1, static_cast<double>(message.bytes));
      const int after = ((me - root + n) % n + 1) % n;  // relative rank of me + 1
      emit(me, (me + 1) % n, n - 1, static_cast<double>(p.bytes - mpich::bcast_pieces(n, p.bytes, after, 1)));
    }
    return true;
  }
  if ((op == "reduce_scatter" || op == "reduce_scatter_block") && mpich::reduce_scatter_uses_pairwise(total)) {
    if (n > kMaxPairwiseMembers) {
      ring();
    } else {
      for (int me = 0; me < n; ++me)
        for (int i = 1; i < n; ++i) emit(me, (me + i) % n, 1, static_cast<double>(p.bytes));
    }
    return true;
  }

  // gatherv and scatterv take every member's block (the total split evenly).
  std::vector<std::uint64_t> blocks;
  if (op == "gatherv" || op == "scatterv") blocks.assign(static_cast<size_t>(n), p.bytes);
  std::function<mpich::Rounds(int me)> rounds_of;
  if (op == "barrier")
    rounds_of = [&](int me) { return mpich::barrier(n, me); };
  else if (op == "bcast")
    rounds_of = [&](int me) { return mpich::bcast(n, me, root, p.bytes); };
  else if (op == "reduce")
    rounds_of = [&](int me) { return mpich::reduce(n, me, root, p.bytes); };
  else if (op == "allreduce")
    rounds_of = [&](int me) { return mpich::allreduce(n, me, p.bytes); };
  else if (op == "scan" || op == "exscan")
    rounds_of = [&](int me) { return mpich::scan(n, me, p.bytes); };
  else if (op == "gather")
    rounds_of = [&](int me) { return mpich::gather(n, me, root, p.bytes); };
  else if (op == "scatter")
    rounds_of = [&](int me) { return mpich::scatter(n, me, root, p.bytes); };
  else if (op == "gatherv")
    rounds_of = [&](int me) { return mpich::gatherv(n, me, root, blocks); };
  else if (op == "scatterv")
    rounds_of = [&](int me) { return mpich::scatterv(n, me, root, blocks); };
  else if (op == "allgather" || op == "allgatherv")
    rounds_of = [&](int me) { return mpich::allgather(n, me, p.bytes); };
  else if (op == "reduce_scatter" || op == "reduce_scatter_block")
    rounds_of = [&](int me) { return mpich::reduce_scatter_block(n, me, p.bytes); };
  else
    return false;

  for (int me = 0; me < n; ++me)
    for (const mpich::Round& round : rounds_of(me))
      for (const mpich::Message& message : round.sends) emit(me, message.peer, 1, static_cast<double>(message.bytes));
  return true;
}

}  // namespace rankmap
