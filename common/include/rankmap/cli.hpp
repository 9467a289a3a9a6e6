// The command-line layer every rankmap tool shares (issue 13): the exit-status
// convention, --help and --version, the flag names of the things the tools
// have in common, and the one place that prints an error. The conventions are
// written down once, in README.md ("Command-line conventions").
//
// Header-only so that only the tools, which already use CLI11, need CLI11.
//
// A tool's main:
//   int main(int argc, char** argv) {
//     return cli::run("rankmap-x", [&] {
//       CLI::App app = ...;  cli::setup(app, "rankmap-x");  cli::add_profile(app, profile); ...
//       if (auto status = cli::parse(app, argc, argv, "rankmap-x")) return *status;
//       Profile p = cli::take(read_profile(profile));   // bad input: throws cli::Failure
//       ...
//     });
//   }
// Errors are values until the tool's body takes them; cli::run is the one
// place that prints one ("tool: message", one line on stderr) and picks the
// exit status.
#pragma once

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rankmap/result.hpp"
#include "rankmap/text.hpp"

#ifndef RANKMAP_VERSION
#define RANKMAP_VERSION "unknown"
#endif

namespace rankmap::cli {

// 0 success, 1 internal error (a bug of rankmap), 2 bad input or usage: a bad
// file (the message names file:line), a bad option (it names the option), or
// an output that cannot be written. Nothing is written after a failure.
constexpr int kSuccess = 0;
constexpr int kInternalError = 1;
constexpr int kBadInput = 2;

inline const char* version() { return RANKMAP_VERSION; }
// What --version prints: "rankmap-torus (rankmap) 0.1.0".
inline std::string version_line(const std::string& tool) { return tool + " (rankmap) " + version(); }

// ------------------------------------------------------------------ errors

// The end of a tool's run: the status to exit with and the one line to print.
struct Failure {
  int status;
  std::string message;
};

[[noreturn]] inline void fail(std::string message, int status = kBadInput) { throw Failure{status, std::move(message)}; }

// The value of a Result, or the end of the run with its message, prefixed by
// `where` ("--machine", a file name) unless the message already starts with it.
template <class T>
T take(Result<T> r, const std::string& where = "", int status = kBadInput) {
  if (!r) {
    const std::string& m = r.error().message;
    fail(where.empty() || m.rfind(where, 0) == 0 ? m : where + ": " + m, status);
  }
  return std::move(*r);
}

// Where a bad option value is blamed: the value itself when it names a file
// (the reader's messages then say file:line), else the option: "--machine:
// unknown machine word 'frob=1'".
inline std::string where_of(const std::string& option, const std::string& value) {
  return std::ifstream(value).good() ? value : option;
}

// The one error printer: "tool: message" on stderr, one line (a message never
// carries a newline: they become spaces).
inline void print_error(const std::string& tool, std::string message) {
  for (char& c : message)
    if (c == '\n') c = ' ';
  std::cerr << tool << ": " << message << "\n";
}
inline void print_warning(const std::string& tool, const std::string& message) {
  print_error(tool, "warning: " + message);
}
// Notes (what a tool chose, fell back to) look the same: "tool: note".
inline void print_note(const std::string& tool, const std::string& message) { print_error(tool, message); }

// Runs a tool's body: returns what it returns; a Failure is printed and its
// status returned; any other exception is an internal error (status 1).
template <class Body>
int run(const std::string& tool, Body&& body) {
  try {
    return body();
  } catch (const Failure& f) {
    print_error(tool, f.message);
    return f.status;
  } catch (const std::exception& e) {
    print_error(tool, std::string("internal error: ") + e.what());
  } catch (...) {
    print_error(tool, "internal error");
  }
  return kInternalError;
}

// ------------------------------------------------------------ the command line

// What every tool's command line has: --version and the exit-status footer.
inline void setup(CLI::App& app, const std::string& tool) {
  app.name(tool);
  app.set_version_flag("--version", version_line(tool));
  // Subcommands (added later, they inherit this) pass words they do not know
  // up to the tool, so `rankmap map --version` works; unknown ones are still
  // errors there.
  app.fallthrough();
  app.footer("Exit status: 0 success, 2 bad input or usage (one line on stderr, no output file), 1 internal error.");
}

// Parses the command line. Returns the status to exit with when the program
// should stop here: 0 after --help or --version (printed on stdout), 2 after a
// parse or validation error, printed as one line "tool: what (see tool
// --help)" on stderr. std::nullopt: go on.
inline std::optional<int> parse(CLI::App& app, int argc, char** argv, const std::string& tool) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      app.exit(e);  // --help or --version
      return kSuccess;
    }
    std::string what = e.what();
    // CLI11 checks required options before it complains about words it does
    // not know: `tool --bogus` would say "--profile is required". The word
    // the user got wrong is the better message.
    std::vector<std::string> unknown;
    for (const std::string& word : app.remaining(true))
      if (word != "--") unknown.push_back(word);
    if (!unknown.empty()) {
      const std::string& first = unknown.front();
      if (first.size() > 1 && first[0] == '-')
        what = "unknown option '" + text::excerpt(first) + "'";
      else
        what = "unexpected argument '" + text::excerpt(first) + "'";
      if (unknown.size() > 1) what += " (and " + std::to_string(unknown.size() - 1) + " more)";
    }
    // CLI11 says only that a subcommand is missing when the word is not one.
    if (!app.get_subcommands({}).empty() && app.get_subcommands().empty() && argc > 1 && argv[1][0] != '-')
      what = "unknown subcommand '" + text::excerpt(argv[1]) + "'";
    print_error(tool, what + " (see " + tool + " --help)");
    return kBadInput;
  }
  return std::nullopt;
}

