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
# The outlook against the first mapping (block): with every rank at wall=10
# mpi=5 (p_mpi 0.5) the application changes by half the communication's
# change, (1 - p) + p x r - 1 = p x (r - 1).
sed 's/ wall=0 mpi=0/ wall=10 mpi=5/' s.prof > timed.prof
"$rankmap" evaluate -q -p timed.prof --json block.map rankmap.map > outlook.json
"$rankmap" evaluate -q -p timed.prof block.map rankmap.map > outlook.txt
python3 - <<'PY'
import json, re
block, best = json.load(open("outlook.json"))
r = best["predicted_comm_time_max_seconds"] / block["predicted_comm_time_max_seconds"]
assert abs(best["predicted_comm_time_change"] - (r - 1)) < 1e-12, best
assert abs(best["predicted_app_time_change"] - 0.5 * (r - 1)) < 1e-12, best
assert best["p_mpi"] == 0.5 and block["p_mpi"] == 0.5, best
assert block["predicted_comm_time_change"] == 0 and block["predicted_app_time_change"] == 0, block
assert "outlook" not in block, block
assert re.fullmatch("communication −[0-9.]+% \\(time model\\), application −[0-9.]+% at p_mpi 50%", best["outlook"]), best
assert best["relaunch"].startswith("worth a relaunch: application −"), best
# The text leads with the outlook, then the table.
lines = open("outlook.txt", encoding="utf-8").read().splitlines()
assert lines[0] == "rankmap.map vs block.map: " + best["outlook"], lines[0]
assert lines[1] == "  " + best["relaunch"], lines[1]
assert lines[2].startswith("metric "), lines[2]
assert lines[3].startswith("communication change "), lines[3]
PY
# Same seed, same file.
"$rankmap" map -q -p s.prof -m "$machine" -o again.map > /dev/null
cmp rankmap.map again.map
echo "pipeline ok"
