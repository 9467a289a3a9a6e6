// The exit-status convention of every rankmap tool, and the few lines that
// hold a CLI11 command line to it. The start of the shared command-line layer
// (issue 13 grows it: --version, common flag names, one error printer); kept
// header-only so that only the tools, which already use CLI11, need CLI11.
#pragma once

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <limits>
#include <optional>
#include <string>

#include "rankmap/text.hpp"

namespace rankmap::cli {

// 0 success, 1 internal error (a bug of rankmap), 2 bad input or usage: a bad
// file (the message names file:line), a bad option (it names the option), or
// an output that cannot be written. Nothing is written after a failure.
constexpr int kSuccess = 0;
constexpr int kInternalError = 1;
constexpr int kBadInput = 2;

// Parses the command line. Returns the status to exit with when the program
// should stop here: 0 after --help (printed on stdout), 2 after a parse or
// validation error, printed as one line "tool: what (see tool --help)" on
// stderr. std::nullopt: go on.
inline std::optional<int> parse(CLI::App& app, int argc, char** argv, const std::string& tool) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      app.exit(e);  // help requested
      return kSuccess;
    }
    std::string what = e.what();
    // CLI11 says only that a subcommand is missing when the word is not one.
    if (!app.get_subcommands({}).empty() && app.get_subcommands().empty() && argc > 1 && argv[1][0] != '-')
      what = "unknown subcommand '" + std::string(argv[1]) + "'";
    for (char& c : what)
      if (c == '\n') c = ' ';
    std::cerr << tool << ": " << what << " (see " << tool << " --help)\n";
    return kBadInput;
  }
  return std::nullopt;
}

// Validators whose failure reads as one short line: CLI11's PositiveNumber
// and NonNegativeNumber print the largest double in 300 digits, and CLI11
// reads "-1" into an unsigned option as 2^64 - 1.
inline CLI::Validator positive() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size()) return "'" + text::excerpt(s) + "' is not a number";
        return v > 0 ? "" : "must be > 0, not " + text::excerpt(s);
      },
      "> 0");
}
inline CLI::Validator non_negative() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(s.c_str(), &end);
        if (s.empty() || end != s.c_str() + s.size()) return "'" + text::excerpt(s) + "' is not a number";
        return v >= 0 && s[0] != '-' ? "" : "must be >= 0, not " + text::excerpt(s);
      },
      ">= 0");
}
// A decimal integer from 0 to max.
inline CLI::Validator unsigned_integer(std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  return CLI::Validator(
      [max](std::string& s) -> std::string {
        std::uint64_t v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v > max)
          return "expected an integer from 0 to " + std::to_string(max) + ", not " + text::excerpt(s);
        return "";
      },
      "0.." + std::to_string(max));
}

// Runs a tool's main body; an exception that escapes it is an internal error.
template <class Body>
int run(const std::string& tool, Body&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::cerr << tool << ": internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << tool << ": internal error\n";
  }
  return kInternalError;
}

}  // namespace rankmap::cli
