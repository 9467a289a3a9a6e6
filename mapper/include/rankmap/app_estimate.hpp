// What a user gains from a mapping: the predicted change of communication
// time against the placement the profile was recorded on (the baseline,
// normally the launcher's block placement), and the whole application's
// change estimated from the profile's measured fraction of time in MPI:
//
//   app' / app = (1 - p_mpi) + p_mpi x (comm' / comm)
//
// Assumptions (docs/mapper.md, "What the user gains"): computation does not
// change with the placement, and every second the profile counted inside MPI
// scales with the predicted communication time. Part of that MPI time is
// waiting for a partner that is still computing (load imbalance), which a
// faster network does not shorten: the estimate overstates the change in
// both directions, so a predicted gain is an upper bound (to the extent the
// communication ratio is right), and a gain below the relaunch threshold is
// a safe "not worth it".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "rankmap/mapper.hpp"
#include "rankmap/profile.hpp"

namespace rankmap {

// The profile's measured time in MPI (the `rank` lines' wall= and mpi=).
struct MpiFraction {
  // sum of mpi / sum of wall over the timed ranks: the share of all rank-time
  // spent inside MPI. Ranks run from init to finalize together, so their
  // walls are nearly equal and this is the mean of the ranks' fractions.
  double mean = kNoValue;
  double min = kNoValue, max = kNoValue;  // over the timed ranks
  int timed_ranks = 0;                    // ranks with wall > 0; 0: the profile has no timing
  bool yield = false;                     // every timed rank waited through the yield shim (yield=1)
  // Ranks that started on a (host, core) an earlier rank started on: the run
  // was oversubscribed, and its waits include partners that were not
  // scheduled, so p_mpi says more about the machine it ran on than about
  // the application (a 128-rank run on a 2-core laptop gives ~100%).
  int ranks_sharing_a_core = 0;

  bool known() const { return timed_ranks > 0; }
};

// Synthetic profiles, profiles made from traces and COMMPROF_TIMING=0 runs
// have no timing (wall 0): timed_ranks is 0 and the fractions are NaN.
// A rank's mpi may exceed its wall in multithreaded ranks (the threads'
// times are summed): fractions are capped at 1.
MpiFraction mpi_fraction(const Profile& profile);

// (1 - p_mpi) + p_mpi x comm_ratio; NaN when either is unknown.
double app_time_ratio(double p_mpi, double comm_ratio);

// Below this predicted application gain a mapping is not worth a relaunch:
// 1% is within the run-to-run noise of most clusters, and the estimate is an
// upper bound.
constexpr double kRelaunchGain = 0.01;

// The answer to "how much faster will my run be?" for one mapping against
// the baseline.
struct Outlook {
  double comm_ratio = kNoValue;  // mapping / baseline communication time
  std::string comm_source;       // where comm_ratio comes from: "time model", "replay", "simulated"
  double p_mpi = kNoValue;       // the profile's (MpiFraction::mean)
  double app_ratio = kNoValue;   // mapping / baseline application time
  bool app_replayed = false;     // app_ratio is a whole-application replay, not the p_mpi estimate
};

// An outlook from a communication ratio and p_mpi (app_ratio by the formula).
Outlook estimate_outlook(double comm_ratio, const std::string& comm_source, double p_mpi);

// "communication −18.2% (time model), application −0.9% at p_mpi 5%"; the
// application part says "n/a (no MPI time in the profile)" without p_mpi and
// "(replayed)" for a whole-application replay.
std::string outlook_headline(const Outlook& outlook);

// Whether a relaunch is worth it, in one plain sentence: "not worth a
// relaunch: ..." when the predicted application gain is below kRelaunchGain
// (or, without p_mpi, when even the communication gains less than that,
// which bounds the application's gain for any p_mpi), "worth a relaunch: ..."
// when it is above, and "application gain unknown: ..." otherwise.
std::string relaunch_verdict(const Outlook& outlook);

// Sets Metrics::p_mpi, predicted_comm_change and predicted_app_change of a
// mapping's metrics from its outlook (the baseline's own outlook is ratio 1).
void set_outlook(Metrics& metrics, const Outlook& outlook);

// The time model's outlook of `mapping` against `baseline`: the ratio of
// their slowest ranks' predicted communication times.
Outlook time_model_outlook(const Metrics& baseline, const Metrics& mapping, double p_mpi);

}  // namespace rankmap
