#!/usr/bin/env bash
# Issue 19 benchmark: the placement `rankmap map --trace` chooses, replayed
# against every candidate it considered and against stock Scotch, on the
# repo's mini-apps at 128 ranks on desmos (4 ranks per node, 32 nodes).
#
#   trace      smpirun -trace-ti of the SMPI build of each example, recorded
#              on block placement, communication only (simulate-computation:no:
#              no compute actions, so the trace is identical on every run);
#   profile    rankmap-sim profile --trace (the trace's point-to-point bytes);
#   mappings   rankmap map (the static choice), rankmap map --trace (replays
#              the default's 8 candidates: its choice, block, paper, scotch,
#              the cheapest of each other start family, the cheapest others), stock scotch_gmap (default strategy) and
#              scotch_gmap -cqb -b0, both through bench/peers/peer_scotch.sh
#              on Scotch's torusXD target (bench/replay/scotch_mapping.py);
#   replay     rankmap-sim replay -m desmos, comm-only (SimGrid 3.32);
#   check      the trace replayed on block placement (where it was recorded)
#              against a direct SMPI run of the program (rankmap-sim run), and
#              its point-to-point bytes against the program's own total_bytes.
#
# Writes the section between <!-- replay:begin --> and <!-- replay:end --> of
# docs/benchmarks.md (markers appended if absent). Outputs go to
# $RANKMAP_BENCH_OUT (default <build>/bench-replay).
#
#   RANKMAP_BUILD_DIR=build-replay bench/replay/run.sh
#   RANKMAP_BUILD_DIR=build-replay bench/replay/run.sh --doc-only   (re-assemble the
#       section from the last run's results, e.g. after editing discussion.md)
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
set_bench_dirs build bench-replay
require_executables "build first" "$rankmap" "$sim"
require_command smpirun SimGrid

machine=desmos ppn=4 ranks=128 sizes=4x2x2x2
examples=(cg mg lu adi hydro27 halo3d)
# The desmos-4 profiles' arguments (class-B-like sizes), and halo3d's test case.
declare -A args
for ex in "${examples[@]}"; do args[$ex]=$(example_args "$ex" $ranks); done

block_mapping $ranks $machine $ppn "$out/block.map"
"$sim" platform -m $machine -o "$out/platform.xml"
"$sim" hostfile "$out/block.map" -o "$out/hosts.txt"
machine_line=$(sed -n 's/^machine //p' "$out/block.map")

