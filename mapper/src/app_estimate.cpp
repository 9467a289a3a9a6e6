// The user's outlook: communication and whole-application change against a
// baseline placement (rankmap/app_estimate.hpp).
#include "rankmap/app_estimate.hpp"
#include "rankmap/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

namespace rankmap {

namespace {

// "\u221218.2%", "+3.1%", "0%" (rankmap/text.hpp, human_percent).
std::string signed_percent(double ratio_minus_one) { return text::human_percent(100 * ratio_minus_one, true); }

std::string percent(double share) { return text::human_percent(100 * share); }

}  // namespace

MpiFraction mpi_fraction(const Profile& profile) {
  MpiFraction f;
  double wall = 0, mpi = 0;
  bool all_yield = true;
  std::set<std::pair<std::string, int>> started_on;
  for (const RankInfo& r : profile.rank_info)
    if (r.core >= 0 && !started_on.insert({r.host, r.core}).second) ++f.ranks_sharing_a_core;
  for (const RankInfo& r : profile.rank_info) {
    if (!(r.wall > 0) || !std::isfinite(r.wall) || !(r.mpi >= 0) || !std::isfinite(r.mpi)) continue;
    const double in_mpi = std::min(r.mpi, r.wall);  // threads' times are summed: cap at the rank's wall
    const double p = in_mpi / r.wall;
    f.min = f.timed_ranks == 0 ? p : std::min(f.min, p);
    f.max = f.timed_ranks == 0 ? p : std::max(f.max, p);
    wall += r.wall;
    mpi += in_mpi;
    all_yield = all_yield && r.yield;
    ++f.timed_ranks;
  }
  if (f.timed_ranks > 0) {
    f.mean = mpi / wall;
    f.yield = all_yield;
  }
  return f;
}

double app_time_ratio(double p_mpi, double comm_ratio) {
  if (!std::isfinite(p_mpi) || !std::isfinite(comm_ratio)) return kNoValue;
  return (1 - p_mpi) + p_mpi * comm_ratio;
}

Outlook estimate_outlook(double comm_ratio, const std::string& comm_source, double p_mpi) {
  Outlook o;
  o.comm_ratio = comm_ratio;
  o.comm_source = comm_source;
  o.p_mpi = p_mpi;
  o.app_ratio = app_time_ratio(p_mpi, comm_ratio);
  return o;
}

std::string outlook_headline(const Outlook& o) {
  std::string s = "communication " + (std::isfinite(o.comm_ratio) ? signed_percent(o.comm_ratio - 1) : std::string("n/a"));
  if (!o.comm_source.empty()) s += " (" + o.comm_source + ")";
  s += ", application ";
  if (o.app_replayed && std::isfinite(o.app_ratio)) return s + signed_percent(o.app_ratio - 1) + " (replayed)";
  if (!std::isfinite(o.p_mpi)) return s + "n/a (no MPI time in the profile)";
  return s + (std::isfinite(o.app_ratio) ? signed_percent(o.app_ratio - 1) : std::string("n/a")) + " at p_mpi " +
         percent(o.p_mpi);
}

std::string relaunch_verdict(const Outlook& o) {
  const std::string threshold = percent(kRelaunchGain);
  if (std::isfinite(o.app_ratio)) {
    const double gain = 1 - o.app_ratio;
    if (o.app_ratio > 1) return "not worth a relaunch: the application is predicted slower (" + signed_percent(o.app_ratio - 1) + ")";
    if (gain < kRelaunchGain)
      return "not worth a relaunch: predicted application gain " + percent(gain) + ", below " + threshold +
             (o.app_replayed ? "" : " (an upper bound: waiting inside MPI does not shrink with faster messages)");
    return "worth a relaunch: application " + signed_percent(o.app_ratio - 1) + " predicted" +
           (o.app_replayed ? " (replayed)" : " (at most: the p_mpi estimate is an upper bound)");
  }
  if (std::isfinite(o.comm_ratio) && 1 - o.comm_ratio < kRelaunchGain)
    return "not worth a relaunch: communication gains " + (o.comm_ratio > 1 ? std::string("nothing") : percent(1 - o.comm_ratio)) +
           ", below " + threshold + ", so the application gains less";
  return "application gain unknown: the profile has no MPI time (profile the run with commprof-run for p_mpi)";
}

void set_outlook(Metrics& m, const Outlook& o) {
  m.p_mpi = o.p_mpi;
  m.predicted_comm_change = std::isfinite(o.comm_ratio) ? o.comm_ratio - 1 : kNoValue;
  m.predicted_app_change = std::isfinite(o.app_ratio) ? o.app_ratio - 1 : kNoValue;
}

Outlook time_model_outlook(const Metrics& baseline, const Metrics& mapping, double p_mpi) {
  const double a = baseline.predicted_comm_time_max, b = mapping.predicted_comm_time_max;
  // No traffic at all: nothing changes.
  const double ratio = a > 0 ? b / a : (b == 0 ? 1.0 : kNoValue);
  return estimate_outlook(ratio, "time model", p_mpi);
}

}  // namespace rankmap
