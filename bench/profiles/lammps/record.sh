#!/usr/bin/env bash
# Records LAMMPS profiles under Open MPI with commprof-run: Debian's `lmp`
# (LAMMPS 2022-01-06, linked with Open MPI) on the inputs of `lammps-examples`,
# natively, oversubscribed on whatever cores there are (commprof-run --yield
# gives Open MPI's mpirun `--mca mpi_yield_when_idle 1`). Each input runs in
# a scratch copy of its example directory (they read data files relative to
# it); the profile lands next to this script as NAME.prof.
#
#   bench/profiles/lammps/record.sh BUILD_DIR [RANKS [NAME...]]
# BUILD_DIR: a build with libcommprof-ompi.so (RANKMAP_COMMPROF_OMPI, on when
# openmpi-bin is installed). RANKS defaults to 16. NAMEs: melt, peptide.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../lib.sh"
here="$root/bench/profiles/lammps"
build="$(cd "${1:?usage: record.sh BUILD_DIR [RANKS [NAME...]]}" && pwd)"
ranks="${2:-16}"
shift $(( $# >= 2 ? 2 : 1 ))
only=("$@")
run="$build/libcommprof/commprof-run"
examples=/usr/share/lammps/examples
for f in "$run" "$build/libcommprof/libcommprof-ompi.so"; do
  [ -e "$f" ] || { echo "record.sh: missing $f (build with RANKMAP_COMMPROF_OMPI=ON)" >&2; exit 2; }
done
if ! command -v lmp > /dev/null || [ ! -d "$examples" ]; then
  echo "record.sh: needs Debian's lammps and lammps-examples (scripts/install-deps.sh)" >&2; exit 2
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT

# NAME  EXAMPLE-DIR  INPUT: the inputs as shipped (steps and sizes unchanged).
#   melt:    3d Lennard-Jones melt, 4,000 atoms, 250 steps (atomic, pair only)
#   peptide: solvated 5-mer peptide, 2,004 atoms, CHARMM + PPPM long-range, 300 steps
record() {
  local name=$1 dir=$2 input=$3
  is_selected "$name" ${only[@]+"${only[@]}"} || return 0
  rm -rf "${tmp:?}/$name"; cp -r "$examples/$dir" "$tmp/$name"
  local t0=$SECONDS
  ( cd "$tmp/$name" &&
    "$run" --mpi openmpi --yield -o "$tmp/$name.prof" -- \
      mpirun.openmpi --oversubscribe --bind-to none -n "$ranks" lmp -in "$input" -log log.lammps -screen none ) ||
    { echo "record.sh: $name failed:" >&2; tail -5 "$tmp/$name/log.lammps" >&2 || true; exit 1; }
  grep -q "^Total wall time" "$tmp/$name/log.lammps" ||
    { echo "record.sh: $name did not finish:" >&2; tail -5 "$tmp/$name/log.lammps" >&2; exit 1; }
  mv "$tmp/$name.prof" "$here/$name.prof"
  echo "recorded lammps/$name.prof ($ranks ranks: lmp -in $dir/$input; $((SECONDS - t0)) s; $(grep '^Loop time' "$tmp/$name/log.lammps"))"
}

record melt melt in.melt
record peptide peptide in.peptide
