#!/usr/bin/env bash
# What the default's seed spread means in run time: a recorded profile of a
# mini-app mapped at several seeds, each mapping run in SimGrid with the
# mini-app (communication only, deterministic), per seed the hop-bytes, the
# max link load and the simulated time, then the mean and the range of each.
# With REF_RANKMAP (another build's rankmap, e.g. of the commit before a
# change), the same for its mappings, side by side. docs/ is not touched.
#
#   bench/peers/seed_simgrid.sh GROUP/NAME [SEEDS]    e.g. 4x4-4/cg "1 2 3 4 5"
#
# GROUP is a folder of bench/profiles (its machine and ranks per node as in
# the peer benchmark); NAME the program (examples/smpi/NAME, its arguments
# from bench/profiles/example-args.txt at the profile's rank count).
# Environment: RANKMAP_BUILD_DIR (default <repo>/build), REF_RANKMAP, PRESET
# (the mapper's --preset, default `default`: `strong` compares strong's).
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
[ $# -ge 1 ] || { echo "usage: $bench_script GROUP/NAME [SEEDS]" >&2; exit 2; }
set_bench_dirs build seed-simgrid
group=${1%/*} name=${1#*/}
seeds=${2:-1 2 3 4 5}
prof=$root/bench/profiles/$group/$name.prof
[ -f "$prof" ] || { echo "$bench_script: no $prof" >&2; exit 2; }
app=$build/examples/smpi/$name
require_executables "build the examples with SimGrid" "$rankmap" "$sim" "$app"
case $group in
  desmos-*) machine=desmos ;;
  8x8-*) machine="torus=8x8 node=package:2,core:4" ;;
  4x4-*) machine="torus=4x4 node=package:2,core:4" ;;
  4x4x4-*) machine="torus=4x4x4 node=package:2,core:4" ;;
  8x4x4x4-*) machine="torus=8x4x4x4 node=package:2,core:4" ;;
  *) echo "$bench_script: unknown group $group" >&2; exit 2 ;;
esac
ppn=${group##*-}
ranks=$(awk '$1 == "ranks" { print $2; exit }' "$prof")
args=$(example_args "$name" "$ranks")

tools=("$rankmap")
[ -n "${REF_RANKMAP:-}" ] && tools+=("$REF_RANKMAP")
printf '%-10s %5s %12s %14s %16s\n' mapper seed hop-bytes "max link (s)" "simulated (s)"
for t in "${!tools[@]}"; do
  label=$([ "$t" -eq 0 ] && echo this || echo ref)
  for s in $seeds; do
    map=$out/$group-$name-$label-$s.map
    "${tools[$t]}" map -q -p "$prof" -m "$machine" --ppn "$ppn" --preset "${PRESET:-default}" --seed "$s" -o "$map" > "$out/map.txt"
    hb=$(awk '$1 == "hop-bytes" && $2 == "B*hop" { print $4 }' "$out/map.txt")
    ml=$(awk '$1 == "max" && $2 == "link" && $3 == "load" { print $6 }' "$out/map.txt")
    # shellcheck disable=SC2086  # the arguments are words
    "$sim" run --mapping "$map" -- "$app" $args > "$out/sim.log" 2>&1 < /dev/null
    st=$(simulated_seconds "$out/sim.log")
    printf '%-10s %5s %12s %14s %16s\n' "$label" "$s" "$hb" "$ml" "$st"
  done
done | tee "$out/table.txt"
awk 'NR > 0 && NF == 5 && $2 ~ /^[0-9]+$/ {
       n[$1]++; for (i = 3; i <= 5; i++) { v = $i + 0; s[$1, i] += v
         if (n[$1] == 1 || v < lo[$1, i]) lo[$1, i] = v; if (n[$1] == 1 || v > hi[$1, i]) hi[$1, i] = v } }
     END { for (m in n) { printf "%-10s mean", m
             for (i = 3; i <= 5; i++) printf "  %.4g (%.4g-%.4g, spread %.2f%%)", s[m, i] / n[m], lo[m, i], hi[m, i], (hi[m, i] - lo[m, i]) / lo[m, i] * 100
             printf "\n" } }' "$out/table.txt"
