#!/usr/bin/env bash
# Issue 16: which node-group shape SimGrid runs fastest, and which the time
# model predicts fastest, on the grid mini-apps.
#
# The validation (bench/timemodel/run.sh) found the model ordering recorded
# MG and the 3D stencil on desmos wrong: stock Scotch's mapping ran faster
# than the default's, which the model predicts faster. This isolates the
# group shape: for each program and each block shape that tiles its process
# grid with one node's ranks (1D runs such as 4x1x1, 2D blocks such as
# 2x1x2), bench/timemodel/block_mapping.py places those groups on the torus
# (a swap search on their bytes x hops), and each mapping gets
#   model      rankmap evaluate --json: the time model's slowest rank
#              (predicted_comm_time_max_seconds), hop-bytes, max link load;
#   simulation rankmap-sim run (SimGrid, communication only, as run.sh);
#   replay     the profile's bulk-synchronous program (rankmap-sim bulk-trace)
#              replayed on each (rankmap-sim replay --comm-only), what
#              `rankmap map --replay-profile` judges by.
# The default's own mapping (rankmap map) is scored alongside.
#
#   bench/timemodel/shapes.sh              # everything (about 5 minutes on 2 busy cores)
#   bench/timemodel/shapes.sh --doc-only   # rewrite the doc section from the last results
# Environment: RANKMAP_BUILD_DIR (default build-timemodel), RANKMAP_BENCH_OUT
# (default BUILD/bench-timemodel-shapes), RANKMAP_BENCH_DOC (default
# docs/benchmarks.md). Writes the section between
# <!-- timemodel-shapes:begin --> and <!-- timemodel-shapes:end -->.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
set_bench_dirs build-timemodel bench-timemodel-shapes
require_executables "build first" "$rankmap" "$sim"

# Machine groups: name (bench/profiles/NAME/), machine, ranks per node, torus
# sizes, then program:grid pairs (the 128-rank process grids of the recorded
# runs, first dimension fastest; bench/profiles/README.md).
groups=(
  "desmos-4|desmos|4|4x2x2x2|mg:8x4x4 stencil3d:4x4x8 hydro27:4x4x8 lu:16x8 stencil2d:8x16"
  "4x4x4-2|torus=4x4x4 node=package:2,core:4|2|4x4x4|mg:8x4x4 hydro27:4x4x8 lu:16x8"
)
results="$out/results.txt"   # group program placement grid ppn model simulated hop_bytes max_link replay

# Every block shape with PPN ranks that tiles GRID (each side divides the grid's).
block_shapes() {  # GRID PPN
  python3 - "$1" "$2" <<'EOF'
import itertools, sys
grid = [int(s) for s in sys.argv[1].split("x")]
ppn = int(sys.argv[2])
divisors = [[d for d in range(1, g + 1) if g % d == 0] for g in grid]
for shape in itertools.product(*divisors):
    p = 1
    for s in shape:
        p *= s
    if p == ppn:
        print("x".join(map(str, shape)))
EOF
}

