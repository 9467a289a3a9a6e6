#!/usr/bin/env bash
# Pipeline test of rankmap-report: synth -> map (block, default) -> report, then
# the page must render in headless Chromium with 4 figures (two matrices, two
# link-load pictures) and the metrics table; bad input leaves no file.
# usage: report_pipeline.sh RANKMAP RANKMAP_REPORT RENDER_SCRIPT WORKDIR
set -euo pipefail
rankmap="$1"; report="$2"; render="$3"; work="$4"
rm -rf "$work"; mkdir -p "$work"; cd "$work"
"$rankmap" synth -q --pattern stencil3d-shuffled --ranks 64 -o s.prof
"$rankmap" map -q -p s.prof -m desmos --ppn 2 --algorithm block -o block.map > /dev/null
"$rankmap" map -q -p s.prof -m desmos --ppn 2 -o opt.map > /dev/null
"$report" -p s.prof --ppn 2 block.map opt.map --simulated block=0.002 --simulated opt.map=0.001 -o report.html
grep -q "<td>simulated time, SimGrid (s)</td><td>0.002</td><td>0.001</td><td>-50%</td>" report.html
# 1 header row + 9 metric rows + simulated time
"$render" report.html 4 11

# Bad input: one line on stderr, exit 2, nothing written.
"$rankmap" synth -q --pattern ring --ranks 8 -o small.prof
set +e
"$report" -p small.prof block.map -o bad.html 2> err.txt; status=$?
set -e
[ "$status" -eq 2 ] || { echo "expected exit 2 for a rank mismatch, got $status"; exit 1; }
grep -q "block.map: mapping has 64 ranks, profile small.prof has 8" err.txt
[ "$(wc -l < err.txt)" -eq 1 ] || { echo "error is not one line"; cat err.txt; exit 1; }
[ ! -e bad.html ] || { echo "bad.html written despite the error"; exit 1; }
set +e
"$report" -p s.prof block.map --simulated nosuch=1 -o bad.html 2> err.txt; status=$?
set -e
[ "$status" -eq 2 ] && grep -q "'nosuch', which is not one of the mappings" err.txt && [ ! -e bad.html ]
echo "report pipeline ok"
