// Replaying a SimGrid time-independent trace on a machine's platform, once per
// placement (docs/simulation.md, "Trace replay").
//
// The trace is what `smpirun -trace-ti` writes and `smpirun -replay` reads: an
// index file with one action file per rank (line i is rank i's file), each
// action a line "<rank> <action> <arguments>", e.g. "3 isend 7 0 4096 0"
// (partner, tag, count, datatype id). It records every rank's MPI calls in
// program order with their sizes and no times, so one trace replays
// identically on any placement: SimGrid re-runs the messages (eager or
// rendezvous by size, link sharing while they overlap, collectives as SMPI's
// point-to-point algorithms) on the generated platform, deterministically.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rankmap/mapping.hpp"
#include "rankmap/profile.hpp"
#include "rankmap/result.hpp"
#include "rankmap/simgrid_platform.hpp"
#include "rankmap/smpi_run.hpp"

namespace rankmap::simulation {

// A checked trace: its files and what it contains.
struct Trace {
  std::string index_path;
  std::vector<std::string> rank_files;  // absolute paths, rank order
  std::uint64_t actions = 0;
  std::uint64_t compute_actions = 0;    // "compute <flops>": kept in whole-application replays only
  double compute_flops = 0;
  // Collective actions, and libcommprof's collectives of sub-communicators
  // (written as their messages between "# commprof-collective" comment lines).
  std::uint64_t collective_actions = 0;
  // Point-to-point sends (send, isend, sendRecv) and the blocks of
  // alltoall/alltoallv per ordered rank pair, with bytes = count x datatype
  // size: what a profile's p2p lines would say (libcommprof expands all-to-alls too).
  // The messages of a sub-communicator's collective are not counted, but
  // those of its all-to-alls.
  std::vector<PairTraffic> p2p;
  // Actions whose datatype is derived (id -1): SimGrid's trace keeps only
  // the count, and replays them as 0 bytes. Counted so that tools can warn.
  std::uint64_t derived_datatype_actions = 0;

  int ranks() const { return static_cast<int>(rank_files.size()); }
  std::uint64_t p2p_bytes() const;
  std::uint64_t p2p_messages() const;
};

// Reads and checks a trace: the index and every action file. Relative paths in
// the index are taken relative to the index file's directory, then the current
// directory (smpirun's own rule), whichever exists. Each action line must
// start with the file's rank, name an action SimGrid 3.32 replays, and have
// the argument count and numbers that action needs, with partner ranks inside
// the trace: errors are "file:line: what", so SimGrid never dies mid-run on a
// bad line. Blank lines and '#' lines are skipped (as SimGrid's reader does).
Result<Trace> read_trace(const std::string& index_path);

// The same checks and counts on action files given as text, one per rank in
// rank order, each named by `names` in errors (and in rank_files): what
// read_trace does with each file of its index, without the files. For tests
// and the fuzzer (fuzz/fuzz_trace.cpp).
Result<Trace> parse_action_texts(const std::vector<std::string>& texts, const std::vector<std::string>& names);

// The traffic of a trace as a profile (p2p lines only, rank lines with the
// host "trace"), for the evaluator.
Profile profile_from_trace(const Trace& trace);

struct ReplayOptions {
  std::string smpirun = "smpirun";
  PlatformOptions platform;              // host_speed also sets smpi/host-speed (whole-application replays)
  std::vector<std::string> extra_flags;  // more smpirun flags
  std::string work_dir;                  // empty: a temporary directory, removed afterwards
  std::function<void(const std::string&)> progress;
};

// One replay: the simulated time at which the last rank finished.
struct ReplayRun {
  double simulated_seconds = 0;
  double wall_seconds = 0;
};

// What to replay: communication only (compute actions skipped,
// smpi/simulate-computation:no) or the whole application (compute actions
// run at --host-speed flop/s).
enum class ReplayMode { comm_only, whole_app };
const char* replay_mode_name(ReplayMode mode);

// Replays `trace` on `mapping`'s machine and placement. The platform carries
// routes between all nodes up to 512 nodes, else between the nodes the
// mapping uses. Fails when the ranks differ, smpirun cannot run, the replay
// fails (with the tail of SimGrid's output) or deadlocks (SimGrid then exits
// 0 with the time of the deadlock).
Result<ReplayRun> replay(const Trace& trace, const Mapping& mapping, ReplayMode mode, const ReplayOptions& options = {});

// The smpirun run replay() makes: default_smpirun_flags(), the clock format,
// for whole_app simulate-computation:yes and smpi/host-speed, extra_flags,
// then -np -platform -hostfile -replay. smpirun_argv() of it is the command.
RunRequest replay_request(const std::string& smpirun, const std::string& platform_path, const std::string& hostfile_path,
                          const std::string& index_path, int ranks, ReplayMode mode, double host_speed,
                          const std::vector<std::string>& extra_flags);

// "[0.000263782946] Simulated time: ..." (the clock SimGrid logs with
// smpi_utils.fmt:[%.12d]...) -> 0.000263782946; nullopt when absent.
std::optional<double> parse_replay_clock(const std::string& output);

}  // namespace rankmap::simulation
