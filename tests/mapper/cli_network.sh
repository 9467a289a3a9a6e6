#!/bin/sh
# The pipeline on a network that is not a torus: synth -> map (every
# algorithm) -> evaluate --json -> report, with 4 ranks per host on a machine
# whose routes are MAX_HOPS links at most (host links included). Usage:
# cli_network.sh RANKMAP WORKDIR "NETWORK_WORD" RANKS SHAPE MAX_HOPS [RANKMAP_REPORT]
set -eu
rankmap=$1 work=$2 network=$3 ranks=$4 shape=$5 max_hops=$6 report=${7:-}
rm -rf "$work" && mkdir -p "$work" && cd "$work"
"$rankmap" synth -q --pattern stencil2d --ranks "$ranks" --shape "$shape" --bytes 1000 --messages 1 -o s.prof
machine="$network node=package:1,core:4"
for a in rankmap block round-robin random paper scotch; do
  "$rankmap" map -q -p s.prof -m "$machine" --ppn 4 --algorithm $a -o $a.map > $a.table
  grep -q "^bw-weighted cost" $a.table
done
# The mapping names the machine as it was given, so evaluate needs no -m.
grep -q "^machine $machine " rankmap.map
"$rankmap" evaluate -p s.prof --json rankmap.map block.map round-robin.map > eval.json
MAX_HOPS=$max_hops python3 - <<'PY'
import json, os
max_hops = int(os.environ["MAX_HOPS"])
best, block, rr = json.load(open("eval.json"))
for m in (best, block, rr):
    # Every inter-node byte crosses 2 to max_hops links, and the bound holds.
    assert 2 * m["inter_node_bytes"] <= m["hop_bytes"] <= max_hops * m["inter_node_bytes"], m
    assert m["hop_bytes_lower_bound"] <= m["hop_bytes"], m
    assert m["max_dilation"] <= max_hops, m
assert best["weighted_cost"] <= block["weighted_cost"], (best, block)
assert best["weighted_cost"] < rr["weighted_cost"], (best, rr)
PY
"$rankmap" map -q -p s.prof -m "$machine" --ppn 4 -o again.map > /dev/null
cmp rankmap.map again.map
if [ -n "$report" ]; then
  "$report" -q -p s.prof -o report.html rankmap.map block.map
  grep -q "How many links are how busy" report.html
fi
echo "pipeline ok on $network"
