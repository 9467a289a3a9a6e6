#!/usr/bin/env bash
# Install rankmap's build and test dependencies on Debian (bookworm) and keep
# MPICH as the default MPI. Idempotent: safe to run again.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config gfortran
  mpich libmpich-dev
  libmetis-dev libscotch-dev scotch
  libhwloc-dev hwloc-nox
  catch2 libcli11-dev nlohmann-json3-dev libeigen3-dev
  chromium
  libsimgrid-dev simgrid
  openmpi-bin libopenmpi-dev lammps lammps-examples
  valgrind
  slurmctld slurmd slurm-client munge
  clang libclang-rt-14-dev
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# libscotch-dev pulls in Open MPI, whose alternatives outrank MPICH's: put MPICH back.
set_alt() {
  if update-alternatives --list "$1" 2>/dev/null | grep -qx "$2"; then
    "${sudo_cmd[@]}" update-alternatives --quiet --set "$1" "$2"
  fi
}
set_alt mpi /usr/bin/mpicc.mpich
set_alt mpirun /usr/bin/mpirun.mpich
set_alt mpi-x86_64-linux-gnu /usr/include/x86_64-linux-gnu/mpich

echo "install-deps: ok ($(mpichversion 2>/dev/null | head -1 | tr -s ' '))"
