#include "rankmap/replay_choice.hpp"

#include <chrono>
#include <cstdio>

namespace rankmap::simulation {

namespace {

bool same_nodes(const std::vector<Placement>& a, const std::vector<Placement>& b) {
  if (a.size() != b.size()) return false;
  for (size_t r = 0; r < a.size(); ++r)
    if (a[r].node != b[r].node) return false;
  return true;
}

std::string seconds_text(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g s", s);
  return buf;
}

}  // namespace

Result<ReplayChoice> choose_by_replay(const Trace& trace, const Machine& machine,
                                      const std::vector<ReplayCandidate>& candidates, const ChoiceOptions& options) {
  if (candidates.empty()) return make_error("choose_by_replay: no candidates");
  for (const ReplayCandidate& c : candidates)
    if (static_cast<int>(c.placement.size()) != trace.ranks())
      return make_error("candidate '" + c.name + "' places " + std::to_string(c.placement.size()) + " ranks but the trace " +
                        trace.index_path + " has " + std::to_string(trace.ranks()));
  ReplayChoice choice;
  choice.mode = trace.compute_actions > 0 ? ReplayMode::whole_app : ReplayMode::comm_only;
  for (const ReplayCandidate& c : candidates) choice.times.push_back(CandidateTime{c.name, std::nullopt, 0, ""});

  if (trace.ranks() > options.max_ranks || trace.actions > options.max_actions) {
    for (CandidateTime& t : choice.times) t.note = "not replayed: instance too large";
    choice.note = "trace too large to replay (" + std::to_string(trace.ranks()) + " ranks, " +
                  std::to_string(trace.actions) + " actions; limits " + std::to_string(options.max_ranks) + " ranks, " +
                  std::to_string(options.max_actions) + " actions): kept the static choice '" + candidates[0].name + "'";
    return choice;
  }

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  double slowest_replay = 0;
  size_t replayed = 0;
  bool out_of_budget = false;
  for (size_t i = 0; i < candidates.size(); ++i) {
    CandidateTime& t = choice.times[i];
    size_t twin = i;
    for (size_t j = 0; j < i && twin == i; ++j)
      if (choice.times[j].seconds && same_nodes(candidates[j].placement, candidates[i].placement)) twin = j;
    if (twin != i) {
      t.seconds = choice.times[twin].seconds;
      t.note = "same nodes as '" + candidates[twin].name + "'";
      continue;
    }
    if (out_of_budget || (replayed > 0 && elapsed() + slowest_replay > options.budget_seconds)) {
      out_of_budget = true;
      t.note = "not replayed: budget";
      continue;
    }
    if (options.replay.progress)
      options.replay.progress("replaying candidate " + std::to_string(i + 1) + "/" + std::to_string(candidates.size()) +
                              " '" + candidates[i].name + "' (" + replay_mode_name(choice.mode) + ")");
    auto run = replay(trace, Mapping{machine, candidates[i].placement, candidates[i].name}, choice.mode, options.replay);
    if (!run) return make_error("replay of candidate '" + candidates[i].name + "': " + run.error().message);
    t.seconds = run->simulated_seconds;
    t.wall_seconds = run->wall_seconds;
    slowest_replay = std::max(slowest_replay, run->wall_seconds);
    ++replayed;
    if (options.replay.progress)
      options.replay.progress("  '" + candidates[i].name + "': " + seconds_text(run->simulated_seconds) + " simulated (" +
                              seconds_text(run->wall_seconds) + " wall)");
  }

  size_t with_time = 0;
  for (size_t i = 0; i < choice.times.size(); ++i) {
    if (!choice.times[i].seconds) continue;
    ++with_time;
    if (*choice.times[i].seconds < *choice.times[choice.chosen].seconds) choice.chosen = i;
  }
  if (replayed < 2) {
    // One timed candidate: the choice stays. Say why: the budget, or
    // nothing else to compare (a single candidate, or all on its nodes).
    choice.chosen = 0;
    choice.note = out_of_budget ? "budget of " + seconds_text(options.budget_seconds) +
                                      " ran out before a second candidate was replayed: kept the static choice '" +
                                      candidates[0].name + "'"
                                : "no other placement to compare (" + std::to_string(candidates.size()) +
                                      (candidates.size() == 1 ? " candidate" : " candidates on the same nodes") +
                                      "): kept the static choice '" + candidates[0].name + "'";
    return choice;
  }
  choice.by_replay = true;
  const double first = *choice.times[0].seconds, best = *choice.times[choice.chosen].seconds;
  char ratio[32];
  std::snprintf(ratio, sizeof ratio, "%.4f", best / first);
  choice.note = "chose '" + candidates[choice.chosen].name + "' by replay (" + replay_mode_name(choice.mode) + " " +
                seconds_text(best) + ", " + ratio + " x the static choice '" + candidates[0].name + "'; " +
                std::to_string(with_time) + " of " + std::to_string(candidates.size()) + " candidates timed" +
                (out_of_budget ? ", the rest not replayed: budget" : "") + ")";
  return choice;
}

}  // namespace rankmap::simulation
