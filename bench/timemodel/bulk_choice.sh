#!/usr/bin/env bash
# Issue 16: the default's bulk model against its static choice, in SimGrid.
#
# For every recorded profile of bench/profiles/GROUP/ on its machine and
# seeds 1-3, `rankmap map` twice: the default as it is, and with
# --no-bulk-model (its static choice). Where the bulk model replaced the
# static choice (the note "took a placement the bulk model predicts ..."),
# both mappings run in SimGrid (rankmap-sim run, the SMPI build of the same
# program with the arguments the profile was recorded with, communication
# only, as bench/timemodel/run.sh), and the table gives the ratio. Every row
# gives both commands' wall times: what the bulk model costs.
#
#   bench/timemodel/bulk_choice.sh              # everything (about 20 minutes on 2 busy cores)
#   bench/timemodel/bulk_choice.sh --doc-only   # rewrite the doc section from the last results
# Environment: RANKMAP_BUILD_DIR (default build-timemodel), RANKMAP_BENCH_OUT
# (default BUILD/bench-timemodel-bulk), RANKMAP_BENCH_DOC (default
# docs/benchmarks.md), BULK_SEEDS (default "1 2 3"), BULK_GROUPS (default: all
# below). Writes the section between <!-- timemodel-bulk:begin --> and
# <!-- timemodel-bulk:end -->.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
set_bench_dirs build-timemodel bench-timemodel-bulk
require_executables "build first" "$rankmap" "$sim"

# name (bench/profiles/NAME/) | machine | ranks per node
groups=(
  "desmos-2|desmos|2"
  "desmos-4|desmos|4"
  "desmos-6|desmos|6"
  "4x4-4|torus=4x4 node=package:2,core:4|4"
  "4x4x4-2|torus=4x4x4 node=package:2,core:4|2"
  "8x8-4|torus=8x8 node=package:2,core:4|4"
  "8x4x4x4-2|torus=8x4x4x4 node=package:2,core:4|2"
)
seeds=${BULK_SEEDS:-1 2 3}
results="$out/results.txt"  # group program seed ranks fired wall_ms static_wall_ms [json of both] [sim sim_static]

