#!/usr/bin/env bash
# Trace mode on one of the profiler's other test programs:
#   EXPECT=complete  the trace is complete, matches the profile (trace_check)
#                    and replays in SimGrid (persistent requests, Fortran
#                    bindings that reach the C wrappers);
#   EXPECT=<text>    tracing stops with a message containing <text> (bindings
#                    the trace cannot see), no index, and the run and the
#                    profile are as without tracing.
# Usage: trace_other.sh BUILD_DIR WORKDIR mpich|openmpi NP PROGRAM TRACE_CHECK EXPECT
set -euo pipefail
build=$1 work=$2 mpi=$3 np=$4 program=$5 check=$6 expect=$7
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ "$mpi" = openmpi ]; then launch=(mpirun.openmpi --oversubscribe --bind-to none -n "$np"); else launch=(mpiexec.mpich -n "$np"); fi
run="$build/libcommprof/commprof-run"
"$run" --yield -o plain.prof -- "${launch[@]}" "$program" < /dev/null > plain.log 2>&1 || fail "the untraced run failed"
"$run" --yield -o app.prof --trace trace -- "${launch[@]}" "$program" < /dev/null > run.log 2> run.err ||
  { cat run.err >&2; fail "the traced run failed"; }
diff <(grep -v '^rank ' plain.prof) <(grep -v '^rank ' app.prof) > /dev/null || fail "tracing changed the profile"
if [ "$expect" = complete ]; then
  [ -s trace/trace.txt ] && [ ! -e trace/INCOMPLETE ] || fail "incomplete trace: $(cat run.err)"
  "$check" app.prof trace/trace.txt || fail "trace and profile differ"
  "$build/mapper/rankmap" synth --pattern ring --ranks "$np" -o ring.prof -q
  "$build/mapper/rankmap" map -q -p ring.prof -m desmos --ppn 4 --algorithm block -o block.map > /dev/null
  "$build/simulation/rankmap-sim" replay -q --trace trace/trace.txt -m desmos block.map > replay.out 2>&1 ||
    { cat replay.out >&2; fail "replay failed"; }
  echo "complete trace of $(basename "$program"), checked and replayed"
else
  grep -qF "$expect" run.err || fail "expected a message with '$expect', got: $(cat run.err)"
  [ ! -e trace/trace.txt ] || fail "a stopped trace has an index"
  [ -s trace/INCOMPLETE ] || fail "no INCOMPLETE marker"
  echo "tracing of $(basename "$program") stopped as expected; run and profile unchanged"
fi
