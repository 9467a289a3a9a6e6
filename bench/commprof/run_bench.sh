#!/usr/bin/env bash
# libcommprof overhead: ns per intercepted MPI_Send (without / with timing,
# vs. no preload) and instructions per call with callgrind.
#   bench/commprof/run_bench.sh [BUILD_DIR]   (default build-commprof)
#   MPI=openmpi bench/commprof/run_bench.sh BUILD_DIR: the same under Open MPI
#   (libcommprof-ompi.so, the benchmark built against Open MPI, mpirun.openmpi)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build-commprof}"
if [ "${MPI:-mpich}" = openmpi ]; then
  bench="$build/bench/commprof/commprof_ompi_send_bench"
  lib="$build/libcommprof/libcommprof-ompi.so"
  mpiexec="${MPIEXEC:-mpirun.openmpi}"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
else
  bench="$build/bench/commprof/commprof_send_bench"
  lib="$build/libcommprof/libcommprof.so"
  mpiexec="${MPIEXEC:-mpiexec.mpich}"
fi
iters="${ITERATIONS:-500000}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

run() { "$mpiexec" -n 1 "$@" "$bench" "$iters" 9 | sed -n 's/.*ns_per_iteration=\([0-9.]*\).*maxrss_kib=\([0-9]*\).*/\1 \2/p'; }

echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, $(uname -r)"
echo "command: $0 (MPI=${MPI:-mpich}, iterations=$iters, best of 9, 1 rank sending to itself)"
# Alternate the configurations a few times so drift hits all alike; keep the minimum.
declare -A best rss
for round in 1 2 3; do
  for cfg in none notiming timing; do
    case $cfg in
      none) r=$(run env) ;;
      notiming) r=$(run env LD_PRELOAD="$lib" COMMPROF_TIMING=0 COMMPROF_OUTPUT="$tmp/a.prof") ;;
      timing) r=$(run env LD_PRELOAD="$lib" COMMPROF_TIMING=1 COMMPROF_OUTPUT="$tmp/b.prof") ;;
    esac
    ns=${r% *}
    rss[$cfg]=${r#* }
    if [ -z "${best[$cfg]:-}" ] || awk "BEGIN{exit !($ns < ${best[$cfg]})}"; then best[$cfg]=$ns; fi
  done
done
printf "ns per iteration: no preload %s, preload without timing %s (+%.1f), with timing %s (+%.1f)\n" \
  "${best[none]}" "${best[notiming]}" "$(awk "BEGIN{print ${best[notiming]}-${best[none]}}")" \
  "${best[timing]}" "$(awk "BEGIN{print ${best[timing]}-${best[none]}}")"
echo "max RSS (KiB): no preload ${rss[none]}, preload ${rss[timing]}"

# Instructions: callgrind's inclusive cost of the MPI_Send wrapper minus that
# of the PMPI_Send it calls, for 20000 and 40000 calls; the difference of the
# two runs cancels the one-time lazy initialisation in the first call.
if command -v valgrind >/dev/null; then
  added() {  # timing calls -> wrapper-minus-PMPI instructions
    local out="$tmp/cg.$1.$2"
    LD_PRELOAD="$lib" COMMPROF_TIMING=$1 COMMPROF_OUTPUT="$tmp/c.prof" \
      valgrind --tool=callgrind --callgrind-out-file="$out" "$bench" "$2" 1 >/dev/null 2>&1
    callgrind_annotate --inclusive=yes "$out" 2>/dev/null | awk '
      /wrappers[a-z_]*[.]cpp:MPI_Send / { gsub(",", "", $1); w = $1 }
      /:PMPI_Send / { gsub(",", "", $1); p = $1 }
      END { print w - p }'
  }
  for timing in 0 1; do
    a=$(added $timing 20000)
    b=$(added $timing 40000)
    echo "instructions added per MPI_Send (timing=$timing): $(awk "BEGIN{printf \"%.1f\", ($b - $a) / 20000}")"
  done
fi
