#!/usr/bin/env bash
# Issue 6 benchmark: simulated speedup of the optimized mapping (rankmap's
# default algorithm) over block placement, for every example, at 128 ranks on
# desmos (4 ranks per node) and at 1,024 ranks on an 8x4x4x4 torus (2 ranks
# per node on 512 nodes), next to the seed model's estimate for each machine.
#
#   profiles   128 ranks: natively (MPICH, commprof-run --yield, libcommprof
#              preloaded); 1,024 ranks: in simulation, with libcommprof-smpi
#              linked into the smpicc build (examples/smpi-profiled/).
#              The SMPI profiler is also run at 128 ranks and its p2p lines
#              compared with the native profile's (they must be identical).
#   mappings   rankmap map (default algorithm) and --algorithm block, same
#              machine line for mapping and simulation.
#   simulation rankmap-sim run, SimGrid SMPI, communication only; the time is
#              the example's own `time=` (slowest rank's timed loop).
#   model      rankmap-torus --p-mpi X (gain = p_mpi t_hop (d-1) / (t_inj + t_hop d)).
#
# Writes the section between <!-- simulated:begin --> and <!-- simulated:end -->
# of docs/benchmarks.md (markers appended if absent). Outputs (profiles,
# mappings, logs) go to $RANKMAP_BENCH_OUT (default <build>/bench-simulated).
#
# Needs a build configured with -DRANKMAP_SMPI_PROFILER=rankmap_commprof_smpi:
#   cmake -S . -B build-simbench -G Ninja -DRANKMAP_SMPI_PROFILER=rankmap_commprof_smpi ... && cmake --build build-simbench
#   RANKMAP_BUILD_DIR=build-simbench bench/simulated/run.sh
#   RANKMAP_BUILD_DIR=build-simbench bench/simulated/run.sh --doc-only   # the doc section from the last run's outputs
#                                                                        # (a changed discussion.md needs no new run)
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
set_bench_dirs build-simbench bench-simulated
require_executables "build first" "$rankmap" "$sim" "$torus" "$commprof_run"

examples=(stencil2d stencil3d ring sparse alltoall)
doc_only=""
[ "${1:-}" = --doc-only ] && doc_only=yes

# The two machines: one line each, used for mapping and (through the mapping
# file's machine line) for the simulated platform.
m128="desmos";                                 ppn128=4
m1024="torus=8x4x4x4 node=package:2,core:4";   ppn1024=2

# Arguments (bench/profiles/example-args.txt): messages are KiB-sized halos
# and runs are short.
declare -A args128 args1024
for ex in "${examples[@]}"; do
  args128[$ex]=$(example_args "$ex" 128)
  args1024[$ex]=$(example_args "$ex" 1024)
done

