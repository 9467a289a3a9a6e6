#!/usr/bin/env bash
# rankmap-sim compare (issue 16), end to end on halo3d with computation at 32
# ranks on desmos (4 per node):
#   --record   records the program once on the first mapping with its
#              computation (simulate-computation:yes at --host-speed), then
#              replays the trace on every mapping, comm-only and whole-app;
#   --trace    replays a recorded trace: identical numbers on every re-run;
#   the estimate column is (1 - p) + p x comm-only ratio, p the baseline's
#   comm-only / whole-app share, or the profile's p_mpi with -p;
#   bad usage exits 2 with one line.
# Usage: compare_cli.sh RANKMAP RANKMAP_SIM SMPI_EXAMPLES_DIR
set -euo pipefail
rankmap=$1 sim=$2 examples=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/rankmap-compare-cli.XXXXXX")
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }

"$rankmap" synth -q --pattern stencil3d --ranks 32 -o s.prof
"$rankmap" map -q -p s.prof -m desmos --ppn 4 --algorithm block -o block.map > /dev/null
"$rankmap" map -q -p s.prof -m desmos --ppn 4 --algorithm round-robin -o rr.map > /dev/null
app=("$examples/halo3d" --px 4 --py 4 --pz 2 --iters 5 --compute 8)

# Record once (with computation), replay on both; progress on stderr.
"$sim" compare block.map rr.map --record rec/halo.txt -- "${app[@]}" > record.out 2> record.err ||
  { cat record.err >&2; fail "compare --record"; }
[ -s rec/halo.txt ] && [ -d rec/halo.txt_files ] || fail "no trace written"
grep -q "^rankmap-sim: recording rec/halo.txt on block.map (with computation) ...$" record.err || fail "progress: $(cat record.err)"
grep -q "^rankmap-sim: \[4/4\] rr.map (whole-app): " record.err || fail "progress of the last replay: $(cat record.err)"
grep -Eq "^trace rec/halo.txt: 32 ranks, [0-9]+ actions, 960 point-to-point messages, 23592960 bytes, 288 collectives, [1-9][0-9]* compute actions" record.out ||
  fail "trace summary: $(cat record.out)"
# smpi/host-speed follows --host-speed in the recording and the replay: the
# whole-application replay on the recording's placement takes the recording
# run's own simulated time within 1e-4 (measured: 3e-5; a host-speed mismatch would be a factor).
recorded=$(sed -n 's/.*the recording run took \([^ ]*\) s simulated.*/\1/p' record.err)
base_app=$(awk '$1 == "block.map" { print $4 }' record.out)
awk -v a="$recorded" -v b="$base_app" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a > 0 && d / a < 1e-4) }' ||
  fail "whole-app replay on block ($base_app s) differs from the recording run ($recorded s)"

# Re-run on the recorded trace: the same numbers, to the last digit.
"$sim" compare -q block.map rr.map --trace rec/halo.txt > again1.out
"$sim" compare -q block.map rr.map --trace rec/halo.txt > again2.out
cmp again1.out again2.out || fail "compare is not deterministic: $(diff again1.out again2.out)"
cmp record.out again1.out || fail "replays of the recorded trace differ from the recording's: $(diff record.out again1.out)"

# The columns: ratios to the first mapping; the estimate from p = comm / app of the baseline.
awk '$1 == "block.map" { exit !($3 == "1.0000" && $5 == "1.0000" && $6 == "1.0000") }' again1.out || fail "baseline row: $(cat again1.out)"
python3 - again1.out <<'PY' || fail "estimate column: $(cat again1.out)"
import sys
rows = {l.split()[0]: l.split() for l in open(sys.argv[1]) if len(l.split()) == 6 and l.split()[0].endswith(".map")}
b, r = rows["block.map"], rows["rr.map"]
p = float(b[1]) / float(b[3])
comm = float(r[1]) / float(b[1])
assert abs(float(r[2]) - comm) < 1e-4, (r, comm)
assert abs(float(r[4]) - float(r[3]) / float(b[3])) < 1e-4, r
assert abs(float(r[5]) - ((1 - p) + p * comm)) < 1e-4, (r, p, comm)
line = [l for l in open(sys.argv[1]) if l.startswith("estimate: ")][0]
assert line == "estimate: (1 - p) + p x comm-only ratio, p = %.4f (comm-only / whole-app of block.map)\n" % p, line
PY
grep -Eq "^rr.map vs block.map: communication [−+][0-9.]+% \(replay\), application [−+][0-9.]+% \(replayed\)$" again1.out ||
  fail "outlook line: $(cat again1.out)"

