#!/usr/bin/env bash
# Records the profiles of the C examples and mini-apps that the peer
# benchmark uses at the sizes of its machines, in simulation: SimGrid SMPI
# runs of the programs linked with libcommprof-smpi.a (byte-identical p2p
# lines to native MPICH profiles: tests commprof.smpi_vs_native_*), placed
# by the launcher's block mapping. The stencils, ring, sparse and alltoall of
# desmos-4/ are native 128-rank profiles recorded by bench/simulated/run.sh
# and are left alone here; the mini-apps of desmos-4/ come from this script.
#
#   bench/profiles/record.sh BUILD_DIR [PROGRAM...]
# BUILD_DIR must be configured with -DRANKMAP_SMPI_PROFILER=rankmap_commprof_smpi.
# With PROGRAM names (e.g. `cg mg`), only those are recorded, in every group.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$(cd "${1:?usage: record.sh BUILD_DIR [PROGRAM...]}" && pwd)"
shift
only=("$@")
rankmap="$build/mapper/rankmap"
sim="$build/simulation/rankmap-sim"
apps="$build/examples/smpi-profiled"
for f in "$rankmap" "$sim" "$apps/stencil2d" "$apps/cg"; do
  [ -x "$f" ] || { echo "record.sh: missing $f (configure with -DRANKMAP_SMPI_PROFILER=rankmap_commprof_smpi and build)" >&2; exit 2; }
done
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT

wanted() {
  [ ${#only[@]} -eq 0 ] && return 0
  local p; for p in "${only[@]}"; do [ "$p" = "$1" ] && return 0; done
  return 1
}

# group  ranks  machine  ppn  then PROGRAM ARGS pairs
record_group() {
  local group=$1 ranks=$2 machine=$3 ppn=$4; shift 4
  mkdir -p "$here/$group"
  "$rankmap" synth -q --pattern ring --ranks "$ranks" -o "$tmp/template.prof"
  "$rankmap" map -q -p "$tmp/template.prof" -m "$machine" --ppn "$ppn" --algorithm block -o "$tmp/block.map" > /dev/null
  while [ $# -gt 0 ]; do
    local ex=$1 args=$2; shift 2
    wanted "$ex" || continue
    local t0=$SECONDS
    # shellcheck disable=SC2086
    COMMPROF_OUTPUT="$tmp/$ex.prof" "$sim" run --mapping "$tmp/block.map" -- "$apps/$ex" $args > "$tmp/$ex.log" 2>&1 || {
      echo "record.sh: $group/$ex failed:" >&2; tail -5 "$tmp/$ex.log" >&2; exit 1; }
    grep -q "^$ex ranks=$ranks .*check=ok" "$tmp/$ex.log" || {
      echo "record.sh: $group/$ex did not report check=ok:" >&2; tail -5 "$tmp/$ex.log" >&2; exit 1; }
    mv "$tmp/$ex.prof" "$here/$group/$ex.prof"
    echo "recorded $group/$ex.prof ($ranks ranks: $ex $args; $((SECONDS - t0)) s)"
  done
}

# The stencils' grids divide their sizes: MPI_Dims_create gives 16x12 / 8x6x4
# at 192 ranks, 16x16 / 8x8x4 at 256, 32x32 / 16x8x8 at 1,024.
#
# The mini-apps run NAS class B sizes up to 192 ranks and class C from 256
# (cg --na 75000 / 150000, mg 256^3 / 512^3, lu and adi 102^3 / 162^3);
# hydro27 keeps its 64x48x32 block per rank (weak scaling). mg needs sizes
# that its grid divides: 256x192x256 on 8x6x4 at 192 ranks. Iteration counts
# are small (the profile's shape does not depend on them, only its totals)
# because SimGrid's flow solver is slow on many concurrent messages:
# hydro27's 26 at once on every rank dominate the recording time.
class_b=(
  cg "--na 75000 --iters 25"
  mg "--nx 256 --ny 256 --nz 256 --iters 4"
  lu "--nx 102 --ny 102 --nz 102 --iters 2"
  adi "--nx 102 --ny 102 --nz 102 --iters 2"
  hydro27 "--iters 2"
)
class_c=(
  cg "--na 150000 --iters 25"
  mg "--nx 512 --ny 512 --nz 512 --iters 4"
  lu "--nx 162 --ny 162 --nz 162 --iters 2"
  adi "--nx 162 --ny 162 --nz 162 --iters 2"
)

record_group desmos-2 64 desmos 2 "${class_b[@]}"
record_group desmos-4 128 desmos 4 "${class_b[@]}"
record_group 4x4x4-2 128 "torus=4x4x4 node=package:2,core:4" 2 "${class_b[@]}"
record_group desmos-6 192 desmos 6 \
  stencil2d "--nx 1536 --ny 1536 --iters 20" \
  stencil3d "--nx 192 --ny 192 --nz 192 --iters 20" \
  sparse "--iters 20 --bytes 16384 --seed 1" \
  cg "--na 75000 --iters 25" \
  mg "--nx 256 --ny 192 --nz 256 --iters 4" \
  lu "--nx 102 --ny 102 --nz 102 --iters 2" \
  adi "--nx 102 --ny 102 --nz 102 --iters 2" \
  hydro27 "--iters 2"
record_group 8x8-4 256 "torus=8x8 node=package:2,core:4" 4 \
  stencil2d "--nx 2048 --ny 2048 --iters 20" \
  stencil3d "--nx 128 --ny 128 --nz 128 --iters 20" \
  sparse "--iters 20 --bytes 16384 --seed 1" \
  "${class_c[@]}" hydro27 "--iters 2"
record_group 8x4x4x4-2 1024 "torus=8x4x4x4 node=package:2,core:4" 2 \
  stencil2d "--nx 4096 --ny 4096 --iters 20" \
  stencil3d "--nx 256 --ny 256 --nz 256 --iters 20" \
  sparse "--iters 20 --bytes 16384 --seed 1" \
  "${class_c[@]}" hydro27 "--iters 1"
