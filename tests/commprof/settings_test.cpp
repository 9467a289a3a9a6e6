#include <catch2/catch.hpp>

#include <cstdlib>

#include "settings.hpp"

TEST_CASE("settings come from COMMPROF_* and bad values only warn", "[commprof]") {
  setenv("COMMPROF_TIMING", "off", 1);
  setenv("COMMPROF_ENABLE", "perhaps", 1);
  setenv("COMMPROF_OUTPUT", "/tmp/x.prof", 1);
  setenv("COMMPROF_OUTPTU", "typo", 1);
  std::vector<std::string> warnings;
  const commprof::Settings s = commprof::read_settings(&warnings);
  CHECK_FALSE(s.TIMING);
  CHECK(s.ENABLE);  // unparsable: default kept
  CHECK(s.OUTPUT == "/tmp/x.prof");
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].find("COMMPROF_ENABLE='perhaps'") != std::string::npos);
  CHECK(warnings[1].find("COMMPROF_OUTPTU") != std::string::npos);
  for (const char* v : {"COMMPROF_TIMING", "COMMPROF_ENABLE", "COMMPROF_OUTPUT", "COMMPROF_OUTPTU"}) unsetenv(v);
}

TEST_CASE("settings help lists every setting once", "[commprof]") {
  const std::string help = commprof::settings_help();
  for (const char* name : {"COMMPROF_ENABLE", "COMMPROF_OUTPUT", "COMMPROF_TIMING", "COMMPROF_VERBOSE", "COMMPROF_TRACE",
                           "COMMPROF_TRACE_MAX_MB", "COMMPROF_TRACE_FLOPS", "COMMPROF_TRACE_CLOCK"})
    CHECK(help.find(name) != std::string::npos);
}

TEST_CASE("trace settings: a directory, a positive size cap and speed, a clock name", "[commprof]") {
  setenv("COMMPROF_TRACE", "/tmp/app.trace", 1);
  setenv("COMMPROF_TRACE_MAX_MB", "0.5", 1);
  setenv("COMMPROF_TRACE_FLOPS", "-1", 1);
  std::vector<std::string> warnings;
  const commprof::Settings s = commprof::read_settings(&warnings);
  CHECK(s.TRACE == "/tmp/app.trace");
  CHECK(s.TRACE_MAX_MB == 0.5);
  CHECK(s.TRACE_FLOPS == 1e9);  // not a speed: default kept, one warning
  CHECK(s.TRACE_CLOCK == "cpu");
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "ignoring COMMPROF_TRACE_FLOPS='-1' (keeping 1e+09)");
  setenv("COMMPROF_TRACE_MAX_MB", "12MB", 1);
  warnings.clear();
  CHECK(commprof::read_settings(&warnings).TRACE_MAX_MB == 1024);
  CHECK(warnings.size() == 2);  // the size and, still set, the speed
  for (const char* v : {"COMMPROF_TRACE", "COMMPROF_TRACE_MAX_MB", "COMMPROF_TRACE_FLOPS"}) unsetenv(v);
}
