#!/usr/bin/env bash
# Issue 16 benchmark: the evaluator's time model against SimGrid.
#
# For each program (the recorded 128-rank profiles of bench/profiles/desmos-4/
# and the SMPI builds of the same programs with the same arguments) and each
# placement (block, round-robin, random, scotch, paper, the default `rankmap`,
# and stock Scotch's mapping from bench/replay/scotch_mapping.py):
#   model      rankmap evaluate --json: the old "comm time, max rank"
#              (comm_time_max_seconds) and the time model's
#              (predicted_comm_time_max_seconds);
#   simulation rankmap-sim run --mapping X.map -- BUILD/examples/smpi/PROG ARGS
#              (SimGrid 3.32, communication only, as bench/simulated/run.sh);
#              time = SimGrid's "Simulated time" (the whole run, which is what
#              the profile records).
#   replay     of the profile: rankmap-sim bulk-trace (the profile's traffic as a
#              bulk-synchronous program) replayed on each placement
#              (rankmap-sim replay --comm-only), what `rankmap map --replay-profile`
#              judges by; and one placement more, the default's choice by it;
#   bulk       rankmap evaluate's bulk model: the same program in the
#              mapper's own flow-level simulation (what the default judges by).
# Then per program: does each model order the placements as SimGrid does
# (pairwise agreement, Kendall's tau, same fastest placement), and the
# relative error of the predicted time, and of the predicted ratio to block.
#
#   bench/timemodel/run.sh                 # everything (about 5-10 minutes on 2 busy cores)
#   bench/timemodel/run.sh --rescore       # re-evaluate the last run's mappings with the current
#                                          # rankmap, keep its simulated times (a model change needs no SimGrid)
#   bench/timemodel/run.sh --doc-only      # rewrite the doc section from the last results
# Environment: RANKMAP_BUILD_DIR (default build-timemodel), RANKMAP_BENCH_OUT
# (default BUILD/bench-timemodel), RANKMAP_BENCH_DOC (default docs/benchmarks.md),
# TIMEMODEL_PROGRAMS (default "mg lu cg adi hydro27 stencil2d stencil3d sparse").
# Writes the section between <!-- timemodel:begin --> and <!-- timemodel:end -->.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
set_bench_dirs build-timemodel bench-timemodel
require_executables "build first" "$rankmap" "$sim"

