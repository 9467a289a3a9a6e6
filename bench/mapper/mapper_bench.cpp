// Benchmark of the mapping algorithms on synthetic patterns (not a test):
// for one machine, pattern and size, runs every algorithm in a child process
// (so each gets its own peak memory figure), scores every mapping with the one
// evaluator, and runs Debian's scotch_gmap on the same graph for comparison.
// Prints Markdown table rows; bench/mapper/run.sh drives the full set.
#include <CLI/CLI.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../mapper/src/detail.hpp"  // integer_weights, enforce_node_capacity, cores_in_rank_order
#include "rankmap/cli.hpp"
#include "rankmap/comm_graph.hpp"
#include "rankmap/mapper.hpp"

using namespace rankmap;

namespace {

struct Row {
  double seconds = 0;
  long peak_kb = 0;
  Metrics m;
  std::string note;
};

// Exit 1 for a failure of the run, 2 for bad input (as every rankmap tool).
[[noreturn]] void die(const std::string& msg, int status = 1) {
  std::fprintf(stderr, "rankmap-bench-mapper: %s\n", msg.c_str());
  std::exit(status);
}

std::string fmt(double v) {
  if (!std::isfinite(v)) return "n/a";  // gap to a zero bound
  char b[32];
  std::snprintf(b, sizeof b, "%.4g", v);
  return b;
}

void print_row(const std::string& pattern, const std::string& algo, const Row& r) {
  const Metrics& m = r.m;
  std::printf("| %s | %s | %.2f | %.0f | %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s |\n", pattern.c_str(),
              algo.c_str(), r.seconds, static_cast<double>(r.peak_kb) / 1024.0, fmt(m.inter_node_bytes).c_str(),
              fmt(m.hop_bytes).c_str(), fmt(m.weighted_cost).c_str(), fmt(m.gap_weighted).c_str(),
              fmt(m.mean_dilation).c_str(), m.max_dilation, fmt(m.max_link_relative * 1e3).c_str(),
              fmt(m.mean_link_relative * 1e3).c_str(), fmt(m.comm_time_max * 1e3).c_str(),
              fmt(m.cross_package_bytes).c_str(), r.note.c_str());
  std::fflush(stdout);
}

// Runs fn in a child; the child sends back (seconds, placement) through a pipe.
// Returns the child's peak RSS (KB) via wait4.
template <class Fn>
long in_child(Fn fn, double& seconds, std::vector<Placement>& placement, std::string& note) {
  int fd[2];
  if (pipe(fd) != 0) die("pipe failed");
  const pid_t pid = fork();
  if (pid < 0) die("fork failed");
  if (pid == 0) {
    close(fd[0]);
    std::string out;
    double s = 0;
    std::vector<Placement> pl;
    std::string err = fn(s, pl);
    std::ostringstream os;
    os << s << " " << pl.size() << "\n";
    for (auto& p : pl) os << p.node << " " << p.core << "\n";
    os << err;
    out = os.str();
    size_t off = 0;
    while (off < out.size()) {
      const ssize_t w = write(fd[1], out.data() + off, out.size() - off);
      if (w <= 0) _exit(3);
      off += static_cast<size_t>(w);
    }
    _exit(0);
  }
  close(fd[1]);
  std::string in;
  char buf[1 << 16];
  ssize_t r;
  while ((r = read(fd[0], buf, sizeof buf)) > 0) in.append(buf, static_cast<size_t>(r));
  close(fd[0]);
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die("child failed");
  std::istringstream is(in);
  size_t n = 0;
  is >> seconds >> n;
  placement.resize(n);
  for (auto& p : placement) is >> p.node >> p.core;
  std::getline(is, note);
  std::getline(is, note);
  return ru.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rankmap-bench-mapper: time, memory and metrics of every mapping algorithm on one synthetic instance"};
  std::string machine_spec = "desmos", algos, gmap = "scotch_gmap", workdir;
  SynthSpec spec;
  spec.pattern = "stencil3d";
  spec.ranks = 128;
  int ppn = 0;
  app.add_option("-m,--machine", machine_spec, "machine description")->capture_default_str();
  app.add_option("--pattern", spec.pattern, "synthetic pattern")->capture_default_str();
  app.add_option("--ranks", spec.ranks, "ranks")->capture_default_str()->check(cli::positive());
  app.add_option("--ppn", ppn, "ranks per node (default cores per node)")->check(cli::positive());
  app.add_option("--seed", spec.seed, "seed")->capture_default_str();
  app.add_option("--algorithms", algos, "comma list (default: all)");
  app.add_option("--scotch-gmap", gmap, "scotch_gmap executable, or 'none'")->capture_default_str();
  app.add_option("--workdir", workdir,
                 "where the .grf/.tgt/.map files for scotch_gmap go and stay (default: a temporary directory, "
                 "removed at exit)");
  if (auto status = cli::parse(app, argc, argv, "rankmap-bench-mapper")) return *status;

  auto machine = load_machine(machine_spec);
  if (!machine) die(machine.error().message, 2);
  auto platform = Platform::from_machine(*machine);
  if (!platform) die(platform.error().message, 2);
  if (!platform->net().as_torus()) die("the mapper benchmark runs on tori (scotch_gmap gets a torusXD target)", 2);
  if (ppn == 0) ppn = platform->node_kinds.max_cores();
  auto profile = synthesize(spec);
  if (!profile) die(profile.error().message, 2);
  auto traffic = traffic_from_profile(*profile, CollectiveModel::model);
  if (!traffic) die(traffic.error().message);
  profile = Profile{};  // the children inherit only what the mapper needs
  EvaluateOptions eo;
  eo.ppn = ppn;
  auto score = [&](const std::vector<Placement>& pl) {
    auto m = evaluate(*traffic, pl, *platform, eo);
    if (!m) die(m.error().message);
    return *m;
  };

  std::vector<std::string> names;
  if (algos.empty())
    for (const auto& a : algorithms()) names.push_back(a.name);
  else {
    std::istringstream list(algos);
    for (std::string s; std::getline(list, s, ',');) names.push_back(s);
  }

  for (const std::string& name : names) {
    Row row;
    std::vector<Placement> pl;
    row.peak_kb = in_child(
        [&](double& s, std::vector<Placement>& out) -> std::string {
          MapOptions o;
          o.algorithm = name;
          o.ppn = ppn;
          o.seed = spec.seed;
          const auto t0 = std::chrono::steady_clock::now();
          auto r = map_ranks(*traffic, *platform, o);
          s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          if (!r) return "ERROR " + r.error().message;
          out = r->placement;
          std::string notes;
          for (const auto& n : r->notes) notes += (notes.empty() ? "" : "; ") + n;
          return notes;
        },
        row.seconds, pl, row.note);
    if (row.note.rfind("ERROR ", 0) == 0) die(name + ": " + row.note);
    row.m = score(pl);
    print_row(spec.pattern, name, row);
  }

  if (gmap == "none") return 0;
  // scotch_gmap on the same graph (bytes + message equivalents, integer
  // weights as our Scotch calls use) and the plain torusXD target.
  const CommGraph g = build_comm_graph(*traffic, message_byte_equivalent(platform->latency));
  // Without --workdir the files go to a directory of their own, removed at
  // exit: the one-instance command of docs/benchmarks.md, run from the
  // checkout, left them in it.
  struct Scratch {
    std::string dir;
    ~Scratch() {
      std::error_code ec;
      if (!dir.empty()) std::filesystem::remove_all(dir, ec);
    }
  } scratch;
  if (workdir.empty()) {
    std::string pattern = (std::filesystem::temp_directory_path() / "rankmap-bench-mapper.XXXXXX").string();
    if (!mkdtemp(pattern.data())) die("cannot create a temporary directory for scotch_gmap's files");
    workdir = scratch.dir = pattern;
  }
  const std::string base = workdir + "/" + spec.pattern + "-" + std::to_string(spec.ranks);
  {
    std::ofstream grf(base + ".grf");
    const auto w = detail::integer_weights(g.weight, 1e7);
    grf << "0\n" << g.vertices << " " << g.adjncy.size() << "\n0 010\n";
    for (int u = 0; u < g.vertices; ++u) {
      grf << (g.xadj[u + 1] - g.xadj[u]);
      for (auto e = g.xadj[u]; e < g.xadj[u + 1]; ++e) grf << " " << w[e] << " " << g.adjncy[e];
      grf << "\n";
    }
    std::ofstream tgt(base + ".tgt");
    std::vector<int> sizes;
    const Torus& torus = *platform->net().as_torus();
    for (int d = 0; d < torus.dims(); ++d)
      if (torus.size(d) > 1) sizes.push_back(torus.size(d));
    tgt << "torusXD " << sizes.size();
    for (int s : sizes) tgt << " " << s;
    tgt << "\n";
  }
  Row row;
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    execlp(gmap.c_str(), gmap.c_str(), (base + ".grf").c_str(), (base + ".tgt").c_str(), (base + ".map").c_str(),
           "-Cd", "-b0.01", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  row.peak_kb = ru.ru_maxrss;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::printf("| %s | scotch_gmap | failed (status %d) |\n", spec.pattern.c_str(), status);
    return 0;
  }
  std::ifstream in(base + ".map");
  long count = 0;
  in >> count;
  std::vector<int> node_of(static_cast<size_t>(g.vertices), -1);
  for (long i = 0; i < count; ++i) {
    long v = 0, t = 0;
    in >> v >> t;
    if (v >= 0 && v < g.vertices) node_of[static_cast<size_t>(v)] = static_cast<int>(t);
  }
  std::vector<int> load(static_cast<size_t>(platform->net().nodes()), 0);
  int over = 0;
  for (int a : node_of) {
    if (a < 0) die("scotch_gmap left a rank unmapped");
    if (++load[a] > ppn) ++over;
  }
  if (over > 0) {
    auto allocation = make_allocation(*platform, {}, ppn);
    if (!allocation) die(allocation.error().message);
    detail::enforce_node_capacity(g, platform->net(), *allocation, node_of);
    row.note = "(" + std::to_string(over) + " ranks over capacity moved)";
  }
  row.m = score(detail::cores_in_rank_order(node_of, platform->net().nodes()));
  print_row(spec.pattern, "scotch_gmap", row);
  return 0;
}
