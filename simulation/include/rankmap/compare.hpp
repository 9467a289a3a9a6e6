// Deterministic whole-application comparison of placements (issue 16):
// record the application once as a time-independent trace with its
// computation (smpirun -trace-ti with simulate-computation:yes on the
// baseline placement), then replay that one trace on every placement,
// communication only and whole application. The recording measures CPU time
// and differs from run to run; every replay of the recorded trace is
// deterministic, so the comparison is identical on re-run
// (docs/simulation.md, "Whole-application comparison").
#pragma once

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "rankmap/mapping.hpp"
#include "rankmap/replay.hpp"
#include "rankmap/result.hpp"
#include "rankmap/smpi_run.hpp"

namespace rankmap::simulation {

struct RecordRequest {
  std::string smpirun = "smpirun";
  Mapping mapping;                       // the placement to record on (any: the trace does not depend on it)
  std::vector<std::string> command;      // the smpicc-built program and its arguments
  std::string index_path;                // the trace index to write; action files go to <index>_files/
  PlatformOptions platform;              // host_speed: the flop rate that turns measured CPU time into flops
  bool computation = true;               // false: simulate-computation:no, a trace without compute actions
  std::vector<std::string> extra_flags;  // more smpirun flags
};

// Runs the program under smpirun -trace-ti on the mapping's platform (written
// next to the index) with the compute settings above and
// smpi/host-speed = platform.host_speed, so that a replay at the same
// --host-speed runs each compute action for the CPU time it measured. Fails
// when smpirun cannot run, the program fails (with the tail of its output)
// or no index was written.
Result<RunResult> record_trace(const RecordRequest& request);

struct ComparedPlacement {
  std::string name;
  double comm_only_seconds = 0;
  double whole_app_seconds = std::numeric_limits<double>::quiet_NaN();  // not replayed: no compute actions, or --comm-only
};

struct Comparison {
  std::vector<ComparedPlacement> placements;  // the first is the baseline
  bool whole_app = false;                     // the trace has compute actions and they were replayed

  // The baseline's communication share of its whole-application time,
  // comm-only / whole-app (the replay's stand-in for a profile's p_mpi);
  // NaN without a whole-application replay.
  double p_comm() const;
  double comm_ratio(size_t i) const;  // placements[i] / baseline, comm-only
  double app_ratio(size_t i) const;   // placements[i] / baseline, whole application (NaN without)
};

// Replays `trace` once per placement, comm-only, and whole-application when
// the trace has compute actions and `comm_only` is false. `progress` (if
// set in options) hears "[k/n] replaying NAME (mode)" and the result of each.
Result<Comparison> compare(const Trace& trace, const std::vector<std::pair<std::string, Mapping>>& placements,
                           bool comm_only, const ReplayOptions& options);

}  // namespace rankmap::simulation
