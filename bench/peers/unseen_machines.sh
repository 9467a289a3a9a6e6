#!/usr/bin/env bash
# Held-out machines (issue 10: quality claims are checked on inputs the
# mapper was not tuned on): the recorded 128-rank profiles of
# bench/profiles/desmos-4/ on tori that none of the peer benchmark's groups
# has (a 4D torus with two sizes of 2, an elongated 3D and 2D torus, a mesh
# without wrap-around, 8 ranks per node), each machine full, the default at
# SEEDS seeds and every peer, scored by the same driver and rules as
# bench/peers/run.sh. Nothing is tuned here and docs/ is not touched: run it
# after a change to the mapper and compare with the figures in
# bench/peers/notes.md.
#
#   bench/peers/unseen_machines.sh [driver options, e.g. --filter mg]
#
# Environment: RANKMAP_BENCH_BUILD (the driver's build, default
# <repo>/build-peers), RANKMAP_BENCH_VENV (default /opt/rankmap-bench-venv),
# SEEDS (default 3), OUT (the tables, default RANKMAP_BENCH_BUILD/unseen-tables.md).
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
set_peer_driver
out=${OUT:-$build/unseen-tables.md}

# machine | ranks per node: 128 ranks fill each.
machines=(
  "torus=4x4x2x2 node=package:2,core:4|2"
  "torus=8x4x2 node=package:2,core:4|2"
  "torus=16x4 node=package:2,core:4|2"
  "torus=8x8 wrap=0x0 node=package:2,core:4|2"
  "torus=4x2x2 node=package:2,core:8|8"
)
recorded=()
for f in "$root"/bench/profiles/desmos-4/*.prof; do
  name=$(basename "$f" .prof)
  # The uniform all-to-all ties on every full machine; the others are the codes.
  [ "$name" = alltoall ] && continue
  recorded+=(--recorded "$name=$f")
done
# Written beside OUT and renamed at the end: no half-written tables.
: > "$out.tmp"
for entry in "${machines[@]}"; do
  machine=${entry%|*} ppn=${entry##*|}
  echo "== $machine at $ppn per node" >&2
  "$driver" --python "$venv/bin/python" --suite recorded --recorded-machine "$machine" \
    --recorded-ppn "$ppn" "${recorded[@]}" --spread-seeds "${SEEDS:-3}" --markdown "$out.part" \
    --tool "rankmap (default)" --tool block --tool paper --tool "scotch_gmap torusXD (stock)" \
    --tool "scotch_gmap torusXD -cqb -b0" --tool "scotch_gmap amk_grf -cqb -b0" --tool Mt-KaHyPar \
    --tool "KaHIP flat" --tool "KaHIP torus tree" "$@" >&2
  { echo "## $machine, $ppn ranks per node"; echo; cat "$out.part"; echo; } >> "$out.tmp"
done
rm -f "$out.part"
mv "$out.tmp" "$out"
echo "unseen_machines.sh: tables in $out" >&2
