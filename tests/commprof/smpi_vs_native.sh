#!/usr/bin/env bash
# libcommprof-smpi against libcommprof: the same example, same arguments,
# profiled natively (MPICH, preloaded) and in SimGrid SMPI (linked in) must
# give identical traffic: every line except the `rank` lines (host, core and
# times differ by nature) is compared byte for byte.
#   smpi_vs_native.sh BUILD_DIR WORKDIR NP EXAMPLE ARGS...
set -euo pipefail
build=$1 work=$2 np=$3 ex=$4; shift 4
rm -rf "$work"; mkdir -p "$work"; cd "$work"
"$build/mapper/rankmap" synth --pattern ring --ranks "$np" -o placeholder.prof 2> /dev/null
"$build/mapper/rankmap" map -q -p placeholder.prof -m desmos --ppn 4 --algorithm block -o block.map > /dev/null
"$build/libcommprof/commprof-run" -o native.prof -- mpiexec.mpich -n "$np" "$build/examples/$ex" "$@" </dev/null > native.log
COMMPROF_OUTPUT="$work/smpi.prof" "$build/simulation/rankmap-sim" run --mapping block.map -- \
  "$build/examples/smpi-profiled/$ex" "$@" > smpi.log 2>&1
[ -s native.prof ] || { echo "no native profile"; exit 1; }
[ -s smpi.prof ] || { echo "no SMPI profile"; cat smpi.log; exit 1; }
grep -q '^p2p ' native.prof || { echo "native profile has no p2p traffic"; exit 1; }
# SMPI rank lines: the simulated host of the mapping, no core, simulated times.
awk '/^rank /{ n++; if ($3 != "host=node-" int($2 / 4) || $4 != "core=-1") bad = 1 } END { exit bad || n == 0 }' smpi.prof \
  || { echo "unexpected SMPI rank lines"; grep '^rank ' smpi.prof; exit 1; }
if diff <(grep -v '^rank ' native.prof) <(grep -v '^rank ' smpi.prof); then
  echo "identical: $(grep -c '^p2p ' native.prof) p2p lines, $(grep -vc '^rank ' native.prof) lines in all"
else
  echo "native and SMPI profiles differ"; exit 1
fi
