#!/usr/bin/env bash
# libcommprof's trace mode (issue 19): what recording costs and whether the
# trace of a real run replays like the program itself.
#
#   per call   bench/commprof/send_bench (1 rank, MPI_Send to itself, best of
#              3 runs of 200000 x 5): ns per call without the profiler, with the
#              profile only, with the trace too (COMMPROF_TRACE_CLOCK cpu and
#              wall), and the trace's bytes per action; under MPICH and, when
#              libcommprof-ompi is built, under Open MPI;
#   mini-apps  each example (the six mini-apps, the two stencils, and FT and
#              SUMMA, whose collectives run on sub-communicators) natively
#              under MPICH at 8 ranks on this machine
#              (commprof-run --yield), once without the profiler, once with the
#              profile only, once with --trace: wall time of each, the trace's
#              actions, bytes, bytes per action and per rank per second of run;
#              the trace's traffic against the profile's (rankmap-sim profile
#              --trace, p2p lines compared exactly); its comm-only replay on a
#              block placement of desmos (rankmap-sim replay) against a direct
#              SMPI run of the same program on the same placement (rankmap-sim
#              run, simulate-computation:no).
#
# Writes the section between <!-- trace:begin --> and <!-- trace:end --> of
# docs/benchmarks.md. Outputs go to $RANKMAP_BENCH_OUT (default <build>/bench-trace).
#   RANKMAP_BUILD_DIR=build bench/trace/run.sh
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
set_bench_dirs build bench-trace
lib="$build/libcommprof/libcommprof.so" send_bench="$build/bench/commprof/commprof_send_bench"
require_executables "build first" "$rankmap" "$sim" "$commprof_run" "$send_bench"
rm -rf "$out"; mkdir -p "$out"

ranks=8
# The six mini-apps; FT and SUMMA, whose all-to-alls and broadcasts run on
# the rows and columns of their grids (the trace writes them as messages);
# and the two stencils, which send derived datatypes with
# MPI_Sendrecv (SMPI's own -trace-ti writes those as 0 bytes).
examples=(cg mg lu adi hydro27 halo3d stencil2d stencil3d ft summa)
declare -A args
for ex in "${examples[@]}"; do args[$ex]=$(example_args "$ex" $ranks); done

