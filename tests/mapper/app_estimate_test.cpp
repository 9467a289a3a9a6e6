// The user's outlook (rankmap/app_estimate.hpp): p_mpi from a profile, the
// whole-application estimate, and the words the CLI and the report print.
#include <catch2/catch.hpp>

#include <cmath>

#include "rankmap/app_estimate.hpp"
#include "rankmap/metrics.hpp"

using namespace rankmap;

namespace {
Profile timed(std::vector<std::pair<double, double>> wall_mpi) {
  Profile p;
  p.ranks = static_cast<int>(wall_mpi.size());
  for (auto [wall, mpi] : wall_mpi) {
    RankInfo r;
    r.host = "h";
    r.wall = wall;
    r.mpi = mpi;
    p.rank_info.push_back(r);
  }
  return p;
}
}  // namespace

TEST_CASE("app estimate: (1 - p) + p x comm ratio") {
  CHECK(app_time_ratio(0.5, 0.8) == Approx(0.9).epsilon(1e-15));
  CHECK(app_time_ratio(0.05, 0.82) == Approx(0.991).epsilon(1e-15));
  CHECK(app_time_ratio(0, 0.5) == 1);
  CHECK(app_time_ratio(1, 0.5) == 0.5);
  CHECK(app_time_ratio(0.25, 1.2) == Approx(1.05).epsilon(1e-15));  // a slower mapping: slower application
  CHECK(std::isnan(app_time_ratio(kNoValue, 0.8)));
  CHECK(std::isnan(app_time_ratio(0.5, kNoValue)));
}

TEST_CASE("p_mpi: sum of mpi over sum of wall; untimed ranks left out; capped at the wall") {
  MpiFraction f = mpi_fraction(timed({{10, 1}, {10, 3}}));
  CHECK(f.known());
  CHECK(f.timed_ranks == 2);
  CHECK(f.mean == Approx(0.2).epsilon(1e-15));
  CHECK(f.min == Approx(0.1).epsilon(1e-15));
  CHECK(f.max == Approx(0.3).epsilon(1e-15));
  CHECK(!f.yield);
  // Walls differ: the share of all rank-time, not the mean of the shares.
  f = mpi_fraction(timed({{30, 3}, {10, 5}, {0, 0}}));
  CHECK(f.timed_ranks == 2);
  CHECK(f.mean == Approx(0.2).epsilon(1e-15));
  // Threads' MPI times summed above the wall: counted as the whole wall.
  f = mpi_fraction(timed({{2, 3}}));
  CHECK(f.mean == 1);
  // A synthetic profile (no timing): unknown.
  f = mpi_fraction(timed({{0, 0}, {0, 0}}));
  CHECK(!f.known());
  CHECK(std::isnan(f.mean));
  // Two ranks that started on core 0 of one host: an oversubscribed run.
  Profile shared = timed({{10, 9}, {10, 9}, {10, 9}});
  shared.rank_info[0].core = 0;
  shared.rank_info[1].core = 0;
  shared.rank_info[2].core = 1;
  CHECK(mpi_fraction(shared).ranks_sharing_a_core == 1);
  shared.rank_info[1].host = "other";
  CHECK(mpi_fraction(shared).ranks_sharing_a_core == 0);
  CHECK(mpi_fraction(timed({{10, 1}, {10, 1}})).ranks_sharing_a_core == 0);  // core -1: unknown, not shared
  Profile y = timed({{4, 1}});
  y.rank_info[0].yield = true;
  CHECK(mpi_fraction(y).yield);
}

