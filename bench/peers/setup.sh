#!/usr/bin/env bash
# Creates the Python environment of the peer mappers (benchmark only; rankmap
# itself never needs them): Mt-KaHyPar and KaHIP from PyPI.
#
#   bench/peers/setup.sh [VENV_DIR]    (default: $RANKMAP_BENCH_VENV or /opt/rankmap-bench-venv)
#
# Idempotent: an environment that already imports both packages is kept.
# Exit status 0 even when a package cannot be installed (no network, no wheel
# for this Python): the benchmark then reports that peer as "not installed".
set -uo pipefail

venv="${1:-${RANKMAP_BENCH_VENV:-/opt/rankmap-bench-venv}}"
python=${PYTHON:-python3}

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import mtkahypar, kahip' 2>/dev/null; then
  echo "peers: $venv ready ($("$venv/bin/python" -m pip list 2>/dev/null | grep -E '^(mtkahypar|kahip) ' | tr -s ' ' | paste -sd, -))"
  exit 0
fi
if [ ! -x "$venv/bin/python" ]; then
  echo "peers: creating $venv"
  if ! "$python" -m venv "$venv"; then
    echo "peers: could not create $venv (install python3-venv); Python peers will be reported as not installed" >&2
    exit 0
  fi
fi
for package in mtkahypar kahip; do
  if ! "$venv/bin/python" -c "import $package" 2>/dev/null; then
    echo "peers: pip install $package"
    "$venv/bin/python" -m pip install --quiet "$package" ||
      echo "peers: pip install $package failed; it will be reported as not installed" >&2
  fi
done
