// rankmap-torus: summary of a machine description (nodes, links, diameter,
// mean hops) and the seed model's estimate of the gain from mapping.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "rankmap/cli.hpp"
#include "rankmap/machine.hpp"
#include "rankmap/text.hpp"

namespace {

using rankmap::LatencyModel;
using rankmap::Torus;

// Splits 2^k nodes over `dims` dimensions as evenly as possible (sizes 2^a,
// larger dimensions first), the shapes of the seed paper's figure 7.
std::vector<int> balanced_shape(int log2_nodes, int dims) {
  std::vector<int> shape(static_cast<size_t>(dims), 1);
  for (int bit = 0; bit < log2_nodes; ++bit) shape[bit % dims] *= 2;
  return shape;
}

void print_gain_table(double p_mpi, const LatencyModel& model) {
  std::printf("\nEstimated gain from mapping, p_mpi = %.2f, t_inj = %s, t_hop = %s\n", p_mpi,
              rankmap::text::format_duration(model.t_inj).c_str(), rankmap::text::format_duration(model.t_hop).c_str());
  std::printf("(gain = p_mpi * t_hop * (d_net - 1) / (t_inj + t_hop * d_net), d_net = torus diameter)\n");
  std::printf("%8s | %-14s %4s %7s | %-14s %4s %7s | %-14s %4s %7s\n", "nodes", "2D shape", "diam", "gain",
              "3D shape", "diam", "gain", "4D shape", "diam", "gain");
  for (int k = 1; k <= 9; ++k) {
    std::printf("%8d |", 1 << k);
    for (int dims = 2; dims <= 4; ++dims) {
      std::vector<int> shape = balanced_shape(k, dims);
      std::string name;
      for (size_t d = 0; d < shape.size(); ++d) name += (d ? "x" : "") + std::to_string(shape[d]);
      std::vector<int> links(shape.size(), 1);
      auto torus = Torus::create(shape, std::vector<bool>(shape.size(), true), links, 1.0);
      const int dia = torus->diameter();
      std::printf(" %-14s %4d %6.2f%% |", name.c_str(), dia, 100 * rankmap::mapping_gain_estimate(p_mpi, model, dia));
    }
    std::printf("\n");
  }
}

int torus_main(int argc, char** argv) {
  CLI::App app{"rankmap-torus: summarise a machine description and estimate the gain from mapping"};
  rankmap::cli::setup(app, "rankmap-torus");
  std::string machine_spec;
  double p_mpi = 0.5;
  bool table = false;
  bool print_line = false;
  rankmap::cli::add_machine(app, machine_spec);
  app.add_option("--p-mpi", p_mpi, "fraction of run time spent in MPI, for the gain estimate")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_flag("--table", table, "also print the gain estimate for 2D/3D/4D tori of 2 to 512 nodes");
  app.add_flag("--canonical", print_line, "print only the canonical one-line machine description");
  if (auto status = rankmap::cli::parse(app, argc, argv, "rankmap-torus")) return *status;

  const std::string machine_where = rankmap::cli::where_of("--machine", machine_spec);
  rankmap::Machine machine = rankmap::cli::take(rankmap::load_machine(machine_spec), machine_where);
  if (print_line) {
    std::cout << rankmap::to_string(machine) << "\n";
    return 0;
  }
  Torus torus = rankmap::cli::take(machine.torus(), machine_where);
  const rankmap::NodeKinds kinds = rankmap::cli::take(machine.node_kinds(), machine_where);
  std::printf("machine    %s\n", rankmap::to_string(machine).c_str());
  auto describe = [](const rankmap::NodeTopology& node) {
    return std::to_string(node.cores()) + " cores, " + std::to_string(node.packages()) +
           (node.packages() == 1 ? " package" : " packages");
  };
  if (kinds.uniform()) {
    const rankmap::NodeTopology& node = kinds.kind(0);
    std::printf("nodes      %d (%d cores each, %d package%s)\n", torus.nodes(), node.cores(), node.packages(),
                node.packages() == 1 ? "" : "s");
  } else {
    std::vector<int> count(static_cast<size_t>(kinds.count()), 0);
    for (int n = 0; n < torus.nodes(); ++n) ++count[static_cast<size_t>(kinds.kind_of(n))];
    std::string parts;
    for (int k = 0; k < kinds.count(); ++k)
      if (count[static_cast<size_t>(k)] > 0)
        parts += (parts.empty() ? "" : "; ") + std::to_string(count[static_cast<size_t>(k)]) + " with " + describe(kinds.kind(k));
    std::printf("nodes      %d (%s)\n", torus.nodes(), parts.c_str());
  }
  std::printf("%-4s %5s %5s %6s %s\n", "dim", "size", "ring", "links", "capacity per direction");
  for (int d = 0; d < torus.dims(); ++d)
    std::printf("%-4s %5d %5s %6d %s\n", rankmap::dimension_name(d).c_str(), torus.size(d), torus.wraps(d) ? "yes" : "no",
                torus.links(d), rankmap::text::format_bandwidth(torus.links(d) * torus.link_bw()).c_str());
  std::printf("links      %d directed neighbour connections\n", torus.link_count());
  std::printf("diameter   %d hops\n", torus.diameter());
  std::printf("mean hops  %.4g (all ordered pairs, self included)\n", torus.mean_hops());
  const LatencyModel model = machine.latency();
  std::printf("latency    t = t_inj + hops * t_hop: %s .. %s\n",
              rankmap::text::format_duration(model.message_time(0, 0)).c_str(),
              rankmap::text::format_duration(model.message_time(torus.diameter(), 0)).c_str());
  std::printf("gain       %.2f%% estimated from mapping at p_mpi = %.2f\n",
              100 * rankmap::mapping_gain_estimate(p_mpi, model, torus.diameter()), p_mpi);
  if (table) print_gain_table(p_mpi, model);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return rankmap::cli::run("rankmap-torus", [&] { return torus_main(argc, argv); });
}
