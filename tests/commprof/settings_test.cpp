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
  for (const char* name : {"COMMPROF_ENABLE", "COMMPROF_OUTPUT", "COMMPROF_TIMING", "COMMPROF_VERBOSE"})
    CHECK(help.find(name) != std::string::npos);
}
