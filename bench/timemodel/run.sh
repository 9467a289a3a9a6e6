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

results="$out/results.txt"   # group program placement old_model new_model simulated
# One results line: the two models from the evaluate JSON, SimGrid's time from the log.
emit() {  # group ex name json map simlog
  local t; t=$(simulated_seconds "$6")
  python3 -c 'import json, sys; r = {r["mapping"]: r for r in json.load(open(sys.argv[1]))}[sys.argv[2]]
print(*sys.argv[3:6], repr(r["comm_time_max_seconds"]), repr(r["predicted_comm_time_max_seconds"]), sys.argv[6])' \
    "$4" "$5" "$1" "$2" "$3" "$t" >> "$results"
}
doc_only="" rescore=""
[ "${1:-}" = --doc-only ] && doc_only=yes
[ "${1:-}" = --rescore ] && rescore=yes
if [ -z "$doc_only" ]; then
  : > "$results"
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
        for name in "${algorithms[@]}" scotch-stock; do [ -f "$d/$name.map" ] && maps+=("$d/$name.map"); done
        "$rankmap" evaluate -q --no-bound --json -p "$prof" "${maps[@]}" > "$d/evaluate.json"
        for map in "${maps[@]}"; do
          name=$(basename "$map" .map)
          emit "$group" "$ex" "$name" "$d/evaluate.json" "$map" "$d/$name.sim.log"
        done
        continue
      fi
      rm -rf "$d"; mkdir -p "$d"
      maps=()
      for alg in "${algorithms[@]}"; do
        "$rankmap" map -q -p "$prof" -m "$machine" --ppn "$ppn" --algorithm "$alg" -o "$d/$alg.map" > /dev/null
        maps+=("$d/$alg.map")
      done
      machine_line=$(sed -n 's/^machine //p' "$d/block.map")
      if python3 "$root/bench/replay/scotch_mapping.py" "$prof" "$machine_line" "$sizes" "$ppn" stock "$d/scotch-stock.map" \
          > "$d/scotch-stock.log" 2>&1; then
        maps+=("$d/scotch-stock.map")
      else
        log "$group/$ex: stock Scotch failed (see $d/scotch-stock.log); left out"
      fi
      "$rankmap" evaluate -q --no-bound --json -p "$prof" "${maps[@]}" > "$d/evaluate.json"
      for map in "${maps[@]}"; do
        name=$(basename "$map" .map)
        # shellcheck disable=SC2086
        "$sim" run --mapping "$map" -- "$build/examples/smpi/$ex" ${args[$ex]} > "$d/$name.sim.log" 2>&1 < /dev/null ||
          { echo "run.sh: simulation of $group/$ex on $name failed (see $d/$name.sim.log)" >&2; exit 1; }
        emit "$group" "$ex" "$name" "$d/evaluate.json" "$map" "$d/$name.sim.log"
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
  > "$section" <<'EOF'
import sys
from collections import OrderedDict
from itertools import combinations

results, commit, seconds, day, sim_commit, machines = sys.argv[1:7]
data = OrderedDict()
for line in open(results):
    group, ex, name, old, new, sim = line.split()
    data.setdefault((group, ex), OrderedDict())[name] = (float(old), float(new), float(sim))