# Machine groups: name (bench/profiles/NAME/), machine, ranks per node, the
# torus sizes for stock Scotch, programs. Both at 128 ranks (NAS class B sizes).
groups=(
  "desmos-4|desmos|4|4x2x2x2|mg lu cg adi hydro27 stencil2d stencil3d sparse"
  "4x4x4-2|torus=4x4x4 node=package:2,core:4|2|4x4x4|mg lu cg adi hydro27"
)
[ -n "${TIMEMODEL_PROGRAMS:-}" ] && groups=("desmos-4|desmos|4|4x2x2x2|$TIMEMODEL_PROGRAMS")
algorithms=(block round-robin random scotch paper rankmap)
# The arguments the profiles were recorded with: both groups are at 128 ranks.
declare -A args
for g in "${groups[@]}"; do
  for ex in ${g##*|}; do args[$ex]=$(example_args "$ex" 128); done
done

results="$out/results.txt"   # group program placement old_model new_model simulated profile_replay bulk_model
walls_file="$out/replay-seconds.txt"  # group program: wall s of map --replay-profile, of map
# One results line: the two models from the evaluate JSON, SimGrid's time
# from the log, the profile's replay from the replay table, the bulk model
# (the mapper's own run of that program; nan past its work cap) from the JSON.
emit() {  # group ex name json map simlog dir
  local t r; t=$(simulated_seconds "$6")
  r=$(replayed_seconds "$7" "$5")
  python3 -c 'import json, sys; r = {r["mapping"]: r for r in json.load(open(sys.argv[1]))}[sys.argv[2]]
b = r["predicted_bulk_time_seconds"]
print(*sys.argv[3:6], repr(r["comm_time_max_seconds"]), repr(r["predicted_comm_time_max_seconds"]), *sys.argv[6:8],
      "nan" if b is None else repr(b))' \
    "$4" "$5" "$1" "$2" "$3" "$t" "$r" >> "$results"
}
doc_only="" rescore=""
[ "${1:-}" = --doc-only ] && doc_only=yes
[ "${1:-}" = --rescore ] && rescore=yes
if [ -z "$doc_only" ]; then
  : > "$results"
  [ -n "$rescore" ] || : > "$walls_file"
  start=$(now)
  short_commit > "$out/commit"
  for g in "${groups[@]}"; do
    IFS='|' read -r group machine ppn sizes progs <<< "$g"
    for ex in $progs; do
      prof="$root/bench/profiles/$group/$ex.prof"
      if [ ! -f "$prof" ] || [ ! -x "$build/examples/smpi/$ex" ]; then
        echo "run.sh: no profile or SMPI build for $group/$ex" >&2; exit 2
      fi
      d="$out/$group/$ex"
      if [ -n "$rescore" ]; then
        maps=()
        for name in "${algorithms[@]}" scotch-stock profile-replay; do [ -f "$d/$name.map" ] && maps+=("$d/$name.map"); done
        "$rankmap" evaluate -q --no-bound --json -p "$prof" "${maps[@]}" > "$d/evaluate.json"
        replay_profile "$prof" "$machine" "$d" "${maps[@]}"
        for map in "${maps[@]}"; do
          name=$(basename "$map" .map)
          emit "$group" "$ex" "$name" "$d/evaluate.json" "$map" "$d/$name.sim.log" "$d"
        done
        continue
      fi
      rm -rf "$d"; mkdir -p "$d"
      maps=()
      for alg in "${algorithms[@]}"; do
        t0=$(now)
        "$rankmap" map -q -p "$prof" -m "$machine" --ppn "$ppn" --algorithm "$alg" -o "$d/$alg.map" > /dev/null
        # The default's wall time (the whole command), beside its choice by replay below.
        [ "$alg" != rankmap ] || tenths_since "$t0" > "$d/default.seconds"
        maps+=("$d/$alg.map")
      done
      machine_line=$(sed -n 's/^machine //p' "$d/block.map")
      if python3 "$root/bench/replay/scotch_mapping.py" "$prof" "$machine_line" "$sizes" "$ppn" stock "$d/scotch-stock.map" \
          > "$d/scotch-stock.log" 2>&1; then
        maps+=("$d/scotch-stock.map")
      else
        log "$group/$ex: stock Scotch failed (see $d/scotch-stock.log); left out"
      fi
      # The default's own choice by the profile's replay (seed 1, as rankmap.map),
      # and its wall time (the whole command, shared machine).
      t0=$(now)
      "$rankmap" map -q -p "$prof" -m "$machine" --ppn "$ppn" --replay-profile -o "$d/profile-replay.map" > /dev/null
      tenths_since "$t0" > "$d/profile-replay.seconds"
      maps+=("$d/profile-replay.map")
      "$rankmap" evaluate -q --no-bound --json -p "$prof" "${maps[@]}" > "$d/evaluate.json"
      replay_profile "$prof" "$machine" "$d" "${maps[@]}"
      echo "$group $ex $(cat "$d/profile-replay.seconds") $(cat "$d/default.seconds")" >> "$walls_file"
      for map in "${maps[@]}"; do
        name=$(basename "$map" .map)
        # shellcheck disable=SC2086
        "$sim" run --mapping "$map" -- "$build/examples/smpi/$ex" ${args[$ex]} > "$d/$name.sim.log" 2>&1 < /dev/null ||
          { echo "run.sh: simulation of $group/$ex on $name failed (see $d/$name.sim.log)" >&2; exit 1; }
        emit "$group" "$ex" "$name" "$d/evaluate.json" "$map" "$d/$name.sim.log" "$d"
        log "$group $ex $name: simulated $(awk 'END { print $6 }' "$results") s"
      done
    done
  done
  if [ -z "$rescore" ]; then
    seconds_since "$start" > "$out/seconds"
    cp "$out/commit" "$out/sim-commit"
  fi
fi
[ -s "$results" ] || { echo "run.sh: no results in $results" >&2; exit 2; }

# ---- the doc section ----------------------------------------------------------
section="$out/section.md"
python3 - "$results" "$(cat "$out/commit")" "$(cat "$out/seconds")" "$(date -u +%Y-%m-%d)" \
  "$(cat "$out/sim-commit" 2>/dev/null || cat "$out/commit")" \
  "$(for g in "${groups[@]}"; do IFS='|' read -r group machine ppn _ _ <<< "$g"
     echo "$group|$machine|$("$build/torus/rankmap-torus" --canonical -m "$machine" 2>/dev/null || echo "$machine")|$ppn"; done)" \
  "$walls_file" > "$section" <<'EOF'
import sys
from collections import OrderedDict
from itertools import combinations

results, commit, seconds, day, sim_commit, machines, replay_seconds = sys.argv[1:8]
walls = {}
for line in open(replay_seconds):
    group, ex, with_replay, alone = line.split()
    walls["%s, %s" % (ex, group)] = (float(with_replay), float(alone))
data = OrderedDict()
for line in open(results):
    group, ex, name, old, new, sim, replay, bulk = line.split()
    data.setdefault((group, ex), OrderedDict())[name] = (float(old), float(new), float(sim), float(replay), float(bulk))