TEST_CASE("outlook: the headline leads with communication, then the application at p_mpi") {
  Outlook o = estimate_outlook(0.82, "time model", 0.05);
  CHECK(o.app_ratio == Approx(0.991).epsilon(1e-15));
  CHECK(outlook_headline(o) == "communication \u221218% (time model), application \u22120.9% at p_mpi 5%");
  CHECK(relaunch_verdict(o) ==
        "not worth a relaunch: predicted application gain 0.9%, below 1% (an upper bound: waiting inside MPI "
        "does not shrink with faster messages)");
  o = estimate_outlook(0.8, "replay", 0.5);
  CHECK(outlook_headline(o) == "communication \u221220% (replay), application \u221210% at p_mpi 50%");
  CHECK(relaunch_verdict(o) == "worth a relaunch: application \u221210% predicted (at most: the p_mpi estimate is an upper bound)");
  o = estimate_outlook(1.1, "time model", 0.5);
  CHECK(outlook_headline(o) == "communication +10% (time model), application +5% at p_mpi 50%");
  CHECK(relaunch_verdict(o) == "not worth a relaunch: the application is predicted slower (+5%)");
  // No timing in the profile: the application is n/a; a small communication
  // gain still decides (it bounds the application's gain for any p_mpi).
  o = estimate_outlook(0.995, "time model", kNoValue);
  CHECK(outlook_headline(o) == "communication \u22120.5% (time model), application n/a (no MPI time in the profile)");
  CHECK(relaunch_verdict(o) == "not worth a relaunch: communication gains 0.5%, below 1%, so the application gains less");
  o = estimate_outlook(0.6, "time model", kNoValue);
  CHECK(relaunch_verdict(o) ==
        "application gain unknown: the profile has no MPI time (profile the run with commprof-run for p_mpi)");
  // A whole-application replay is the answer itself.
  o = estimate_outlook(0.75, "time model", kNoValue);
  o.app_ratio = 0.98;
  o.app_replayed = true;
  CHECK(outlook_headline(o) == "communication \u221225% (time model), application \u22122% (replayed)");
  CHECK(relaunch_verdict(o) == "worth a relaunch: application \u22122% predicted (replayed)");
  // Plain decimals, never an exponent: a replayed change of 5.64e-07 is 0%,
  // small ones keep three decimals, large ones no fraction.
  o.app_ratio = 1 - 5.64e-7;
  CHECK(outlook_headline(o) == "communication \u221225% (time model), application 0% (replayed)");
  CHECK(relaunch_verdict(o) == "not worth a relaunch: predicted application gain 0%, below 1%");
  o.app_ratio = 1 - 1.234e-4;
  CHECK(outlook_headline(o) == "communication \u221225% (time model), application \u22120.012% (replayed)");
  o.app_ratio = 1 + 1.2345e-2;
  CHECK(outlook_headline(o) == "communication \u221225% (time model), application +1.23% (replayed)");
  o.app_ratio = 11.5;
  CHECK(relaunch_verdict(o) == "not worth a relaunch: the application is predicted slower (+1050%)");
}

TEST_CASE("outlook: in the metric catalogue, first, against the baseline") {
  Metrics block, mapped;
  block.predicted_comm_time_max = 1e-3;
  mapped.predicted_comm_time_max = 0.8e-3;
  CHECK(std::isnan(find_metric("predicted_app_time_change")->get(mapped)));  // not set by evaluate()
  set_outlook(block, time_model_outlook(block, block, 0.5));
  set_outlook(mapped, time_model_outlook(block, mapped, 0.5));
  CHECK(find_metric("predicted_comm_time_change")->get(block) == 0);
  CHECK(find_metric("predicted_app_time_change")->get(block) == 0);
  CHECK(find_metric("predicted_comm_time_change")->get(mapped) == Approx(-0.2).epsilon(1e-12));
  CHECK(find_metric("predicted_app_time_change")->get(mapped) == Approx(-0.1).epsilon(1e-12));
  CHECK(find_metric("p_mpi")->get(mapped) == 0.5);
  CHECK(std::string(metric_catalogue()[0].key) == "predicted_comm_time_change");
  CHECK(std::string(metric_catalogue()[1].key) == "predicted_app_time_change");
  CHECK(format_human(MetricUnit::share, 0.05) == "5%");
  CHECK(std::string(unit_symbol(MetricUnit::share)) == "share");
  // No traffic in either: nothing changes.
  Metrics none;
  CHECK(time_model_outlook(none, none, 0.5).app_ratio == 1);
}
