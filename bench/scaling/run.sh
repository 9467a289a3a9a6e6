#!/usr/bin/env bash
# Issue 16 benchmark: what a user gains, communication and whole application,
# on four machines, measured by deterministic replay and next to the
# estimates a user gets without a simulator.
#
# For each machine and program (the repo's mini-apps, SMPI builds):
#   record     smpirun -trace-ti with simulate-computation:yes at
#              smpi/host-speed 1 Gf on the launcher's block placement: one
#              time-independent trace with the computation SMPI measured
#              (the skeletons' payload stamping and checking);
#   scale      bench/scaling/scale_compute.py: a copy with every compute
#              action x10 (an application with 10x the arithmetic in the same
#              places), so one recording gives two shares of communication;
#   map        rankmap-sim profile --trace -> rankmap map (default preset);
#              rankmap evaluate --json: the time model's communication ratio;
#   compare    rankmap-sim compare block.map rankmap.map --trace T, for both
#              traces: comm-only and whole-application replays (SimGrid 3.32,
#              deterministic), and the estimate (1-p) + p x comm ratio with p
#              = the block replay's comm-only / whole-app share;
#   seed       the seed paper's model (docs/torus.md): gain = p x t_hop x
#              (d - 1) / (t_inj + t_hop x d), d = the torus diameter.
# Writes the section between <!-- scaling:begin --> and <!-- scaling:end -->
# of docs/benchmarks.md and docs/scaling.svg (the plot, written by this
# script: no plotting library needed).
#
#   RANKMAP_BUILD_DIR=build bench/scaling/run.sh            # ~10-15 min on 2 shared cores
#   RANKMAP_BUILD_DIR=build bench/scaling/run.sh --doc-only # re-assemble the doc from the last results
# Environment: RANKMAP_BENCH_OUT (default BUILD/bench-scaling), RANKMAP_BENCH_DOC,
# SCALING_MACHINES (names below, default all), SCALING_PROGRAMS (default: per machine).
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
set_bench_dirs build bench-scaling
svg="${RANKMAP_BENCH_SVG:-$root/docs/scaling.svg}"
require_executables "build first" "$rankmap" "$sim"
require_command smpirun SimGrid

# name|machine|ranks per node|ranks|programs
machines=(
  "desmos|desmos|4|128|halo3d cg lu mg"
  "8x8|torus=8x8 node=package:2,core:4|4|256|halo3d cg lu"
  "8x4x4x2|torus=8x4x4x2 node=package:2,core:4|2|512|halo3d cg"
  "8x4x4x4|torus=8x4x4x4 node=package:2,core:4|2|1024|halo3d cg"
)
# Arguments per program and rank count: the profiles' (bench/profiles/
# example-args.txt, NAS-like sizes) with few iterations (a trace's shape does
# not depend on them, replay time does).
scaling_iters() {  # PROGRAM RANKS
  case "$1:$2" in
    halo3d:*) echo 5 ;;
    cg:128) echo 10 ;;
    cg:256) echo 5 ;;
    cg:*) echo 3 ;;
    lu:*) echo 1 ;;
    mg:*) echo 2 ;;
  esac
}
scales=(1 10)

