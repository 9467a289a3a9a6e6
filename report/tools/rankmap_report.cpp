// rankmap-report: one HTML page comparing placements of one profile: a
// verdict (the last mapping against the first), the evaluator's metrics from
// the metric catalogue in human units, the communication matrix grouped by
// node for both, and the link loads (each link drawn up to a few hundred
// nodes, a histogram above).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "rankmap/app_estimate.hpp"
#include "rankmap/atomic_file.hpp"
#include "rankmap/cli.hpp"
#include "rankmap/mapper.hpp"
#include "rankmap/metrics.hpp"
#include "rankmap/report.hpp"
#include "rankmap/text.hpp"

namespace {

using namespace rankmap;

using cli::fail;

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
  std::vector<std::string> mapping_paths, simulated, whole_app, labels;
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
  app.add_option("--whole-app", whole_app,
                 "replayed whole-application time of a mapping, MAPPING=SECONDS (the whole-app column of "
                 "rankmap-sim compare or replay); with the first and the last mapping's, the verdict gives the "
                 "application change replayed instead of the p_mpi estimate; repeatable");
  app.add_option("--simulated", simulated,
                 "simulated communication time of a mapping, MAPPING=SECONDS (rankmap-sim run, or the comm-only "
                 "column of rankmap-sim replay); with the first and the last mapping's, the verdict uses them "
                 "instead of the time model; repeatable");
  bool node_picture = false, no_bound = false;
  app.add_flag("--no-bound", no_bound, "skip the lower bound (as in rankmap evaluate; faster on large runs)");
  app.add_flag("--node-picture", node_picture, "add hwloc's drawing of one node (runs lstopo-no-graphics --of svg)");
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
  std::vector<bool> labelled(mappings.size(), false);
  for (const std::string& l : labels) {
    const size_t eq = l.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == l.size()) fail("bad --label '" + text::excerpt(l) + "', expected MAPPING=NAME");
    const std::string which = l.substr(0, eq);
    size_t i = 0;
    while (i < mappings.size() && mapping_paths[i] != which && names[i] != which && base_name(mapping_paths[i]) != which) ++i;
    if (i == mappings.size()) fail("--label names '" + text::excerpt(which) + "', which is not one of the mappings");
    names[i] = l.substr(eq + 1);
    labelled[i] = true;
  }
  std::vector<std::string> inputs = mapping_paths;
  inputs.push_back(profile_path);
  for (const Mapping& m : mappings)
    for (const std::string& f : m.machine.files()) inputs.push_back(f);
  Status not_an_input = refuse_to_overwrite_inputs({output}, inputs);
  if (!not_an_input) fail(not_an_input.error().message);
  // --simulated and --whole-app: MAPPING=SECONDS, one value per mapping.
  auto times_per_mapping = [&](const std::vector<std::string>& given, const std::string& flag) {
    std::vector<double> seconds_of(mappings.size(), NAN);
    for (const std::string& s : given) {
      const size_t eq = s.rfind('=');
      auto seconds = eq == std::string::npos ? std::nullopt : text::parse_double(s.substr(eq + 1));
      if (!seconds) fail("bad " + flag + " '" + s + "', expected MAPPING=SECONDS");
      const std::string which = s.substr(0, eq);
      size_t i = 0;
      while (i < mappings.size() && mapping_paths[i] != which && names[i] != which && base_name(mapping_paths[i]) != which) ++i;
      if (i == mappings.size()) fail(flag + " names '" + which + "', which is not one of the mappings");
      seconds_of[i] = *seconds;
    }
    return seconds_of;
  };
  const std::vector<double> simulated_time = times_per_mapping(simulated, "--simulated");
  const std::vector<double> whole_app_time = times_per_mapping(whole_app, "--whole-app");

  auto platform = Platform::from_machine(mappings.front().machine);
  if (!platform) fail(platform.error().message);
  const int cores = platform->node_kinds.max_cores();
  if (ppn > cores)  // as in rankmap evaluate
    fail("--ppn " + std::to_string(ppn) + ": the machine of " + mapping_paths.front() + " has " + std::to_string(cores) +
         " cores per node; use --ppn " + std::to_string(cores) + " or less");
  EvaluateOptions options;
  options.ppn = ppn;
  options.lower_bound = !no_bound;
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

  // Columns are named by algorithm: --label first, then the mapping's
  // `algorithm` record (its first word, e.g. rankmap, scotch); a mapping
  // without one that is the launcher's block placement (at its own ranks per
  // node) is called block; else the file name.
  for (size_t i = 0; i < mappings.size(); ++i) {
    if (labelled[i]) continue;
    if (!mappings[i].algorithm.empty()) {
      names[i] = mappings[i].algorithm.substr(0, mappings[i].algorithm.find(' '));
      continue;
    }
    std::vector<int> per_node(static_cast<size_t>(platform->net().nodes()), 0);
    int most = 0;
    for (const Placement& p : mappings[i].placement) most = std::max(most, ++per_node[static_cast<size_t>(p.node)]);
    MapOptions block;
    block.algorithm = "block";
    block.ppn = most;
    auto placed = map_ranks(*traffic, *platform, block);
    if (placed && placed->placement == mappings[i].placement) names[i] = "block";
  }

  const size_t last = mappings.size() - 1;
  auto any_finite = [](const std::vector<double>& v) {
    return std::any_of(v.begin(), v.end(), [](double t) { return std::isfinite(t); });
  };
  const bool have_simulated = any_finite(simulated_time), have_whole_app = any_finite(whole_app_time);

  // What the user gains, every mapping against the first: the simulated
  // times when both were given, else the time model; the application by
  // the profile's p_mpi (rankmap/app_estimate.hpp).
  const MpiFraction p_mpi = mpi_fraction(*profile);
  std::vector<Outlook> outlooks;
  for (size_t i = 0; i < mappings.size(); ++i) {
    if (std::isfinite(simulated_time[0]) && std::isfinite(simulated_time[i]) && simulated_time[0] > 0)
      outlooks.push_back(estimate_outlook(simulated_time[i] / simulated_time[0], "simulated", p_mpi.mean));
    else
      outlooks.push_back(time_model_outlook(metrics[0], metrics[i], p_mpi.mean));
    if (std::isfinite(whole_app_time[0]) && std::isfinite(whole_app_time[i]) && whole_app_time[0] > 0) {
      outlooks.back().app_ratio = whole_app_time[i] / whole_app_time[0];
      outlooks.back().app_replayed = true;
    }
    set_outlook(metrics[i], outlooks.back());
  }

  // The table: the metric catalogue, human units, the change of the last
  // mapping against the first coloured by whether it is better.
  report::Table table;
  table.header.push_back("metric");
  for (const std::string& n : names) table.header.push_back(n);
  if (last > 0) table.header.push_back(names[last] + " vs " + names[0]);
  std::vector<std::pair<std::string, std::string>> legend;
  auto row = [&](const MetricInfo& info, auto get) {
    std::vector<std::string> cells{std::string(text::trim(info.label))};
    for (size_t i = 0; i < mappings.size(); ++i) cells.push_back(format_human(info.unit, get(i)));
    std::string change_class;
    if (last > 0) {
      const double a = get(0), b = get(last);
      std::string change;
      if (info.unit == MetricUnit::fraction || info.unit == MetricUnit::share) {
        // already a change (or a share): no change of its own; colour it by its sign
        const double v = get(last);
        if (info.better == Better::lower && std::isfinite(v) && v < -1e-9) change_class = "better";
        if (info.better == Better::lower && std::isfinite(v) && v > 1e-9) change_class = "worse";
      } else if (std::isfinite(a) && std::isfinite(b) && a != 0) {
        char times[32];
        std::snprintf(times, sizeof times, b / a >= 10 ? "%.0fx" : "%.2gx", b / a);
        change = b / a >= 2 ? std::string(times) : format_human(MetricUnit::fraction, (b - a) / a);
        const bool lower = b < a * (1 - 1e-9), higher = b > a * (1 + 1e-9);
        if (info.better == Better::lower && lower) change_class = "better";
        if (info.better == Better::lower && higher) change_class = "worse";
        if (info.better == Better::higher && higher) change_class = "better";
        if (info.better == Better::higher && lower) change_class = "worse";
      } else if (std::isfinite(a) && std::isfinite(b) && a == b) {
        change = "same";
      }
      cells.push_back(change);
    }
    table.rows.push_back(std::move(cells));
    table.change.push_back(change_class);
    table.tips.push_back(info.description);
    legend.push_back({std::string(text::trim(info.label)), info.description});
  };
  if (have_whole_app) row(whole_app_time_metric(), [&](size_t i) { return whole_app_time[i]; });
  if (have_simulated) row(simulated_time_metric(), [&](size_t i) { return simulated_time[i]; });
  for (const MetricInfo& info : metric_catalogue())
    if (!no_bound || !from_lower_bound(info)) row(info, [&](size_t i) { return info.get(metrics[i]); });

  // The verdict: the last mapping against the first, led by what the user
  // gains (communication and application time), then the network numbers
  // behind it (traffic, the bottleneck link); the advice under it says
  // whether a relaunch is worth it.
  std::string verdict, advice;
  if (last > 0) {
    auto pct = [](double a, double b) {
      if (!(a > 0) || !std::isfinite(b)) return std::string("n/a");
      char buf[32];
      std::snprintf(buf, sizeof buf, "%+.0f%%", 100 * (b - a) / a);
      std::string s = buf;
      if (s[0] == '-') s.replace(0, 1, "\u2212");  // a real minus sign
      return s;
    };
    verdict = names[last] + " vs " + names[0] + ": " + outlook_headline(outlooks[last]) + "; hop-bytes " +
              pct(metrics[0].hop_bytes, metrics[last].hop_bytes) + ", max link load " +
              pct(metrics[0].max_link_relative, metrics[last].max_link_relative);
    advice = relaunch_verdict(outlooks[last]);
    advice[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(advice[0])));
    advice += ".";
  }

  // Matrices: both ordered by node, on one colour scale.
  std::vector<report::Figure> figures;
  std::vector<report::MatrixCells> matrices;
  std::vector<std::vector<std::pair<int, int>>> spans;
  double lo = 0, hi = 0;
  for (size_t i : {size_t{0}, last}) {
    const std::vector<int> order = report::mapped_order(mappings[i]);
    matrices.push_back(report::comm_matrix_cells(*profile, order, 256));
    spans.push_back(report::node_spans(mappings[i], order));
    lo = lo == 0 ? matrices.back().min_bytes : std::min(lo, matrices.back().min_bytes);
    hi = std::max(hi, matrices.back().max_bytes);
    if (last == 0) break;
  }
  for (size_t k = 0; k < matrices.size(); ++k) {
    const std::string& name = names[k == 0 ? 0 : last];
    figures.push_back({"Who sends how much to whom, ranks grouped by their node in " + name +
                           ". Traffic inside a blue box stays in a node; everything outside the boxes crosses the "
                           "network. Same colour scale as the other matrix.",
                       report::comm_matrix_svg(matrices[k], "communication matrix, ranks by node in " + name, lo, hi, spans[k])});
  }
  std::vector<std::vector<double>> loads;
  double scale = 0;
  for (const Mapping& m : mappings) {
    loads.push_back(platform->net().link_loads(inter_node_flows(*traffic, m.placement)));
    scale = std::max(scale, platform->net().summarize_loads(loads.back()).max_relative);
  }
  // The per-link picture is a drawing of a torus; other networks get the histogram.
  const Torus* torus = platform->net().as_torus();
  if (torus && torus->nodes() <= report::kMaxNodesDrawn) {
    for (size_t i = 0; i < mappings.size(); ++i)
      figures.push_back({"Every directed link of the torus under " + names[i] +
                             " (direction-ordered routing), coloured by how long it is busy carrying its bytes; "
                             "same scale for all mappings. Lines are X and Y links (two directions side by side), "
                             "the small squares under a node its links along the other dimensions; each tile is one "
                             "value of those. Hover a link for its time.",
                         report::link_load_svg(*torus, loads[i], "link loads, " + names[i], scale)});
  } else {
    const std::string why = torus ? " nodes: too many to draw each link)" : " nodes)";
    figures.push_back({"How many links are how busy, for each mapping (" + std::to_string(platform->net().nodes()) + why +
                           ". Bars further right are busier links; the rightmost bar is the bottleneck.",
                       report::link_load_histogram_svg(platform->net(), loads, names, "link loads")});
  }

  if (node_picture) {
    const NodeKinds& kinds = platform->node_kinds;
    if (kinds.uniform()) {
      figures.push_back({"One node of the machine as hwloc sees it (lstopo): the packages and cores ranks are placed on.",
                         cli::take(report::node_svg(mappings.front().machine))});
    } else {
      // A mixed machine: one picture per kind of node, saying how many.
      std::vector<int> count(static_cast<size_t>(kinds.count()), 0);
      for (int n = 0; n < platform->net().nodes(); ++n) ++count[static_cast<size_t>(kinds.kind_of(n))];
      for (int k = 0; k < kinds.count(); ++k)
        if (count[static_cast<size_t>(k)] > 0)
          figures.push_back({"A node of kind " + std::to_string(k + 1) + " of " + std::to_string(kinds.count()) + " (" +
                                 std::to_string(count[static_cast<size_t>(k)]) + " nodes, " +
                                 std::to_string(kinds.kind(k).cores()) + " cores) as hwloc sees it (lstopo).",
                             cli::take(report::node_svg(mappings.front().machine, k))});
    }
  }

  report::Page page;
  page.title = title;
  page.verdict = verdict;
  page.advice = advice;
  const std::string p_note =
      p_mpi.known() ? "p_mpi " + text::human_percent(100 * p_mpi.mean) +
                          " (the share of the profiled run's time inside MPI; ranks " +
                          text::human_percent(100 * p_mpi.min) + " to " + text::human_percent(100 * p_mpi.max) + ")"
                    : "no MPI time in the profile: the application change is n/a";
  std::string shared = p_mpi.ranks_sharing_a_core > 0
                           ? " (an oversubscribed run: " + std::to_string(p_mpi.ranks_sharing_a_core) +
                                 " ranks started on a core another rank started on, so p_mpi counts waiting for "
                                 "descheduled partners)"
                           : "";
  page.notes = {"profile " + profile_path + ": " + std::to_string(profile->ranks) + " ranks, " + p_note + shared + "; machine " +
                    to_string(mappings.front().machine),
                last > 0 ? "The last column is the change of " + names[last] + " against " + names[0] +
                               " (green: better, red: worse). Hover a metric for what it means; the legend below "
                               "says it too."
                         : "Hover a metric for what it means; the legend below says it too."};
  page.table = table;
  page.legend = legend;
  page.figures = figures;
  const std::string html = report::html_page(page);
  Status written = write_file_atomically(output, html);
  if (!written) fail(written.error().message);
  if (!quiet) std::printf("wrote %s (%zu mappings)\n", output.c_str(), mappings.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return rankmap::cli::run("rankmap-report", [&] { return report_main(argc, argv); });
}
