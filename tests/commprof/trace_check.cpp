// trace_check PROFILE INDEX [--min-compute SECONDS] [--flops F]
// Checks a trace written by libcommprof's trace mode against the profile of
// the same run (docs/profiler.md, "Trace mode"):
//  - the trace parses (rankmap::simulation::read_trace, SimGrid's rules);
//  - its traffic equals the profile's p2p records exactly (messages and
//    bytes per ordered pair; all-to-alls expanded on both sides);
//  - every send has its receive: per (source, destination, tag) as many
//    send/isend lines at the source as recv/irecv lines naming that source at
//    the destination (MPI_ANY_SOURCE receives must name the real sender),
//    and sendRecv halves pair up the same way;
//  - every isend/irecv is completed by a wait, or by a waitall of all that
//    is outstanding;
//  - each rank has as many of each collective as the profile records on
//    MPI_COMM_WORLD (and dups of it), and every rank the same;
//  - each rank's compute actions add up to at least SECONDS at F flop/s.
// Prints what it compared; exit status 0 = all hold, 1 = a difference.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "rankmap/profile.hpp"
#include "rankmap/replay.hpp"

namespace {

using Matrix = std::map<std::pair<int, int>, std::pair<unsigned long long, unsigned long long>>;

Matrix matrix_of(const std::vector<rankmap::PairTraffic>& list) {
  Matrix m;
  for (const auto& t : list) m[{t.src, t.dst}] = {t.messages, t.bytes};
  return m;
}

int errors = 0;

void fail(const std::string& what) {
  std::printf("%s\n", what.c_str());
  ++errors;
}

struct RankActions {
  std::map<std::string, long> collectives;
  long requests = 0;   // isend + irecv
  long completed = 0;  // wait lines + waitall counts
  double flops = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: trace_check PROFILE INDEX [--min-compute SECONDS] [--flops F]\n");
    return 2;
  }
  double min_compute = 0, flops = 1e9;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    if (opt == "--min-compute") min_compute = std::atof(argv[i + 1]);
    else if (opt == "--flops") flops = std::atof(argv[i + 1]);
    else return std::fprintf(stderr, "trace_check: unknown option %s\n", argv[i]), 2;
  }
  auto profile = rankmap::read_profile(argv[1]);
  if (!profile) return std::printf("profile: %s\n", profile.error().message.c_str()), 1;
  auto trace = rankmap::simulation::read_trace(argv[2]);
  if (!trace) return std::printf("trace does not parse: %s\n", trace.error().message.c_str()), 1;
  if (trace->ranks() != profile->ranks)
    return std::printf("trace has %d ranks, profile %d\n", trace->ranks(), profile->ranks), 1;
  const int ranks = trace->ranks();

  // Traffic, pair by pair.
  const Matrix from_trace = matrix_of(trace->p2p), from_profile = matrix_of(profile->p2p);
  for (const auto& [pair, v] : from_profile) {
    auto it = from_trace.find(pair);
    if (it == from_trace.end() || it->second != v)
      fail("p2p " + std::to_string(pair.first) + " -> " + std::to_string(pair.second) + ": profile " +
           std::to_string(v.first) + " messages " + std::to_string(v.second) + " bytes, trace " +
           (it == from_trace.end() ? "nothing" : std::to_string(it->second.first) + " messages " + std::to_string(it->second.second) + " bytes"));
  }
  for (const auto& [pair, v] : from_trace)
    if (!from_profile.count(pair))
      fail("p2p " + std::to_string(pair.first) + " -> " + std::to_string(pair.second) + ": only in the trace");

  // Sends against receives, requests against completions, collectives, compute.
  std::map<std::tuple<int, int, int>, long> sent, received;
  std::map<std::pair<int, int>, long> sendrecv_out, sendrecv_in;
  std::vector<RankActions> per_rank(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    std::ifstream in(trace->rank_files[static_cast<size_t>(r)]);
    RankActions& a = per_rank[static_cast<size_t>(r)];
    for (std::string line; std::getline(in, line);) {
      std::istringstream words(line);
      std::vector<std::string> w;
      for (std::string x; words >> x;) w.push_back(x);
      if (w.size() >= 3 && w[0] == "#" && w[1] == "commprof-collective") {
        if (w[2] != "end") ++a.collectives[w[2]];  // a sub-communicator's, written as its messages
        continue;
      }
      if (w.size() < 2) continue;
      const std::string& name = w[1];
      auto num = [&](size_t i) { return std::atoll(w.at(i).c_str()); };
      if (name == "send" || name == "isend") {
        ++sent[{r, static_cast<int>(num(2)), static_cast<int>(num(3))}];
        a.requests += name == "isend";
      } else if (name == "recv" || name == "irecv") {
        ++received[{static_cast<int>(num(2)), r, static_cast<int>(num(3))}];
        a.requests += name == "irecv";
      } else if (name == "sendRecv") {
        ++sendrecv_out[{r, static_cast<int>(num(3))}];
        ++sendrecv_in[{static_cast<int>(num(5)), r}];
      } else if (name == "wait") {
        ++a.completed;
      } else if (name == "waitall") {
        a.completed += num(2);
      } else if (name == "compute") {
        a.flops += std::atof(w[2].c_str());
      } else if (name != "init" && name != "finalize") {
        ++a.collectives[name];
      }
    }
    if (a.requests != a.completed)
      fail("rank " + std::to_string(r) + ": " + std::to_string(a.requests) + " isend/irecv but " +
           std::to_string(a.completed) + " completed by wait/waitall");
    if (a.flops < min_compute * flops)
      fail("rank " + std::to_string(r) + ": compute adds up to " + std::to_string(a.flops / flops) + " s, expected at least " +
           std::to_string(min_compute));
  }
  if (sent != received) {
    for (const auto& [key, n] : sent)
      if (received[key] != n)
        fail("tag " + std::to_string(std::get<2>(key)) + " " + std::to_string(std::get<0>(key)) + " -> " +
             std::to_string(std::get<1>(key)) + ": " + std::to_string(n) + " sends, " + std::to_string(received[key]) + " receives");
    for (const auto& [key, n] : received)
      if (!sent.count(key))
        fail("tag " + std::to_string(std::get<2>(key)) + " " + std::to_string(std::get<0>(key)) + " -> " +
             std::to_string(std::get<1>(key)) + ": a receive with no send (unresolved MPI_ANY_SOURCE?)");
  }
  if (sendrecv_out != sendrecv_in) fail("sendRecv: sends and receives do not pair up");

  // Collectives: every member of a communicator of two or more has its calls (ids name
  // communicators by members; those of sub-communicators are written as
  // their messages, between markers).
  std::vector<std::map<std::string, long>> expected_of(static_cast<size_t>(ranks));
  for (const auto& comm : profile->communicators)
    for (const auto& c : profile->collectives) {
      if (comm.world_ranks.size() < 2) continue;  // one rank: moves nothing, not written
      if (c.comm != comm.id) continue;
      const std::string op = c.op.rfind("reduce_scatter", 0) == 0 ? "reducescatter" : c.op;
      for (int member : comm.world_ranks)
        if (member >= 0 && member < ranks) expected_of[static_cast<size_t>(member)][op] += static_cast<long>(c.calls);
    }
  for (int r = 0; r < ranks; ++r) {
    const auto& expected = expected_of[static_cast<size_t>(r)];
    auto got = per_rank[static_cast<size_t>(r)].collectives;
    got.erase("alltoall");  // the profile has them as p2p
    got.erase("alltoallv");
    if (got != expected) {
      std::string g, e;
      for (const auto& [k, v] : got) g += " " + k + "=" + std::to_string(v);
      for (const auto& [k, v] : expected) e += " " + k + "=" + std::to_string(v);
      fail("rank " + std::to_string(r) + " collectives:" + g + "; profile:" + e);
    }
  }
  if (errors) {
    std::printf("%d difference(s) between the trace %s and the profile %s\n", errors, argv[2], argv[1]);
    return 1;
  }
  long receives = 0;
  for (const auto& [k, n] : received) receives += n;
  std::printf("trace matches the profile: %zu p2p pairs, %llu messages, %llu bytes; %ld receives paired with their sends; "
              "%zu kinds of collective at rank 0\n",
              from_profile.size(), static_cast<unsigned long long>(trace->p2p_messages()),
              static_cast<unsigned long long>(trace->p2p_bytes()), receives, expected_of[0].size());
  return 0;
}