def kendall(xs, ys):
    """Pairwise agreement and Kendall's tau-b-like score: pairs SimGrid
    separates by more than 1% count; a model tie on such a pair counts half."""
    agree = total = 0.0
    for i, j in combinations(range(len(xs)), 2):
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
print("  rankmap (the default), and stock Scotch (`bench/replay/scotch_mapping.py ... stock`, overfull nodes repaired).")
print("- **Models.** `rankmap evaluate --json`: *old* = `comm_time_max_seconds` (\"comm time, max rank\": the slowest")
print("  rank's inter-node sends, messages x (t_inj + hops x t_hop) + bytes / bw, links never shared); *new* =")
print("  `predicted_comm_time_max_seconds` (\"time model, max rank\", docs/mapper.md \"Time model\").")
print("- **Simulation.** `rankmap-sim run --mapping X.map -- BUILD/examples/smpi/PROG ARGS` (SimGrid 3.32, communication")
print("  only, identical on re-run); time = SimGrid's simulated time of the whole run (what the profile records).")
print("- **Columns.** Times in seconds; *ratio* = time / block's time. *Order* = pairs of placements that SimGrid")
print("  separates by more than 1% and the model orders the same way (a model tie counts half).")
print("  *Err* = |model - SimGrid| / SimGrid; *ratio err* = |model ratio - SimGrid ratio| / SimGrid ratio.")
print()
summary = []
all_err = {"old": [], "new": []}
all_rerr = {"old": [], "new": []}
pairs = {"old": [0.0, 0.0], "new": [0.0, 0.0]}
best_hits = {"old": 0, "new": 0}
for (group, ex), rows in data.items():
    names = list(rows)
    old = [rows[n][0] for n in names]
    new = [rows[n][1] for n in names]
    sim = [rows[n][2] for n in names]
    base = rows.get("block", rows[names[0]])
    label = "%s, %s" % (ex, group)
    print("### %s" % label)
    print()
    print("| placement | SimGrid (s) | ratio | old model (s) | ratio | new model (s) | ratio |")
    print("|---|---|---|---|---|---|---|")
    for n in names:
        o, w, s = rows[n]
        print("| %s | %s | %.3f | %s | %.3f | %s | %.3f |" % (n, fmt(s), s / base[2], fmt(o), o / base[0], fmt(w), w / base[1]))
        for key, v, b in (("old", o, base[0]), ("new", w, base[1])):
            all_err[key].append(abs(v - s) / s)
            all_rerr[key].append(abs(v / b - s / base[2]) / (s / base[2]))
    print()
    line = {}
    fastest = min(range(len(names)), key=lambda i: sim[i])
    for key, xs in (("old", old), ("new", new)):
        a, t = kendall(xs, sim)
        pairs[key][0] += a
        pairs[key][1] += t
        pick = min(range(len(names)), key=lambda i: xs[i])
        hit = sim[pick] <= sim[fastest] * 1.01
        best_hits[key] += hit
        errs = [abs(x - s) / s for x, s in zip(xs, sim)]
        line[key] = (a, t, names[pick], hit, sum(errs) / len(errs), max(errs))
    summary.append((label, names[fastest], line))

print("### Summary")
print()
print("| program | fastest in SimGrid | old: order | old: picks | old: err mean / max | new: order | new: picks | new: err mean / max |")
print("|---|---|---|---|---|---|---|---|")
for ex, fastest, line in summary:
    cells = []
    for key in ("old", "new"):
        a, t, pick, hit, em, ex_ = line[key]
        cells += ["%g/%g" % (a, t), "%s%s" % (pick, "" if hit else " (wrong)"), "%.0f%% / %.0f%%" % (100 * em, 100 * ex_)]
    print("| %s | %s | %s |" % (ex, fastest, " | ".join(cells)))
def mean(v):
    return sum(v) / len(v) if v else float("nan")
print("| **all** | | %g/%g | %d of %d right | %.0f%% / %.0f%% | %g/%g | %d of %d right | %.0f%% / %.0f%% |" % (
    pairs["old"][0], pairs["old"][1], best_hits["old"], len(summary), 100 * mean(all_err["old"]), 100 * max(all_err["old"]),
    pairs["new"][0], pairs["new"][1], best_hits["new"], len(summary), 100 * mean(all_err["new"]), 100 * max(all_err["new"])))
print()
print("Relative error of the predicted ratio to block (what a user is told: \"x% faster\"), all programs and placements:")
print("old model mean %.0f%%, max %.0f%%; new model mean %.0f%%, max %.0f%%." % (
    100 * mean(all_rerr["old"]), 100 * max(all_rerr["old"]), 100 * mean(all_rerr["new"]), 100 * max(all_rerr["new"])))
EOF
{ echo; cat "$root/bench/timemodel/discussion.md"; } >> "$section"

write_doc_section timemodel "$section"
log "wrote the section of $doc; outputs in $out"