if [ "${1:-}" != --doc-only ]; then
  : > "$results"
  start=$(now)
  short_commit > "$out/commit"
  for g in "${groups[@]}"; do
    IFS='|' read -r group machine ppn <<< "$g"
    case " ${BULK_GROUPS:-$group} " in *" $group "*) ;; *) continue ;; esac
    for prof in "$root/bench/profiles/$group"/*.prof; do
      ex=$(basename "$prof" .prof)
      ranks=$(awk '$1 == "ranks" { print $2; exit }' "$prof")
      d="$out/$group/$ex"
      mkdir -p "$d"
      for seed in $seeds; do
        t0=$(now)
        # Not quiet: the notes (stderr) say whether the bulk model chose.
        "$rankmap" map -p "$prof" -m "$machine" --ppn "$ppn" --seed "$seed" -o "$d/s$seed.map" 2> "$d/s$seed.log" > /dev/null
        wall=$(tenths_since "$t0")
        t0=$(now)
        "$rankmap" map -q -p "$prof" -m "$machine" --ppn "$ppn" --seed "$seed" --no-bulk-model -o "$d/s$seed-static.map" \
          2> /dev/null > /dev/null
        wall_static=$(tenths_since "$t0")
        fired=no simulated=- simulated_static=-
        if grep -q "the bulk model predicts" "$d/s$seed.log"; then
          fired=yes
          if [ -x "$build/examples/smpi/$ex" ]; then
            args=$(example_args "$ex" "$ranks")
            for m in s$seed s$seed-static; do
              # shellcheck disable=SC2086
              "$sim" run --mapping "$d/$m.map" -- "$build/examples/smpi/$ex" $args > "$d/$m.sim.log" 2>&1 < /dev/null ||
                { echo "bulk_choice.sh: simulation of $group/$ex on $m failed (see $d/$m.sim.log)" >&2; exit 1; }
            done
            simulated=$(simulated_seconds "$d/s$seed.sim.log")
            simulated_static=$(simulated_seconds "$d/s$seed-static.sim.log")
          fi
        fi
        "$rankmap" evaluate -q --no-bound --json -p "$prof" "$d/s$seed.map" "$d/s$seed-static.map" > "$d/s$seed.json"
        echo "$group $ex $seed $ranks $fired $wall $wall_static $d/s$seed.json $simulated $simulated_static" >> "$results"
        log "$group $ex seed $seed: bulk model fired: $fired; SimGrid $simulated against $simulated_static s"
      done
    done
  done
  seconds_since "$start" > "$out/seconds"
fi
[ -s "$results" ] || { echo "bulk_choice.sh: no results in $results" >&2; exit 2; }

section="$out/section.md"
python3 - "$results" "$(cat "$out/commit")" "$(cat "$out/seconds")" "$(date -u +%Y-%m-%d)" > "$section" <<'EOF'
import json, sys
results, commit, seconds, day = sys.argv[1:5]
rows = []
for line in open(results):
    group, ex, seed, ranks, fired, wall, wall_static, js, sim, sim_static = line.split()
    new, static = json.load(open(js))
    rows.append(dict(group=group, ex=ex, seed=int(seed), ranks=int(ranks), fired=fired == "yes", wall=float(wall),
                     wall_static=float(wall_static), new=new, static=static,
                     sim=None if sim == "-" else float(sim), sim_static=None if sim_static == "-" else float(sim_static)))

def ratio(a, b):
    return a / b if b else float("nan")

print("## The bulk model's choice against the static choice")
print()
print("Written by `bench/timemodel/bulk_choice.sh` (issue 16; %s, commit `%s`, %s s on a shared 2-core machine)." % (day, commit, seconds))
print("Regenerated by that script; numbers are not edited by hand.")
print()
print("- **Instances.** Every recorded profile of `bench/profiles/GROUP/` on its machine (the peer benchmark's groups:")
print("  desmos at 2, 4 and 6 per node, 4x4 and 8x8 at 4, 4x4x4 and 8x4x4x4 at 2), seeds %s." %
      ", ".join(str(s) for s in sorted({r["seed"] for r in rows})))
print("- **Mappings.** `rankmap map` (the default) and `rankmap map --no-bulk-model` (its static choice), same seed.")
print("- **Simulation**, where the bulk model replaced the static choice: both mappings run in SimGrid")
print("  (`rankmap-sim run --mapping X.map -- BUILD/examples/smpi/PROG ARGS`, the arguments of")
print("  `bench/profiles/example-args.txt`, communication only, identical on re-run); *SimGrid* = the default's simulated")
print("  time / the static choice's. *Bulk*, *model*: the same ratio of the bulk model and of the time model")
print("  (`rankmap evaluate`), *cost*: of bytes-only hop-bytes, *load*: of the max link load.")
print()
fired = [r for r in rows if r["fired"]]
print("| instance | seed | cost | load | time model | bulk | SimGrid |")
print("|---|---|---|---|---|---|---|")
for r in fired:
    n, s = r["new"], r["static"]
    print("| %s, %s (%d ranks) | %d | %.4f | %.4f | %.4f | %.4f | %s |" % (
        r["ex"], r["group"], r["ranks"], r["seed"], ratio(n["hop_bytes"], s["hop_bytes"]),
        ratio(n["max_link_load_seconds"], s["max_link_load_seconds"]),
        ratio(n["predicted_comm_time_max_seconds"], s["predicted_comm_time_max_seconds"]),
        ratio(n["predicted_bulk_time_seconds"] or 0, s["predicted_bulk_time_seconds"] or 0),
        "%.4f" % ratio(r["sim"], r["sim_static"]) if r["sim"] else "n/a"))
if not fired:
    print("| (none) | | | | | | |")
print()
faster = [r for r in fired if r["sim"] and r["sim"] < r["sim_static"]]
slower = [r for r in fired if r["sim"] and r["sim"] > r["sim_static"] * 1.001]
print("**Summary.** The bulk model replaced the static choice on %d of %d runs (%d instances x seeds);" %
      (len(fired), len(rows), len(rows) // max(1, len({r["seed"] for r in rows}))))
if fired:
    sims = [ratio(r["sim"], r["sim_static"]) for r in fired if r["sim"]]
    print("SimGrid ran the default's choice faster on %d, more than 0.1%% slower on %d (SimGrid ratio %.3f to %.3f)." %
          (len(faster), len(slower), min(sims), max(sims)))
walls = [r["wall"] / r["wall_static"] for r in rows if r["wall_static"] > 0]
print("Wall time of `rankmap map` against `--no-bulk-model` (whole command, single runs on a shared machine): %.2fx on"
      " the mean, %.2fx at most; %.1f s at most (%.1f s without)." % (
          sum(walls) / len(walls), max(walls), max(r["wall"] for r in rows), max(r["wall_static"] for r in rows)))
EOF
write_doc_section timemodel-bulk "$section"