results="$out/results.txt" checks="$out/checks.txt"
doc_only=""; [ "${1:-}" = --doc-only ] && doc_only=yes
[ -z "$doc_only" ] && : > "$results" && : > "$checks"
[ -z "$doc_only" ] || [ -s "$results" ] || { echo "run.sh: no results in $results (run without --doc-only first)" >&2; exit 2; }
start=$(now)
commit=$(short_commit)  # the code measured: the commit at the start
for ex in "${examples[@]}"; do
  [ -n "$doc_only" ] && break
  d="$out/$ex"; rm -rf "$d"; mkdir -p "$d"
  t0=$(now)
  row() { awk -v f="$1" '$1 == f { print $2 }' "$d/replay.out"; }
  # shellcheck disable=SC2086
  smpirun -trace-ti -trace-file "$d/trace.txt" --cfg=smpi/simulate-computation:no --log=root.thres:warning \
    -np $ranks -platform "$out/platform.xml" -hostfile "$out/hosts.txt" "$build/examples/smpi/$ex" ${args[$ex]} \
    < /dev/null > "$d/record.log" 2>&1 || { cat "$d/record.log" >&2; exit 1; }
  grep -q "check=ok" "$d/record.log" || { echo "run.sh: $ex failed its check" >&2; exit 1; }
  "$sim" profile --trace "$d/trace.txt" -o "$d/app.prof"
  "$rankmap" map -q -p "$d/app.prof" -m $machine --ppn $ppn -o "$d/static.map" > /dev/null
  "$rankmap" map -p "$d/app.prof" -m $machine --ppn $ppn --trace "$d/trace.txt" -o "$d/trace.map" > "$d/map.out" 2> "$d/map.err"
  t1=$(now)
  python3 "$root/bench/replay/scotch_mapping.py" "$d/app.prof" "$machine_line" $sizes $ppn stock "$d/scotch-stock.map" > "$d/scotch-stock.log"
  python3 "$root/bench/replay/scotch_mapping.py" "$d/app.prof" "$machine_line" $sizes $ppn strict "$d/scotch-strict.map" > "$d/scotch-strict.log"
  # The same choice with stock Scotch's two mappings among the candidates.
  "$rankmap" map -p "$d/app.prof" -m $machine --ppn $ppn --trace "$d/trace.txt" --candidate "$d/scotch-stock.map" \
    --candidate "$d/scotch-strict.map" -o "$d/trace-scotch.map" > "$d/map-scotch.out" 2> "$d/map-scotch.err"
  t2=$(now)
  "$sim" replay -q --trace "$d/trace.txt" -m $machine --mapping "$d/trace.map" --mapping "$d/static.map" \
    --mapping "$d/scotch-stock.map" --mapping "$d/scotch-strict.map" --mapping "$d/trace-scotch.map" \
    --mapping "$out/block.map" > "$d/replay.out"
  # shellcheck disable=SC2086
  "$sim" run --mapping "$out/block.map" -- "$build/examples/smpi/$ex" ${args[$ex]} > "$d/direct.log" 2>&1 < /dev/null
  direct=$(sed -n 's/^simulated_time=\([^ ]*\).*/\1/p' "$d/direct.log")
  program_bytes=$(sed -n 's/.* total_bytes=\([0-9]*\).*/\1/p' "$d/record.log")
  trace_bytes=$(sed -n 's/^trace [^:]*: .* messages, \([0-9]*\) bytes,.*/\1/p' "$d/replay.out")
  files_size=$(xargs du -cb < "$d/trace.txt" | tail -n 1 | cut -f1)
  actions=$(sed -n 's/^trace [^:]*: [0-9]* ranks, \([0-9]*\) actions.*/\1/p' "$d/replay.out")
  echo "$ex|$direct|$(row "$out/block.map")|$trace_bytes|$program_bytes|$files_size|$actions" >> "$checks"
  chosen=$(sed -n "s/^rankmap: chose '\([^']*\)' by replay.*/\1/p" "$d/map.err")
  chosen_sc=$(sed -n "s/^rankmap: chose '\([^']*\)' by replay.*/\1/p" "$d/map-scotch.err")
  static=$(sed -n 's/^rankmap: chose \([^ ]*\) (.*/\1/p' "$d/map.err" | head -n 1)
  # Candidates of map --trace: "#  name  seconds  ratio  [mark]" rows.
  cand=$(awk '/^  [0-9]+ / && $3 != "-" { printf "%s%s=%s", sep, $2, $3; sep = " " }' "$d/map-scotch.out")
  best_cand=$(awk '/^  [0-9]+ / && $3 != "-" { if (b == "" || $3 + 0 < b + 0) b = $3 } END { print b }' "$d/map-scotch.out")
  actions=$(sed -n 's/^trace [^:]*: [0-9]* ranks, \([0-9]*\) actions.*/\1/p' "$d/replay.out")
  echo "$ex|${args[$ex]}|$actions|${static:-?}|$(row "$d/static.map")|${chosen:-${static:-?} (kept)}|$(row "$d/trace.map")|$best_cand|$(row "$d/scotch-stock.map")|$(sed 's/repaired //' "$d/scotch-stock.log")|$(row "$d/scotch-strict.map")|${chosen_sc:-?}|$(row "$d/trace-scotch.map")|$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')|$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.1f", b - a }')|$cand" >> "$results"
  log "$ex: static $(row "$d/static.map") s, --trace $(row "$d/trace.map") s, stock scotch $(row "$d/scotch-stock.map") s, --trace with scotch $(row "$d/trace-scotch.map") s"
