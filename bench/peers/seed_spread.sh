#!/usr/bin/env bash
# The default preset's seed spread (issue 10) on a few instances, quickly:
# for each --filter of rankmap_bench_peers, the default at 5 seeds, per
# instance the hop-bytes and max link load at every seed, their mean and
# spread ((max - min) / min), and the time per seed (the mapping's wall time
# per instance, the driver's CPU time per filter: the machine is shared, so
# compare times within one run only). Nothing else runs and docs/ is not
# touched.
#
#   bench/peers/seed_spread.sh                      (the instances whose spread
#                                                    exceeded the targets in the
#                                                    last full run)
#   bench/peers/seed_spread.sh "cg 192" "ring 128"  (any --filter texts)
#
# Environment: RANKMAP_BENCH_BUILD (default <repo>/build-peers; the driver must
# be built), RANKMAP_BENCH_VENV (default /opt/rankmap-bench-venv), SEEDS (how
# many seeds, 1, 2, ...; default 5, as in the peer benchmark: the spread of 5
# seeds understated that of 16 by 1.2-5x on recorded CG, ADI and sparse, so
# compare two versions at 10 or more before calling a change an improvement).
# map s = this instance's mean wall time of the mapping alone (map_ranks, on
# the threads the driver may use), per seed. cpu/seed = the driver's user
# time / the runs it made, over every instance of the filter (instance set-up
# included, so a slight overestimate): a filter matching 1,024 ranks raises
# it for all its rows.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
set_peer_driver

if [ $# -eq 0 ]; then
  set -- "random 64" "random 128" "random 192" "random 256" "stencil3d-shuffled 256" "stencil3d-shuffled 1024" \
    "sparse" "adi 192" "cg 192" "adi 128"
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$root"
printf '%-44s %12s %8s %10s %8s %8s %9s  %s\n' instance "hop-bytes" spread "max link" spread "map s" "cpu/seed" "per seed: hop-bytes/max link (ms)"
for filter in "$@"; do
  /usr/bin/time -f "USER %U" -o "$scratch/time" "$driver" --python "$venv/bin/python" --recorded-dir bench/profiles \
    --tool "rankmap (default)" --filter "$filter" --spread-seeds "${SEEDS:-5}" --markdown "$scratch/tables.md" > "$scratch/out" 2>&1 || {
    echo "seed_spread.sh: the driver failed on \"$filter\":" >&2
    tail -5 "$scratch/out" >&2
    exit 1
  }
  python3 - "$scratch/out" "$scratch/time" <<'EOF'
import re, sys
out, timing = open(sys.argv[1]).read().splitlines(), open(sys.argv[2]).read()
user = float(re.search(r"USER ([0-9.]+)", timing).group(1))
rows, name, first = [], None, None
for line in out:
    m = re.match(r"\[\d+/\d+.*?\] (.*)", line)
    if m:
        machine = m.group(1).split(" (")[0].replace(" ranks per node", "/node").replace(" torus", "")
        name = machine + ": " + m.group(1).split("): ")[-1]
    m = re.search(r"rankmap \(default\) \.\.\. ([0-9.e+-]+) B\*hop, max link ([0-9.e+-]+) ms, comm time \S+ ms, ([0-9.e+-]+) s", line)
    if m:
        first = (float(m.group(1)), float(m.group(2)), float(m.group(3)))
    if "at seeds" in line and first:
        rest = [(float(h), float(l), float(t)) for h, l, t in re.findall(r"\d+: ([0-9.e+-]+) B\*hop ([0-9.e+-]+) ms ([0-9.e+-]+) s", line)]
        rows.append((name, [first] + rest))
runs = sum(len(v) for _, v in rows) or 1
spread = lambda a: 100 * (max(a) - min(a)) / min(a) if min(a) > 0 else 0.0
for name, v in rows:
    h, l = [x[0] for x in v], [x[1] for x in v]
    t = [x[2] for x in v]
    print("%-44s %12.5g %7.2f%% %10.4g %7.1f%% %7.2fs %8.2fs  %s" % (name[:44], sum(h) / len(h), spread(h), sum(l) / len(l),
          spread(l), sum(t) / len(t), user / runs, " ".join("%.4g/%.3g" % x[:2] for x in v)))
EOF
done
