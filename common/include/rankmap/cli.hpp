// The exit-status convention of every rankmap tool, and the few lines that
// hold a CLI11 command line to it. The start of the shared command-line layer
// (issue 13 grows it: --version, common flag names, one error printer); kept
// header-only so that only the tools, which already use CLI11, need CLI11.
#pragma once

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <optional>
#include <string>

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
