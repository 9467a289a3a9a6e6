#include "rankmap/text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace rankmap::text {

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    out.emplace_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\r') ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r' || s[b] == '\n')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == '\n')) --e;
  return s.substr(b, e - b);
}

std::string_view strip_comment(std::string_view line) {
  size_t hash = line.find('#');
  return trim(hash == std::string_view::npos ? line : line.substr(0, hash));
}

std::optional<long long> parse_int(std::string_view s) {
  long long v = 0;
  if (s.empty()) return std::nullopt;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::pair<long long, long long>> parse_range(std::string_view s) {
  const size_t dash = s.find('-');
  const auto lo = parse_int(s.substr(0, dash));
  const auto hi = dash == std::string_view::npos ? lo : parse_int(s.substr(dash + 1));
  if (!lo || !hi) return std::nullopt;
  return std::make_pair(*lo, *hi);
}

std::optional<std::uint64_t> parse_uint64(std::string_view s) {
  std::uint64_t v = 0;
  if (s.empty() || s[0] == '-' || s[0] == '+') return std::nullopt;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_double(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::string buf(s);
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(buf.c_str(), &end);
  if (end != buf.c_str() + buf.size() || errno == ERANGE || !std::isfinite(v)) return std::nullopt;
  return v;
}

namespace {

// A unit is a decimal exponent (applied in the text, so "850ns" reads exactly
// like the literal 850e-9) times an exact binary multiplier (1/8 for bits,
// 2^30 for GiB).
struct Unit {
  const char* suffix;
  const char* exponent;
  double multiplier;
};

constexpr Unit kDurationUnits[] = {{"ns", "e-9", 1}, {"us", "e-6", 1}, {"ms", "e-3", 1}, {"s", "", 1}};
constexpr Unit kBandwidthUnits[] = {
    {"Gbit/s", "e9", 0.125},  {"Mbit/s", "e6", 0.125}, {"GiB/s", "", 1073741824.0}, {"MiB/s", "", 1048576.0},
    {"TB/s", "e12", 1},       {"GB/s", "e9", 1},       {"MB/s", "e6", 1},           {"kB/s", "e3", 1},
    {"B/s", "", 1}};

std::optional<double> parse_number_in(std::string_view number, const Unit& unit) {
  if (number.empty() || number.find_first_of("eE") != std::string_view::npos) return std::nullopt;
  auto v = parse_double(std::string(number) + unit.exponent);
  if (!v || *v < 0) return std::nullopt;
  return *v * unit.multiplier;
}

template <size_t N>
std::optional<double> parse_with_units(std::string_view s, const Unit (&units)[N]) {
  for (const Unit& unit : units) {  // longer suffixes come first in the tables
    std::string_view suf = unit.suffix;
    if (s.size() > suf.size() && s.substr(s.size() - suf.size()) == suf)
      return parse_number_in(s.substr(0, s.size() - suf.size()), unit);
  }
  auto v = parse_double(s);  // a bare number is in base units
  if (!v || *v < 0) return std::nullopt;
  return v;
}

// The shortest spelling, over the given units, that prints as a plain decimal
// and parses back exactly; ties go to the earlier unit.
template <size_t N, size_t M>
std::string format_with_units(double v, const Unit (&order)[N], const Unit (&table)[M]) {
  std::string best;
  for (const Unit& unit : order) {
    const double scaled = v / unit.multiplier / std::pow(10.0, std::atoi(unit.exponent[0] ? unit.exponent + 1 : "0"));
    if (scaled < 1.0 && &unit != &order[N - 1]) continue;
    char buf[64];
    for (int precision = 1; precision <= 17; ++precision) {
      std::snprintf(buf, sizeof buf, "%.*g", precision, scaled);
      if (std::string_view(buf).find('e') != std::string_view::npos) continue;
      const std::string out = std::string(buf) + unit.suffix;
      if (parse_with_units(out, table) == v) {
        if (best.empty() || out.size() < best.size()) best = out;
        break;
      }
    }
  }
  return best.empty() ? format_double(v) : best;
}

}  // namespace

std::optional<double> parse_duration(std::string_view s) { return parse_with_units(s, kDurationUnits); }

std::optional<double> parse_bandwidth(std::string_view s) {
  auto v = parse_with_units(s, kBandwidthUnits);
  if (v && *v <= 0) return std::nullopt;
  return v;
}

std::string format_double(double v) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string excerpt(std::string_view s, size_t max_chars) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < max_chars; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    out += c < 0x20 || c == 0x7f ? '?' : static_cast<char>(c);
  }
  if (s.size() > max_chars) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string format_duration(double seconds) {
  constexpr Unit order[] = {{"s", "", 1}, {"ms", "e-3", 1}, {"us", "e-6", 1}, {"ns", "e-9", 1}};
  return format_with_units(seconds, order, kDurationUnits);
}

std::string format_bandwidth(double bytes_per_second) {
  constexpr Unit order[] = {{"TB/s", "e12", 1}, {"Gbit/s", "e9", 0.125}, {"GB/s", "e9", 1}, {"MB/s", "e6", 1}, {"B/s", "", 1}};
  return format_with_units(bytes_per_second, order, kBandwidthUnits);
}

namespace {
std::string three_digits(double x, const std::string& suffix) {
  const double a = std::fabs(x);
  char buf[48];
  std::snprintf(buf, sizeof buf, a >= 99.95 || a == 0 ? "%.0f" : a >= 9.995 ? "%.1f" : "%.2f", x);
  return buf + suffix;
}
}  // namespace

std::string human(double value, const std::string& unit) {
  if (!std::isfinite(value)) return "n/a";
  static const char* const prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int p = 0;
  while (std::fabs(value) >= 999.5 && p < 6) {
    value /= 1000;
    ++p;
  }
  return three_digits(value, " " + std::string(prefixes[p]) + unit);
}

std::string human_seconds(double seconds) {
  if (!std::isfinite(seconds)) return "n/a";
  const double a = std::fabs(seconds);
  if (a == 0) return "0 s";
  if (a < 999.5e-9) return three_digits(seconds * 1e9, " ns");
  if (a < 999.5e-6) return three_digits(seconds * 1e6, " \u00b5s");
  if (a < 0.9995) return three_digits(seconds * 1e3, " ms");
  return three_digits(seconds, " s");
}

std::string human_percent(double percent, bool sign) {
  if (!std::isfinite(percent)) return "n/a";
  const double a = std::fabs(percent);
  const int decimals = a >= 99.95 ? 0 : a >= 9.995 ? 1 : a >= 0.9995 ? 2 : 3;
  char buf[400];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, a);
  std::string digits = buf;
  if (digits.find('.') != std::string::npos) {
    digits.erase(digits.find_last_not_of('0') + 1);
    if (digits.back() == '.') digits.pop_back();
  }
  if (digits == "0") return "0%";
  return (percent < 0 ? (sign ? "\u2212" : "-") : (sign ? "+" : "")) + digits + "%";
}

std::string last_lines(const std::string& s, int lines) {
  size_t at = s.size();
  while (lines-- > 0 && at > 0) {
    const size_t nl = s.rfind('\n', at - 1);
    if (nl == std::string::npos) return s;
    at = nl;
  }
  return s.substr(at == s.size() ? at : at + 1);
}

}  // namespace rankmap::text
