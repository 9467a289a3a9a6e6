// Running an SMPI program under smpirun and reading the simulated time.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rankmap/result.hpp"

namespace rankmap::simulation {

struct RunRequest {
  std::string smpirun = "smpirun";
  std::string platform_path;
  std::string hostfile_path;
  int ranks = 0;
  std::vector<std::string> command;      // the smpicc-built program and its arguments
  std::string replay_index;              // a time-independent trace to replay instead (smpirun -replay)
  std::vector<std::string> extra_flags;  // more smpirun flags, e.g. "--cfg=..."
};

// The settings rankmap runs with, and why (docs/simulation.md):
//  - smpi/simulate-computation:no: time between MPI calls is not injected,
//    so runs repeat to the last digit and measure communication only;
//  - smpi/display-timing:yes: SimGrid prints the simulated time;
//  - smpi/bw-factor:0:1 and smpi/lat-factor:0:1: SMPI's default factors are a
//    calibration of a TCP cluster; rankmap's machine description already
//    gives the wire values, so a message costs exactly latency + size / bw;
//  - network/crosstraffic:0: no TCP acknowledgement traffic on the reverse
//    route (torus links acknowledge at the link level);
//  - network/weight-S:0: SimGrid's default adds 20537 / bandwidth per link to
//    a flow's sharing penalty (TCP RTT unfairness), which would make the
//    NIC links of the model change how flows share a torus link. With 0 the
//    penalty is the route latency alone (SimGrid has no setting for plain
//    equal shares);
//  - root.thres:warning keeps SimGrid's per-run info lines out of the output.
const std::vector<std::string>& default_smpirun_flags();

// argv of the smpirun command: smpirun, flags, -np, -platform, -hostfile,
// [-replay index], command (empty for a replay: SimGrid's replay program).
std::vector<std::string> smpirun_argv(const RunRequest& request);

struct RunResult {
  int exit_status = -1;
  std::string output;  // stdout and stderr, interleaved as written
  std::optional<double> simulated_time;  // SimGrid's end-of-simulation clock
};

// Routes between all nodes up to this many nodes; above, only between the
// nodes a mapping uses. All-pairs routes grow as nodes^2: 512 nodes (262k
// routes) make an 85 MB file that smpirun loads in about 4 s and 250 MB;
// 4,096 nodes would be 64 times that (docs/simulation.md, "Limits").
constexpr int kAllRoutesMaxNodes = 512;

// Runs smpirun with stdin from /dev/null (smpirun fails with a closed stdin)
// and captures its output. Fails only when the process cannot be started;
// a failing program is reported through exit_status.
Result<RunResult> run_smpirun(const RunRequest& request);

// "Simulated time: 0.0162 seconds." -> 0.0162; nullopt when absent.
std::optional<double> parse_simulated_time(const std::string& output);

}  // namespace rankmap::simulation