# --- per call -----------------------------------------------------------------
calls=200000 repeats=5
# shellcheck disable=SC2086  # the launcher is a word list
send() {  # env... -> ns per call (best of 3)
  local best=""
  for _ in 1 2 3; do
    rm -rf "$out/send-trace"
    ns=$(env "$@" ${launcher:-mpiexec.mpich -n 1} "${bench:-$send_bench}" $calls $repeats | sed -n 's/.*ns_per_iteration=\([0-9.]*\).*/\1/p')
    if [ -z "$best" ] || awk "BEGIN{exit !($ns < $best)}"; then best=$ns; fi
  done
  echo "$best"
}
log "per-call cost"
ns_none=$(send COMMPROF_UNUSED_=1)
ns_prof=$(send LD_PRELOAD="$lib" COMMPROF_OUTPUT="$out/send.prof")
ns_cpu=$(send LD_PRELOAD="$lib" COMMPROF_OUTPUT="$out/send.prof" COMMPROF_TRACE="$out/send-trace" COMMPROF_TRACE_CLOCK=cpu)
send_cpu_bytes=$(stat -c %s "$out/send-trace/rank-0.txt") send_cpu_actions=$(wc -l < "$out/send-trace/rank-0.txt")
ns_wall=$(send LD_PRELOAD="$lib" COMMPROF_OUTPUT="$out/send.prof" COMMPROF_TRACE="$out/send-trace" COMMPROF_TRACE_CLOCK=wall)
send_wall_bytes=$(stat -c %s "$out/send-trace/rank-0.txt") send_wall_actions=$(wc -l < "$out/send-trace/rank-0.txt")
rm -rf "$out/send-trace"
# The same under Open MPI (libcommprof-ompi, the benchmark built against it).
ompi_lib="$build/libcommprof/libcommprof-ompi.so"
ompi_rows=""
if [ -x "$build/bench/commprof/commprof_ompi_send_bench" ] && [ -r "$ompi_lib" ]; then
  log "per-call cost under Open MPI"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  bench="$build/bench/commprof/commprof_ompi_send_bench"
  launcher="mpirun.openmpi --bind-to none -n 1"
  o_none=$(send COMMPROF_UNUSED_=1)
  launcher="mpirun.openmpi --bind-to none -x LD_PRELOAD=$ompi_lib -x COMMPROF_OUTPUT=$out/send.prof -n 1"
  o_prof=$(send COMMPROF_UNUSED_=1)
  launcher="mpirun.openmpi --bind-to none -x LD_PRELOAD=$ompi_lib -x COMMPROF_OUTPUT=$out/send.prof -x COMMPROF_TRACE=$out/send-trace -x COMMPROF_TRACE_CLOCK=cpu -n 1"
  o_cpu=$(send COMMPROF_UNUSED_=1)
  launcher="mpirun.openmpi --bind-to none -x LD_PRELOAD=$ompi_lib -x COMMPROF_OUTPUT=$out/send.prof -x COMMPROF_TRACE=$out/send-trace -x COMMPROF_TRACE_CLOCK=wall -n 1"
  o_wall=$(send COMMPROF_UNUSED_=1)
  ompi_rows=$(awk -v a="$o_none" -v b="$o_prof" -v c="$o_cpu" -v w="$o_wall" 'BEGIN {
    printf "| Open MPI: no profiler | %.1f | | |\n| Open MPI: profile (timing on) | %.1f | | |\n", a, b
    printf "| Open MPI: profile + trace, cpu | %.1f | %.1f | |\n| Open MPI: profile + trace, wall | %.1f | %.1f | |\n", c, c - b, w, w - b }')
  unset bench launcher
  rm -rf "$out/send-trace"
fi

# --- mini-apps ------------------------------------------------------------------
block_mapping $ranks desmos 4 "$out/block.map"
rows="$out/rows.txt"
: > "$rows"
# shellcheck disable=SC2086  # ARGS are word lists
for ex in "${examples[@]}"; do
  d="$out/$ex"; mkdir -p "$d"
  log "$ex: native runs"
  t0=$(now); LD_PRELOAD="$build/libcommprof/libcommprof-yield.so" mpiexec.mpich -n $ranks "$build/examples/$ex" ${args[$ex]} < /dev/null > "$d/plain.log"
  t1=$(now); "$commprof_run" --yield -o "$d/profile.prof" -- mpiexec.mpich -n $ranks "$build/examples/$ex" ${args[$ex]} < /dev/null > "$d/profile.log"
  t2=$(now); "$commprof_run" --yield -o "$d/traced.prof" --trace "$d/trace" -- mpiexec.mpich -n $ranks "$build/examples/$ex" ${args[$ex]} < /dev/null > "$d/traced.log" 2> "$d/traced.err"
  t3=$(now)
  grep -q "check=ok" "$d/traced.log" || { echo "run.sh: $ex failed its check" >&2; exit 1; }
  [ -s "$d/trace/trace.txt" ] || { echo "run.sh: $ex: no trace ($(cat "$d/traced.err"))" >&2; exit 1; }
  "$sim" profile --trace "$d/trace/trace.txt" -o "$d/from-trace.prof"
  if diff <(grep '^p2p ' "$d/traced.prof" | sort) <(grep '^p2p ' "$d/from-trace.prof" | sort) > /dev/null; then same=yes; else same="**no**"; fi
  bytes=$(xargs cat < "$d/trace/trace.txt" | wc -c) actions=$(xargs cat < "$d/trace/trace.txt" | wc -l)
  log "$ex: replay and direct SMPI run"
  "$sim" replay -q --comm-only --trace "$d/trace/trace.txt" -m desmos "$out/block.map" > "$d/replay.out"
  replayed=$(awk '$1 ~ /block[.]map$/ { print $2 }' "$d/replay.out")
  # shellcheck disable=SC2086
  "$sim" run --mapping "$out/block.map" -- "$build/examples/smpi/$ex" ${args[$ex]} > "$d/direct.log" 2>&1 < /dev/null
  direct=$(sed -n 's/^simulated_time=\([^ ]*\).*/\1/p' "$d/direct.log")
  echo "$ex|${args[$ex]}|$t0|$t1|$t2|$t3|$actions|$bytes|$same|$replayed|$direct" >> "$rows"