if [ "${1:-}" != --doc-only ]; then
  : > "$results"
  start=$(now)
  short_commit > "$out/commit"
  for g in "${groups[@]}"; do
    IFS='|' read -r group machine ppn sizes progs <<< "$g"
    for pg in $progs; do
      ex=${pg%%:*} grid=${pg#*:}
      prof="$root/bench/profiles/$group/$ex.prof"
      [ -f "$prof" ] && [ -x "$build/examples/smpi/$ex" ] || { echo "shapes.sh: no profile or SMPI build for $group/$ex" >&2; exit 2; }
      d="$out/$group/$ex"
      rm -rf "$d"; mkdir -p "$d"
      "$rankmap" map -q -p "$prof" -m "$machine" --ppn "$ppn" -o "$d/default.map" > /dev/null
      machine_line=$(sed -n 's/^machine //p' "$d/default.map")
      names=(default)
      for shape in $(block_shapes "$grid" "$ppn"); do
        python3 "$root/bench/timemodel/block_mapping.py" "$prof" "$machine_line" "$sizes" "$grid" "$shape" "$d/$shape.map"
        names+=("$shape")
      done
      maps=(); for n in "${names[@]}"; do maps+=("$d/$n.map"); done
      "$rankmap" evaluate -q --no-bound --json -p "$prof" "${maps[@]}" > "$d/evaluate.json"
      replay_profile "$prof" "$machine" "$d" "${maps[@]}"
      args=$(example_args "$ex" 128)
      for n in "${names[@]}"; do
        # shellcheck disable=SC2086
        "$sim" run --mapping "$d/$n.map" -- "$build/examples/smpi/$ex" $args > "$d/$n.sim.log" 2>&1 < /dev/null ||
          { echo "shapes.sh: simulation of $group/$ex on $n failed (see $d/$n.sim.log)" >&2; exit 1; }
        t=$(simulated_seconds "$d/$n.sim.log")
        r=$(replayed_seconds "$d" "$d/$n.map")
        python3 -c 'import json, sys
r = {r["mapping"]: r for r in json.load(open(sys.argv[1]))}[sys.argv[2]]
print(*sys.argv[3:8], repr(r["predicted_comm_time_max_seconds"]), sys.argv[8], repr(r["hop_bytes"]), repr(r["max_link_load_seconds"]), sys.argv[9])' \
          "$d/evaluate.json" "$d/$n.map" "$group" "$ex" "$n" "$grid" "$ppn" "$t" "$r" >> "$results"
        log "$group $ex $n: simulated $t s"
      done
    done
  done
  seconds_since "$start" > "$out/seconds"
fi
[ -s "$results" ] || { echo "shapes.sh: no results in $results" >&2; exit 2; }

section="$out/section.md"
python3 - "$results" "$(cat "$out/commit")" "$(cat "$out/seconds")" "$(date -u +%Y-%m-%d)" > "$section" <<'EOF'
import sys
from collections import OrderedDict

results, commit, seconds, day = sys.argv[1:5]
data = OrderedDict()
for line in open(results):
    group, ex, name, grid, ppn, model, sim, hb, mll, replay = line.split()
    data.setdefault((group, ex, grid), OrderedDict())[name] = (float(model), float(sim), float(hb), float(mll), float(replay))

def kind(name):
    if name == "default":
        return "the default's mapping"
    sides = [int(s) for s in name.split("x")]
    return "1D run" if sum(1 for s in sides if s > 1) == 1 else "2D block" if sum(1 for s in sides if s > 1) == 2 else "3D block"

print(f"Written by `bench/timemodel/shapes.sh` (issue 16; {day}, commit `{commit}`, {seconds} s on a shared 2-core machine).")
print("Regenerated by that script; numbers are not edited by hand.")
print()
print("- **Placements.** For each program, every block shape of one node's ranks that tiles its 128-rank process grid")
print("  (grid and block first dimension fastest: `4x1x1` = four consecutive x-neighbours per node, a *1D run*; `2x1x2` a")
print("  *2D block*), the groups placed on the torus by `bench/timemodel/block_mapping.py` (a swap search on their bytes x")
print("  hops); and the default's own mapping (`rankmap map`, seed 1).")
print("- **Columns.** SimGrid = `rankmap-sim run` (communication only); model = the time model's slowest rank")
print("  (`rankmap evaluate`); *x fastest* = time / the fastest placement's by that column; *SimGrid / model* = how far")
print("  the model is off for that placement (the same for every placement would mean a perfect order); *replay* = the")
print("  profile's bulk-synchronous program replayed in SimGrid (`rankmap-sim bulk-trace`, `rankmap-sim replay")
print("  --comm-only`), what `rankmap map --replay-profile` judges by.")
print()
summary = []
for (group, ex, grid), rows in data.items():
    fast_sim = min(v[1] for v in rows.values())
    fast_model = min(v[0] for v in rows.values())
    fast_replay = min(v[4] for v in rows.values())
    print(f"### {ex} ({grid} grid), {group}")
    print()
    print("| placement | kind | SimGrid (s) | x fastest | model (s) | x fastest | SimGrid / model | replay x fastest | hop-bytes | max link load (ms) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, (model, sim, hb, mll, replay) in sorted(rows.items(), key=lambda kv: kv[1][1]):
        print(f"| {name} | {kind(name)} | {sim:.4g} | {sim / fast_sim:.3f} | {model:.4g} | {model / fast_model:.3f} | "
              f"{sim / model:.2f} | {replay / fast_replay:.3f} | {hb:.4g} | {mll * 1e3:.4g} |")
    print()
    by_sim = min(rows, key=lambda n: rows[n][1])
    by_model = min(rows, key=lambda n: rows[n][0])
    by_replay = min(rows, key=lambda n: rows[n][4])
    summary.append((group, ex, grid, by_sim, by_model, rows[by_model][1] / fast_sim, by_replay, rows[by_replay][1] / fast_sim))

print("### Summary")
print()
print("| program | machine | fastest in SimGrid | model's pick | SimGrid time of the pick / fastest | replay's pick | SimGrid time of the pick / fastest |")
print("|---|---|---|---|---:|---|---:|")
for group, ex, grid, by_sim, by_model, loss, by_replay, replay_loss in summary:
    print(f"| {ex} ({grid}) | {group} | {by_sim} ({kind(by_sim)}) | {by_model} ({kind(by_model)}) | {loss:.3f} | "
          f"{by_replay} ({kind(by_replay)}) | {replay_loss:.3f} |")
EOF
python3 "$root/bench/replace_doc_section.py" "$doc" timemodel-shapes "$section"
log "wrote the timemodel-shapes section of $doc"
