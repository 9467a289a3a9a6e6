// The metric catalogue: every number the evaluator reports, once, with the
// name the JSON output uses, the label the text table and the HTML report
// use, its unit, which way is better, and one sentence a newcomer can read.
// `rankmap map|evaluate` (table and --json) and `rankmap-report` print from
// this list, so the three never disagree on a name or a unit.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "rankmap/mapper.hpp"
#include "rankmap/text.hpp"

namespace rankmap {

enum class MetricUnit {
  count,       // plain number
  bytes,       // B
  byte_hops,   // B x hops
  seconds,     // s
  hops,        // torus hops
  fraction,    // a ratio minus one (0.12 = 12% above)
  share,       // a part of a whole, 0 to 1 (0.05 = 5%)
};

enum class Better { lower, higher, neither };

struct MetricInfo {
  const char* key;          // JSON name: snake_case, with its unit when not obvious
  const char* label;        // text table and report
  MetricUnit unit;
  Better better;
  const char* description;  // the report's legend and docs
  double (*get)(const Metrics&);  // null for numbers from outside the evaluator
};

// In table order.
inline const std::vector<MetricInfo>& metric_catalogue() {
  // The answer a user asks for comes first ("how much faster?"): the
  // predicted changes against the baseline and the time model's times; the
  // network measures follow.
  static const std::vector<MetricInfo> catalogue = {
      {"predicted_comm_time_change", "communication change", MetricUnit::fraction, Better::lower,
       "predicted change of communication time against the baseline (the first mapping; block in rankmap map): "
       "the time model's slowest rank, or the replayed time when a trace was replayed",
       [](const Metrics& m) { return m.predicted_comm_change; }},
      {"predicted_app_time_change", "application change", MetricUnit::fraction, Better::lower,
       "estimated change of the whole application's time: (1 - p_mpi) + p_mpi x (communication ratio), minus 1; "
       "computation unchanged, all MPI time scaling with communication, so an upper bound of the gain "
       "(time spent waiting for slower partners does not shrink)",
       [](const Metrics& m) { return m.predicted_app_change; }},
      {"p_mpi", "p_mpi (profile)", MetricUnit::share, Better::neither,
       "share of the profiled run's time spent inside MPI: the profile's mpi= over wall=, summed over ranks "
       "(n/a for profiles without timing: synthetic, from a trace, COMMPROF_TIMING=0)",
       [](const Metrics& m) { return m.p_mpi; }},
      {"predicted_comm_time_max_seconds", "time model, max rank", MetricUnit::seconds, Better::lower,
       "the time model's prediction for the slowest rank: its messages' latency plus their bytes at the max-min "
       "fair share of every link they cross, all flows at once; intra-node messages at the node's speed",
       [](const Metrics& m) { return m.predicted_comm_time_max; }},
      {"predicted_bulk_time_seconds", "bulk model", MetricUnit::seconds, Better::lower,
       "the bulk-synchronous model: the traffic as rounds in which every pair sends one message and every rank "
       "waits for its round, in a flow-level simulation of the real routing (n/a above 8,192 ranks or past its work cap)",
       [](const Metrics& m) { return m.predicted_bulk_time; }},
      {"predicted_comm_time_mean_seconds", "time model, mean rank", MetricUnit::seconds, Better::lower,
       "the time model's prediction averaged over ranks", [](const Metrics& m) { return m.predicted_comm_time_mean; }},
      {"nodes_used", "nodes used", MetricUnit::count, Better::neither, "torus nodes that hold at least one rank",
       [](const Metrics& m) { return static_cast<double>(m.nodes_used); }},
      {"inter_node_bytes", "inter-node bytes", MetricUnit::bytes, Better::lower,
       "bytes sent between ranks on different nodes: all the traffic that enters the network",
       [](const Metrics& m) { return m.inter_node_bytes; }},
      {"hop_bytes", "hop-bytes", MetricUnit::byte_hops, Better::lower,
       "every inter-node byte times the torus hops it travels: the load a placement puts on the network",
       [](const Metrics& m) { return m.hop_bytes; }},
      {"hop_bytes_lower_bound", "hop-bytes lower bound", MetricUnit::byte_hops, Better::neither,
       "no placement with these ranks per node can have fewer hop-bytes",
       [](const Metrics& m) { return m.lower_bound_hop_bytes; }},
      {"hop_bytes_gap", "hop-bytes gap", MetricUnit::fraction, Better::lower,
       "how far the hop-bytes are above their lower bound (0: provably optimal)",
       [](const Metrics& m) { return m.gap_hop_bytes; }},
      {"weighted_cost", "bw-weighted cost", MetricUnit::byte_hops, Better::lower,
       "hop-bytes with a hop over k parallel cables counted 1/k: what the mapper minimises first",
       [](const Metrics& m) { return m.weighted_cost; }},
      {"weighted_cost_lower_bound", "bw-weighted lower bound", MetricUnit::byte_hops, Better::neither,
       "no placement with these ranks per node can have a smaller bw-weighted cost",
       [](const Metrics& m) { return m.lower_bound_weighted; }},
      {"weighted_cost_gap", "bw-weighted gap", MetricUnit::fraction, Better::lower,
       "how far the bw-weighted cost is above the lower bound (0: provably optimal)",
       [](const Metrics& m) { return m.gap_weighted; }},
      {"mean_dilation", "mean dilation", MetricUnit::hops, Better::lower,
       "hops an average inter-node byte travels (hop-bytes / inter-node bytes)",
       [](const Metrics& m) { return m.mean_dilation; }},
      {"max_dilation", "max dilation", MetricUnit::hops, Better::lower, "most hops between two communicating ranks",
       [](const Metrics& m) { return static_cast<double>(m.max_dilation); }},
      {"max_link_load_bytes", "max link bytes", MetricUnit::bytes, Better::lower,
       "bytes on the most loaded directed link under the machine's routing",
       [](const Metrics& m) { return m.max_link_load; }},
      {"max_link_load_seconds", "max link load", MetricUnit::seconds, Better::lower,
       "time the most loaded directed link needs to carry its bytes (bytes / link bandwidth): "
       "the network bottleneck",
       [](const Metrics& m) { return m.max_link_relative; }},
      {"mean_link_load_seconds", "mean link load", MetricUnit::seconds, Better::lower,
       "the same busy time averaged over all directed links of the torus",
       [](const Metrics& m) { return m.mean_link_relative; }},
      {"comm_time_max_seconds", "comm time, max rank", MetricUnit::seconds, Better::lower,
       "predicted time of the slowest rank's inter-node sends (latency per message and hop, shared links)",
       [](const Metrics& m) { return m.comm_time_max; }},
      {"comm_time_mean_seconds", "comm time, mean rank", MetricUnit::seconds, Better::lower,
       "the same prediction averaged over ranks", [](const Metrics& m) { return m.comm_time_mean; }},
      {"intra_node_bytes", "intra-node bytes", MetricUnit::bytes, Better::higher,
       "bytes between ranks on the same node: they never enter the network",
       [](const Metrics& m) { return m.intra_node_bytes; }},
      {"cross_package_bytes", "cross-package bytes", MetricUnit::bytes, Better::lower,
       "intra-node bytes between cores of different packages (sockets)",
       [](const Metrics& m) { return m.cross_package_bytes; }},
  };
  return catalogue;
}

// Numbers the report shows beside the evaluator's.
inline const MetricInfo& simulated_time_metric() {
  static const MetricInfo info{"simulated_seconds", "simulated time", MetricUnit::seconds, Better::lower,
                               "run time of the real program in SimGrid on this placement (rankmap-sim run)", nullptr};
  return info;
}

inline const MetricInfo& whole_app_time_metric() {
  static const MetricInfo info{"whole_app_seconds", "whole-app time (replay)", MetricUnit::seconds, Better::lower,
                               "run time of the whole application, computation included, replayed in SimGrid on this "
                               "placement (rankmap-sim compare)",
                               nullptr};
  return info;
}

// The lower bounds and the gaps to them: meaningless when the bound was not
// computed (--no-bound), where tables print n/a.
inline bool from_lower_bound(const MetricInfo& m) {
  const std::string_view key = m.key;
  return key == "hop_bytes_lower_bound" || key == "hop_bytes_gap" || key == "weighted_cost_lower_bound" ||
         key == "weighted_cost_gap";
}

inline const MetricInfo* find_metric(std::string_view key) {
  for (const MetricInfo& m : metric_catalogue())
    if (key == m.key) return &m;
  return nullptr;
}

// The unit as the text table prints it (plain ASCII, values in base units).
inline const char* unit_symbol(MetricUnit unit) {
  switch (unit) {
    case MetricUnit::count: return "";
    case MetricUnit::bytes: return "B";
    case MetricUnit::byte_hops: return "B*hop";
    case MetricUnit::seconds: return "s";
    case MetricUnit::hops: return "hops";
    case MetricUnit::fraction: return "ratio-1";
    case MetricUnit::share: return "share";
  }
  return "";
}

// A value for people: three significant digits and a unit prefix ("62.9 MB",
// "94.4 MB\u00b7hop", "140 \u00b5s", "1.23 hops", "+12.3%"). UTF-8.
inline std::string format_human(MetricUnit unit, double v) {
  if (!std::isfinite(v)) return "n/a";
  switch (unit) {
    case MetricUnit::count: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.0f", v);
      return buf;
    }
    case MetricUnit::bytes: return text::human(v, "B");
    case MetricUnit::byte_hops: return text::human(v, "B\u00b7hop");
    case MetricUnit::hops: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.3g hops", v);
      return buf;
    }
    case MetricUnit::fraction: return text::human_percent(100 * v, true);
    case MetricUnit::share: return text::human_percent(100 * v);
    case MetricUnit::seconds: return text::human_seconds(v);
  }
  return "";
}

}  // namespace rankmap