def kendall(xs, ys):
    """Pairwise agreement and Kendall's tau-b-like score: pairs SimGrid
    separates by more than 1% count; a model tie on such a pair counts half."""
    agree = total = 0.0
    for i, j in combinations(range(len(xs)), 2):
        if xs[i] != xs[i] or xs[j] != xs[j]:
            continue  # not predicted (nan): the bulk model past its work cap
        ds = ys[i] - ys[j]
        if abs(ds) <= 0.01 * max(ys[i], ys[j]):
            continue
        total += 1
        dm = xs[i] - xs[j]
        if abs(dm) <= 1e-9 * max(abs(xs[i]), abs(xs[j])):
            agree += 0.5
        elif (dm > 0) == (ds > 0):
            agree += 1
    return agree, total

def fmt(v):
    return "%.4g" % v

print("## The time model against SimGrid")
print()
print("Written by `bench/timemodel/run.sh` (issue 16; %s, models of commit `%s`; mappings and SimGrid runs of commit" % (day, commit))
print("`%s`, %s s on a shared 2-core machine). Regenerated by that script; numbers are not edited by hand." % (sim_commit, seconds))
print()
print("- **Machines**, 128 ranks each:")
for m in machines.splitlines():
    group, machine, canonical, ppn = m.split("|")
    print("  `%s` = `%s`, `--ppn %s` (profiles `bench/profiles/%s/`);" % (machine, canonical, ppn, group))
