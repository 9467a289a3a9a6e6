#!/bin/sh
# Command-line behaviour of rankfile-gen and rankmap-bind that needs no MPI:
# bad mappings are refused with one file:line message, exit 2 and no output
# files; rankmap-bind keeps the application's exit status, warns about a
# wrong host and fails cleanly without a rank.
#
# cli_test.sh RANKFILE_GEN RANKMAP_BIND DATA_DIR WORK
set -eu
gen=$1 bind=$2 data=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_refused MAPPING PATTERN: exit 2, one stderr line matching PATTERN, no files.
expect_refused() {
  status=0
  "$gen" -o "$work/out" "$1" > stdout.txt 2> stderr.txt || status=$?
  [ "$status" -eq 2 ] || fail "$1: exit $status, expected 2"
  [ "$(wc -l < stderr.txt)" -eq 1 ] || fail "$1: expected one error line, got: $(cat stderr.txt)"
  grep -q "$2" stderr.txt || fail "$1: error '$(cat stderr.txt)' does not match '$2'"
  if ls "$work"/out.* > /dev/null 2>&1; then fail "$1: files written despite the error: $(ls "$work")"; fi
  echo "refused as expected: $(cat stderr.txt)"
}
expect_refused "$data/unknown_host.map" "^rankfile-gen: .*unknown_host.map:5: host 'hX' is not node 2"
expect_refused "$data/missing_core.map" "^rankfile-gen: .*missing_core.map:5: core '2' out of range 0..1"

status=0
"$gen" --format lsf -o "$work/out" "$data/runs.map" 2> stderr.txt || status=$?
[ "$status" -eq 2 ] && grep -q "unknown format 'lsf'" stderr.txt || fail "--format lsf: exit $status, $(cat stderr.txt)"

# A good mapping writes exactly the files it announces.
"$gen" -o "$work/good" "$data/runs.map" > printed.txt
for f in good.rankfile good.hostfile good.machinefile good.slurm-hosts good.sbatch good.perm; do
  [ -s "$f" ] || fail "missing $f"
  grep -q "wrote $work/$f" printed.txt || fail "$f not announced"
done

# The batch script is part of the all-or-nothing set: when it cannot be
# written, nothing is.
mkdir set.sbatch
status=0
"$gen" -o "$work/set" "$data/runs.map" > stdout.txt 2> stderr.txt || status=$?
[ "$status" -eq 2 ] || fail "sbatch path is a directory: exit $status, expected 2"
[ "$(cat stderr.txt)" = "rankfile-gen: $work/set.sbatch: is a directory" ] || fail "sbatch path is a directory: $(cat stderr.txt)"
for f in set.rankfile set.hostfile set.machinefile set.slurm-hosts set.perm; do
  [ ! -e "$f" ] || fail "$f written although set.sbatch could not be"
done

# Placeholder host names (no hosts= in the machine): the files are written,
# with one warning on stderr.
printf 'rankmap-mapping 1\nmachine torus=2 node=core:2\nranks 2\n0 0 node-0 0\n1 1 node-1 1\n' > placeholder.map
"$gen" --format slurm placeholder.map > stdout.txt 2> stderr.txt || fail "placeholder hosts: exit $?"
[ "$(cat stderr.txt)" = "rankfile-gen: warning: the machine description has no hosts= file, so the launcher files name placeholder hosts (node-0, ...) that no launcher can reach; give the real host names with hosts=FILE (docs/formats.md)" ] ||
  fail "placeholder hosts: stderr '$(cat stderr.txt)'"
[ -s placeholder.slurm-hosts ] && [ -s placeholder.sbatch ] || fail "placeholder hosts: files not written"
"$gen" --format slurm -o quiet "$data/runs.map" > stdout.txt 2> stderr.txt
[ ! -s stderr.txt ] || fail "real host names: unexpected stderr '$(cat stderr.txt)'"

# rankmap-bind: the application's exit status passes through the exec.
status=0
env -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u SLURM_PROCID PMI_RANK=2 RANKMAP_FAKE_HOST=hA \
  "$bind" "$data/runs.map" -- sh -c 'exit 7' 2> stderr.txt || status=$?
[ "$status" -eq 7 ] || fail "rankmap-bind changed the exit status 7 to $status"
[ ! -s stderr.txt ] || fail "rankmap-bind on the right host should be silent: $(cat stderr.txt)"

# Wrong host: a warning naming both hosts, and the program still runs.
status=0
env -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u SLURM_PROCID PMI_RANK=2 RANKMAP_FAKE_HOST=hB \
  "$bind" "$data/runs.map" -- true 2> stderr.txt || status=$?
[ "$status" -eq 0 ] || fail "rankmap-bind on a wrong host exited $status"
grep -q "rank 2 runs on host 'hB' but .* maps it to 'hA'" stderr.txt || fail "no wrong-host warning: $(cat stderr.txt)"

# No rank in the environment: exit 2 before running anything.
status=0
env -u PMI_RANK -u OMPI_COMM_WORLD_RANK -u PMIX_RANK -u SLURM_PROCID \
  "$bind" "$data/runs.map" -- touch ran 2> stderr.txt || status=$?
[ "$status" -eq 2 ] && [ ! -e ran ] && grep -q "no rank in the environment" stderr.txt || fail "missing rank: exit $status, $(cat stderr.txt)"

# A program that cannot be executed: 127, like a shell.
status=0
env PMI_RANK=0 RANKMAP_FAKE_HOST=hC "$bind" "$data/runs.map" -- ./does-not-exist 2> stderr.txt || status=$?
[ "$status" -eq 127 ] || fail "missing program: exit $status"
echo "PASS"
