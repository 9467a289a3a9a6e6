# A real Slurm 22.05 cluster on one machine, for tests: a private munged, one
# slurmctld and four slurmd daemons (node0..node3), each slurmd in its own UTS
# namespace, so that `hostname` inside a job step is the node's name, and,
# when the caller runs in a network namespace of its own with
# RANKMAP_SLURM_NETNS=1, in its own network namespace too, with its own
# address (10.77.0.1-4) on a bridge in the caller's namespace. Sourced by the
# test scripts (POSIX sh); nothing system-wide is used or changed.
#
#   slurm_cluster_start DIR   write DIR/slurm.conf, start everything, wait until
#                             the 4 nodes are idle; exports SLURM_CONF
#   slurm_cluster_stop        stop every process the cluster started, by PID,
#                             and check that none is left; safe to call twice
#
# Why these choices (measured on Debian bookworm, 2 cores; see
# /work/shared/toolchain-notes.md "Namespaces and Slurm"):
# - Several slurmds on one host (multiple-slurmd build: `slurmd -N name`),
#   each with its own spool and pid file (%n).
# - Network namespaces: slurmctld and every client (srun, sbatch) stay in
#   the caller's namespace and reach the nodes over the bridge; MPI ranks on
#   different nodes talk over it too. Without them (RANKMAP_SLURM_NETNS
#   unset), everything talks over 127.0.0.1 with a port per slurmd, chosen
#   free; host names and bindings, which the test checks, are the same.
# - No cgroups: proctrack/linuxproc and task/affinity (sched_setaffinity).
# - Nodes describe this machine's real packages, cores and threads (from
#   hwloc): task/affinity binds to real CPUs, so a node cannot claim CPUs the
#   machine does not have.
# - Short waits for a test: KillWait=2 (30 s by default before SIGKILL) and
#   batch_sched_delay=0 (batch jobs otherwise start up to 3 s late each).
# - Every daemon runs in the foreground (-F / -D) as a child of this shell, so
#   its PID is known from $!. Job steps (slurmstepd) and tasks are not our
#   children: every process started here carries RANKMAP_SLURM_TEST=<dir> in
#   its environment (slurmd passes it to slurmstepd, srun to the tasks), and
#   the stop sweeps /proc for that exact value.

SLURM_CLUSTER_NODES="node0 node1 node2 node3"
slurm_cluster_pids=""
slurm_cluster_dir=""

slurm_log() { echo "slurm-cluster: $*" >&2; }

# Ports that something listens on (TCP, IPv4 and IPv6), one decimal per line.
slurm_listening_ports() {
  for f in /proc/net/tcp /proc/net/tcp6; do
    [ -r "$f" ] && awk 'NR > 1 && $4 == "0A" { n = split($2, a, ":"); print a[n] }' "$f"
  done | while read -r hex; do printf '%d\n' "0x$hex"; done
}

# A block of 5 free consecutive ports (slurmctld + 4 slurmds), chosen from the
# PID so that two clusters started at once (two build trees) do not collide.
slurm_free_port_block() {
  sc_used=$(slurm_listening_ports | sort -u)
  sc_base=$((20000 + ($$ * 10) % 30000))
  sc_tries=0
  while [ $sc_tries -lt 100 ]; do
    sc_clash=0
    for sc_p in $sc_base $((sc_base + 1)) $((sc_base + 2)) $((sc_base + 3)) $((sc_base + 4)); do
      if printf '%s\n' "$sc_used" | grep -qx "$sc_p"; then sc_clash=1; fi
    done
    if [ $sc_clash -eq 0 ]; then echo $sc_base; return 0; fi
    sc_base=$((sc_base + 10))
    [ $sc_base -lt 50000 ] || sc_base=20000
    sc_tries=$((sc_tries + 1))
  done
  return 1
}

