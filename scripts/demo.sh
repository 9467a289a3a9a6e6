#!/usr/bin/env bash
# README command 1: rankmap's main job end to end on a built-in example.
#   install -> build -> profile stencil3d at 128 ranks (natively, MPICH, with the
#   profiler preloaded and the yield shim) -> map onto desmos with 4 ranks per
#   node -> launch files -> run block and the optimized placement in SimGrid ->
#   a table of evaluator metrics, simulated times and the ratio, and an HTML
#   report with the communication matrix and the torus link loads.
# Files go to ./demo-out (or $RANKMAP_DEMO_DIR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${RANKMAP_BUILD_DIR:-$root/build}"
out="${RANKMAP_DEMO_DIR:-$root/demo-out}"
ranks=128
ppn=4
machine=desmos
# 8x4x4 ranks on a 128^3 grid: x faces 8 KiB, y and z faces 4 KiB per message;
# ranks numbered z-fastest, so block placement splits every heavy x-neighbour pair.
app_args=(--nx 128 --ny 128 --nz 128 --iters 20)

step() { printf '\n== %s\n' "$*"; }

step "install dependencies and build"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
mkdir -p "$out"
bin="$build"
native_app="$bin/examples/stencil3d"
smpi_app="$bin/examples/smpi/stencil3d"

step "1. profile: stencil3d, $ranks ranks, MPICH, LD_PRELOAD=libcommprof.so (commprof-run --yield)"
"$bin/libcommprof/commprof-run" --yield -o "$out/stencil3d.prof" -- \
  mpiexec.mpich -n "$ranks" "$native_app" "${app_args[@]}" | tee "$out/profile-run.txt"

step "2. map onto $machine ($("$bin/torus/rankmap-torus" --canonical -m "$machine")), $ppn ranks per node"
"$bin/mapper/rankmap" map -p "$out/stencil3d.prof" -m "$machine" --ppn "$ppn" -o "$out/stencil3d.map" | tee "$out/map.txt"
"$bin/mapper/rankmap" map -q -p "$out/stencil3d.prof" -m "$machine" --ppn "$ppn" --algorithm block \
  -o "$out/block.map" > /dev/null

step "3. launch files for the optimized mapping"
"$bin/rankfile-gen/rankfile-gen" "$out/stencil3d.map" -o "$out/stencil3d" --app "./stencil3d ${app_args[*]}" | tee "$out/launch.txt"

step "4. run both placements in SimGrid on the generated Desmos platform"
simulate() {
  "$bin/simulation/rankmap-sim" run "$1" -- "$smpi_app" "${app_args[@]}" 2>&1 \
    | sed -n 's/^simulated_time=\([^ ]*\).*/\1/p'
}
t_block="$(simulate "$out/block.map")"
t_opt="$(simulate "$out/stencil3d.map")"
[ -n "$t_block" ] && [ -n "$t_opt" ] || { echo "demo: simulation failed" >&2; exit 1; }

step "5. compare"
"$bin/mapper/rankmap" evaluate -q -p "$out/stencil3d.prof" --ppn "$ppn" "$out/block.map" "$out/stencil3d.map" \
  > "$out/evaluate.txt"
{
  printf '%-26s %14s %14s %9s\n' "stencil3d, $ranks ranks" "block" "rankmap" "ratio"
  awk -v fmt='%-26s %14s %14s %9s\n' '
    /^(inter-node bytes|hop-bytes  |bw-weighted cost|max link load|comm time, max rank|time model, max rank)/ {
      n = split($0, w, /  +/); name = w[1]; b = w[n-2]; o = w[n-1]
      printf fmt, name, b, o, sprintf("%.2f", (b > 0 ? o / b : 1)) }' "$out/evaluate.txt"
  printf '%-26s %14s %14s %9s\n' "simulated time (s)" "$t_block" "$t_opt" \
    "$(awk -v b="$t_block" -v o="$t_opt" 'BEGIN { printf "%.2f", o / b }')"
  awk -v b="$t_block" -v o="$t_opt" 'BEGIN { printf "speedup of the optimized placement in simulation: %.1f%%\n", 100 * (b / o - 1) }'
} | tee "$out/summary.txt"

step "6. report: metrics, communication matrices, torus link loads"
"$bin/report/rankmap-report" -p "$out/stencil3d.prof" --ppn "$ppn" "$out/block.map" "$out/stencil3d.map" \
  --label "$out/stencil3d.map=rankmap" --simulated "block=$t_block" --simulated "rankmap=$t_opt" \
  --node-picture --title "rankmap demo: stencil3d, $ranks ranks on $machine" -o "$out/report.html"

printf '\ndemo: files in %s (profile, mappings, launch files, summary.txt; open report.html in a browser)\n' "$out"