done

# --- the section ----------------------------------------------------------------
section="$out/section.md"
{
  echo "## Trace mode: recording cost and replay fidelity (issue 19)"
  echo
  echo "Generated by \`bench/trace/run.sh\` on $(date -u +%Y-%m-%d), commit $(short_commit),"
  echo "$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores (shared with other jobs), MPICH $(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p'), SimGrid 3.32."
  echo
  echo "**Per call** (\`mpiexec -n 1 commprof_send_bench $calls $repeats\`: MPI_Send of one int to itself, best of 3):"
  echo
  echo "| configuration | ns per call | added by the trace | trace bytes per action |"
  echo "|---|---|---|---|"
  awk -v a="$ns_none" -v b="$ns_prof" -v c="$ns_cpu" -v w="$ns_wall" -v cb="$send_cpu_bytes" -v ca="$send_cpu_actions" \
      -v wb="$send_wall_bytes" -v wa="$send_wall_actions" 'BEGIN {
    printf "| no profiler | %.1f | | |\n| profile (timing on) | %.1f | | |\n", a, b
    printf "| profile + trace, COMMPROF_TRACE_CLOCK=cpu (default) | %.1f | %.1f | %.1f |\n", c, c - b, cb / ca
    printf "| profile + trace, COMMPROF_TRACE_CLOCK=wall | %.1f | %.1f | %.1f |\n", w, w - b, wb / wa }'
  [ -z "$ompi_rows" ] || echo "$ompi_rows"
  echo
  echo "**Mini-apps**, $ranks ranks natively under MPICH with the yield shim (\`commprof-run --yield [--trace DIR] -- mpiexec -n $ranks build/examples/X ARGS\`),"
  echo "wall time of the whole launch; the trace's comm-only replay on a block placement of desmos (4 ranks per node,"
  echo "\`rankmap-sim replay --comm-only\`) against a direct SMPI run of the same program on that placement"
  echo "(\`rankmap-sim run --mapping block.map -- build/examples/smpi/X ARGS\`, simulate-computation:no, its clock to 6 digits):"
  echo
  echo "| example | args | run (s) | profiled (s) | traced (s) | actions | trace bytes | bytes per action | bytes per rank per second | traffic = profile's | replay comm-only (s) | direct SMPI (s) | replay / direct |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  while IFS='|' read -r ex a t0 t1 t2 t3 actions bytes same replayed direct; do
    awk -v ex="$ex" -v a="$a" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v t3="$t3" -v n="$actions" -v b="$bytes" -v s="$same" \
        -v r="$replayed" -v d="$direct" -v p="$ranks" 'BEGIN {
      printf "| %s | `%s` | %.2f | %.2f | %.2f | %d | %d | %.1f | %.0f | %s | %.9f | %s | %.4f |\n",
        ex, a, t1 - t0, t2 - t1, t3 - t2, n, b, b / n, b / p / (t3 - t2), s, r, d, r / d }'
  done < "$rows"
  echo
  cat "$root/bench/trace/discussion.md"
} > "$section"
write_doc_section trace "$section"
log "wrote the trace section of $doc; outputs in $out"