// The same things have the same flags in every tool.

// -p,--profile FILE: the communication profile.
inline CLI::Option* add_profile(CLI::App& app, std::string& path) {
  return app.add_option("-p,--profile", path, "communication profile (commprof 1)")->required();
}
// -m,--machine SPEC: a preset (desmos), key=value words, or a machine file.
// Required: no tool guesses the machine.
inline CLI::Option* add_machine(CLI::App& app, std::string& spec) {
  return app.add_option("-m,--machine", spec, "machine: a preset (desmos), key=value words, or a machine file")
      ->required();
}
// MAPPING: a mapping file, positional. also_as_flag: `--mapping FILE` works
// too, for the tool that took it that way before (rankmap-sim run).
inline CLI::Option* add_mapping(CLI::App& app, std::string& path, bool also_as_flag = false) {
  return app.add_option(also_as_flag ? "mapping,--mapping" : "mapping", path, "mapping file (rankmap-mapping 1)")
      ->required();
}
// MAPPING...: mapping files, positional.
inline CLI::Option* add_mappings(CLI::App& app, std::vector<std::string>& paths, const std::string& help) {
  return app.add_option("mappings", paths, help)->required();
}
// -o,--output FILE: what the tool writes (atomically).
inline CLI::Option* add_output(CLI::App& app, std::string& path, const std::string& help) {
  return app.add_option("-o,--output", path, help);
}
// -q,--quiet: nothing on stderr but errors. -v,--verbose: progress on stderr.
inline CLI::Option* add_quiet(CLI::App& app, bool& quiet, const std::string& help = "nothing on stderr but errors") {
  return app.add_flag("-q,--quiet", quiet, help);
}
inline CLI::Option* add_verbose(CLI::App& app, bool& verbose, const std::string& help = "progress on stderr") {
  return app.add_flag("-v,--verbose", verbose, help);
}
// An old spelling that keeps working but is not shown in --help.
inline CLI::Option* add_hidden_alias(CLI::App& app, const std::string& name, std::string& value) {
  return app.add_option(name, value)->group("");
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

}  // namespace rankmap::cli
