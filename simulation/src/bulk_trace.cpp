#include "rankmap/bulk_trace.hpp"

#include "rankmap/bulk_rounds.hpp"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <system_error>

namespace rankmap::simulation {

namespace {

// One pair as the program sends it: the first `rounds` of its `messages`
// messages, `bytes` in all.
struct Sent {
  int partner;
  std::uint64_t rounds;
  std::uint64_t messages;
  std::uint64_t bytes;
};

// The k-th of a pair's messages (k < messages): its bytes split as evenly as
// integers allow, the first bytes % messages one byte larger.
std::uint64_t message_bytes(const Sent& s, std::uint64_t k) {
  return s.bytes / s.messages + (k < s.bytes % s.messages ? 1 : 0);
}

// "<count> <datatype>" for b bytes: MPI_BYTE (id 6); above what SimGrid
// counts in an int, MPI_DOUBLE (id 0), rounded down to whole doubles (up
// would pass the profile's own bytes, which may be the 2^53 a profile holds).
std::string count_and_type(std::uint64_t b) {
  if (b <= static_cast<std::uint64_t>(INT_MAX)) return std::to_string(b) + " 6";
  return std::to_string(b / 8) + " 0";
}

}  // namespace

Result<BulkTrace> bulk_trace(int ranks, const std::vector<PairTraffic>& p2p, const BulkTraceOptions& options) {
  if (ranks <= 0) return make_error("a bulk trace needs at least one rank");
  std::uint64_t divisor = 0, most = 0;
  for (const PairTraffic& p : p2p) {
    if (p.src < 0 || p.src >= ranks || p.dst < 0 || p.dst >= ranks)
      return make_error("pair " + std::to_string(p.src) + " -> " + std::to_string(p.dst) + " is outside the " +
                        std::to_string(ranks) + " ranks");
    if (p.src == p.dst) return make_error("rank " + std::to_string(p.src) + " sends to itself");
    if (p.messages == 0) continue;
    divisor = std::gcd(divisor, p.messages);
    most = std::max(most, p.messages);
  }
  BulkTrace out;
  const BulkRounds schedule = bulk_rounds(divisor, most, options.min_rounds, options.max_rounds);
  out.divisor = schedule.divisor;
  out.exact = schedule.exact;
  // Counted before anything is written: a hostile profile (10^18 messages
  // on a pair, with no limit on rounds) fails here instead of filling memory.
  auto rounds_of = [&](const PairTraffic& p) { return bulk_pair_rounds(p.messages, out.divisor); };
  double actions = 2.0 * ranks;  // init, finalize
  for (const PairTraffic& p : p2p)
    if (p.messages > 0) actions += 2.0 * static_cast<double>(rounds_of(p)) + 1;  // send, receive, a share of the waitalls
  if (actions > static_cast<double>(options.max_actions))
    return make_error("the bulk-synchronous program would have about " + std::to_string(static_cast<long long>(actions)) +
                      " actions, more than " + std::to_string(options.max_actions) + ": limit its rounds");
  std::vector<std::vector<Sent>> sends(static_cast<size_t>(ranks)), receives(static_cast<size_t>(ranks));
  for (const PairTraffic& p : p2p) {
    if (p.messages == 0) continue;
    const std::uint64_t m = rounds_of(p);
    if (m * out.divisor != p.messages) out.exact = false;
    out.rounds = std::max(out.rounds, m);
    sends[static_cast<size_t>(p.src)].push_back({p.dst, m, p.messages, p.bytes});
    receives[static_cast<size_t>(p.dst)].push_back({p.src, m, p.messages, p.bytes});
  }
  // Partners in rank order: the same trace whatever the order of `p2p`.
  auto by_partner = [](const Sent& a, const Sent& b) { return a.partner < b.partner; };
  out.texts.resize(static_cast<size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    std::vector<Sent>& in = receives[static_cast<size_t>(r)];
    std::vector<Sent>& to = sends[static_cast<size_t>(r)];
    std::sort(in.begin(), in.end(), by_partner);
    std::sort(to.begin(), to.end(), by_partner);
    const std::string me = std::to_string(r) + " ";
    std::string& text = out.texts[static_cast<size_t>(r)];
    text = me + "init\n";
    for (std::uint64_t k = 0; k < out.rounds; ++k) {
      int requests = 0;
      for (const Sent& s : in)
        if (k < s.rounds) {
          text += me + "irecv " + std::to_string(s.partner) + " 0 " + count_and_type(message_bytes(s, k)) + "\n";
          ++requests;
        }
      for (const Sent& s : to)
        if (k < s.rounds) {
          text += me + "isend " + std::to_string(s.partner) + " 0 " + count_and_type(message_bytes(s, k)) + "\n";
          ++requests;
        }
      if (requests > 0) text += me + "waitall " + std::to_string(requests) + "\n";
    }
    text += me + "finalize\n";
  }
  return out;
}

Result<std::string> write_action_files(const std::string& dir, const std::vector<std::string>& texts) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path target = fs::absolute(dir, ec);
  if (ec) return make_error(dir + ": " + ec.message());
  if (!target.has_filename()) target = target.parent_path();  // "out/" names out
  if (fs::exists(target, ec)) return make_error(dir + ": exists; give a new directory");
  const fs::path parent = target.parent_path();
  std::string pattern = (parent / ".bulk-trace-XXXXXX").string();
  if (!mkdtemp(pattern.data())) return make_error(dir + ": cannot create a directory next to it");
  const fs::path tmp = pattern;
  auto give_up = [&](const std::string& what) -> Result<std::string> {
    fs::remove_all(tmp, ec);
    return make_error(what);
  };
  std::string index;
  for (size_t r = 0; r < texts.size(); ++r) {
    const std::string name = "r" + std::to_string(r) + ".txt";
    std::ofstream f(tmp / name, std::ios::binary);
    f << texts[r];
    if (!f.flush()) return give_up(dir + "/" + name + ": cannot write");
    index += name + "\n";
  }
  std::ofstream f(tmp / "index.txt", std::ios::binary);
  f << index;
  if (!f.flush()) return give_up(dir + "/index.txt: cannot write");
  f.close();
  fs::rename(tmp, target, ec);
  if (ec) return give_up(dir + ": " + ec.message());
  return (target / "index.txt").string();
}

}  // namespace rankmap::simulation