done
# Whole application: halo3d with arithmetic between the axes, recorded with
# simulate-computation:yes at smpi/host-speed 1 Gf (SMPI measures the CPU
# time between MPI calls: this trace differs from run to run, its replays do
# not), chosen on the whole-application time.
app="$out/halo3d-app"
if [ -z "$doc_only" ]; then
  rm -rf "$app"; mkdir -p "$app"
  smpirun -trace-ti -trace-file "$app/trace.txt" --cfg=smpi/host-speed:1Gf --log=root.thres:warning \
    -np $ranks -platform "$out/platform.xml" -hostfile "$out/hosts.txt" "$build/examples/smpi/halo3d" --iters 10 --compute 8 \
    < /dev/null > "$app/record.log" 2>&1 || { cat "$app/record.log" >&2; exit 1; }
  "$sim" profile --trace "$app/trace.txt" -o "$app/app.prof"
  "$rankmap" map -q -p "$app/app.prof" -m $machine --ppn $ppn -o "$app/static.map" > /dev/null
  "$rankmap" map -p "$app/app.prof" -m $machine --ppn $ppn --trace "$app/trace.txt" -o "$app/trace.map" > "$app/map.out" 2> "$app/map.err"
  (cd "$app" && "$sim" replay -q --trace trace.txt -m $machine static.map trace.map ../block.map) > "$app/replay.out"
fi

if [ -z "$doc_only" ]; then
  total=$(seconds_since "$start")
  echo "$total $commit $(date -u +%Y-%m-%d)" > "$out/run.txt"
fi
read -r total commit day < "$out/run.txt"