# p_mpi of a profile: sum of mpi= over sum of wall= over all rank lines.
p_mpi() { awk '/^rank /{ for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "wall") w += kv[2]; if (kv[1] == "mpi") m += kv[2] } }
               END { if (w > 0) printf "%.3f", m / w; else print "nan" }' "$1"; }
# A profile's time outside MPI per rank: wall= - mpi=, mean over the rank
# lines, and the smallest and largest: "MEAN MIN MAX" in seconds.
outside_mpi() { awk '/^rank /{ w = m = 0; for (i = 3; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "wall") w = kv[2]; if (kv[1] == "mpi") m = kv[2] }
                               d = w - m; sum += d; if (n == 0 || d < lo) lo = d; if (n == 0 || d > hi) hi = d; n++ }
                     END { if (n > 0) printf "%.3g %.3g %.3g", sum / n, lo, hi; else print "nan nan nan" }' "$1"; }
gain_of() { "$torus" -m "$1" --p-mpi "$2" | awk '$1 == "gain" { sub("%", "", $2); print $2 }'; }
# time= of the example's output line
example_time() { sed -n 's/.* time=\([^ ]*\) .*/\1/p' "$1" | tail -n 1; }

# ---- 1. profiles -----------------------------------------------------------
profile_native() {  # ex -> $out/128/ex.prof
  local ex=$1 dir="$out/128"; mkdir -p "$dir"
  local t0; t0=$(now)
  # shellcheck disable=SC2086
  "$commprof_run" --yield -o "$dir/$ex.prof" -- \
    mpiexec.mpich -n 128 "$build/examples/$ex" ${args128[$ex]} > "$dir/$ex.native.log" 2>&1 </dev/null
  log "native profile $ex (128 ranks): $(seconds_since "$t0") s"
}

profile_smpi() {  # ex args mapping out.prof
  local ex=$1 args=$2 map=$3 prof=$4
  rm -f "$prof"
  # shellcheck disable=SC2086
  COMMPROF_OUTPUT="$prof" "$sim" run --mapping "$map" -- "$build/examples/smpi-profiled/$ex" $args \
    > "${prof%.prof}.smpi.log" 2>&1 || true
  [ -s "$prof" ]
}

# ---- 2.-3. map and simulate --------------------------------------------------
# results: lines "scale ex t_block t_opt chosen sim_wall"
results="$out/results.txt"
bench_one() {  # scale ex prof machine ppn args
  local scale=$1 ex=$2 prof=$3 machine=$4 ppn=$5 args=$6 dir="$out/$1"
  "$rankmap" map -p "$prof" -m "$machine" --ppn "$ppn" -o "$dir/$ex.opt.map" > "$dir/$ex.map.txt" 2> "$dir/$ex.map.err"
  "$rankmap" map -q -p "$prof" -m "$machine" --ppn "$ppn" --algorithm block -o "$dir/$ex.block.map" > /dev/null
  local chosen; chosen=$(sed -n 's/.*chose \([^ ]*\).*/\1/p' "$dir/$ex.map.err" | head -n 1)
  local t0 tb to; t0=$(now)
  # shellcheck disable=SC2086
  "$sim" run --mapping "$dir/$ex.block.map" -- "$build/examples/smpi/$ex" $args > "$dir/$ex.sim-block.log" 2>&1 </dev/null
  # shellcheck disable=SC2086
  "$sim" run --mapping "$dir/$ex.opt.map" -- "$build/examples/smpi/$ex" $args > "$dir/$ex.sim-opt.log" 2>&1 </dev/null
  tb=$(example_time "$dir/$ex.sim-block.log"); to=$(example_time "$dir/$ex.sim-opt.log")
  if [ -z "$tb" ] || [ -z "$to" ]; then echo "run.sh: simulation of $ex at $scale failed (see $dir)" >&2; exit 1; fi
  local wall; wall=$(seconds_since "$t0")
  echo "$scale $ex $tb $to ${chosen:-?} $wall" >> "$results"
  log "$scale $ex: block $tb s, optimized $to s ($wall s to simulate both)"
}

if [ -z "$doc_only" ]; then
: > "$results"
start=$(now)
short_commit > "$out/commit"
# 128 ranks: native profiles, the SMPI cross-check, mappings, simulations.
mkdir -p "$out/128" "$out/1024"
block_mapping 128 "$m128" "$ppn128" "$out/128/template-block.map"
block_mapping 1024 "$m1024" "$ppn1024" "$out/1024/template-block.map"
checks="$out/smpi-check.txt"; : > "$checks"
for ex in "${examples[@]}"; do
  profile_native "$ex"
  # Same program, same arguments, profiled in simulation: the traffic must match.
  if profile_smpi "$ex" "${args128[$ex]}" "$out/128/template-block.map" "$out/128/$ex.smpi.prof"; then
    if cmp -s <(grep '^p2p ' "$out/128/$ex.prof") <(grep '^p2p ' "$out/128/$ex.smpi.prof"); then
      echo "$ex identical $(grep -c '^p2p ' "$out/128/$ex.prof")" >> "$checks"
    else
      echo "$ex differ $(grep -c '^p2p ' "$out/128/$ex.prof") $(grep -c '^p2p ' "$out/128/$ex.smpi.prof")" >> "$checks"
    fi
  else
    echo "$ex no-profile" >> "$checks"
  fi
  bench_one 128 "$ex" "$out/128/$ex.prof" "$m128" "$ppn128" "${args128[$ex]}"
done
# 1,024 ranks: profiles in simulation, then the same.
for ex in stencil2d stencil3d sparse alltoall; do
  profile_smpi "$ex" "${args1024[$ex]}" "$out/1024/template-block.map" "$out/1024/$ex.prof" ||
    { echo "run.sh: SMPI profile of $ex at 1,024 ranks failed (see $out/1024/$ex.smpi.log)" >&2; exit 1; }
  log "SMPI profile $ex (1024 ranks) done"
done
# ring is Fortran: SMPI's Fortran bindings call libsimgrid's MPI_* directly,
# past the linked wrappers, so it has no SMPI profile. Synthetic instead, with
# the example's message count and size per pair; the synthetic ring also has
# the reverse direction (r+1 -> r), which doubles every edge of the mapper's
# undirected graph uniformly.
option_value() {  # OPTION ARGS: the value after OPTION in ARGS
  awk -v o="$1" '{ for (i = 1; i < NF; i++) if ($i == o) print $(i + 1) }' <<< "$2"
}
ring_iters=$(option_value --iters "${args1024[ring]}")
ring_bytes=$(option_value --bytes "${args1024[ring]}")
"$rankmap" synth --pattern ring --ranks 1024 --messages "$ring_iters" --bytes $((ring_iters * ring_bytes)) \
  -o "$out/1024/ring.prof" 2> /dev/null
for ex in stencil2d stencil3d ring sparse alltoall; do
  bench_one 1024 "$ex" "$out/1024/$ex.prof" "$m1024" "$ppn1024" "${args1024[$ex]}"
done

seconds_since "$start" > "$out/seconds"
fi  # not --doc-only
for f in "$results" "$out/smpi-check.txt" "$out/commit" "$out/seconds"; do
  [ -s "$f" ] || { echo "run.sh: missing $f (run without --doc-only first)" >&2; exit 2; }
done
checks="$out/smpi-check.txt"

# ---- 4. model ----------------------------------------------------------------
declare -A pnative psim
for ex in "${examples[@]}"; do
  pnative[$ex]=$(p_mpi "$out/128/$ex.prof")
  [ -s "$out/128/$ex.smpi.prof" ] && psim[$ex]=$(p_mpi "$out/128/$ex.smpi.prof")
done
# The SMPI profiles' p_mpi over the examples that have one: "A" or "MIN-MAX".
psim_range=$(for ex in "${examples[@]}"; do if [ -n "${psim[$ex]:-}" ]; then echo "${psim[$ex]}"; fi; done |
  sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR == 0) print "n/a"; else if (lo == hi) print lo; else print lo "-" hi }')
