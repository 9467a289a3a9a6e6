#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "rankmap/bind.hpp"
#include "rankmap/launch.hpp"

using namespace rankmap;

namespace {

const std::string kData = RANKMAP_TEST_DATA;

Mapping make_mapping(const std::string& machine, std::vector<Placement> placement) {
  auto m = parse_machine(machine);
  REQUIRE(m.ok());
  Mapping mapping{*m, std::move(placement), ""};
  REQUIRE(mapping.check().ok());
  return mapping;
}

// 8 ranks on 4 fake hosts; each host's ranks are apart and use its cores in
// different orders (tests/rankfile-gen/data/interleaved.map.in).
Mapping interleaved() {
  return make_mapping("torus=4 node=package:1,core:2 hosts=" + kData + "/hosts4",
                      {{1, 1}, {3, 0}, {0, 0}, {2, 1}, {1, 0}, {0, 1}, {3, 1}, {2, 0}});
}
// Hosts C A D B with two consecutive ranks each on cores 1, 0 (runs.map.in).
Mapping runs() {
  return make_mapping("torus=4 node=package:1,core:2 hosts=" + kData + "/hosts4",
                      {{2, 1}, {2, 0}, {0, 1}, {0, 0}, {3, 1}, {3, 0}, {1, 1}, {1, 0}});
}
// Two packages of two 2-way SMT cores: cores 2 and 3 are package 1's cores
// 0 and 1, with PUs 4,5 and 6,7. Per node the local ranks use cores 2, 3,
// but Hydra's runs of consecutive ranks see [2], [2,3], [3].
Mapping smt() { return make_mapping("torus=2 node=package:2,core:2,pu:2", {{1, 2}, {0, 2}, {0, 3}, {1, 3}}); }
// The same cores, one run per node: Hydra's list names both PUs of each core.
Mapping smt_runs() { return make_mapping("torus=2 node=package:2,core:2,pu:2", {{1, 2}, {1, 3}, {0, 2}, {0, 3}}); }

// Mixed node kinds (nodes=): node 0 has two packages of two single-PU cores,
// node 1 one package of two 2-way SMT cores. Cores 0 and 1 are PUs 0 and 1
// on node 0 but PUs 0,1 and 2,3 on node 1: the same core indices need other
// binding lists.
Mapping mixed() {
  return make_mapping("torus=2 node=package:2,core:2 nodes=1:package:1,core:2,pu:2", {{0, 0}, {0, 2}, {1, 0}, {1, 1}});
}

// The whole plan as one text: every file with its path, then notes and
// commands, so one golden file shows everything the user gets.
std::string render(const LaunchPlan& plan) {
  std::string out;
  for (const LaunchFile& f : plan.files) out += "== file " + f.path + "\n" + f.content;
  for (const std::string& n : plan.notes) out += "== note " + n + "\n";
  for (const std::string& c : plan.commands) out += "== command " + c + "\n";
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void check_golden(const Mapping& m, LaunchFormat format, const std::string& golden) {
  LaunchOptions options;
  options.prefix = "out/run";
  options.mapping_path = "run.map";
  options.app = "./app -x 1";
  auto plan = make_launch_plan(m, format, options);
  REQUIRE(plan.ok());
  const std::string got = render(*plan);
  const std::string path = kData + "/" + golden;
  // RANKMAP_UPDATE_GOLDEN=1 rewrites the files; review every change by hand
  // against the launcher's documentation before committing it.
  if (std::getenv("RANKMAP_UPDATE_GOLDEN")) std::ofstream(path) << got;
  INFO("golden file " << path);
  CHECK(got == read_text(path));
}

}  // namespace

TEST_CASE("launch: Open MPI rankfile names host and logical socket:core per rank") {
  check_golden(interleaved(), LaunchFormat::openmpi, "interleaved.openmpi.golden");
  check_golden(smt(), LaunchFormat::openmpi, "smt.openmpi.golden");
  check_golden(mixed(), LaunchFormat::openmpi, "mixed.openmpi.golden");
}

TEST_CASE("launch: Hydra binds by itself only when one user: list fits every proxy") {
  check_golden(runs(), LaunchFormat::mpich, "runs.mpich.golden");
  check_golden(interleaved(), LaunchFormat::mpich, "interleaved.mpich.golden");
  check_golden(smt(), LaunchFormat::mpich, "smt.mpich.golden");
  check_golden(smt_runs(), LaunchFormat::mpich, "smt_runs.mpich.golden");
  check_golden(mixed(), LaunchFormat::mpich, "mixed.mpich.golden");
}

TEST_CASE("launch: Slurm hostfile in rank order, map_cpu/mask_cpu only when every node needs the same list") {
  check_golden(runs(), LaunchFormat::slurm, "runs.slurm.golden");
  check_golden(interleaved(), LaunchFormat::slurm, "interleaved.slurm.golden");
  check_golden(smt(), LaunchFormat::slurm, "smt.slurm.golden");
  check_golden(mixed(), LaunchFormat::slurm, "mixed.slurm.golden");
}

TEST_CASE("launch: placeholder host names are warned about, real ones are not") {
  CHECK(launch_warnings(interleaved()).empty());  // hosts= names hA..hD
  const auto warnings = launch_warnings(smt());   // no hosts=: node-0, node-1
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] ==
        "the machine description has no hosts= file, so the launcher files name placeholder hosts (node-0, ...) "
        "that no launcher can reach; give the real host names with hosts=FILE (docs/formats.md)");
}

