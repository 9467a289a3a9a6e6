#!/usr/bin/env bash
# Records the profiles of the C examples that the peer benchmark uses at the
# sizes of its machines, in simulation: SimGrid SMPI runs of the programs
# linked with libcommprof-smpi.a (byte-identical p2p lines to native MPICH
# profiles: tests commprof.smpi_vs_native_*). desmos-4/ holds native 128-rank
# profiles recorded by bench/simulated/run.sh and is left alone here.
#
#   bench/profiles/record.sh BUILD_DIR
# BUILD_DIR must be configured with -DRANKMAP_SMPI_PROFILER=rankmap_commprof_smpi.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:?usage: record.sh BUILD_DIR}" && pwd)"
rankmap="$build/mapper/rankmap"
sim="$build/simulation/rankmap-sim"
apps="$build/examples/smpi-profiled"
for f in "$rankmap" "$sim" "$apps/stencil2d"; do
  [ -x "$f" ] || { echo "record.sh: missing $f (configure with -DRANKMAP_SMPI_PROFILER=rankmap_commprof_smpi and build)" >&2; exit 2; }
done
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT

# group  ranks  machine  ppn  then ARGS per example (grids divide the sizes:
# MPI_Dims_create gives 16x12 / 8x6x4 at 192 ranks, 16x16 / 8x8x4 at 256,
# 32x32 / 16x8x8 at 1,024)
record_group() {
  local group=$1 ranks=$2 machine=$3 ppn=$4; shift 4
  mkdir -p "$here/$group"
  "$rankmap" synth -q --pattern ring --ranks "$ranks" -o "$tmp/template.prof"
  "$rankmap" map -q -p "$tmp/template.prof" -m "$machine" --ppn "$ppn" --algorithm block -o "$tmp/block.map" > /dev/null
  while [ $# -gt 0 ]; do
    local ex=$1 args=$2; shift 2
    # shellcheck disable=SC2086
    COMMPROF_OUTPUT="$tmp/$ex.prof" "$sim" run --mapping "$tmp/block.map" -- "$apps/$ex" $args > "$tmp/$ex.log" 2>&1 || {
      echo "record.sh: $group/$ex failed:" >&2; tail -5 "$tmp/$ex.log" >&2; exit 1; }
    mv "$tmp/$ex.prof" "$here/$group/$ex.prof"
    echo "recorded $group/$ex.prof ($ranks ranks: $ex $args)"
  done
}

record_group desmos-6 192 desmos 6 \
  stencil2d "--nx 1536 --ny 1536 --iters 20" \
  stencil3d "--nx 192 --ny 192 --nz 192 --iters 20" \
  sparse "--iters 20 --bytes 16384 --seed 1"
record_group 8x8-4 256 "torus=8x8 node=package:2,core:4" 4 \
  stencil2d "--nx 2048 --ny 2048 --iters 20" \
  stencil3d "--nx 128 --ny 128 --nz 128 --iters 20" \
  sparse "--iters 20 --bytes 16384 --seed 1"
record_group 8x4x4x4-2 1024 "torus=8x4x4x4 node=package:2,core:4" 2 \
  stencil2d "--nx 4096 --ny 4096 --iters 20" \
  stencil3d "--nx 256 --ny 256 --nz 256 --iters 20" \
  sparse "--iters 20 --bytes 16384 --seed 1"
