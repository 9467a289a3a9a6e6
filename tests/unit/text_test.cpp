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

TEST_CASE("human units: three significant digits and an SI prefix") {
  CHECK(text::human(0, "B") == "0 B");
  CHECK(text::human(999, "B") == "999 B");
  CHECK(text::human(62932700, "B") == "62.9 MB");
  CHECK(text::human(94393700, "B\u00b7hop") == "94.4 MB\u00b7hop");
  CHECK(text::human(2.16e12, "B\u00b7hop") == "2.16 TB\u00b7hop");
  CHECK(text::human(999.7e3, "B") == "1.00 MB");  // rounds up into the next prefix, not to "1000 kB"
  CHECK(text::human(NAN, "B") == "n/a");
  CHECK(text::human_seconds(0) == "0 s");
  CHECK(text::human_seconds(139.82293333333334e-6) == "140 \u00b5s");
  CHECK(text::human_seconds(3.49892e-05) == "35.0 \u00b5s");
  CHECK(text::human_seconds(0.00313) == "3.13 ms");
  CHECK(text::human_seconds(850e-9) == "850 ns");
  CHECK(text::human_seconds(2) == "2.00 s");
}

TEST_CASE("human percentages: plain decimals, three significant digits, nothing finer than 0.001") {
  CHECK(text::human_percent(18.24) == "18.2%");
  CHECK(text::human_percent(5) == "5%");
  CHECK(text::human_percent(0.9) == "0.9%");
  CHECK(text::human_percent(0.01234) == "0.012%");
  CHECK(text::human_percent(5.64e-5) == "0%");  // not "5.64e-05%"
  CHECK(text::human_percent(1e-12, true) == "0%");
  CHECK(text::human_percent(0, true) == "0%");
  CHECK(text::human_percent(99.96) == "100%");
  CHECK(text::human_percent(9.996) == "10%");
  CHECK(text::human_percent(3046) == "3046%");
  CHECK(text::human_percent(-44.4, true) == "\u221244.4%");
  CHECK(text::human_percent(3.1, true) == "+3.1%");
  CHECK(text::human_percent(-2.5) == "-2.5%");
  CHECK(text::human_percent(-2e-4, true) == "0%");
  const std::string huge = text::human_percent(1.7e308);  // 309 digits, still no exponent
  CHECK(huge.size() == 310);
  CHECK(huge.find('e') == std::string::npos);
  CHECK(text::human_percent(NAN) == "n/a");
}

TEST_CASE("last_lines keeps the end of a process's output") {
  CHECK(rankmap::text::last_lines("a\nb\nc\nd", 2) == "c\nd");
  CHECK(rankmap::text::last_lines("a\nb\nc\nd\n", 2) == "d\n");
  CHECK(rankmap::text::last_lines("one line", 3) == "one line");
  CHECK(rankmap::text::last_lines("", 3) == "");
}

TEST_CASE("parse_range: one index or lo-hi, either end an integer") {
  using Range = std::pair<long long, long long>;
  CHECK(text::parse_range("3") == Range{3, 3});
  CHECK(text::parse_range("0-7") == Range{0, 7});
  CHECK(text::parse_range("7-2") == Range{7, 2});  // order is the caller's to check
  CHECK_FALSE(text::parse_range("a-3").has_value());
  CHECK_FALSE(text::parse_range("3-").has_value());
  CHECK_FALSE(text::parse_range("").has_value());
  CHECK_FALSE(text::parse_range("node-3").has_value());
}
