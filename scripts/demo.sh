#!/usr/bin/env bash
# README command 1: install, build, and run rankmap's main job end to end on a
# built-in example. Files go to ./demo-out (or $RANKMAP_DEMO_DIR).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build="${RANKMAP_BUILD_DIR:-$root/build}"
out="${RANKMAP_DEMO_DIR:-$root/demo-out}"
mkdir -p "$out"

echo "== machine: the Desmos cluster (Angara 4D torus 4x2x2x2, one link along Y, Z, K)"
"$build/torus/rankmap-torus" -m desmos --p-mpi 0.5 --table | tee "$out/machine.txt"
echo
echo "demo: this release covers the machine model only; profile -> map -> launch files -> compare"
echo "demo: arrive with the mapper, rankfile-gen and simulation components. Files in $out"