section="$out/section.md"
{
  echo "## Choosing the placement by trace replay"
  echo
  echo "Written by \`bench/replay/run.sh\` (issue 19; $day, commit \`$commit\`,"
  echo "$total s on a shared 2-core machine, SimGrid $(smpirun -version 2>/dev/null | head -n 1 | sed 's/[^0-9.]*//g'),"
  echo "Scotch $( { scotch_gmap -V 2>&1 || true; } | sed -n 's/.*[Vv]ersion \([0-9.]*\).*/\1/p' | head -n 1)). Regenerated by that script; numbers are not edited by hand."
  echo
  echo "- **Machine.** \`$machine\` = \`$machine_line\`, \`--ppn $ppn\`, $ranks ranks on all 32 nodes."
  echo "- **Traces.** \`smpirun -trace-ti --cfg=smpi/simulate-computation:no -np $ranks -platform P -hostfile H build/examples/smpi/X ARGS\`"
  echo "  on block placement (the trace does not depend on it: no wildcard receives), communication only."
  echo "- **Profiles.** \`rankmap-sim profile --trace X/trace.txt\` (the trace's point-to-point bytes; its collectives are not in the"
  echo "  profile, so the mapper's collective model sees none)."
  echo "- **Mappings.** *static*: \`rankmap map -p X.prof -m $machine --ppn $ppn\`; *--trace*: the same with \`--trace X/trace.txt\`"
  echo "  (replays the default's 8 candidates and keeps the fastest); stock Scotch: \`scotch_gmap -Cd\` (default strategy) and"
  echo "  strict \`scotch_gmap -Cd -cqb -b0\` on \`torusXD 4 4 2 2 2\` through \`bench/peers/peer_scotch.sh\`, cores in rank order"
  echo "  (\`bench/replay/scotch_mapping.py\`; stock Scotch may overfill a node, which is repaired by moving its least attached"
  echo "  ranks to the nearest node with room: the \"moved\" column)."
  echo "- **Replay.** \`rankmap-sim replay -m $machine --trace X/trace.txt --mapping ...\`, comm-only, simulated seconds (12 decimals,"
  echo "  identical on re-run). \"\`--trace\`\" replays the default's 8 candidates; \"+ scotch_gmap\" adds the two stock Scotch"
  echo "  mappings with \`--candidate\` (10 candidates). \"never slower\" compares the latter's choice with all 10 and the static"
  echo "  choice. Map times are \`rankmap map --trace\` wall seconds including its replays, on the shared machine."
  echo
  echo "| example | args | actions | static choice | static (s) | \`--trace\` choice | \`--trace\` (s) | vs static | stock scotch_gmap (s) | moved | strict scotch_gmap (s) | + scotch_gmap: choice | + scotch_gmap (s) | never slower | map time (s) | + scotch_gmap map time (s) |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  while IFS='|' read -r ex a actions static ts chosen tt best stock moved strict csc tsc mt mtsc cand; do
    awk -v ex="$ex" -v a="$a" -v n="$actions" -v s="$static" -v ts="$ts" -v c="$chosen" -v tt="$tt" -v b="$best" \
        -v st="$stock" -v mv="$moved" -v sr="$strict" -v csc="$csc" -v tsc="$tsc" -v mt="$mt" -v mtsc="$mtsc" 'BEGIN {
      ok = (tsc + 0 <= b + 0 && tsc + 0 <= st + 0 && tsc + 0 <= sr + 0 && tsc + 0 <= ts + 0) ? "yes" : "**no**"
      printf "| %s | `%s` | %s | %s | %.9f | %s | %.9f | %.4f | %.9f | %s | %.9f | %s | %.9f | %s | %s | %s |\n",
        ex, a, n, s, ts, c, tt, tt / ts, st, mv, sr, csc, tsc, ok, mt, mtsc }'
  done < "$results"
  echo
  echo "The trace against the program, on block placement (where it was recorded): its comm-only replay against a direct"
  echo "SMPI run of the same program (\`rankmap-sim run --mapping block.map -- build/examples/smpi/X ARGS\`, SimGrid's end-of-run"
  echo "clock, 6 digits), and its point-to-point bytes against the program's own \`total_bytes\`:"
  echo
  echo "| example | direct SMPI run (s) | replay (s) | replay / direct | trace p2p bytes | program total_bytes | trace size (bytes, all ranks) | bytes per action |"
  echo "|---|---|---|---|---|---|---|---|"
  while IFS='|' read -r ex direct rep tb pb fs na; do
    awk -v ex="$ex" -v d="$direct" -v r="$rep" -v tb="$tb" -v pb="$pb" -v fs="$fs" -v na="$na" 'BEGIN {
      printf "| %s | %s | %.9f | %.4f | %s | %s%s | %s | %.1f |\n", ex, d, r, r / d, tb, pb, (tb == pb ? "" : " (**differs**)"), fs, fs / na }'
  done < "$checks"
  echo
  echo "Whole application: \`halo3d --iters 10 --compute 8\` recorded with \`--cfg=smpi/host-speed:1Gf\` and"
  echo "\`simulate-computation:yes\` (compute actions = CPU time SMPI measured between MPI calls, at 1 Gflop/s; this trace differs"
  echo "from run to run, its replays do not), \`rankmap map --trace\` choosing on the whole-application time"
  echo "($(sed -n "s/^rankmap: chose '\([^']*\)' by replay (\([^ ]*\) .*/\1, \2 criterion/p" "$app/map.err")),"
  echo "replayed with \`rankmap-sim replay\` (\`--host-speed\` 1e9, the default):"
  echo
  echo '```'
  cat "$app/replay.out"
  echo '```'
  echo
  echo "Every candidate's replayed time (seconds, in the order \`--trace\` replayed them; the first is the static choice):"
  echo
  while IFS='|' read -r ex _ _ _ _ _ _ _ _ _ _ _ _ _ _ cand; do
    echo "- $ex: $(echo "$cand" | sed 's/ /, /g; s/=/ /g')"
  done < "$results"
  echo
  cat "$root/bench/replay/discussion.md"
} > "$section"

write_doc_section replay "$section"
log "wrote the section of $doc ($total s); outputs in $out"
