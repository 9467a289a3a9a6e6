#!/bin/sh
# Relaunch under a real Slurm cluster (issue 12): starts a 4-node Slurm 22.05
# cluster on this machine (tests/slurm/cluster.sh; each node in its own UTS
# and, where possible, network namespace), maps a profile onto a
# 4-node machine whose hosts are the slurmd node names, runs the launch line
# rankfile-gen prints for Slurm, and the batch script it writes, and checks
# that every rank ran on its mapped host, bound to exactly its mapped core.
#
# slurm_launch_test.sh RANKMAP RANKFILE_GEN BIN_DIR PROBE MPI_PROBE WORK
#   BIN_DIR holds rankmap-bind; PROBE prints "rank host cpu-list" (rank from
#   SLURM_PROCID); MPI_PROBE is the same program built with MPICH (rank from
#   MPI_Comm_rank), or "-" to leave MPI out.
#
# Exit 77 (CTest SKIP_RETURN_CODE) only when UTS namespaces are denied (not
# root, or a container without CAP_SYS_ADMIN). Every process the cluster
# started is stopped by PID at exit, also on failure; if any is left, the
# test fails.
#
# The expected host is the mapping's; the expected CPUs come from hwloc-calc
# on this machine (the mapped logical core's PUs as OS numbers), not from
# rankmap code.
set -eu
rankmap=$1 gen=$2 bindir=$3 probe=$4 mpi_probe=$5 work=$6
here=$(cd "$(dirname "$0")" && pwd)

if ! unshare -u true 2> /dev/null; then
  echo "SKIP: cannot create a UTS namespace here (unshare -u: $(unshare -u true 2>&1 | head -n 1)); the Slurm test needs root and namespaces"
  exit 77
fi

# Network namespaces where they can be made: the test re-executes itself in
# one of its own, where cluster.sh puts a bridge that links each slurmd's
# namespace (own address, 10.77.0.<i>). Elsewhere the slurmds share this
# machine's network (127.0.0.1, a port each); the checks are the same.
if [ -z "${RANKMAP_SLURM_NETNS:-}" ]; then
  if unshare -n sh -c 'ip link add rankmap-br type bridge && ip link add rankmap-a type veth peer name rankmap-b' 2> /dev/null; then
    RANKMAP_SLURM_NETNS=1 exec unshare -n sh "$0" "$@"
  fi
  echo "note: no network namespace with a bridge and veth pairs here: the slurmds share the machine's network"
  RANKMAP_SLURM_NETNS=0
fi
export RANKMAP_SLURM_NETNS