# PIDs of live processes whose environment has RANKMAP_SLURM_TEST=<dir>.
# The sweep runs without the marker, so it never lists itself. (A zombie's
# environ reads empty: every PID listed is a live process.)
slurm_cluster_marked_pids() {
  env -u RANKMAP_SLURM_TEST sh -c '
    for e in /proc/[0-9]*/environ; do
      pid=${e#/proc/}
      pid=${pid%/environ}
      if { tr "\0" "\n" < "$e"; } 2> /dev/null | grep -qxF "RANKMAP_SLURM_TEST=$1"; then echo "$pid"; fi
    done' sweep "$slurm_cluster_dir"
}

# slurm_cluster_wait_gone SECONDS PID...: waits until none of the PIDs runs.
slurm_cluster_wait_gone() {
  sc_limit=$1
  shift
  sc_i=0
  while [ $sc_i -lt $((sc_limit * 10)) ]; do
    sc_alive=""
    for sc_p in "$@"; do
      # A reaped child, or one that is a zombie, counts as gone.
      if [ -r "/proc/$sc_p/stat" ] && [ "$(awk '{print $3}' "/proc/$sc_p/stat" 2>/dev/null)" != Z ]; then sc_alive="$sc_alive $sc_p"; fi
    done
    [ -z "$sc_alive" ] && return 0
    sleep 0.1
    sc_i=$((sc_i + 1))
  done
  echo "$sc_alive"
  return 1
}

# slurm_cluster_node_net PID I: once process PID is in a network namespace
# of its own, gives it eth0 = 10.77.0.I/24, a veth pair to the bridge.
slurm_cluster_node_net() {
  sc_k=0
  while [ "$(readlink "/proc/$1/ns/net" 2> /dev/null)" = "$(readlink /proc/self/ns/net)" ]; do
    sc_k=$((sc_k + 1))
    [ $sc_k -lt 100 ] || { slurm_log "process $1 did not enter its network namespace"; return 1; }
    sleep 0.02
  done
  ip link add "rankmap-h$2" type veth peer name "rankmap-n$2" &&
    ip link set "rankmap-h$2" master rankmap-br && ip link set "rankmap-h$2" up &&
    ip link set "rankmap-n$2" netns "$1" &&
    nsenter -t "$1" -n sh -c "ip link set lo up && ip link set rankmap-n$2 name eth0 &&
      ip addr add 10.77.0.$2/24 dev eth0 && ip link set eth0 up" ||
    { slurm_log "cannot give node $2 its network"; return 1; }
}

slurm_cluster_start() {
  slurm_cluster_dir=$1
  sc_d=$slurm_cluster_dir
  mkdir -p "$sc_d/state" "$sc_d/log" "$sc_d/munge"
  for sc_n in $SLURM_CLUSTER_NODES; do mkdir -p "$sc_d/spool/$sc_n"; done
  RANKMAP_SLURM_TEST=$sc_d
  export RANKMAP_SLURM_TEST

  for sc_tool in munged slurmctld slurmd srun sinfo scontrol hwloc-calc; do
    command -v "$sc_tool" > /dev/null 2>&1 || { slurm_log "missing $sc_tool (run scripts/install-deps.sh)"; return 1; }
  done

  sc_sockets=$(hwloc-calc --number-of package all)
  sc_cores=$(($(hwloc-calc --number-of core all) / sc_sockets))
  sc_threads=$(($(hwloc-calc --number-of pu all) / (sc_sockets * sc_cores)))
  sc_cpus=$((sc_sockets * sc_cores * sc_threads))
  if [ "${RANKMAP_SLURM_NETNS:-}" = 1 ]; then
    # The caller runs in a network namespace of its own (the test re-executes
    # itself under `unshare -n`): a bridge there, and each slurmd in its own
    # network namespace behind a veth pair with its own address. Nothing of
    # it is visible outside; it all vanishes with the processes.
    ip link set lo up && ip link add rankmap-br type bridge && ip addr add 10.77.0.254/24 dev rankmap-br &&
      ip link set rankmap-br up || { slurm_log "cannot set up the bridge in the test's network namespace"; return 1; }
    sc_base=6817
    sc_ctl="localhost(10.77.0.254)"
    sc_nodes=""
    sc_i=0
    for sc_n in $SLURM_CLUSTER_NODES; do
      sc_i=$((sc_i + 1))
      sc_nodes="${sc_nodes}NodeName=$sc_n NodeHostname=$sc_n NodeAddr=10.77.0.$sc_i Port=$((sc_base + 1))"
      sc_nodes="$sc_nodes CPUs=$sc_cpus Sockets=$sc_sockets CoresPerSocket=$sc_cores ThreadsPerCore=$sc_threads RealMemory=100
"
    done
    sc_net="its own network namespace (10.77.0.1-4 on a bridge)"
  else
    sc_base=$(slurm_free_port_block) || { slurm_log "no free TCP ports"; return 1; }
    sc_ctl=localhost
    sc_nodes="NodeName=node[0-3] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$((sc_base + 1))-$((sc_base + 4))]"
    sc_nodes="$sc_nodes CPUs=$sc_cpus Sockets=$sc_sockets CoresPerSocket=$sc_cores ThreadsPerCore=$sc_threads RealMemory=100"
    sc_net="the machine's network (127.0.0.1, one port each)"
  fi

  cat > "$sc_d/slurm.conf" << EOF
# Written by tests/slurm/cluster.sh: a throw-away cluster on one machine.
ClusterName=rankmaptest
SlurmctldHost=$sc_ctl
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$sc_base
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sc_d/munge/sock
StateSaveLocation=$sc_d/state
SlurmdSpoolDir=$sc_d/spool/%n
TmpFS=$sc_d/spool/%n
SlurmctldPidFile=$sc_d/slurmctld.pid
SlurmdPidFile=$sc_d/slurmd-%n.pid
SlurmctldLogFile=$sc_d/log/slurmctld.log
SlurmdLogFile=$sc_d/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=pmi2
ReturnToService=2
MailProg=/bin/true
KillWait=2
SchedulerParameters=batch_sched_delay=0
MinJobAge=60
$sc_nodes
PartitionName=debug Nodes=node[0-3] Default=YES MaxTime=INFINITE State=UP
EOF
  SLURM_CONF=$sc_d/slurm.conf
  export SLURM_CONF

  # Private munge key and daemon; the socket path is in slurm.conf (AuthInfo).
  (umask 077 && dd if=/dev/urandom of="$sc_d/munge/key" bs=1024 count=1 2> /dev/null)
  munged -F -f --key-file="$sc_d/munge/key" --socket="$sc_d/munge/sock" --pid-file="$sc_d/munge/pid" \
    --log-file="$sc_d/log/munged.log" --seed-file="$sc_d/munge/seed" > "$sc_d/log/munged.out" 2>&1 &
  slurm_cluster_pids="$!"
  sc_i=0
  while [ ! -S "$sc_d/munge/sock" ]; do
    sc_i=$((sc_i + 1))
    [ $sc_i -lt 50 ] || { slurm_log "munged did not start: $(cat "$sc_d/log/munged.out" "$sc_d/log/munged.log" 2>/dev/null)"; return 1; }
    sleep 0.1
  done

  slurmctld -D -i -f "$sc_d/slurm.conf" > "$sc_d/log/slurmctld.out" 2>&1 &
  slurm_cluster_pids="$slurm_cluster_pids $!"
  sc_i=0
  for sc_n in $SLURM_CLUSTER_NODES; do
    sc_i=$((sc_i + 1))
    # exec keeps the PID: $! is slurmd itself, inside its own namespaces.
    if [ "${RANKMAP_SLURM_NETNS:-}" = 1 ]; then
      # slurmd starts once its network is there (the file appears).
      unshare -n -u sh -c "hostname $sc_n && while [ ! -e '$sc_d/net-$sc_n' ]; do sleep 0.02; done &&
        exec slurmd -D -f '$sc_d/slurm.conf' -N $sc_n" > "$sc_d/log/slurmd-$sc_n.out" 2>&1 &
      sc_p=$!
      slurm_cluster_pids="$slurm_cluster_pids $sc_p"
      slurm_cluster_node_net "$sc_p" "$sc_i" || return 1
      : > "$sc_d/net-$sc_n"
    else
      unshare -u sh -c "hostname $sc_n && exec slurmd -D -f '$sc_d/slurm.conf' -N $sc_n" > "$sc_d/log/slurmd-$sc_n.out" 2>&1 &
      slurm_cluster_pids="$slurm_cluster_pids $!"
    fi
  done

  # Up when all four nodes are idle (0.1-0.2 s here; generous for loaded CI).
  sc_i=0
  while :; do
    sc_idle=$(sinfo -h -N -t idle -o '%N' 2> /dev/null | sort -u | wc -l)
    [ "$sc_idle" -eq 4 ] && break
    sc_i=$((sc_i + 1))
    if [ $sc_i -ge 300 ]; then
      slurm_log "the 4 nodes did not become idle within 30 s:"
      sinfo -N 2>&1 >&2 || true
      tail -n 5 "$sc_d"/log/*.log "$sc_d"/log/*.out >&2 2>/dev/null || true
      return 1
    fi
    sleep 0.1
  done
  slurm_log "up: 4 nodes of $sc_sockets package(s) x $sc_cores core(s) x $sc_threads thread(s), each slurmd in $sc_net, state in $sc_d"
}

slurm_cluster_stop() {
  [ -n "$slurm_cluster_dir" ] || return 0
  sc_status=0
  set -- $slurm_cluster_pids
  sc_munged_pid=${1:-}
  sc_slurmctld_pid=${2:-}
  sc_daemons=$slurm_cluster_pids
  # Jobs first, so that their steps and tasks end the normal way (a passing
  # test has none left; a failing one may).
  if [ -n "$sc_slurmctld_pid" ]; then
    scancel --quiet --user=root > /dev/null 2>&1 || true
    sc_i=0
    while [ $sc_i -lt 50 ] && [ -n "$(squeue -h -t running,completing,pending -o %i 2> /dev/null)" ]; do
      sleep 0.1
      sc_i=$((sc_i + 1))
    done
  fi
  # Whatever still runs of the jobs (srun, slurmstepd, tasks): not our
  # children, found by the marker in their environment.
  sc_stray=""
  # (slurmctld's own helper, slurmscriptd, is its child and goes with it.)
  for sc_p in $(slurm_cluster_marked_pids); do
    sc_parent=$(awk '{print $4}' "/proc/$sc_p/stat" 2> /dev/null || true)
    case " $sc_daemons " in *" $sc_p "* | *" $sc_parent "*) ;; *) sc_stray="$sc_stray $sc_p" ;; esac
  done
  if [ -n "$sc_stray" ]; then
    slurm_log "stopping job processes left running:$sc_stray"
    for sc_p in $sc_stray; do kill -TERM "$sc_p" 2> /dev/null || true; done
    sc_left=$(slurm_cluster_wait_gone 3 $sc_stray) || for sc_p in $sc_left; do kill -KILL "$sc_p" 2> /dev/null || true; done
  fi
  # The daemons we started, by PID: slurmds and slurmctld, then munged (the
  # others authenticate with it until the end).
  shift 2 2> /dev/null || shift $#
  for sc_p in "$@" $sc_slurmctld_pid; do kill -TERM "$sc_p" 2> /dev/null || true; done
  sc_left=$(slurm_cluster_wait_gone 10 "$@" $sc_slurmctld_pid) || {
    slurm_log "still running 10 s after SIGTERM:$sc_left; sending SIGKILL"
    for sc_p in $sc_left; do kill -KILL "$sc_p" 2> /dev/null || true; done
    sc_status=1
  }
  if [ -n "$sc_munged_pid" ]; then
    kill -TERM "$sc_munged_pid" 2> /dev/null || true
    slurm_cluster_wait_gone 5 "$sc_munged_pid" > /dev/null || { kill -KILL "$sc_munged_pid" 2> /dev/null || true; sc_status=1; }
  fi
  wait 2> /dev/null || true
  # Nothing that carries the marker may outlive the cluster.
  sc_left=$(slurm_cluster_marked_pids)
  if [ -n "$sc_left" ]; then
    slurm_log "processes left behind: $(echo $sc_left)"
    for sc_p in $sc_left; do kill -KILL "$sc_p" 2> /dev/null || true; done
    sc_status=1
  fi
  slurm_cluster_pids=""
  slurm_cluster_dir=""
  return $sc_status
}
