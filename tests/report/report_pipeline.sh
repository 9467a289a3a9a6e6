#!/usr/bin/env bash
# Pipeline test of rankmap-report: synth -> map (block, default) -> report, at
# 128 ranks on desmos (every link drawn) and at 32,768 ranks on a 4,096-node
# torus (the compact form: a histogram of link loads). Each page must carry
# the verdict line, stay under its size limit and render in headless Chromium
# with its figures and the metrics table; bad input leaves no file.
# usage: report_pipeline.sh RANKMAP RANKMAP_REPORT RENDER_SCRIPT WORKDIR
set -euo pipefail
rankmap="$1"; report="$2"; render="$3"; work="$4"
rm -rf "$work"; mkdir -p "$work"; cd "$work"
size_at_most() {  # FILE BYTES
  local size; size=$(stat -c %s "$1")
  [ "$size" -le "$2" ] || { echo "$1 is $size bytes, above the limit of $2"; exit 1; }
  echo "$1: $size bytes (limit $2)"
}

# 128 ranks, 4 per node on desmos: two matrices, two link pictures, the node.
"$rankmap" synth -q --pattern stencil3d-shuffled --ranks 128 -o s.prof
"$rankmap" map -q -p s.prof -m desmos --ppn 4 --algorithm block -o block.map > /dev/null
"$rankmap" map -q -p s.prof -m desmos --ppn 4 -o s.map > /dev/null
"$report" -q -p s.prof --ppn 4 block.map s.map --label s.map=rankmap \
  --simulated block=0.002 --simulated rankmap=0.001 --node-picture -o report.html
# The verdict leads with the times: the simulated ones when given (synthetic
# profiles have no MPI time, so the application is n/a), then the network.
verdict='rankmap vs block: communication −50% \(simulated\), application n/a \(no MPI time in the profile\); hop-bytes −[0-9]+%, max link load −[0-9]+%'
grep -Eq "<p class=\"verdict\" id=\"verdict\">$verdict</p>" report.html || {
  echo "no verdict line like '$verdict'"; grep -o '<p class="verdict"[^<]*' report.html; exit 1; }
grep -q '<p class="advice" id="advice">Application gain unknown: the profile has no MPI time (profile the run with commprof-run for p_mpi).</p>' report.html
grep -q '<td title="run time of the real program in SimGrid on this placement (rankmap-sim run)">simulated time</td><td>2.00 ms</td><td>1.00 ms</td><td class="better">−50%</td>' report.html
grep -q '<th>metric</th><th>block</th><th>rankmap</th><th>rankmap vs block</th>' report.html
size_at_most report.html 400000
# A profile with MPI time (every rank wall=10 mpi=5: p_mpi 50%) and a
# simulated communication ratio of 0.8: the application by (1 - p) + p x 0.8
# = 0.9, and a relaunch is worth it; at p_mpi 5% and 0.9 the application
# gains 0.5%, below the 1% threshold.
sed 's/ wall=0 mpi=0/ wall=10 mpi=5/' s.prof > timed.prof
"$report" -q -p timed.prof --ppn 4 block.map s.map --simulated block=0.002 --simulated s.map=0.0016 -o timed.html
grep -Eq '<p class="verdict" id="verdict">rankmap vs block: communication −20% \(simulated\), application −10% at p_mpi 50%; hop-bytes' timed.html || {
  echo "timed verdict:"; grep -o '<p class="verdict"[^<]*' timed.html; exit 1; }
grep -q '<p class="advice" id="advice">Worth a relaunch: application −10% predicted (at most: the p_mpi estimate is an upper bound).</p>' timed.html
grep -q 'p_mpi 50% (the share of the profiled run' timed.html
# Replayed whole-application times (rankmap-sim compare) replace the estimate.
"$report" -q -p timed.prof --ppn 4 block.map s.map --simulated block=0.002 --simulated s.map=0.0016 \
  --whole-app block=0.01 --whole-app s.map=0.0095 -o replayed.html
grep -q '<p class="verdict" id="verdict">rankmap vs block: communication −20% (simulated), application −5% (replayed); hop-bytes' replayed.html || {
  echo "replayed verdict:"; grep -o '<p class="verdict"[^<]*' replayed.html; exit 1; }
grep -q '<p class="advice" id="advice">Worth a relaunch: application −5% predicted (replayed).</p>' replayed.html
grep -q '>whole-app time (replay)</td><td>10.0 ms</td><td>9.50 ms</td><td class="better">−5%</td>' replayed.html || {
  echo "whole-app row:"; grep -o '[^>]*>whole-app time (replay)</td>.\{0,120\}' replayed.html; exit 1; }