TEST_CASE("launch: permutation maps block-order rank to mapped rank") {
  check_golden(interleaved(), LaunchFormat::perm, "interleaved.perm.golden");
}

TEST_CASE("launch: the permutation really is the block launch order") {
  // Independent of the golden file: placing world rank `new` at the new-th
  // (node, core) in block order must put mapped rank `old` where the mapping
  // wants it.
  const Mapping m = interleaved();
  LaunchOptions options;
  auto plan = make_launch_plan(m, LaunchFormat::perm, options);
  REQUIRE(plan.ok());
  std::istringstream in(plan->files.at(0).content);
  std::string line;
  std::getline(in, line);
  CHECK(line == "rankmap-perm 1");
  std::getline(in, line);
  CHECK(line == "ranks 8");
  auto kinds = m.machine.node_kinds();
  REQUIRE(kinds.ok());
  const NodeTopology* cores = &kinds->kind(0);
  std::vector<int> seen(8, 0);
  int new_rank = 0, old_rank = 0, expected_new = 0;
  while (in >> new_rank >> old_rank) {
    CHECK(new_rank == expected_new++);
    REQUIRE(old_rank >= 0);
    REQUIRE(old_rank < 8);
    ++seen[static_cast<size_t>(old_rank)];
    const Placement& p = m.placement[static_cast<size_t>(old_rank)];
    CHECK(p.node * cores->cores() + p.core == new_rank);  // block order on 4 full nodes
  }
  CHECK(expected_new == 8);
  CHECK(seen == std::vector<int>(8, 1));
}

TEST_CASE("launch: format names round-trip, unknown ones are refused") {
  for (LaunchFormat f : all_launch_formats()) CHECK(parse_launch_format(launch_format_name(f)).value() == f);
  auto bad = parse_launch_format("lsf");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("unknown format 'lsf'") != std::string::npos);
}

TEST_CASE("launch: an invalid mapping is refused, not translated") {
  Mapping m = runs();
  m.placement[3] = m.placement[2];  // two ranks on one core
  auto plan = make_launch_plan(m, LaunchFormat::openmpi, LaunchOptions{});
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.error().message.find("shares core") != std::string::npos);
}

namespace {
std::map<std::string, std::string> fake_env;
const char* fake_getenv(const char* name) {
  auto it = fake_env.find(name);
  return it == fake_env.end() ? nullptr : it->second.c_str();
}
}  // namespace

TEST_CASE("bind: rank comes from the innermost launcher's variable") {
  fake_env = {{"SLURM_PROCID", "0"}, {"PMI_RANK", "5"}};  // mpiexec inside an sbatch script
  auto r = rank_from_environment(fake_getenv);
  REQUIRE(r.ok());
  CHECK(r->rank == 5);
  CHECK(r->variable == "PMI_RANK");
  REQUIRE(r->warnings.size() == 1);
  CHECK(r->warnings[0].find("SLURM_PROCID=0 disagrees with PMI_RANK=5") != std::string::npos);

  fake_env = {{"PMIX_RANK", "3"}, {"OMPI_COMM_WORLD_RANK", "3"}};  // Open MPI mpirun
  r = rank_from_environment(fake_getenv);
  REQUIRE(r.ok());
  CHECK(r->rank == 3);
  CHECK(r->variable == "OMPI_COMM_WORLD_RANK");
  CHECK(r->warnings.empty());

  fake_env = {{"SLURM_PROCID", "7"}};  // plain srun
  r = rank_from_environment(fake_getenv);
  REQUIRE(r.ok());
  CHECK(r->rank == 7);

  fake_env = {{"PMI_RANK", "x1"}};
  r = rank_from_environment(fake_getenv);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message == "PMI_RANK='x1' is not a rank");

  fake_env.clear();
  REQUIRE_FALSE(rank_from_environment(fake_getenv).ok());
}

TEST_CASE("bind: host names match exactly or by first label of a bare name") {
  CHECK(same_host("n01", "n01"));
  CHECK(same_host("n01", "n01.cluster.local"));
  CHECK(same_host("n01.cluster.local", "n01"));
  CHECK_FALSE(same_host("n01.a", "n01.b"));
  CHECK_FALSE(same_host("n01", "n010"));
  CHECK_FALSE(same_host("n01", "n02.cluster"));
}

TEST_CASE("bind: a core this machine does not have is an error, not a silent wrap") {
  auto r = bind_process_to_core(4096);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("core 4096 does not exist here") != std::string::npos);
}
