// libcommprof's runtime settings, declared once. Each is read from the
// environment variable COMMPROF_<NAME>; a value that does not parse keeps the
// default and produces one warning line. `commprof-run --help-settings` and
// COMMPROF_HELP=1 print this table.
#pragma once

#include <string>
#include <vector>

namespace commprof {

//        name     type         default  help
#define COMMPROF_SETTINGS(X)                                                                        \
  X(ENABLE, bool, true, "record and write a profile (0: pass every call straight through)")          \
  X(OUTPUT, std::string, "", "profile path; default commprof.<job id>.prof in rank 0's working directory") \
  X(TIMING, bool, true, "measure time spent inside MPI calls (per rank 'mpi=' seconds)")            \
  X(VERBOSE, bool, false, "rank 0 prints the path of the profile it wrote")                          \
  X(HELP, bool, false, "rank 0 prints this table at startup")                                      \
  X(TRACE, std::string, "", "also write a SimGrid time-independent trace into this directory (docs/profiler.md)") \
  X(TRACE_MAX_MB, double, 1024.0, "per-rank trace size cap in MiB; past it tracing stops and the trace is incomplete") \
  X(TRACE_FLOPS, double, 1e9, "flop/s that turn the time between MPI calls into trace 'compute' actions") \
  X(TRACE_CLOCK, std::string, "cpu", "time between MPI calls: cpu (thread CPU time, right when cores are shared) or wall (cheaper)")

struct Settings {
#define COMMPROF_DECLARE(name, type, def, help) type name = def;
  COMMPROF_SETTINGS(COMMPROF_DECLARE)
#undef COMMPROF_DECLARE
};

// Reads every setting from the environment. Problems (bad values, unknown
// COMMPROF_* variables, which are usually typos) are appended to `warnings`.
Settings read_settings(std::vector<std::string>* warnings);

// One line per setting: "COMMPROF_NAME (default X): help".
std::string settings_help();

}  // namespace commprof
