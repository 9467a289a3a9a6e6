#!/bin/sh
# The pipeline on a network that is not a torus: synth -> map (every
# algorithm) -> evaluate --json on SimGrid's example fat-tree (16 hosts under
# 4 leaves, 2 spines; hops 2 under a leaf, 4 over a spine). Usage:
# cli_fattree.sh RANKMAP WORKDIR [RANKMAP_REPORT]
set -eu
rankmap=$1 work=$2 report=${3:-}
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$rankmap" synth -q --pattern stencil2d --ranks 64 --shape 8x8 --bytes 1000 --messages 1 -o s.prof
machine="fattree=2;4,4;1,2;1,2 node=package:1,core:4"
for a in rankmap block round-robin random paper scotch; do
  "$rankmap" map -q -p s.prof -m "$machine" --ppn 4 --algorithm $a -o $a.map > $a.table
  grep -q "^bw-weighted cost" $a.table
done
# The mapping names the machine as it was given, so evaluate needs no -m.
grep -q "^machine fattree=2;4,4;1,2;1,2 node=package:1,core:4 " rankmap.map
"$rankmap" evaluate -p s.prof --json rankmap.map block.map round-robin.map > eval.json
python3 - <<'PY'
import json
best, block, rr = json.load(open("eval.json"))
for m in (best, block, rr):
    # Every inter-node byte crosses 2 or 4 links, and the bound holds.
    assert 2 * m["inter_node_bytes"] <= m["hop_bytes"] <= 4 * m["inter_node_bytes"], m
    assert m["hop_bytes_lower_bound"] <= m["hop_bytes"], m
    assert m["max_dilation"] <= 4, m
assert best["weighted_cost"] <= block["weighted_cost"], (best, block)
assert best["weighted_cost"] < rr["weighted_cost"], (best, rr)
PY
"$rankmap" map -q -p s.prof -m "$machine" --ppn 4 -o again.map > /dev/null
cmp rankmap.map again.map
if [ -n "$report" ]; then
  "$report" -q -p s.prof -o report.html rankmap.map block.map
  grep -q "How many links are how busy" report.html
fi
echo "fattree pipeline ok"
