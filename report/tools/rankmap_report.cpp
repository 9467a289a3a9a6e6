// rankmap-report: one HTML page comparing placements of one profile: the
// evaluator's metrics, the communication matrix in launch and mapped order,
// and the torus with every link's load for each mapping.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "rankmap/atomic_file.hpp"
#include "rankmap/cli.hpp"
#include "rankmap/mapper.hpp"
#include "rankmap/report.hpp"
#include "rankmap/text.hpp"

namespace {

using namespace rankmap;

using cli::fail;

std::string fmt(double v) {
  if (!std::isfinite(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

int report_main(int argc, char** argv) {
  CLI::App app{"rankmap-report: an HTML page with metrics, communication matrices and torus link loads"};
  cli::setup(app, "rankmap-report");
  std::string profile_path, output, title = "rankmap report", collectives = "model";
  std::vector<std::string> mapping_paths, simulated, labels;
  int ppn = 0;
  bool quiet = false;
  std::string node_list;
  cli::add_profile(app, profile_path);
  cli::add_mappings(app, mapping_paths, "mapping files to compare (the first is the baseline)");
  cli::add_output(app, output, "HTML file to write (atomically)")->required();
  app.add_option("--label", labels,
                 "name of a mapping in the report, MAPPING=NAME, e.g. app.map=rankmap (default: the file name "
                 "without its extension); repeatable");
  app.add_option("--title", title, "page title")->capture_default_str();
  app.add_option("--collectives", collectives, "collective records: 'model' or 'ignore'")
      ->check(CLI::IsMember({"model", "ignore"}))
      ->capture_default_str();
  app.add_option("--ppn", ppn, "ranks per node for the lower bound (default: cores per node), as in rankmap evaluate")
      ->check(cli::positive());
  app.add_option("--nodes", node_list, "allocated nodes for the lower bound, as in rankmap evaluate");
  app.add_option("--simulated", simulated,
                 "simulated time of a mapping, MAPPING=SECONDS (from rankmap-sim run); repeatable");
  cli::add_quiet(app, quiet, "no 'wrote' line");
  if (auto status = cli::parse(app, argc, argv, "rankmap-report")) return *status;

  auto profile = read_profile(profile_path);
  if (!profile) fail(profile.error().message);
  auto traffic = traffic_from_profile(*profile, collectives == "model" ? CollectiveModel::model : CollectiveModel::ignore);
  if (!traffic) fail(traffic.error().message);

  std::vector<Mapping> mappings;
  std::vector<std::string> names;
  for (const std::string& path : mapping_paths) {
    auto m = read_mapping(path);
    if (!m) fail(m.error().message);
    if (m->ranks() != profile->ranks)
      fail(path + ": mapping has " + std::to_string(m->ranks()) + " ranks, profile " + profile_path + " has " +
           std::to_string(profile->ranks));
    if (!mappings.empty() && m->machine != mappings.front().machine)
      fail(path + ": machine differs from " + mapping_paths.front() + " (compare placements on one machine)");
    mappings.push_back(std::move(*m));
    names.push_back(base_name(path));
  }
  for (const std::string& l : labels) {
    const size_t eq = l.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == l.size()) fail("bad --label '" + text::excerpt(l) + "', expected MAPPING=NAME");
    const std::string which = l.substr(0, eq);
    size_t i = 0;
    while (i < mappings.size() && mapping_paths[i] != which && names[i] != which && base_name(mapping_paths[i]) != which) ++i;
    if (i == mappings.size()) fail("--label names '" + text::excerpt(which) + "', which is not one of the mappings");
    names[i] = l.substr(eq + 1);
  }
  std::vector<std::string> inputs = mapping_paths;
  inputs.push_back(profile_path);
  for (const Mapping& m : mappings)
    for (const std::string& f : m.machine.files()) inputs.push_back(f);
  Status not_an_input = refuse_to_overwrite_inputs({output}, inputs);
  if (!not_an_input) fail(not_an_input.error().message);
  std::vector<double> simulated_time(mappings.size(), NAN);
  for (const std::string& s : simulated) {
    const size_t eq = s.rfind('=');
    auto seconds = eq == std::string::npos ? std::nullopt : text::parse_double(s.substr(eq + 1));
    if (!seconds) fail("bad --simulated '" + s + "', expected MAPPING=SECONDS");
    const std::string which = s.substr(0, eq);
    size_t i = 0;
    while (i < mappings.size() && mapping_paths[i] != which && names[i] != which && base_name(mapping_paths[i]) != which) ++i;
    if (i == mappings.size()) fail("--simulated names '" + which + "', which is not one of the mappings");
    simulated_time[i] = *seconds;
  }

  auto platform = Platform::from_machine(mappings.front().machine);
  if (!platform) fail(platform.error().message);
  EvaluateOptions options;
  options.ppn = ppn;
  if (!node_list.empty()) {
    auto nodes = parse_node_list(node_list, mappings.front().machine);
    if (!nodes) fail(nodes.error().message);
    options.nodes = *nodes;
  }
  std::vector<Metrics> metrics;
  for (const Mapping& m : mappings) {
    auto result = evaluate(*traffic, m.placement, *platform, options);
    if (!result) fail(result.error().message);
    metrics.push_back(*result);
  }

  report::Table table;
  table.header.push_back("metric");
  for (const std::string& n : names) table.header.push_back(n);
  if (mappings.size() == 2) table.header.push_back("change");
  auto row = [&](const std::string& label, auto get) {
    std::vector<std::string> cells{label};
    for (size_t i = 0; i < mappings.size(); ++i) cells.push_back(fmt(get(i)));
    if (mappings.size() == 2) {
      const double a = get(0), b = get(1);
      cells.push_back(a != 0 && std::isfinite(a) && std::isfinite(b) ? fmt(100 * (b - a) / a) + "%" : "");
    }
    table.rows.push_back(std::move(cells));
  };
  row("inter-node bytes (B)", [&](size_t i) { return metrics[i].inter_node_bytes; });
  row("hop-bytes (B x hops)", [&](size_t i) { return metrics[i].hop_bytes; });
  row("bandwidth-weighted cost (B x hops / links)", [&](size_t i) { return metrics[i].weighted_cost; });
  row("gap to lower bound (ratio - 1)", [&](size_t i) { return metrics[i].gap_weighted; });
  row("mean dilation (hops)", [&](size_t i) { return metrics[i].mean_dilation; });
  row("max link load (s busy)", [&](size_t i) { return metrics[i].max_link_relative; });
  row("mean link load (s busy)", [&](size_t i) { return metrics[i].mean_link_relative; });
  row("predicted comm time, max rank (s)", [&](size_t i) { return metrics[i].comm_time_max; });
  row("cross-package bytes (B)", [&](size_t i) { return metrics[i].cross_package_bytes; });
  if (std::any_of(simulated_time.begin(), simulated_time.end(), [](double t) { return std::isfinite(t); }))
    row("simulated time, SimGrid (s)", [&](size_t i) { return simulated_time[i]; });

  std::vector<report::Figure> figures;
  std::vector<int> launch_order(static_cast<size_t>(profile->ranks));
  for (int r = 0; r < profile->ranks; ++r) launch_order[r] = r;
  figures.push_back({"Bytes sent between ranks, in launch (rank) order.",
                     report::comm_matrix_svg(*profile, launch_order, "communication matrix, launch order")});
  figures.push_back({"The same matrix with ranks ordered by their node and core in " + names.back() +
                         ": blocks on the diagonal are traffic that stays inside a node.",
                     report::comm_matrix_svg(*profile, report::mapped_order(mappings.back()),
                                             "communication matrix, " + names.back() + " order")});
  std::vector<std::vector<double>> loads;
  double scale = 0;
  for (const Mapping& m : mappings) {
    loads.push_back(platform->torus.link_loads(inter_node_flows(*traffic, m.placement)));
    scale = std::max(scale, platform->torus.summarize_loads(loads.back()).max_relative);
  }
  for (size_t i = 0; i < mappings.size(); ++i)
    figures.push_back({"Link loads of " + names[i] + " under the direction-ordered routing (same colour scale for all " +
                           "mappings; hover a link for its busy time).",
                       report::link_load_svg(platform->torus, loads[i], "link loads, " + names[i], scale)});

  const std::string html = report::html_page(
      title,
      {"profile " + profile_path + ": " + std::to_string(profile->ranks) + " ranks",
       "machine " + to_string(mappings.front().machine)},
      table, figures);
  Status written = write_file_atomically(output, html);
  if (!written) fail(written.error().message);
  if (!quiet) std::printf("wrote %s (%zu mappings)\n", output.c_str(), mappings.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return rankmap::cli::run("rankmap-report", [&] { return report_main(argc, argv); });
}
