#!/usr/bin/env bash
# Held-out check of the peer benchmark (issue 10: "quality claims are also
# checked on inputs you do not see"): the five mini-apps recorded at other
# sizes, process grids and rank counts than bench/profiles/ (non-square CG
# grids, MG on flat grids, LU and ADI at rank counts that are not powers of
# two, hydro27 without wrap-around, jobs that need part of the machine) and
# NAS FT and SUMMA, kernels bench/profiles/ has at no size, on
# the benchmark's machines, then the default (5 seeds), `strong` and every
# peer on them, scored by the same driver. Nothing here is tuned on: run it
# after a change to the mapper and compare with the last run's figures in
# bench/peers/notes.md. docs/ is not touched.
#
#   bench/peers/heldout.sh SMPI_BUILD [driver options, e.g. --tool "rankmap (default)"]
#
# SMPI_BUILD must be configured with -DRANKMAP_SMPI_PROFILER=rankmap_commprof_smpi
# (as for bench/profiles/record.sh). Profiles are recorded once into
# $HELDOUT_PROFILES (default SMPI_BUILD/heldout-profiles/GROUP/NAME.prof, kept
# between runs); the tables go to SMPI_BUILD/heldout-tables.md.
# Environment: RANKMAP_BENCH_BUILD (the driver's build, default <repo>/build-peers),
# RANKMAP_BENCH_VENV (default /opt/rankmap-bench-venv).
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
build="$(cd "${1:?usage: heldout.sh SMPI_BUILD [driver options]}" && pwd)"
shift
profiles=${HELDOUT_PROFILES:-$build/heldout-profiles}
driver=${RANKMAP_BENCH_BUILD:-$root/build-peers}/bench/peers/rankmap_bench_peers
venv=${RANKMAP_BENCH_VENV:-/opt/rankmap-bench-venv}
rankmap="$build/mapper/rankmap" sim="$build/simulation/rankmap-sim" apps="$build/examples/smpi-profiled"
require_executables "configure with -DRANKMAP_SMPI_PROFILER=rankmap_commprof_smpi and build" "$rankmap" "$sim" "$apps/cg"
require_executables "build the target rankmap_bench_peers (bench/peers/run.sh --list does)" "$driver"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Records PROGRAM ARGS at RANKS ranks into GROUP/NAME.prof (block placement
# on the group's machine), unless it is there already.
record() {  # GROUP NAME RANKS PROGRAM ARGS...
  local group=$1 name=$2 ranks=$3 prog=$4 machine ppn
  shift 4
  case "$group" in
    desmos-2) machine=desmos ppn=2 ;;
    desmos-4) machine=desmos ppn=4 ;;
    4x4-4) machine="torus=4x4 node=package:2,core:4" ppn=4 ;;
    4x4x4-2) machine="torus=4x4x4 node=package:2,core:4" ppn=2 ;;
    8x8-4) machine="torus=8x8 node=package:2,core:4" ppn=4 ;;
  esac
  [ -f "$profiles/$group/$name.prof" ] && return 0
  mkdir -p "$profiles/$group"
  block_mapping "$ranks" "$machine" "$ppn" "$tmp/block.map"
  COMMPROF_OUTPUT="$tmp/x.prof" "$sim" run --mapping "$tmp/block.map" -- "$apps/$prog" "$@" > "$tmp/log" 2>&1 &&
    grep -q "check=ok" "$tmp/log" || { echo "heldout.sh: $group/$name failed:" >&2; tail -3 "$tmp/log" >&2; exit 1; }
  mv "$tmp/x.prof" "$profiles/$group/$name.prof"
  log "recorded $group/$name ($ranks ranks: $prog $*)"
}