results="$out/results.txt"
doc_only=""; [ "${1:-}" = --doc-only ] && doc_only=yes
[ -z "$doc_only" ] || [ -s "$results" ] || { echo "run.sh: no results in $results (run without --doc-only first)" >&2; exit 2; }
start=$(now)
if [ -z "$doc_only" ]; then
  : > "$results"
  # The code measured: the commit at the start (kept for --doc-only), and
  # whether the tree had changes.
  commit=$(short_commit)
  git -C "$root" diff --quiet HEAD -- || commit="$commit+changes"
  echo "$commit" > "$out/commit.txt"
  for entry in "${machines[@]}"; do
    IFS='|' read -r name machine ppn ranks programs <<< "$entry"
    if [ -n "${SCALING_MACHINES:-}" ] && [[ " $SCALING_MACHINES " != *" $name "* ]]; then continue; fi
    [ -n "${SCALING_PROGRAMS:-}" ] && programs=$SCALING_PROGRAMS
    m="$out/$name"; mkdir -p "$m"
    block_mapping "$ranks" "$machine" "$ppn" "$m/block.map"
    "$sim" platform -m "$machine" -o "$m/platform.xml"
    "$sim" hostfile "$m/block.map" -o "$m/hosts.txt"
    diameter=$("$torus" -m "$machine" | sed -n 's/^diameter *\([0-9]*\) hops.*/\1/p')
    for prog in $programs; do
      d="$m/$prog"; rm -rf "$d"; mkdir -p "$d"
      t0=$(now)
      args=$(example_args "$prog" "$ranks" "$(scaling_iters "$prog" "$ranks")")
      # shellcheck disable=SC2086
      smpirun -trace-ti -trace-file "$d/t1.txt" --cfg=smpi/simulate-computation:yes --cfg=smpi/host-speed:1e9f \
        --log=root.thres:warning -np "$ranks" -platform "$m/platform.xml" -hostfile "$m/hosts.txt" \
        "$build/examples/smpi/$prog" $args < /dev/null > "$d/record.log" 2>&1 ||
        { cat "$d/record.log" >&2; exit 1; }
      grep -q "check=ok" "$d/record.log" || { echo "run.sh: $prog failed its check on $name" >&2; exit 1; }
      python3 "$root/bench/scaling/scale_compute.py" "$d/t1.txt" 10 "$d/t10.txt"
      "$sim" profile --trace "$d/t1.txt" -o "$d/app.prof"
      "$rankmap" map -q --no-bound -p "$d/app.prof" -m "$machine" --ppn "$ppn" -o "$d/rankmap.map" > /dev/null
      "$rankmap" evaluate -q --no-bound --json -p "$d/app.prof" "$m/block.map" "$d/rankmap.map" > "$d/evaluate.json"
      model=$(python3 -c 'import json,sys; print(1 + json.load(open(sys.argv[1]))[1]["predicted_comm_time_change"])' "$d/evaluate.json")
      for k in "${scales[@]}"; do
        "$sim" compare -q "$m/block.map" "$d/rankmap.map" --trace "$d/t$k.txt" > "$d/compare-$k.out"
        row() { awk -v f="$1" '$1 == f && NF == 6' "$d/compare-$k.out"; }
        b=$(row "$m/block.map") r=$(row "$d/rankmap.map")
        # name|machine|ranks|diameter|program|scale|block comm|block app|rankmap comm|rankmap app|model ratio|seconds
        echo "$name|$machine|$ranks|$diameter|$prog|$k|$(echo "$b" | awk '{ print $2 }')|$(echo "$b" | awk '{ print $4 }')|$(echo "$r" | awk '{ print $2 }')|$(echo "$r" | awk '{ print $4 }')|$model|$(seconds_since "$t0")" >> "$results"
      done
      log "$name $prog: $(tail -n 2 "$results" | tr '\n' ' ')"
    done
  done
fi
commit=$(cat "$out/commit.txt")
elapsed=$(seconds_since "$start")
[ -n "$doc_only" ] && elapsed=$(cat "$out/elapsed.txt") || echo "$elapsed" > "$out/elapsed.txt"

section="$out/section.md"
python3 - "$results" "$section" "$svg" "$commit" "$elapsed" "$doc_only" <<'PY'
import sys, platform, os
results, section, svg_path, commit, elapsed, doc_only = sys.argv[1:7]
T_INJ, T_HOP = 850e-9, 129e-9
rows = []
for line in open(results):
    f = line.rstrip("\n").split("|")
    name, machine, ranks, diam, prog, k = f[0], f[1], int(f[2]), int(f[3]), f[4], int(f[5])
    bc, ba, rc, ra, model, secs = (float(x) for x in f[6:12])
    p = min(1.0, bc / ba)
    comm = rc / bc
    app = ra / ba
    rows.append(dict(name=name, ranks=ranks, diam=diam, prog=prog, k=k, p=p, comm=comm, app=app, model=model,
                     est=(1 - p) + p * comm, est_model=(1 - p) + p * model, secs=secs))
