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
# RECORD_GROUPS="4x4-4 desmos-2" records only those groups.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
here="$root/bench/profiles"
build="$(cd "${1:?usage: record.sh BUILD_DIR [PROGRAM...]}" && pwd)"
shift
only=("$@")
rankmap="$build/mapper/rankmap"
sim="$build/simulation/rankmap-sim"
apps="$build/examples/smpi-profiled"
require_executables "configure with -DRANKMAP_SMPI_PROFILER=rankmap_commprof_smpi and build" \
  "$rankmap" "$sim" "$apps/stencil2d" "$apps/cg"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT

# Records PROGRAMs at RANKS ranks on MACHINE (block placement, PPN per node)
# into GROUP/, with their arguments at that count from example-args.txt.
record_group() {  # GROUP RANKS MACHINE PPN PROGRAM...
  local group=$1 ranks=$2 machine=$3 ppn=$4; shift 4
  if [ -n "${RECORD_GROUPS:-}" ] && [[ " $RECORD_GROUPS " != *" $group "* ]]; then return 0; fi
  mkdir -p "$here/$group"
  block_mapping "$ranks" "$machine" "$ppn" "$tmp/block.map"
  local ex
  for ex in "$@"; do
    is_selected "$ex" ${only[@]+"${only[@]}"} || continue
    local args t0=$SECONDS
    args=$(example_args "$ex" "$ranks")
    # shellcheck disable=SC2086
    COMMPROF_OUTPUT="$tmp/$ex.prof" "$sim" run --mapping "$tmp/block.map" -- "$apps/$ex" $args > "$tmp/$ex.log" 2>&1 || {
      echo "record.sh: $group/$ex failed:" >&2; tail -5 "$tmp/$ex.log" >&2; exit 1; }
    grep -q "^$ex ranks=$ranks .*check=ok" "$tmp/$ex.log" || {
      echo "record.sh: $group/$ex did not report check=ok:" >&2; tail -5 "$tmp/$ex.log" >&2; exit 1; }
    mv "$tmp/$ex.prof" "$here/$group/$ex.prof"
    echo "recorded $group/$ex.prof ($ranks ranks: $ex $args; $((SECONDS - t0)) s)"
  done
}

# The sizes are in example-args.txt. Iteration counts are small there (the
# profile's shape does not depend on them, only its totals) because SimGrid's
# flow solver is slow on many concurrent messages: hydro27's 26 at once on
# every rank dominate the recording time.
mini_apps=(cg mg lu adi hydro27)
record_group desmos-2 64 desmos 2 "${mini_apps[@]}"
record_group 4x4-4 64 "torus=4x4 node=package:2,core:4" 4 stencil2d stencil3d sparse "${mini_apps[@]}"
record_group desmos-4 128 desmos 4 "${mini_apps[@]}"
record_group 4x4x4-2 128 "torus=4x4x4 node=package:2,core:4" 2 "${mini_apps[@]}"
record_group desmos-6 192 desmos 6 stencil2d stencil3d sparse "${mini_apps[@]}"
record_group 8x8-4 256 "torus=8x8 node=package:2,core:4" 4 stencil2d stencil3d sparse "${mini_apps[@]}"
record_group 8x4x4x4-2 1024 "torus=8x4x4x4 node=package:2,core:4" 2 stencil2d stencil3d sparse "${mini_apps[@]}"