# -p: the profile's p_mpi (every rank wall=10 mpi=5: 0.5) in the estimate.
sed 's/ wall=0 mpi=0/ wall=10 mpi=5/' s.prof > timed.prof
"$sim" compare -q block.map rr.map --trace rec/halo.txt -p timed.prof > timed.out
grep -q "^estimate: (1 - p) + p x comm-only ratio, p = 0.5000 (p_mpi of timed.prof)$" timed.out || fail "-p: $(cat timed.out)"
awk '$1 == "rr.map" { e = 0.5 + 0.5 * $3; d = e - $6; if (d < 0) d = -d; exit !(d < 1e-4) }' timed.out || fail "-p estimate: $(cat timed.out)"

# --comm-only: no whole-application column, no estimate without p.
"$sim" compare -q --comm-only block.map rr.map --trace rec/halo.txt > comm.out
grep -Eq "^rr.map +[0-9.e-]+ +[0-9.]+ +- +- +-$" comm.out || fail "--comm-only row: $(cat comm.out)"
grep -q "^estimate: none (--comm-only; give -p PROFILE for its p_mpi)$" comm.out || fail "--comm-only estimate: $(cat comm.out)"

# rankmap map --trace on a trace with computation decides on, and leads
# with, the replayed whole application (block is one of its candidates).
"$sim" profile --trace rec/halo.txt -o halo.prof
"$rankmap" map -p halo.prof -m desmos --ppn 4 --trace rec/halo.txt -o chosen.map > map.out 2> map.err ||
  { cat map.err >&2; fail "map --trace"; }
grep -q "^replayed rec/halo.txt (whole-app), 32 ranks:$" map.out || fail "map --trace mode: $(cat map.out)"
grep -Eq "^rankmap vs block: communication (0|[−+][0-9.]+)% \(time model\), application (0|[−+][0-9.]+)% \(replayed\)$" map.out ||
  fail "map --trace outlook: $(grep -A1 '^rankmap vs' map.out)"
grep -Eq "^application change +ratio-1 +0 +-?[0-9.e-]+ *$" map.out || fail "application change row: $(grep '^application' map.out)"

# Bad usage: exit 2, one line.
bad() {  # expected-message args...
  local want=$1; shift
  set +e; "$sim" compare "$@" > out.txt 2> err.txt; local status=$?; set -e
  expect_eq "$status" 2 "exit status of compare $*"
  expect_eq "$(cat err.txt)" "$want" "message of compare $*"
}
bad "rankmap-sim: compare needs either --trace INDEX (a recorded trace) or --record INDEX -- PROGRAM [ARGS...]" block.map rr.map
bad "rankmap-sim: --record needs the program after --: --record INDEX -- PROGRAM [ARGS...]" block.map --record x.txt
bad "rankmap-sim: s.prof: the profile has no MPI time (wall=0 on every rank)" block.map --trace rec/halo.txt -p s.prof
"$rankmap" synth -q --pattern ring --ranks 64 -o r64.prof
"$rankmap" map -q -p r64.prof -m desmos --ppn 4 --algorithm block -o b64.map > /dev/null
bad "rankmap-sim: b64.map: places 64 ranks but block.map places 32" block.map b64.map --trace rec/halo.txt
# A program that fails while recorded: exit 1, as rankmap-sim run.
set +e; "$sim" compare -q block.map --record failed/t.txt -- "$examples/halo3d" --bogus 1 > out.txt 2> err.txt; status=$?; set -e
expect_eq "$status" 1 "exit status when the recorded program fails"
grep -q "^rankmap-sim: recording failed (smpirun exit status " err.txt || fail "recording failure: $(cat err.txt)"
"$sim" compare --help | grep -q "^Usage: rankmap-sim compare" || fail "compare --help"
expect_eq "$("$sim" compare --version)" "rankmap-sim (rankmap) $("$sim" --version | awk '{ print $3 }')" "compare --version"
bad "rankmap-sim: unknown option '--no-such-flag' (see rankmap-sim --help)" block.map --trace rec/halo.txt --no-such-flag
echo "compare_cli: ok"
