// commprof_check ACTUAL (EXPECTED | --ring P MESSAGES UNIT_BYTES | --fortran-collectives P)
//                [--max-mpi-per-wall X] [--min-mpi S] [--yield]
// Compares a whole profile written by libcommprof with the expected one:
// every p2p and osc record must match exactly (no missing, no extra). The
// per-rank timing and placement fields cannot be predicted, so they are
// checked for presence and sanity only (--min-mpi: every rank spent at least
// S seconds in MPI); every rank line must say yield=1 with --yield and
// nothing of the kind without. Exit status 0 = match, 1 = mismatch.
//
// commprof_check --same-p2p A B: the two profiles (one program under MPICH
// and under Open MPI) have identical, non-empty p2p records.
// commprof_check --monitoring ACTUAL PREFIX: the p2p records equal what Open
// MPI's pml monitoring wrote to PREFIX.<rank>.prof in the same run: its
// "E" (external: application point-to-point) lines, without messages a rank
// sent to itself, which the profile leaves out (docs/profiler.md).
#include <cstdio>
#include <fstream>
#include <sstream>
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

// The application point-to-point traffic Open MPI's pml monitoring recorded,
// from its per-rank files: lines "E<TAB>src<TAB>dst<TAB>N bytes<TAB>M msgs sent<TAB>...".
bool read_monitoring(const std::string& prefix, int ranks, Matrix* out) {
  for (int r = 0; r < ranks; ++r) {
    const std::string path = prefix + "." + std::to_string(r) + ".prof";
    std::ifstream in(path);
    if (!in) {
      std::printf("cannot read monitoring output %s\n", path.c_str());
      return false;
    }
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("E\t", 0) != 0) continue;
      std::istringstream fields(line.substr(2));
      int src = -1, dst = -1;
      unsigned long long bytes = 0, messages = 0;
      std::string bytes_word, msgs_word;
      if (!(fields >> src >> dst >> bytes >> bytes_word >> messages >> msgs_word) || bytes_word != "bytes" ||
          msgs_word != "msgs" || src != r) {
        std::printf("%s: cannot parse '%s'\n", path.c_str(), line.c_str());
        return false;
      }
      if (src == dst || messages == 0) continue;
      auto& m = (*out)[{src, dst}];
      m.first += messages;
      m.second += bytes;
    }
  }
  return true;
}

int compare_two(const char* mode, const char* a_path, const char* b_path) {
  auto a = rankmap::read_profile(a_path);
  if (!a) {
    std::printf("%s\n", a.error().message.c_str());
    return 1;
  }
  Matrix other;
  if (std::string(mode) == "--same-p2p") {
    auto b = rankmap::read_profile(b_path);
    if (!b) {
      std::printf("%s\n", b.error().message.c_str());
      return 1;
    }
    if (a->ranks != b->ranks) {
      std::printf("ranks: %d in %s, %d in %s\n", a->ranks, a_path, b->ranks, b_path);
      return 1;
    }
    other = matrix_of(b->p2p);
  } else if (!read_monitoring(b_path, a->ranks, &other)) {
    return 1;
  }
  const Matrix mine = matrix_of(a->p2p);
  if (mine.empty()) {
    std::printf("%s has no p2p records: nothing was compared\n", a_path);
    return 1;
  }
  if (const int errors = compare("p2p", mine, other)) {
    std::printf("%d difference(s) between %s (actual) and %s (expected)\n", errors, a_path, b_path);
    return 1;
  }
  std::printf("p2p identical: %zu records\n", mine.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && (std::string(argv[1]) == "--same-p2p" || std::string(argv[1]) == "--monitoring"))
    return compare_two(argv[1], argv[2], argv[3]);
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
  } else if (std::string(argv[2]) == "--fortran-collectives") {
    if (argc < 4) return 2;
    // collectives.F90: per pair an 8-byte in-place alltoall block and a
    // 1-element alltoallw block (8 bytes to odd ranks, 4 to even ones); one
    // bcast of 3 integers from 0 and one allreduce of 2 doubles on world.
    expected.ranks = std::atoi(argv[3]);
    for (int r = 0; r < expected.ranks; ++r)
      for (int j = 0; j < expected.ranks; ++j)
        if (j != r) expected.p2p.push_back({r, j, 2, 8ull + (j % 2 ? 8ull : 4ull)});
    std::vector<int> world(static_cast<size_t>(expected.ranks));
    for (int r = 0; r < expected.ranks; ++r) world[static_cast<size_t>(r)] = r;
    expected.communicators.push_back({0, world});
    expected.collectives.push_back({0, "bcast", 0, 1, 12});
    expected.collectives.push_back({0, "allreduce", -1, 1, 16});
    next = 4;
  } else {
    auto e = rankmap::read_profile(argv[2]);
    if (!e) {
      std::printf("expected profile: %s\n", e.error().message.c_str());
      return 1;
    }
    expected = std::move(*e);
  }
  double max_mpi_per_wall = 1.0, min_mpi = 0;
  bool yield = false;
  for (int i = next; i < argc; ++i) {
    const std::string opt = argv[i];
    if (opt == "--yield") {
      yield = true;
    } else if ((opt == "--max-mpi-per-wall" || opt == "--min-mpi") && i + 1 < argc) {
      (opt == "--min-mpi" ? min_mpi : max_mpi_per_wall) = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "commprof_check: unknown option '%s'\n", opt.c_str());
      return 2;
    }
  }

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
    if (i.mpi < min_mpi) {
      std::printf("rank %d: mpi=%g, expected at least %g s inside MPI\n", r, i.mpi, min_mpi);
      ++errors;
    }
    if (i.yield != yield) {
      std::printf("rank %d: yield=%d, expected %d\n", r, i.yield ? 1 : 0, yield ? 1 : 0);
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
