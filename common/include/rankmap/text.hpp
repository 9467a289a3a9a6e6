// Small text helpers shared by the format readers: splitting, strict number
// parsing, physical units. All parsers reject trailing garbage.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

namespace rankmap::text {

std::vector<std::string> split(std::string_view s, char sep);
// Splits on runs of blanks (spaces and tabs); no empty words.
std::vector<std::string> words(std::string_view s);
std::string_view trim(std::string_view s);
// Line without a '#' comment and surrounding blanks.
std::string_view strip_comment(std::string_view line);

std::optional<long long> parse_int(std::string_view s);
// "3" -> {3, 3}, "0-7" -> {0, 7} (the order is the caller's to check);
// nullopt when either end is not an integer.
std::optional<std::pair<long long, long long>> parse_range(std::string_view s);
std::optional<std::uint64_t> parse_uint64(std::string_view s);
std::optional<double> parse_double(std::string_view s);

// "850ns", "1.5us", "2ms", "0.1s" (a bare number is seconds) -> seconds.
std::optional<double> parse_duration(std::string_view s);
// "10GB/s", "75Gbit/s", "500MB/s", "1e9" (bytes per second) -> bytes per second.
std::optional<double> parse_bandwidth(std::string_view s);
// Shortest spelling that parses back to the same value: 850e-9 -> "850ns".
std::string format_duration(double seconds);
std::string format_bandwidth(double bytes_per_second);
// For people, not for parsing back: three significant digits and an SI
// prefix, "62.9 MB", "94.4 GB\u00b7hop" (unit "B\u00b7hop"), "140 \u00b5s"
// (seconds: ns, \u00b5s, ms, s). UTF-8; "n/a" for NaN and infinity.
std::string human(double value, const std::string& unit);
std::string human_seconds(double seconds);
// A percentage for people, in plain decimals: up to three significant
// digits, never an exponent, nothing finer than 0.001 ("18.2%", "0.012%",
// "1050%"; 5.6e-05 is "0%", no change at the precision of a prediction).
// `sign`: "+3.1%", "\u221218.2%" (a real minus sign), "0%". "n/a" for NaN
// and infinity.
std::string human_percent(double percent, bool sign = false);
// The last `lines` lines of s (all of s if it has fewer), e.g. the end of a
// failed child process's output for an error message.
std::string last_lines(const std::string& s, int lines);
// Shortest decimal that round-trips a double.
std::string format_double(double v);
// A word of user input as an error message may quote it: control characters
// become '?', and past max_chars it is cut and its length said ("abc...
// (16777216 bytes)"), so a 16 MB word makes a short message.
std::string excerpt(std::string_view s, size_t max_chars = 40);

// Escapes & < > " ' for XML/HTML text and attribute values (host names and
// titles come from user files).
std::string xml_escape(std::string_view s);

}  // namespace rankmap::text
