#!/usr/bin/env bash
# Issue 19's fidelity check on a mini-app: the trace libcommprof records from
# a real MPICH run, replayed communication-only on a block placement of desmos,
# takes the simulated time of a direct SMPI run of the same program on that
# placement within 1%, and carries exactly the profile's traffic.
#   trace_vs_smpi.sh BUILD_DIR WORKDIR NP EXAMPLE ARGS...
set -euo pipefail
build=$1 work=$2 np=$3 ex=$4; shift 4
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
"$build/mapper/rankmap" synth --pattern ring --ranks "$np" -o placeholder.prof -q
"$build/mapper/rankmap" map -q -p placeholder.prof -m desmos --ppn 4 --algorithm block -o block.map > /dev/null
"$build/libcommprof/commprof-run" --yield -o native.prof --trace trace -- \
  mpiexec.mpich -n "$np" "$build/examples/$ex" "$@" < /dev/null > native.log 2> native.err ||
  { cat native.err >&2; fail "the traced run failed"; }
grep -q "check=ok" native.log || fail "$ex did not check: $(cat native.log)"
"$build/simulation/rankmap-sim" profile --trace trace/trace.txt -o from-trace.prof
diff <(grep '^p2p ' native.prof | sort) <(grep '^p2p ' from-trace.prof | sort) > /dev/null ||
  fail "the trace's traffic differs from the profile's"
"$build/simulation/rankmap-sim" replay -q --comm-only --trace trace/trace.txt -m desmos block.map > replay.out
replayed=$(awk '$1 == "block.map" { print $2 }' replay.out)
"$build/simulation/rankmap-sim" run --mapping block.map -- "$build/examples/smpi/$ex" "$@" < /dev/null > direct.log 2>&1 ||
  { cat direct.log >&2; fail "the direct SMPI run failed"; }
direct=$(sed -n 's/^simulated_time=\([^ ]*\).*/\1/p' direct.log)
[ -n "$replayed" ] && [ -n "$direct" ] || fail "no times: replay '$replayed', direct '$direct'"
awk -v r="$replayed" -v d="$direct" 'BEGIN { x = r / d; exit !(x > 0.99 && x < 1.01) }' ||
  fail "replay $replayed s against direct SMPI $direct s: more than 1% apart"
echo "$ex at $np ranks: replayed trace $replayed s, direct SMPI run $direct s, traffic equal to the profile's"