def seed_gain(p, d):  # docs/torus.md: the seed paper's model
    return p * T_HOP * (d - 1) / (T_INJ + T_HOP * d)
def pct(ratio):  # time ratio -> gain in percent (positive: faster)
    return "%+.1f%%" % (100 * (1 - ratio))
machines = []
for r in rows:
    if r["name"] not in machines:
        machines.append(r["name"])
out = []
w = out.append
w("## What the user gains: communication and whole application, four machines")
w("")
w("Measured by `bench/scaling/run.sh` (commit %s, %s, 2 shared cores, SimGrid 3.32, %s s)." % (commit, platform.machine(), elapsed))
w("Each program is recorded once with its computation (`smpirun -trace-ti`, `simulate-computation:yes`, host speed 1 Gf) on the")
w("launcher's block placement and replayed by `rankmap-sim compare` on block and on the default's mapping of the trace's profile,")
w("communication only and as a whole application; `x10` is the same trace with every compute action x10")
w("(`bench/scaling/scale_compute.py`: an application with 10x the arithmetic in the same places). Gains are 1 - time / block's")
w("time (positive: faster). *p* = block's comm-only / whole-app replay time, the replay's stand-in for a profile's p_mpi.")
w("*estimate* = 1 - ((1-p) + p x comm ratio), with the replayed comm ratio; *estimate, model* the same with the time model's")
w("ratio (`rankmap evaluate`, `predicted_comm_time_change`); *seed* the seed paper's model at the same p (docs/torus.md:")
w("p x t_hop (d-1) / (t_inj + t_hop d), d = diameter).")
w("")
w("| machine | ranks | d | program | compute | p | comm gain, replay | comm gain, model | app gain, replay | estimate | estimate, model | seed | s |")
w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for r in rows:
    w("| %s | %d | %d | %s | %s | %.3f | %s | %s | %s | %s | %s | %+.1f%% | %.0f |" % (
        r["name"], r["ranks"], r["diam"], r["prog"], "x1" if r["k"] == 1 else "x%d" % r["k"], r["p"], pct(r["comm"]),
        pct(r["model"]), pct(r["app"]), pct(r["est"]), pct(r["est_model"]), 100 * seed_gain(r["p"], r["diam"]), r["secs"]))
w("")
# Summary per machine: mean gains.
w("Mean over the programs, per machine (comm gain does not depend on the compute scale):")
w("")
w("| machine | ranks | d | comm gain, replay | seed, comm only | app gain x1 (p) | estimate x1 | app gain x10 (p) | estimate x10 |")
w("|---|---|---|---|---|---|---|---|---|")
summary = {}
for mname in machines:
    rs = [r for r in rows if r["name"] == mname]
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")
    r1 = [r for r in rs if r["k"] == 1]
    r10 = [r for r in rs if r["k"] == 10]
    s = dict(ranks=rs[0]["ranks"], d=rs[0]["diam"], comm=mean([1 - r["comm"] for r in r1]),
             seed=seed_gain(1, rs[0]["diam"]), app1=mean([1 - r["app"] for r in r1]), p1=mean([r["p"] for r in r1]),
             est1=mean([1 - r["est"] for r in r1]), app10=mean([1 - r["app"] for r in r10]),
             p10=mean([r["p"] for r in r10]), est10=mean([1 - r["est"] for r in r10]))
    summary[mname] = s
    w("| %s | %d | %d | %+.1f%% | %+.1f%% | %+.1f%% (%.2f) | %+.1f%% | %+.1f%% (%.2f) | %+.1f%% |" % (
        mname, s["ranks"], s["d"], 100 * s["comm"], 100 * s["seed"], 100 * s["app1"], s["p1"], 100 * s["est1"],
        100 * s["app10"], s["p10"], 100 * s["est10"]))
