// The metric catalogue (rankmap/metrics.hpp): the names the text table, the
// JSON and the report share.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "rankmap/metrics.hpp"

using namespace rankmap;

TEST_CASE("catalogue: unique JSON keys and labels, every metric explained") {
  std::set<std::string> keys, labels;
  for (const MetricInfo& m : metric_catalogue()) {
    CHECK(keys.insert(m.key).second);
    CHECK(labels.insert(m.label).second);
    CHECK(std::string(m.description).size() > 20);
    CHECK(m.get != nullptr);
    for (char c : std::string(m.key)) CHECK(((c >= 'a' && c <= 'z') || c == '_'));
  }
  CHECK(keys.size() == 23);
  CHECK(find_metric("max_link_load_seconds")->unit == MetricUnit::seconds);  // not "relative"
  CHECK(find_metric("hop_bytes")->better == Better::lower);
  CHECK(find_metric("no_such_metric") == nullptr);
  CHECK(!keys.count(simulated_time_metric().key));
}

TEST_CASE("catalogue: values are read from the evaluator's Metrics") {
  Metrics m;
  m.hop_bytes = 94393700;
  m.max_link_relative = 139.82293333333334e-6;
  m.nodes_used = 32;
  CHECK(find_metric("hop_bytes")->get(m) == 94393700);
  CHECK(find_metric("max_link_load_seconds")->get(m) == m.max_link_relative);
  CHECK(find_metric("nodes_used")->get(m) == 32);
  m.predicted_comm_time_max = 2.5e-3;
  m.predicted_comm_time_mean = 1.5e-3;
  CHECK(find_metric("predicted_comm_time_max_seconds")->get(m) == 2.5e-3);
  CHECK(find_metric("predicted_comm_time_mean_seconds")->get(m) == 1.5e-3);
  CHECK(find_metric("predicted_comm_time_max_seconds")->unit == MetricUnit::seconds);
  int bound_rows = 0;
  for (const MetricInfo& info : metric_catalogue()) bound_rows += from_lower_bound(info);
  CHECK(bound_rows == 4);
}

TEST_CASE("catalogue: human units for the report") {
  CHECK(format_human(MetricUnit::bytes, 62932700) == "62.9 MB");
  CHECK(format_human(MetricUnit::byte_hops, 2.16e12) == "2.16 TB\u00b7hop");
  CHECK(format_human(MetricUnit::seconds, 139.82293333333334e-6) == "140 \u00b5s");
  CHECK(format_human(MetricUnit::hops, 1.5) == "1.5 hops");
  CHECK(format_human(MetricUnit::count, 32) == "32");
  CHECK(format_human(MetricUnit::fraction, -0.444) == "\u221244.4%");
  CHECK(format_human(MetricUnit::fraction, 0.8) == "+80%");
  CHECK(format_human(MetricUnit::fraction, 30.46) == "+3046%");
  CHECK(format_human(MetricUnit::fraction, 0) == "0%");
  CHECK(format_human(MetricUnit::seconds, NAN) == "n/a");
}