sed 's/ wall=0 mpi=0/ wall=20 mpi=1/' s.prof > low.prof
"$report" -q -p low.prof --ppn 4 block.map s.map --simulated block=0.002 --simulated s.map=0.0018 -o low.html
grep -q '<p class="verdict" id="verdict">rankmap vs block: communication −10% (simulated), application −0.5% at p_mpi 5%; hop-bytes' low.html
grep -q '<p class="advice" id="advice">Not worth a relaunch: predicted application gain 0.5%, below 1%' low.html
# Without --label, columns are named by the mappings' algorithm records.
"$report" -q -p s.prof --ppn 4 block.map s.map -o auto.html
grep -q '<th>metric</th><th>block</th><th>rankmap</th><th>rankmap vs block</th>' auto.html
# Without a record (another tool's file): the block placement is called
# block, any other mapping by its file name.
sed '/^algorithm /d' block.map > launch.map
sed '/^algorithm /d' s.map > other.map
"$report" -q -p s.prof --ppn 4 launch.map other.map -o auto2.html
grep -q '<th>metric</th><th>block</th><th>other</th><th>other vs block</th>' auto2.html
grep -q "<title>One node of the machine as hwloc sees it" report.html || grep -q "Core L#5" report.html
# two matrices, two link pictures, the node (lstopo); 1 header row + 23
# metrics of the catalogue + simulated time
"$render" report.html 5 25 "$verdict"

# 32,768 ranks, 8 per node on 16x16x8x2: the compact form, under ~1 MB.
big="torus=16x16x8x2 node=package:2,core:4"
"$rankmap" synth -q --pattern stencil3d-shuffled --ranks 32768 -o big.prof
"$rankmap" map -q --no-bound -p big.prof -m "$big" --ppn 8 --algorithm block -o big-block.map > /dev/null
"$rankmap" map -q --no-bound --preset fast -p big.prof -m "$big" --ppn 8 -o big.map > /dev/null
"$report" -q --no-bound -p big.prof --ppn 8 big-block.map big.map --label big-block.map=block --label big.map=rankmap -o big.html
big_verdict='rankmap vs block: communication −[0-9.]+% \(time model\), application n/a \(no MPI time in the profile\); hop-bytes −[0-9]+%, max link load −[0-9]+%'
grep -Eq "<p class=\"verdict\" id=\"verdict\">$big_verdict</p>" big.html || {
  echo "no verdict line like '$big_verdict'"; grep -o '<p class="verdict"[^<]*' big.html; exit 1; }
grep -q '32768 ranks in 256 x 256 cells' big.html
grep -q '4096 nodes: too many to box at this size' big.html
size_at_most big.html 1000000
grep -q '<td title="[^"]*">hop-bytes gap</td>' big.html && { echo "--no-bound still shows the gap"; exit 1; }
# two matrices and one histogram; 1 header row + 23 metrics less the 4 of the bound (the bulk model n/a)
"$render" big.html 3 20 "$big_verdict"
grep -q ">bulk model</td><td>n/a</td><td>n/a" big.html || { echo "the bulk model ran at 32,768 ranks"; exit 1; }

# Bad input: one line on stderr, exit 2, nothing written.
"$rankmap" synth -q --pattern ring --ranks 8 -o small.prof
set +e
"$report" -p small.prof block.map -o bad.html 2> err.txt; status=$?
set -e
[ "$status" -eq 2 ] || { echo "expected exit 2 for a rank mismatch, got $status"; exit 1; }
grep -q "block.map: mapping has 128 ranks, profile small.prof has 8" err.txt
[ "$(wc -l < err.txt)" -eq 1 ] || { echo "error is not one line"; cat err.txt; exit 1; }
[ ! -e bad.html ] || { echo "bad.html written despite the error"; exit 1; }
set +e
"$report" -p s.prof block.map --simulated nosuch=1 -o bad.html 2> err.txt; status=$?
set -e
[ "$status" -eq 2 ] && grep -q "'nosuch', which is not one of the mappings" err.txt && [ ! -e bad.html ]
set +e
"$report" -p s.prof block.map --label nosuch=x -o bad.html 2> err.txt; status=$?
set -e
[ "$status" -eq 2 ] && grep -q "^rankmap-report: --label names 'nosuch', which is not one of the mappings$" err.txt && [ ! -e bad.html ]
echo "report pipeline ok"
