#!/usr/bin/env bash
# scotch_gmap as a rankmap benchmark peer.
#
#   peer_scotch.sh --graph G.grf --target "torusXD 4 4 2 2 2" [--strategy strict|stock] --out OUT.vec
#   peer_scotch.sh --graph G.grf --target-graph T.grf [--strategy strict|stock] --out OUT.vec
#
# G.grf: the communication graph in Scotch's source format (written by the
# driver, integer edge weights). The first form maps onto Scotch's plain
# torus target (pure hop distance, dimension 0 varying fastest like rankmap's
# node numbering). The second builds a decomposition-defined ("deco") target
# with amk_grf from the weighted torus graph T.grf (edge weight = cost of one
# hop along that dimension; amk_grf turns it into shortest-path distances) and
# maps onto that; Scotch writes each vertex's terminal label, which is the
# target graph vertex, i.e. the torus node.
#
# Strategy: `strict` (the default) is Scotch's quality strategy with strict
# balance (-cqb -b0), so every node gets exactly ppn ranks when the machine is
# full; `stock` is what a user gets from plain scotch_gmap (no strategy flags:
# default strategy, imbalance tolerance 0.05), whose overfull nodes the driver
# repairs and flags. Both run with -Cd (deterministic): a context option, not
# a strategy; without it determinism depends on how Scotch was compiled. Scotch's own
# cost figures are not used: they are wrong on deco targets (toolchain notes);
# rankmap's evaluator scores the result.
#
# Output: one torus node index per rank line, '#' metadata lines first
# ("# seconds T" is scotch_gmap's own mapping time, without I/O).
# Exit status: 0 ok, 3 scotch tools not installed, 1 failure.
set -euo pipefail

graph="" target="" target_graph="" out="" strategy=strict
while [ $# -gt 0 ]; do
  case "$1" in
    --graph) graph="$2"; shift 2 ;;
    --target) target="$2"; shift 2 ;;
    --target-graph) target_graph="$2"; shift 2 ;;
    --strategy) strategy="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "peer_scotch.sh: unknown argument '$1'" >&2; exit 1 ;;
  esac
done
if [ -z "$graph" ] || [ -z "$out" ] || { [ -z "$target" ] && [ -z "$target_graph" ]; }; then
  echo "usage: peer_scotch.sh --graph G.grf (--target 'torusXD ...' | --target-graph T.grf) [--strategy strict|stock] --out OUT" >&2
  exit 1
fi
case "$strategy" in
  strict) flags=(-Cd -cqb -b0) ;;
  stock) flags=(-Cd) ;;
  *) echo "peer_scotch.sh: unknown strategy '$strategy' (strict, stock)" >&2; exit 1 ;;
esac

gmap=$(command -v scotch_gmap || command -v gmap || true)
if [ -z "$gmap" ]; then
  echo "scotch_gmap not installed (Debian package 'scotch')" >&2
  exit 3
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/peer_scotch.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ -n "$target_graph" ]; then
  amk=$(command -v amk_grf || true)
  if [ -z "$amk" ]; then
    echo "amk_grf not installed (Debian package 'scotch')" >&2
    exit 3
  fi
  "$amk" "$target_graph" "$work/target.tgt"
  kind="deco target from amk_grf"
else
  printf '%s\n' "$target" > "$work/target.tgt"
  kind="$target"
fi

version=$( { "$gmap" -V 2>&1 || true; } | sed -n 's/.*[Vv]ersion \([0-9.]*\).*/\1/p' | head -1)
"$gmap" "${flags[@]}" -vt "$graph" "$work/target.tgt" "$work/out.map" > "$work/log" 2>&1 || {
  cat "$work/log" >&2
  exit 1
}
seconds=$(awk '$1 == "T" && $2 == "Mapping" { print $3 }' "$work/log")

{
  echo "# tool scotch_gmap ${version:-unknown}"
  echo "# seconds ${seconds:-0}"
  echo "# note scotch_gmap ${flags[*]} onto $kind"
  # The .map file: a count line, then "vertex terminal" lines in any order.
  awk 'NR > 1 { print $1, $2 }' "$work/out.map" | sort -n -k1,1 | awk '
    { if ($1 != NR - 1) { print "vertex " NR - 1 " missing from the mapping" > "/dev/stderr"; exit 1 } print $2 }'
} > "$out.tmp"
mv "$out.tmp" "$out"
