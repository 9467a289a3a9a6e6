// commprof_check ACTUAL (EXPECTED | --ring P MESSAGES UNIT_BYTES) [--max-mpi-per-wall X]
// Compares a whole profile written by libcommprof with the expected one:
// every p2p and osc record must match exactly (no missing, no extra). The
// per-rank timing and placement fields cannot be predicted, so they are
// checked for presence and sanity only. Exit status 0 = match, 1 = mismatch.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>
#include <utility>

#include "rankmap/profile.hpp"

namespace {

using Matrix = std::map<std::pair<int, int>, std::pair<unsigned long long, unsigned long long>>;

Matrix matrix_of(const std::vector<rankmap::PairTraffic>& list) {
  Matrix m;
  for (const auto& t : list) m[{t.src, t.dst}] = {t.messages, t.bytes};
  return m;
}

int compare(const char* what, const Matrix& actual, const Matrix& expected) {
  int errors = 0;
  for (const auto& [pair, e] : expected) {
    auto it = actual.find(pair);
    if (it == actual.end()) {
      std::printf("%s %d -> %d: missing, expected %llu messages %llu bytes\n", what, pair.first, pair.second, e.first, e.second);
      ++errors;
    } else if (it->second != e) {
      std::printf("%s %d -> %d: got %llu messages %llu bytes, expected %llu messages %llu bytes\n", what, pair.first,
                  pair.second, it->second.first, it->second.second, e.first, e.second);
      ++errors;
    }
  }
  for (const auto& [pair, a] : actual) {
    if (!expected.count(pair)) {
      std::printf("%s %d -> %d: unexpected record %llu messages %llu bytes\n", what, pair.first, pair.second, a.first, a.second);
      ++errors;
    }
  }
  return errors;
}

// Collective records keyed by the communicator's members (ids are arbitrary).
using CollKey = std::tuple<std::vector<int>, std::string, int>;
std::map<CollKey, std::pair<unsigned long long, unsigned long long>> collectives_of(const rankmap::Profile& p) {
  std::map<int, std::vector<int>> members;
  for (const auto& c : p.communicators) members[c.id] = c.world_ranks;
  std::map<CollKey, std::pair<unsigned long long, unsigned long long>> out;
  for (const auto& c : p.collectives) out[{members[c.comm], c.op, c.root}] = {c.calls, c.bytes};
  return out;
}

std::string describe(const CollKey& k) {
  std::string s = std::get<1>(k) + " root " + std::to_string(std::get<2>(k)) + " on {";
  for (int m : std::get<0>(k)) s += " " + std::to_string(m);
  return s + " }";
}

int compare_collectives(const rankmap::Profile& actual, const rankmap::Profile& expected) {
  const auto a = collectives_of(actual), e = collectives_of(expected);
  int errors = 0;
  for (const auto& [k, v] : e) {
    auto it = a.find(k);
    if (it == a.end() || it->second != v) {
      std::printf("coll %s: got %s, expected %llu calls %llu bytes\n", describe(k).c_str(),
                  it == a.end() ? "nothing" : (std::to_string(it->second.first) + " calls " + std::to_string(it->second.second) + " bytes").c_str(),
                  v.first, v.second);
      ++errors;
    }
  }
  for (const auto& [k, v] : a) {
    if (!e.count(k)) {
      std::printf("coll %s: unexpected record %llu calls %llu bytes\n", describe(k).c_str(), v.first, v.second);
      ++errors;
    }
  }
  return errors;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: commprof_check ACTUAL (EXPECTED | --ring P MESSAGES UNIT_BYTES) [--max-mpi-per-wall X]\n");
    return 2;
  }
  auto actual = rankmap::read_profile(argv[1]);
  if (!actual) {
    std::printf("actual profile: %s\n", actual.error().message.c_str());
    return 1;
  }
  rankmap::Profile expected;
  int next = 3;
  if (std::string(argv[2]) == "--ring") {
    if (argc < 6) return 2;
    // Rank r sends MESSAGES messages to r+1 (mod P), (r+1)*UNIT_BYTES bytes each.
    expected.ranks = std::atoi(argv[3]);
    const unsigned long long messages = std::strtoull(argv[4], nullptr, 10), unit = std::strtoull(argv[5], nullptr, 10);
    for (int r = 0; r < expected.ranks; ++r)
      expected.p2p.push_back({r, (r + 1) % expected.ranks, messages, messages * unit * static_cast<unsigned long long>(r + 1)});
    next = 6;
  } else {
    auto e = rankmap::read_profile(argv[2]);
    if (!e) {
      std::printf("expected profile: %s\n", e.error().message.c_str());
      return 1;
    }
    expected = std::move(*e);
  }
  double max_mpi_per_wall = 1.0;
  for (int i = next; i + 1 < argc; i += 2)
    if (std::string(argv[i]) == "--max-mpi-per-wall") max_mpi_per_wall = std::atof(argv[i + 1]);

  int errors = 0;
  if (auto ok = actual->check(); !ok) {
    std::printf("actual profile fails check(): %s\n", ok.error().message.c_str());
    ++errors;
  }
  if (actual->ranks != expected.ranks) {
    std::printf("ranks: got %d, expected %d\n", actual->ranks, expected.ranks);
    return 1;
  }
  for (int r = 0; r < actual->ranks; ++r) {
    const auto& i = actual->rank_info[static_cast<size_t>(r)];
    // wall runs from init to finalize; mpi is part of it (summed over threads).
    const bool sane = !i.host.empty() && i.host != "unknown" && i.core >= 0 && i.wall > 0 && i.wall < 600 &&
                      i.mpi >= 0 && i.mpi <= i.wall * max_mpi_per_wall + 1e-3;
    if (!sane) {
      std::printf("rank %d: implausible host=%s core=%d wall=%g mpi=%g\n", r, i.host.c_str(), i.core, i.wall, i.mpi);
      ++errors;
    }
  }
  errors += compare("p2p", matrix_of(actual->p2p), matrix_of(expected.p2p));
  errors += compare("osc", matrix_of(actual->one_sided), matrix_of(expected.one_sided));
  errors += compare_collectives(*actual, expected);
  if (errors) {
    std::printf("%d difference(s) between %s and the expectation\n", errors, argv[1]);
    return 1;
  }
  std::printf("profile matches: %zu p2p, %zu osc and %zu coll records\n", expected.p2p.size(), expected.one_sided.size(),
              expected.collectives.size());
  return 0;
}
