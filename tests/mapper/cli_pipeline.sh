#!/bin/sh
# Whole pipeline through the command line: synth -> map (every algorithm) ->
# evaluate --json, with exact expected values for a 4x4x4 stencil on a
# 4x4x4 torus, one rank per node (the optimum is known: every pair one hop).
set -eu
rankmap=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$rankmap" synth -q --pattern stencil3d-shuffled --ranks 64 --bytes 1000 --messages 1 --seed 5 -o s.prof
machine="torus=4x4x4 node=core:1"
for a in rankmap block round-robin random paper scotch; do
  "$rankmap" map -q -p s.prof -m "$machine" --algorithm $a -o $a.map > $a.table
  grep -q "^bw-weighted cost" $a.table
done
"$rankmap" evaluate -p s.prof --json rankmap.map block.map > eval.json
# 64 ranks x 6 partners x 1000 B = 384000 B, all of it one hop: the optimum.
python3 - <<'PY'
import json
m = json.load(open("eval.json"))
best, block = m
assert best["hop_bytes"] == 384000, best
assert best["hop_bytes_lower_bound"] == 384000, best
assert best["hop_bytes_gap"] == 0, best
assert best["max_dilation"] == 1, best
assert block["hop_bytes"] > best["hop_bytes"], block
PY
# Same seed, same file.
"$rankmap" map -q -p s.prof -m "$machine" -o again.map > /dev/null
cmp rankmap.map again.map
echo "pipeline ok"