# Run under Slurm itself (a CI job in an allocation), the launcher variables
# of that outer job would steer srun/salloc/sbatch here: drop them all.
for var in $(env | sed -n 's/^\(\(SLURM\|SBATCH\|SALLOC\|SRUN\)_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$var"; done

rm -rf "$work"
mkdir -p "$work"
cd "$work"
PATH="$bindir:$PATH"
export PATH

# The cluster's state lives under /tmp: munge's socket path must stay short.
state=$(mktemp -d /tmp/rankmap-slurm.XXXXXX)
. "$here/cluster.sh"
finish() {
  status=$?
  trap - EXIT INT TERM
  if [ "$status" -ne 0 ] && [ -d "$state/log" ]; then
    echo "--- cluster logs (last lines) ---"
    tail -n 8 "$state"/log/* 2> /dev/null || true
  fi
  slurm_cluster_stop || { echo "FAIL: the cluster did not stop cleanly"; status=1; }
  rm -rf "$state"
  exit "$status"
}
trap finish EXIT
trap 'exit 130' INT TERM
fail() { echo "FAIL: $*" >&2; exit 1; }
# Every job runs under a time limit, so that a hung launch fails the test
# through the cleanup above instead of being killed by CTest's timeout
# (which would leave the daemons running).
limit=30

t0=$(date +%s)
slurm_cluster_start "$state"

# The machine: 4 nodes on a ring, each this machine's real node (hwloc XML, so
# OS CPU numbers in map_cpu are the real ones), named as the slurmd nodes.
lstopo-no-graphics --of xml > node.xml
printf 'node0 0\nnode1 1\nnode2 2\nnode3 3\n' > hosts
machine="torus=4 node-xml=$work/node.xml hosts=$work/hosts"

# mapping_file NAME "rank node host core"...: a hand-written mapping.
mapping_file() {
  name=$1
  shift
  {
    echo "rankmap-mapping 1"
    echo "machine $machine"
    echo "ranks $#"
    for line in "$@"; do echo "$line"; done
  } > "$name.map"
}
# Each node's two ranks far apart, cores in different orders: no single
# map_cpu list fits, so rankfile-gen prints the bind-helper line.
mapping_file interleaved "0 1 node1 1" "1 3 node3 0" "2 0 node0 0" "3 2 node2 1" \
  "4 1 node1 0" "5 0 node0 1" "6 3 node3 1" "7 2 node2 0"
# Nodes in the order 2 0 3 1, two consecutive ranks each on cores 1 then 0:
# one list (1,0) fits every node, so rankfile-gen prints --cpu-bind=map_cpu.
mapping_file runs "0 2 node2 1" "1 2 node2 0" "2 0 node0 1" "3 0 node0 0" \
  "4 3 node3 1" "5 3 node3 0" "6 1 node1 1" "7 1 node1 0"
# One rank on core 1 of three of the nodes: fewer ranks than CPUs, so the
# binding needs whole nodes (map_cpu:1 names a CPU no task asked for).
mapping_file sparse "0 3 node3 1" "1 0 node0 1" "2 2 node2 1"
# Mixed nodes (nodes=): node2 and node3 described with one core. Each host's
# ranks take its cores in order, so one list (0,1) fits every host.
uniform_machine=$machine
machine="$uniform_machine nodes=2-3:core:1"
mapping_file mixed "0 0 node0 0" "1 0 node0 1" "2 2 node2 0" "3 1 node1 0" "4 1 node1 1" "5 3 node3 0"
machine=$uniform_machine
# And the whole pipeline: a profile mapped by rankmap onto the same machine.
"$rankmap" synth -q --pattern stencil2d --ranks 8 -o s.prof
"$rankmap" map -q -p s.prof -m "$machine" --ppn 2 -o mapped.map > /dev/null

# expected MAPPING: "rank host cpu-list" per rank, from the mapping's rank lines.
expected() {
  awk '!/^#/ && NF == 4 && $1 ~ /^[0-9]+$/ { print $1, $3, $4 }' "$1" |
    while read -r rank host core; do
      echo "$rank $host $(hwloc-calc --physical-output --intersect PU "core:$core")"
    done
}

# check NAME MAPPING OUTPUT: every rank where the mapping put it, exactly.
check() {
  expected "$2" > "$1.expected"
  sort -n "$3" > "$1.got"
  if ! diff -u "$1.expected" "$1.got"; then
    cat "$1.err" 2> /dev/null || true
    fail "$1: ranks did not land where $2 put them"
  fi
  if grep -q 'rankmap-bind' "$1.err" 2> /dev/null; then fail "$1: rankmap-bind complained: $(cat "$1.err")"; fi
  echo "ok $1: $(wc -l < "$1.got") ranks on their mapped hosts and cores (at $(($(date +%s) - t0)) s)"
}

# launch MAPPING FORM APP: rankfile-gen --format slurm, check the printed
# line allocates whole nodes and has FORM (map_cpu or rankmap-bind), run it
# as printed, check.
launch() {
  map=$1 form=$2 app=$3
  name=$(basename "$map" .map)-$(basename "$app")
  "$gen" --format slurm -o "$work/$name" --app "$app" "$map" > "$name.printed"
  command=$(grep -v '^#' "$name.printed" | head -n 1)
  case $command in *" salloc --nodes="*" --exclusive srun --distribution=arbitrary "*) ;;
    *) fail "$name: no whole-node allocation in: $command" ;; esac
  case $command in *"$form"*) ;; *) fail "$name: expected $form in: $command" ;; esac
  echo "running: $command"
  timeout "$limit" sh -c "$command" > "$name.out" 2> "$name.err" ||
    fail "$name: the launch line exited with $? (124: over $limit s): $(cat "$name.err")"
  check "$name" "$map" "$name.out"
}

launch "$work/interleaved.map" "--cpu-bind=none rankmap-bind " "$probe"
launch "$work/runs.map" "--cpu-bind=map_cpu:1,0 " "$probe"
launch "$work/mixed.map" "--cpu-bind=map_cpu:0,1 " "$probe"
launch "$work/sparse.map" "salloc --nodes=3 --nodelist=node0,node2,node3 --exclusive srun --distribution=arbitrary --ntasks=3 --cpu-bind=map_cpu:1 " "$probe"
# Why salloc: a bare `srun --exclusive` with the same binding is refused,
# because its step holds only the CPUs its tasks asked for (Slurm 22.05).
bare=$(grep -v '^#' "sparse-$(basename "$probe").printed" | head -n 1 | sed 's/ salloc .* --exclusive srun / srun --exclusive /')
if timeout "$limit" sh -c "$bare" > bare.out 2> bare.err; then fail "a bare srun --exclusive bound a node's unrequested CPU: $bare"; fi
grep -q 'CPU binding outside of job step allocation' bare.err || fail "bare srun --exclusive: unexpected error: $(cat bare.err)"
echo "ok bare srun --exclusive refused as expected: $(grep -m1 'outside of job step' bare.err)"
# The mapper's own choice: whichever form it needs.
launch "$work/mapped.map" "srun --distribution=arbitrary --ntasks=8 " "$probe"
if [ "$mpi_probe" != "-" ]; then
  # MPICH under srun: PMI-2 (MpiDefault=pmi2 in slurm.conf); the rank is
  # MPI_Comm_rank, so a wrong wire-up (8 singletons) shows as 8 rank-0 lines.
  launch "$work/interleaved.map" "--cpu-bind=none rankmap-bind " "$mpi_probe"
  launch "$work/runs.map" "--cpu-bind=map_cpu:1,0 " "$mpi_probe"
fi

# The batch scripts rankfile-gen wrote, submitted as they are (both forms,
# and the sparse mapping, whose header must name exactly its 3 nodes).
printf '#SBATCH --nodes=3\n#SBATCH --ntasks=3\n#SBATCH --nodelist=node0,node2,node3\n#SBATCH --exclusive\n' > sparse.header
grep '^#SBATCH' "sparse-$(basename "$probe").sbatch" | diff -u sparse.header - || fail "sparse: wrong #SBATCH lines"
# All submitted at once, then polled: `sbatch --wait` polls every 2-10 s.
jobs=""
for map in interleaved runs sparse; do
  name=$map-$(basename "$probe")
  script=$name.sbatch
  grep -q '^#SBATCH --exclusive$' "$script" || fail "$script: no '#SBATCH --exclusive'"
  id=$(sbatch --parsable -o "$name.batch.out" -e "$name.batch.err" "$script") || fail "$script: not submitted"
  jobs="$jobs $map:$id"
done
i=0
while [ -n "$(squeue -h -o %i 2> /dev/null)" ]; do
  i=$((i + 1))
  [ $i -lt $((limit * 10)) ] || fail "batch jobs still queued or running after $limit s: $(squeue 2>&1)"
  sleep 0.1
done
for job in $jobs; do
  map=${job%%:*} id=${job#*:}
  name=$map-$(basename "$probe")
  job_state=$(scontrol -o show job "$id" | grep -o 'JobState=[A-Z_]*\|ExitCode=[0-9:]*' | tr '\n' ' ')
  [ "$job_state" = "JobState=COMPLETED ExitCode=0:0 " ] || fail "$name.sbatch: job $id ended $job_state: $(cat "$name.batch.err")"
  check "$name.batch" "$work/$map.map" "$name.batch.out"
done
echo "PASS: Slurm launch lines and batch scripts obey the mappings ($(($(date +%s) - t0)) s with the cluster up)"
