#!/bin/sh
# Runs a real launcher with the files and the launch line rankfile-gen
# printed, and checks that every rank ran on its mapped (fake) host, bound to
# its mapped core, exactly.
#
# launch_test.sh MODE RANKFILE_GEN BIN_DIR REPORT FAKESSH MAPPING WORK
#   MODE: mpich       MPICH mpiexec, Hydra's own binding (-bind-to user:)
#         bind-mpich  MPICH mpiexec, binding by rankmap-bind
#         openmpi     Open MPI mpirun with the rankfile
#   BIN_DIR holds rankmap-bind; REPORT prints "rank host cpu-list".
#
# The expected CPUs come from hwloc-calc on this machine (the mapped logical
# core's PUs, as OS numbers), not from rankmap code.
set -eu
mode=$1 gen=$2 bindir=$3 report=$4 fakessh=$5 mapping=$6 work=$7

rm -rf "$work"
mkdir -p "$work"
cd "$work"
export RANKMAP_FAKESSH_TMP="$work"
PATH="$bindir:$PATH"
export PATH

case $mode in
  mpich | bind-mpich) format=mpich ;;
  openmpi) format=openmpi ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac

"$gen" --format "$format" -o "$work/run" --app "$report" "$mapping" > printed.txt
cat printed.txt
# The launch line is the first line that is not a comment.
command=$(grep -v '^#' printed.txt | head -n 1)

case $mode in
  mpich)
    case $command in *"-bind-to user:"*) ;; *) echo "FAIL: expected Hydra's own binding, got: $command" >&2; exit 1 ;; esac
    launcher="mpiexec.mpich -launcher ssh -launcher-exec $fakessh"
    command=$(printf '%s' "$command" | sed "s|^mpiexec |$launcher |") ;;
  bind-mpich)
    case $command in *"rankmap-bind "*) ;; *) echo "FAIL: expected the bind helper, got: $command" >&2; exit 1 ;; esac
    launcher="mpiexec.mpich -launcher ssh -launcher-exec $fakessh"
    command=$(printf '%s' "$command" | sed "s|^mpiexec |$launcher |") ;;
  openmpi)
    # The program must really be an Open MPI program (mpicc.openmpi can
    # silently pick up MPICH when both are installed).
    if ! ldd "$report" | grep -q 'libmpi\.so\.40'; then echo "FAIL: $report does not link Open MPI's libmpi.so.40" >&2; exit 1; fi
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    # The fake hosts are one machine: keep shared memory out of it (their
    # /dev/shm segment names would collide) and use TCP between ranks.
    launcher="mpirun.openmpi --allow-run-as-root --mca plm_rsh_agent $fakessh --mca btl self,tcp"
    command=$(printf '%s' "$command" | sed "s|^mpirun |$launcher |") ;;
esac
echo "running: $command"
status=0
sh -c "$command" > ranks.out 2> launcher.err || status=$?
if [ "$status" -ne 0 ]; then
  echo "FAIL: launcher exited with $status" >&2
  cat launcher.err >&2
  exit 1
fi

# Expected "rank host cpu-list" from the mapping's rank lines.
awk '!/^#/ && NF == 4 && $1 ~ /^[0-9]+$/ { print $1, $3, $4 }' "$mapping" |
  while read -r rank host core; do
    echo "$rank $host $(hwloc-calc --physical-output --intersect PU "core:$core")"
  done > expected.txt
sort -n ranks.out > got.txt
echo "expected:"; cat expected.txt
if ! diff -u expected.txt got.txt; then
  echo "FAIL: ranks did not land where the mapping put them" >&2
  cat launcher.err >&2
  exit 1
fi
if grep -q 'rankmap-bind' launcher.err; then
  echo "FAIL: rankmap-bind complained:" >&2
  cat launcher.err >&2
  exit 1
fi
echo "PASS: $(wc -l < got.txt) ranks on their mapped hosts and cores ($mode)"