total=$(cat "$out/seconds")

# ---- 5. the doc section --------------------------------------------------------
section="$out/section.md"
{
  echo "## Simulated speedups of the optimized mapping"
  echo
  echo "Written by \`bench/simulated/run.sh\` (issue 6; $(date -u +%Y-%m-%d -r "$out/seconds"), commit"
  echo "\`$(cat "$out/commit")\`, $total s on a shared 2-core machine). Everything below is"
  echo "regenerated by that script; numbers are not edited by hand."
  echo
  echo "- **Machines.** 128 ranks: \`$m128\` = \`$("$torus" --canonical -m "$m128")\`, \`--ppn $ppn128\` (32 nodes, all used)."
  echo "  1,024 ranks: \`$m1024\` = \`$("$torus" --canonical -m "$m1024")\`, \`--ppn $ppn1024\` (all 512 nodes, 2 ranks each)."
  echo "- **Profiles.** 128 ranks: native MPICH runs of the examples under"
  echo "  \`commprof-run --yield -o X.prof -- mpiexec.mpich -n 128 build/examples/X ARGS\`."
  echo "  1,024 ranks: SimGrid SMPI runs of the same programs linked with \`libcommprof-smpi.a\`"
  echo "  (\`build/examples/smpi-profiled/X\`, \`COMMPROF_OUTPUT=X.prof rankmap-sim run --mapping block.map -- ...\`):"
  echo "  recorded traffic of the real programs, except **ring at 1,024 ranks, which is synthetic**"
  echo "  (\`rankmap synth --pattern ring --messages ITERS --bytes ITERS*BYTES\`: the example's pairs and sizes plus the"
  echo "  reverse direction r+1 -> r, which the example does not send; it doubles every edge of the mapper's undirected"
  echo "  graph uniformly). ring is Fortran, and SMPI's Fortran bindings call libsimgrid's \`MPI_*\` directly, past the"
  echo "  linked wrappers, so it cannot be profiled in SMPI. Check of the SMPI profiler: each"
  echo "  example was also profiled in simulation at 128 ranks and its \`p2p\` lines compared with the native profile's:"
  while read -r ex verdict n m; do
    case $verdict in
      identical) echo "  $ex identical ($n lines);" ;;
      differ) echo "  $ex **differs** ($n native vs $m SMPI lines);" ;;
      *) echo "  $ex: no SMPI profile (Fortran, see above);" ;;
    esac
  done < "$checks"
  echo "- **Mappings.** \`rankmap map -p X.prof -m MACHINE --ppn N\` (default algorithm; the winning candidate in the table) and"
  echo "  the same with \`--algorithm block\` (rank r on node r / ppn)."
  echo "- **Simulation.** \`rankmap-sim run --mapping X.map -- build/examples/smpi/X ARGS\` (SimGrid 3.32, platform generated"
  echo "  from the mapping's machine line, all routes; communication only, \`simulate-computation:no\`, identical on"
  echo "  re-run; see docs/simulation.md). Time = the example's own \`time=\`, the slowest rank's timed loop in simulated"
  echo "  seconds. Speedup = block / optimized."
  echo "- **Model.** The seed model, \`rankmap-torus -m MACHINE --p-mpi P\`: gain = p_mpi t_hop (d - 1) / (t_inj + t_hop d),"
  echo "  d the diameter (desmos 5, 8x4x4x4 10 hops), a predicted cut of run time; the speedup it implies is 1 / (1 - gain)."
  echo "  Two values of p_mpi: the native profile's (sum of \`mpi=\` / sum of \`wall=\` over the ranks of the 128-rank run)"
  echo "  and 1, a program that only communicates, which is what the simulation runs (no computation time,"
  echo "  \`simulate-computation:no\`); the SMPI profiles of the 128-rank runs measure p_mpi = $psim_range"
  echo "  (per example below the table)."
  echo
  echo "| ranks, machine | example | args | block (s) | optimized (s) | speedup | time cut | default chose | p_mpi native | model gain at p_mpi native | model gain at p_mpi = 1 (speedup) |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  g1_128=$(gain_of "$m128" 1); g1_1024=$(gain_of "$m1024" 1)
  while read -r scale ex tb to chosen wall; do
    if [ "$scale" = 128 ]; then machine=$m128; a=${args128[$ex]}; label="128, desmos"; g1=$g1_128
    else machine=$m1024; a=${args1024[$ex]}; label="1,024, 8x4x4x4"; g1=$g1_1024; fi
    pn=${pnative[$ex]}
    gn=$(gain_of "$machine" "$pn")
    awk -v l="$label" -v ex="$ex" -v a="$a" -v tb="$tb" -v to="$to" -v ch="$chosen" -v pn="$pn" -v gn="$gn" -v g1="$g1" 'BEGIN {
      printf "| %s | %s | `%s` | %.4g | %.4g | %.2f | %.1f%% | %s | %s | %s%% | %s%% (%.2f) |\n",
        l, ex, a, tb, to, tb / to, 100 * (1 - to / tb), ch, pn, gn, g1, 1 / (1 - g1 / 100) }'
  done < "$results"
  echo
  echo "p_mpi of the SMPI profiles at 128 ranks"
  echo "(simulated time inside MPI / simulated wall): $(for ex in "${examples[@]}"; do printf '%s %s; ' "$ex" "${psim[$ex]:-n/a}"; done)"
  echo
  echo "Time outside MPI per rank, \`wall=\` - \`mpi=\` (mean over the 128 ranks, smallest-largest), in the SMPI profiles"
  echo "(simulated): $(for ex in "${examples[@]}"; do
      if [ -s "$out/128/$ex.smpi.prof" ]; then
        read -r mean lo hi < <(outside_mpi "$out/128/$ex.smpi.prof")
        awk -v ex="$ex" -v m="$mean" -v a="$lo" -v b="$hi" 'BEGIN { printf "%s %.3g us (%.3g-%.3g); ", ex, m * 1e6, a * 1e6, b * 1e6 }'
      else printf '%s n/a; ' "$ex"; fi; done)"
  echo "and in the native profiles: $(for ex in "${examples[@]}"; do
      read -r mean lo hi < <(outside_mpi "$out/128/$ex.prof")
      awk -v ex="$ex" -v m="$mean" -v a="$lo" -v b="$hi" 'BEGIN { printf "%s %.3g s (%.3g-%.3g); ", ex, m, a, b }'; done)"
  echo
  cat "$root/bench/simulated/discussion.md"
} > "$section"

write_doc_section simulated "$section"
log "wrote the section of $doc ($total s); outputs in $out"
