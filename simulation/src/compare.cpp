// Whole-application comparison: record once, replay on every placement
// (rankmap/compare.hpp).
#include "rankmap/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "rankmap/atomic_file.hpp"
#include "rankmap/simgrid_platform.hpp"
#include "rankmap/text.hpp"

namespace rankmap::simulation {

namespace fs = std::filesystem;

Result<RunResult> record_trace(const RecordRequest& request) {
  if (request.command.empty()) return make_error("record: no program to run");
  std::error_code ec;
  const fs::path index = fs::absolute(request.index_path, ec);
  if (ec) return make_error("cannot resolve " + request.index_path + ": " + ec.message());
  if (index.has_parent_path()) fs::create_directories(index.parent_path(), ec);
  if (ec) return make_error("cannot create directory " + index.parent_path().string() + ": " + ec.message());
  PlatformOptions platform = request.platform;
  if (request.mapping.machine.nodes() > kAllRoutesMaxNodes) platform.route_nodes = used_nodes(request.mapping);
  auto xml = platform_xml(request.mapping.machine, platform);
  if (!xml) return xml.error();
  RunRequest run;
  run.smpirun = request.smpirun;
  run.platform_path = index.string() + ".platform.xml";
  run.hostfile_path = index.string() + ".hosts.txt";
  run.ranks = request.mapping.ranks();
  run.command = request.command;
  // smpirun writes the index and <index>_files/ (one action file per rank).
  // Computation: SMPI measures the CPU time between MPI calls and writes it
  // as compute actions at smpi/host-speed; the hosts compute at the same
  // speed, so the recording run itself is a whole-application run.
  char speed[64];
  std::snprintf(speed, sizeof speed, "%.17gf", request.platform.host_speed);
  run.extra_flags = {"-trace-ti", "-trace-file", index.string(),
                     std::string("--cfg=smpi/simulate-computation:") + (request.computation ? "yes" : "no"),
                     std::string("--cfg=smpi/host-speed:") + speed};
  run.extra_flags.insert(run.extra_flags.end(), request.extra_flags.begin(), request.extra_flags.end());
  auto hosts = hostfile(request.mapping);
  if (!hosts) return hosts.error();
  Status written = write_file_atomically(run.platform_path, *xml);
  if (written) written = write_file_atomically(run.hostfile_path, *hosts);
  if (!written) return written.error();
  auto result = run_smpirun(run);
  if (!result) return result.error();
  if (result->exit_status != 0)
    return make_error("recording failed (smpirun exit status " + std::to_string(result->exit_status) +
                      "): " + text::last_lines(result->output, 3));
  if (!fs::exists(index, ec)) return make_error("recording wrote no trace index " + index.string());
  return result;
}

double Comparison::p_comm() const {
  if (!whole_app || placements.empty() || !(placements[0].whole_app_seconds > 0)) return std::nan("");
  return std::min(1.0, placements[0].comm_only_seconds / placements[0].whole_app_seconds);
}

double Comparison::comm_ratio(size_t i) const {
  const double base = placements.at(0).comm_only_seconds;
  return base > 0 ? placements.at(i).comm_only_seconds / base : std::nan("");
}

double Comparison::app_ratio(size_t i) const {
  const double base = placements.at(0).whole_app_seconds;
  return whole_app && base > 0 ? placements.at(i).whole_app_seconds / base : std::nan("");
}

Result<Comparison> compare(const Trace& trace, const std::vector<std::pair<std::string, Mapping>>& placements,
                           bool comm_only, const ReplayOptions& options) {
  Comparison c;
  c.whole_app = !comm_only && trace.compute_actions > 0;
  const std::vector<ReplayMode> modes = c.whole_app ? std::vector<ReplayMode>{ReplayMode::comm_only, ReplayMode::whole_app}
                                                    : std::vector<ReplayMode>{ReplayMode::comm_only};
  const size_t total = placements.size() * modes.size();
  size_t done = 0;
  for (size_t i = 0; i < placements.size(); ++i) {
    const auto& [name, mapping] = placements[i];
    ComparedPlacement row;
    row.name = name;
    for (ReplayMode mode : modes) {
      ++done;
      char step[64];
      std::snprintf(step, sizeof step, "[%zu/%zu] ", done, total);
      if (options.progress) options.progress(step + std::string("replaying ") + name + " (" + replay_mode_name(mode) + ") ...");
      ReplayOptions o = options;
      if (!options.work_dir.empty()) o.work_dir = options.work_dir + "/" + std::to_string(i) + "-" + replay_mode_name(mode);
      auto run = replay(trace, mapping, mode, o);
      if (!run) return make_error(name + ": " + run.error().message);
      if (options.progress) {
        char line[256];
        std::snprintf(line, sizeof line, "%s (%s): %.12g s simulated, %.1f s wall", name.c_str(), replay_mode_name(mode),
                      run->simulated_seconds, run->wall_seconds);
        options.progress(step + std::string(line));
      }
      (mode == ReplayMode::comm_only ? row.comm_only_seconds : row.whole_app_seconds) = run->simulated_seconds;
    }
    c.placements.push_back(row);
  }
  return c;
}

}  // namespace rankmap::simulation