record desmos-2 cg32 32 cg --na 40000 --iters 3
record desmos-2 cg64-4x16 64 cg --na 60000 --prows 4 --pcols 16 --iters 3
record desmos-2 mg48 48 mg --nx 128 --ny 128 --nz 96 --px 4 --py 4 --pz 3 --iters 2
record desmos-2 lu64-4x16 64 lu --nx 96 --ny 96 --nz 64 --px 4 --py 16 --iters 1
record desmos-2 adi48 48 adi --nx 96 --ny 96 --nz 96 --iters 1
record desmos-2 hydro64-np 64 hydro27 --lx 32 --ly 32 --lz 32 --periodic 0 --iters 1
record desmos-4 cg16 16 cg --na 30000 --iters 3
record desmos-4 cg128-16x8 128 cg --na 80000 --prows 16 --pcols 8 --iters 3
record desmos-4 mg128-2x8x8 128 mg --nx 128 --ny 256 --nz 256 --px 2 --py 8 --pz 8 --iters 2
record desmos-4 lu96 96 lu --nx 96 --ny 96 --nz 64 --iters 1
record desmos-4 adi100 100 adi --nx 100 --ny 100 --nz 100 --iters 1
record desmos-4 hydro128-np 128 hydro27 --lx 48 --ly 48 --lz 48 --px 8 --py 4 --pz 4 --periodic 0 --iters 1
record 4x4-4 cg64-8x8 64 cg --na 50000 --prows 8 --pcols 8 --iters 3
record 4x4-4 mg32 32 mg --nx 128 --ny 128 --nz 128 --iters 2
record 4x4-4 lu64-8x8 64 lu --nx 128 --ny 128 --nz 64 --px 8 --py 8 --iters 1
record 4x4-4 adi64 64 adi --nx 128 --ny 128 --nz 128 --iters 1
record 4x4-4 hydro48 48 hydro27 --lx 40 --ly 40 --lz 40 --iters 1
record 4x4x4-2 cg128-4x32 128 cg --na 60000 --prows 4 --pcols 32 --iters 3
record 4x4x4-2 mg64 64 mg --nx 128 --ny 128 --nz 128 --iters 2
record 4x4x4-2 lu128-16x8 128 lu --nx 128 --ny 128 --nz 64 --px 16 --py 8 --iters 1
record 4x4x4-2 hydro128-np 128 hydro27 --lx 32 --ly 48 --lz 64 --px 4 --py 8 --pz 4 --periodic 0 --iters 1
record 8x8-4 cg256 256 cg --na 100000 --iters 2
record 8x8-4 mg256-8x8x4 256 mg --nx 256 --ny 256 --nz 128 --px 8 --py 8 --pz 4 --iters 2
record 8x8-4 lu200 200 lu --nx 160 --ny 160 --nz 64 --iters 1
record 8x8-4 adi256 256 adi --nx 128 --ny 128 --nz 128 --iters 1
record 8x8-4 hydro256 256 hydro27 --lx 24 --ly 24 --lz 24 --iters 1
# NAS FT (session 30): a kernel the suite has no recording of at any size,
# row and column transposes of a 2D pencil layout (cliques of every process
# row and column); square, flat and tall grids, whole and part machines.
record desmos-2 ft32 32 ft --nx 128 --ny 128 --nz 64 --iters 1
record desmos-2 ft64 64 ft --nx 128 --ny 128 --nz 128 --iters 1
record desmos-4 ft16 16 ft --nx 64 --ny 64 --nz 64 --iters 1
record desmos-4 ft128 128 ft --nx 256 --ny 256 --nz 128 --iters 1
record desmos-4 ft128-4x32 128 ft --nx 256 --ny 256 --nz 128 --prows 4 --pcols 32 --iters 1
record 4x4-4 ft64 64 ft --nx 128 --ny 128 --nz 128 --iters 1
record 4x4-4 ft32 32 ft --nx 128 --ny 128 --nz 64 --iters 1
record 4x4x4-2 ft128 128 ft --nx 256 --ny 256 --nz 128 --iters 1
record 4x4x4-2 ft64-2x32 64 ft --nx 128 --ny 128 --nz 128 --prows 2 --pcols 32 --iters 1
record 8x8-4 ft256 256 ft --nx 256 --ny 256 --nz 128 --iters 1
record 8x8-4 ft128 128 ft --nx 256 --ny 256 --nz 128 --iters 1
# SUMMA (session 30): row and column broadcasts rooted in turn at each
# member, recorded as collectives (the mapper's model expands them).
record desmos-2 summa64 64 summa --n 2048 --iters 1
record desmos-4 summa32 32 summa --n 1024 --iters 1
record desmos-4 summa128 128 summa --n 2048 --iters 1
record desmos-4 summa128-4x32 128 summa --n 2048 --prows 4 --pcols 32 --iters 1
record 4x4-4 summa64 64 summa --n 2048 --iters 1
record 4x4x4-2 summa128 128 summa --n 2048 --iters 1
record 8x8-4 summa256 256 summa --n 2048 --iters 1

"$driver" --python "$venv/bin/python" --recorded-dir "$profiles" --filter recorded --spread-seeds 5 \
  --markdown "$build/heldout-tables.md" "$@"
echo "heldout.sh: tables in $build/heldout-tables.md"
