#include <catch2/catch.hpp>

#include "rankmap/text.hpp"

using namespace rankmap;

TEST_CASE("durations and bandwidths parse with units and print back") {
  CHECK(text::parse_duration("850ns") == 850e-9);
  CHECK(text::parse_duration("1.5us") == 1.5e-6);
  CHECK(text::parse_duration("2ms") == 2e-3);
  CHECK(text::parse_duration("3") == 3.0);
  CHECK_FALSE(text::parse_duration("fast"));
  CHECK_FALSE(text::parse_duration("-1ns"));
  CHECK_FALSE(text::parse_duration("1nsx"));
  CHECK(text::parse_bandwidth("12.5GB/s") == 12.5e9);
  CHECK(text::parse_bandwidth("75Gbit/s") == 75e9 / 8);
  CHECK_FALSE(text::parse_bandwidth("0GB/s"));
  CHECK(text::format_duration(850e-9) == "850ns");
  CHECK(text::format_duration(1.2e-6) == "1.2us");
  CHECK(text::format_bandwidth(75e9 / 8) == "75Gbit/s");
  CHECK(text::format_bandwidth(12.5e9) == "12.5GB/s");
  for (double v : {1e-9, 129e-9, 0.25, 3.0, 1.234567e-7}) CHECK(text::parse_duration(text::format_duration(v)) == v);
}

TEST_CASE("strict integer parsing") {
  CHECK(text::parse_int("42") == 42);
  CHECK(text::parse_int("-1") == -1);
  CHECK_FALSE(text::parse_int("4x"));
  CHECK_FALSE(text::parse_int(""));
  CHECK_FALSE(text::parse_uint64("-3"));
  CHECK(text::words("  a \tb  c ") == std::vector<std::string>{"a", "b", "c"});
  CHECK(text::strip_comment("x=1 # c") == "x=1");
}

TEST_CASE("user words in messages are cut short and made printable") {
  CHECK(text::excerpt("p2p") == "p2p");
  CHECK(text::excerpt(std::string(40, 'x')) == std::string(40, 'x'));
  CHECK(text::excerpt(std::string(41, 'x')) == std::string(40, 'x') + "... (41 bytes)");
  CHECK(text::excerpt("abcdef", 3) == "abc... (6 bytes)");
  CHECK(text::excerpt("\033[2Jred\x7f") == "?[2Jred?");
  CHECK(text::excerpt("caf\xc3\xa9") == "caf\xc3\xa9");  // UTF-8 passes
}
