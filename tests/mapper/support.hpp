// Fixtures shared by the mapper tests: machines and traffic built the way the
// tools build them, failing the test (not crashing) on bad input.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "rankmap/mapper.hpp"

namespace rankmap::test {

inline Platform platform_of(const std::string& line) {
  auto m = parse_machine(line);
  REQUIRE(m.ok());
  auto p = Platform::from_machine(*m);
  REQUIRE(p.ok());
  return std::move(*p);
}

// The platform's torus, for tests of torus-only steps and geometry.
inline const Torus& torus_of(const Platform& platform) {
  const Torus* torus = platform.net().as_torus();
  REQUIRE(torus != nullptr);
  return *torus;
}

// The directed traffic of a synthetic pattern (rankmap::synthesize), with
// its collectives modelled.
inline Traffic synth_traffic(const SynthSpec& spec) {
  auto p = synthesize(spec);
  REQUIRE(p.ok());
  auto t = traffic_from_profile(*p, CollectiveModel::model);
  REQUIRE(t.ok());
  return std::move(*t);
}

}  // namespace rankmap::test