w("")
w("![gains against machine size](scaling.svg)")
w("")
out_text = "\n".join(out) + "\n"
open(section, "w").write(out_text)

# The plot: gain (%) against nodes' diameter, one point per program and
# machine; comm-only replay, whole-app x1 and x10, and the seed curve at p=1.
W, H, L, R, TOP, B = 720, 420, 60, 170, 30, 50
ds = sorted({r["diam"] for r in rows})
xmin, xmax = min(ds) - 1, max(ds) + 1
gains = [100 * (1 - r["comm"]) for r in rows] + [100 * (1 - r["app"]) for r in rows] + [100 * seed_gain(1, d) for d in ds]
ymin, ymax = min(-5.0, min(gains) - 5), max(gains) + 5
X = lambda d: L + (d - xmin) / (xmax - xmin) * (W - L - R)
Y = lambda g: TOP + (ymax - g) / (ymax - ymin) * (H - TOP - B)
s = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (W, H),
     '<rect width="100%" height="100%" fill="white"/>',
     '<text x="%d" y="18" font-size="14">Gain of the default mapping over block, by torus diameter (replay, SimGrid)</text>' % L]
for g in range(int(ymin // 10 * 10), int(ymax) + 1, 10):
    s.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (L, W - R, Y(g), Y(g)))
    s.append('<text x="%d" y="%.1f" text-anchor="end">%d%%</text>' % (L - 6, Y(g) + 4, g))
s.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#888"/>' % (L, W - R, Y(0), Y(0)))
labels = {}
for r in rows:
    labels.setdefault(r["diam"], r["name"])
for d in ds:
    s.append('<text x="%.1f" y="%d" text-anchor="middle" font-size="11">%s</text>' % (X(d), H - B + 14, labels[d]))
    s.append('<text x="%.1f" y="%d" text-anchor="middle" font-size="11">d=%d</text>' % (X(d), H - B + 27, d))
s.append('<text x="%d" y="%d" text-anchor="middle">machine (torus diameter d)</text>' % ((L + W - R) // 2, H - 4))
# seed curve, comm only (p = 1)
pts = " ".join("%.1f,%.1f" % (X(d / 4), Y(100 * seed_gain(1, d / 4))) for d in range(max(4, int(xmin * 4)), int(xmax * 4) + 1))
s.append('<polyline points="%s" fill="none" stroke="#999" stroke-dasharray="5,4"/>' % pts)
series = [("comm only, replay", "#0077b6", lambda r: r["k"] == 1, lambda r: 1 - r["comm"]),
          ("whole app x1, replay", "#e85d04", lambda r: r["k"] == 1, lambda r: 1 - r["app"]),
          ("whole app x10, replay", "#2a9d8f", lambda r: r["k"] == 10, lambda r: 1 - r["app"])]
for i, (label, colour, keep, value) in enumerate(series):
    for r in rows:
        if keep(r):
            s.append('<circle cx="%.1f" cy="%.1f" r="4" fill="%s" fill-opacity="0.8"><title>%s %s: %+.1f%%</title></circle>' % (
                X(r["diam"]) + (i - 1) * 9, Y(100 * value(r)), colour, r["name"], r["prog"], 100 * value(r)))
    s.append('<circle cx="%d" cy="%d" r="4" fill="%s"/><text x="%d" y="%d">%s</text>' % (W - R + 12, TOP + 20 + 18 * i, colour, W - R + 22, TOP + 24 + 18 * i, label))
s.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#999" stroke-dasharray="5,4"/><text x="%d" y="%d">seed model, p = 1</text>' % (
    W - R + 6, W - R + 18, TOP + 74, TOP + 74, W - R + 22, TOP + 78))
s.append("</svg>")
open(svg_path, "w").write("\n".join(s) + "\n")
PY
discussion="$root/bench/scaling/discussion.md"
[ -f "$discussion" ] && { echo; cat "$discussion"; } >> "$section"
write_doc_section scaling "$section"
log "wrote the scaling section of $doc and $svg"
