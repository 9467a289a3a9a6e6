#!/usr/bin/env bash
# libcommprof's trace mode on a real MPI run (issue 19):
#  1. commprof-run --trace: the trace is complete (index, one file per rank,
#     no temporary file left) and trace_check finds the profile's exact
#     traffic in it, every MPI_ANY_SOURCE receive naming its real sender,
#     every request completed, the profile's collectives, the compute gaps;
#  2. it replays in SimGrid (rankmap-sim replay, comm-only and whole-app) on
#     a block placement of desmos and on the placement it was recorded with
#     (all ranks on one host: machine "torus=1 node=core:NP");
#  3. with a size cap of 512 bytes tracing stops: one message for the job
#     (from rank 0, at the end), no index, INCOMPLETE, and the run's exit
#     status and profile are unchanged;
#  4. a collective on an intercommunicator stops tracing the same way
#     (those of a split communicator are written as their messages: 1.);
#  5. so does a trace directory that cannot be created.
# Usage: trace_test.sh BUILD_DIR WORKDIR mpich|openmpi APP NP TRACE_CHECK
set -euo pipefail
build=$1 work=$2 mpi=$3 app=$4 np=$5 check=$6
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
run="$build/libcommprof/commprof-run"
if [ "$mpi" = openmpi ]; then
  launch=(mpirun.openmpi --oversubscribe --bind-to none -n "$np")
else
  launch=(mpiexec.mpich -n "$np")
fi

# 1. A traced run.
"$run" --yield -o app.prof --trace trace -- "${launch[@]}" "$app" < /dev/null > run.log 2> run.err ||
  { cat run.err >&2; fail "the traced run failed"; }
grep -q "trace_app: $np ranks done" run.log || fail "the application did not finish: $(cat run.log)"
grep -q commprof run.err && fail "messages from the profiler: $(grep commprof run.err)"
[ -s trace/trace.txt ] || fail "no trace index"
[ ! -e trace/INCOMPLETE ] || fail "trace marked incomplete: $(cat trace/INCOMPLETE)"
[ "$(wc -l < trace/trace.txt)" = "$np" ] || fail "index: $(cat trace/trace.txt)"
ls trace/*.tmp > /dev/null 2>&1 && fail "temporary files left: $(ls trace)"
"$check" app.prof trace/trace.txt --min-compute 0.007 || fail "trace and profile differ"
# The split communicator's collectives (two halves of 4 at 8 ranks), written
# as the messages of MPICH's algorithms: isends per operation, over all ranks
# (reduce-scatter: recursive halving, 2 per member per call, two calls;
# allgatherv: recursive doubling, 2 per member).
if [ "$np" = 8 ]; then
  got=$(cat trace/rank-*.txt | awk '/^# commprof-collective / { op = ($3 == "end") ? "" : $3; next }
    op != "" && $2 == "isend" { n[op]++ } END { for (k in n) printf "%s=%d\n", k, n[k] }' | sort | tr '\n' ' ')
  want="allgather=16 allgatherv=16 allreduce=48 alltoall=24 alltoallv=24 barrier=16 bcast=6 gather=6 gatherv=6 reduce=6 reducescatter=32 scatter=6 scatterv=6 "
  [ "$got" = "$want" ] || fail "sub-communicator collectives as messages: got '$got', want '$want'"
fi

# 2. Replay in SimGrid.
"$build/mapper/rankmap" synth --pattern ring --ranks "$np" -o ring.prof -q
"$build/mapper/rankmap" map -q -p ring.prof -m desmos --ppn 4 --algorithm block -o block.map > /dev/null
"$build/simulation/rankmap-sim" replay -q --trace trace/trace.txt -m desmos block.map > replay.out 2> replay.err ||
  { cat replay.err >&2; fail "replay failed"; }
grep -Eq "^block.map +[0-9.e+-]+ +1.0000 +[0-9.e+-]+ +1.0000$" replay.out || fail "replay output: $(cat replay.out)"
grep -Eq "^trace trace/trace.txt: $np ranks, .* [1-9][0-9]* compute actions" replay.out || fail "replay summary: $(cat replay.out)"
# ... and on the placement it was recorded with: every rank on one host.
one_host="torus=1 node=core:$np"
"$build/mapper/rankmap" map -q -p ring.prof -m "$one_host" --algorithm block -o recorded.map > /dev/null
"$build/simulation/rankmap-sim" replay -q --trace trace/trace.txt -m "$one_host" recorded.map > recorded.out 2> recorded.err ||
  { cat recorded.err >&2; fail "replay on the recorded placement failed"; }
grep -Eq "^recorded.map +[0-9.e+-]+ +1.0000 +[0-9.e+-]+ +1.0000$" recorded.out || fail "replay output: $(cat recorded.out)"

# 3. The size cap.
COMMPROF_TRACE_MAX_MB=0.0005 "$run" --yield -o capped.prof --trace capped -- "${launch[@]}" "$app" < /dev/null \
  > capped.log 2> capped.err || fail "the capped run failed (it must not: only the trace stops)"
grep -q "trace_app: $np ranks done" capped.log || fail "capped run did not finish"
[ ! -e capped/trace.txt ] || fail "a capped trace has an index"
grep -q "incomplete" capped/INCOMPLETE || fail "no INCOMPLETE marker"
[ "$(grep -c commprof capped.err)" = 1 ] && grep -q "^commprof: trace in .*/capped is incomplete ($np of $np ranks stopped tracing; rank 0: the trace reached its size cap of 0.0005 MiB per rank (COMMPROF_TRACE_MAX_MB)); no index written, the profile is not affected$" capped.err ||
  fail "expected one message naming the cap: $(cat capped.err)"
diff <(grep -v '^rank ' app.prof) <(grep -v '^rank ' capped.prof) > /dev/null || fail "the cap changed the profile"

# 4. A collective the trace cannot express: on an intercommunicator.
"$run" --yield -o sub.prof --trace sub -- "${launch[@]}" "$app" --intercomm-barrier < /dev/null > sub.log 2> sub.err ||
  fail "the run with an intercommunicator barrier failed"
grep -q "trace_app: $np ranks done" sub.log || fail "intercommunicator run did not finish"
[ "$(grep -c commprof sub.err)" = 1 ] && grep -q "rank 0: MPI_Barrier on an intercommunicator" sub.err ||
  fail "expected one refusal message: $(cat sub.err)"
[ ! -e sub/trace.txt ] || fail "a refused trace has an index"
diff <(grep '^p2p ' app.prof) <(grep '^p2p ' sub.prof) > /dev/null || fail "the refusal changed the profile's traffic"
# 5. A trace directory that cannot be created: the same, with its reason.
touch not-a-directory
"$run" --yield -o nodir.prof --trace not-a-directory -- "${launch[@]}" "$app" < /dev/null > nodir.log 2> nodir.err ||
  fail "the run with an unusable trace directory failed"
grep -q "trace_app: $np ranks done" nodir.log || fail "run with an unusable trace directory did not finish"
[ "$(grep -c commprof nodir.err)" = 1 ] && grep -q "cannot create the directory .*/not-a-directory: Not a directory" nodir.err ||
  fail "expected one message about the directory: $(cat nodir.err)"
diff <(grep -v '^rank ' app.prof) <(grep -v '^rank ' nodir.prof) > /dev/null || fail "the unusable directory changed the profile"
echo "trace mode ($mpi, $np ranks): complete trace checked and replayed; cap, refusal and a bad directory leave run and profile intact"