print("- **Profiles.** The recorded 128-rank profiles (mini-apps recorded in SMPI, stencils and sparse natively;")
print("  arguments in `bench/profiles/README.md`, NAS class B sizes for the mini-apps).")
print("- **Placements.** `rankmap map --algorithm A` for A in block, round-robin, random (seed 1), scotch, paper and")
print("  rankmap (the default), stock Scotch (`bench/replay/scotch_mapping.py ... stock`, overfull nodes repaired), and")
print("  *profile-replay*: the default's choice among its candidates by the replay of the profile (`rankmap map")
print("  --replay-profile`, seed 1; docs/simulation.md \"Replaying a profile\").")
print("- **Models.** `rankmap evaluate --json`: *old* = `comm_time_max_seconds` (\"comm time, max rank\": the slowest")
print("  rank's inter-node sends, messages x (t_inj + hops x t_hop) + bytes / bw, links never shared); *new* =")
print("  `predicted_comm_time_max_seconds` (\"time model, max rank\", docs/mapper.md \"Time model\"); *replay* = the")
print("  profile's point-to-point traffic as a bulk-synchronous program (`rankmap-sim bulk-trace`) replayed in SimGrid")
print("  on the placement (`rankmap-sim replay --comm-only`): what `--replay-profile` judges by. Its times are a")
print("  program's that sends each round's messages at once (and a repeated round once), not the application's:")
print("  only its order counts, so its error is not reported. *bulk* = `predicted_bulk_time_seconds` (\"bulk model\",")
print("  docs/mapper.md \"Bulk model\"): the same program, at least 4 rounds, run in the mapper's own flow-level")
print("  simulation (what the default judges its near-equal candidates by); n/a past its work cap.")
print("- **Simulation.** `rankmap-sim run --mapping X.map -- BUILD/examples/smpi/PROG ARGS` (SimGrid 3.32, communication")
print("  only, identical on re-run); time = SimGrid's simulated time of the whole run (what the profile records).")
print("- **Columns.** Times in seconds; *ratio* = time / block's time. *Order* = pairs of placements that SimGrid")
print("  separates by more than 1% and the model orders the same way (a model tie counts half).")
print("  *Err* = |model - SimGrid| / SimGrid; *ratio err* = |model ratio - SimGrid ratio| / SimGrid ratio.")
print()
summary = []
all_err = {"old": [], "new": []}
all_rerr = {"old": [], "new": []}
pairs = {"old": [0.0, 0.0], "new": [0.0, 0.0], "replay": [0.0, 0.0], "bulk": [0.0, 0.0]}
best_hits = {"old": 0, "new": 0, "replay": 0, "bulk": 0}
# The default's choice by the profile's replay, in SimGrid, against the
# default's static choice and against the fastest placement.
chosen = []
for (group, ex), rows in data.items():
    names = list(rows)
    old = [rows[n][0] for n in names]
    new = [rows[n][1] for n in names]
    sim = [rows[n][2] for n in names]
    replay = [rows[n][3] for n in names]
    bulk = [rows[n][4] for n in names]
    base = rows.get("block", rows[names[0]])
    label = "%s, %s" % (ex, group)
    print("### %s" % label)
    print()
    print("| placement | SimGrid (s) | ratio | old model (s) | ratio | new model (s) | ratio | replay (s) | ratio | bulk model (s) | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for n in names:
        o, w, s, r, b = rows[n]
        print("| %s | %s | %.3f | %s | %.3f | %s | %.3f | %s | %.3f | %s | %s |" % (
            n, fmt(s), s / base[2], fmt(o), o / base[0], fmt(w), w / base[1], fmt(r), r / base[3],
            "n/a" if b != b else fmt(b), "n/a" if b != b or base[4] != base[4] else "%.3f" % (b / base[4])))
        for key, v, b in (("old", o, base[0]), ("new", w, base[1])):
            all_err[key].append(abs(v - s) / s)
            all_rerr[key].append(abs(v / b - s / base[2]) / (s / base[2]))
    print()
    line = {}
    # The placements every judge ranks: the choice by replay is the replay's
    # own pick among the default's candidates, scored apart below.
    ranked = [i for i, n in enumerate(names) if n != "profile-replay"]
    fastest = min(ranked, key=lambda i: sim[i])
    if "profile-replay" in rows and "rankmap" in rows:
        chosen.append((label, rows["profile-replay"][2] / rows["rankmap"][2], rows["profile-replay"][2] / sim[fastest]))
    for key, all_xs in (("old", old), ("new", new), ("replay", replay), ("bulk", bulk)):
        xs = [all_xs[i] for i in ranked]
        sims = [sim[i] for i in ranked]
        a, t = kendall(xs, sims)
        pairs[key][0] += a
        pairs[key][1] += t
        pick = ranked[min((i for i in range(len(xs)) if xs[i] == xs[i]), key=lambda i: xs[i])]
        hit = sim[pick] <= sim[fastest] * 1.01
        best_hits[key] += hit
        errs = [abs(x - s) / s for x, s in zip(xs, sims) if x == x]
        line[key] = (a, t, names[pick], hit, sum(errs) / len(errs), max(errs))
    summary.append((label, names[fastest], line))

print("### Summary")
print()
print("| program | fastest in SimGrid | old: order | old: picks | old: err mean / max | new: order | new: picks | new: err mean / max | replay: order | replay: picks | bulk: order | bulk: picks |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for ex, fastest, line in summary:
    cells = []
    for key in ("old", "new", "replay", "bulk"):
        a, t, pick, hit, em, ex_ = line[key]
        cells += ["%g/%g" % (a, t), "%s%s" % (pick, "" if hit else " (wrong)")]
        if key in ("old", "new"):
            cells.append("%.0f%% / %.0f%%" % (100 * em, 100 * ex_))
    print("| %s | %s | %s |" % (ex, fastest, " | ".join(cells)))
def mean(v):
    return sum(v) / len(v) if v else float("nan")
print("| **all** | | %g/%g | %d of %d right | %.0f%% / %.0f%% | %g/%g | %d of %d right | %.0f%% / %.0f%% | %g/%g | %d of %d right | %g/%g | %d of %d right |" % (
    pairs["old"][0], pairs["old"][1], best_hits["old"], len(summary), 100 * mean(all_err["old"]), 100 * max(all_err["old"]),
    pairs["new"][0], pairs["new"][1], best_hits["new"], len(summary), 100 * mean(all_err["new"]), 100 * max(all_err["new"]),
    pairs["replay"][0], pairs["replay"][1], best_hits["replay"], len(summary),
    pairs["bulk"][0], pairs["bulk"][1], best_hits["bulk"], len(summary)))
print()
print("Relative error of the predicted ratio to block (what a user is told: \"x% faster\"), all programs and placements:")
print("old model mean %.0f%%, max %.0f%%; new model mean %.0f%%, max %.0f%%." % (
    100 * mean(all_rerr["old"]), 100 * max(all_rerr["old"]), 100 * mean(all_rerr["new"]), 100 * max(all_rerr["new"])))
if chosen:
    print()
    print("**The default's choice by the profile's replay** (`rankmap map --replay-profile`, the *profile-replay* rows), run in")
    print("SimGrid: its time / the default's static choice (*rankmap*), and / the fastest of the other placements; the wall")
    print("time of `rankmap map --replay-profile` (the whole command) and of `rankmap map` alone, one run each.")
    print()
    print("| program | / the static choice | / the fastest | map --replay-profile (s) | map (s) |")
    print("|---|---:|---:|---:|---:|")
    for label, vs_static, vs_fastest in chosen:
        w = walls.get(label, (float("nan"), float("nan")))
        print("| %s | %.3f | %.3f | %.1f | %.1f |" % (label, vs_static, vs_fastest, w[0], w[1]))
EOF
{ echo; cat "$root/bench/timemodel/discussion.md"; } >> "$section"

write_doc_section timemodel "$section"
log "wrote the section of $doc; outputs in $out"
