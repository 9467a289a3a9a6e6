#!/bin/sh
# Runs the mapper benchmark over the three machine sizes and the synthetic
# patterns; prints Markdown (the tables of docs/benchmarks.md, "Mapper quality
# and speed"). Usage: bench/mapper/run.sh BUILD_DIR [WORKDIR]
set -eu
build=${1:?usage: run.sh BUILD_DIR [WORKDIR]}
work=${2:-$(mktemp -d "${TMPDIR:-/tmp}/rankmap-bench.XXXXXX")}
bench=$build/bench/mapper/rankmap-bench-mapper
mkdir -p "$work"

header() {
  echo
  echo "### $1"
  echo
  echo "| pattern | algorithm | time s | peak MB | inter-node B | hop-bytes | bw-weighted cost | gap to bound | mean dil | max dil | max link ms | mean link ms | comm time max ms | cross-pkg B | note |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
}

instance() {  # title machine ppn ranks patterns...
  title=$1 machine=$2 ppn=$3 ranks=$4
  shift 4
  header "$title"
  for p in "$@"; do
    "$bench" -m "$machine" --ppn "$ppn" --ranks "$ranks" --pattern "$p" --workdir "$work"
  done
}

all="stencil2d stencil3d stencil27 stencil3d-shuffled ring alltoall random"
instance "128 ranks, desmos (torus 4x2x2x2, node package:1,core:6), 4 ranks per node" desmos 4 128 $all
# 8x4x4x4 has 512 nodes: 2 ranks per node fills it, as the other two instances are full.
instance "1,024 ranks, torus=8x4x4x4 node=package:2,core:4, 2 ranks per node" "torus=8x4x4x4 node=package:2,core:4" 2 1024 $all
instance "32,768 ranks, torus=16x16x8x2 node=package:2,core:4, 8 ranks per node" "torus=16x16x8x2 node=package:2,core:4" 8 32768 \
  stencil2d stencil3d stencil27 stencil3d-shuffled ring random
