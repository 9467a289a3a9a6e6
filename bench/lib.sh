# shellcheck shell=bash
# Shared by the benchmark scripts under bench/ (bash; sourced, not run):
#
#   # shellcheck source=bench/lib.sh
#   . "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
#
# Sourcing sets `root` (the repository) and defines the functions below; it
# runs nothing else. Errors print "SCRIPT: ..." on stderr and exit 2 (a
# missing tool or build) as the scripts always did.

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench_script="$(basename "$0")"

# Sets the directories of a benchmark run, each overridable from the
# environment: build (RANKMAP_BUILD_DIR, default ROOT/DEFAULT_BUILD; must
# exist), out (RANKMAP_BENCH_OUT, default BUILD/OUT_NAME; created) and doc
# (RANKMAP_BENCH_DOC, default docs/benchmarks.md); and the paths of the
# tools in that build: rankmap, sim, torus, commprof_run.
set_bench_dirs() {  # DEFAULT_BUILD OUT_NAME
  build="$(cd "${RANKMAP_BUILD_DIR:-$root/$1}" && pwd)"
  out="${RANKMAP_BENCH_OUT:-$build/$2}"
  doc="${RANKMAP_BENCH_DOC:-$root/docs/benchmarks.md}"
  mkdir -p "$out"
  # shellcheck disable=SC2034  # used by the scripts that source this file
  rankmap="$build/mapper/rankmap" sim="$build/simulation/rankmap-sim" torus="$build/torus/rankmap-torus" \
    commprof_run="$build/libcommprof/commprof-run"
}

# Exits 2 unless every FILE is executable; HINT says how to get them.
require_executables() {  # HINT FILE...
  local hint=$1 f; shift
  for f in "$@"; do
    [ -x "$f" ] || { echo "$bench_script: missing $f ($hint)" >&2; exit 2; }
  done
}

# Exits 2 unless COMMAND is on the PATH; WHAT names the package it comes from.
require_command() {  # COMMAND WHAT
  command -v "$1" > /dev/null || { echo "$bench_script: $1 not found ($2)" >&2; exit 2; }
}

# The peer benchmark's driver: sets build (RANKMAP_BENCH_BUILD, default
# ROOT/build-peers), venv (RANKMAP_BENCH_VENV, default
# /opt/rankmap-bench-venv) and driver; exits 2 unless the driver is built.
set_peer_driver() {
  build=${RANKMAP_BENCH_BUILD:-$root/build-peers}
  # shellcheck disable=SC2034  # used by the scripts that source this file
  venv=${RANKMAP_BENCH_VENV:-/opt/rankmap-bench-venv}
  driver=$build/bench/peers/rankmap_bench_peers
  require_executables "build the target rankmap_bench_peers" "$driver"
}

# Progress on stderr, stamped with the time of day.
log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
# Now, in seconds since the epoch with nanoseconds: for seconds_since.
now() { date +%s.%N; }
# Whole seconds from START (a `now`) to now, or to END.
seconds_since() {  # START [END]
  awk -v a="$1" -v b="${2:-$(now)}" 'BEGIN { printf "%.0f\n", b - a }'
}

# Seconds from START (a `now`) to now, to a tenth: for wall times in tables.
tenths_since() {  # START
  awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f\n", b - a }'
}

# The profile's bulk-synchronous program (rankmap-sim bulk-trace, into
# DIR/bulk) replayed on every MAP (rankmap-sim replay --comm-only): what
# `rankmap map --replay-profile` judges by. The table goes to
# DIR/profile-replay.txt; replayed_seconds reads a map's time from it.
replay_profile() {  # PROFILE MACHINE DIR MAP...
  local prof=$1 machine=$2 dir=$3; shift 3
  rm -rf "$dir/bulk"
  "$sim" bulk-trace -p "$prof" -o "$dir/bulk" > "$dir/bulk.log"
  "$sim" replay -q --comm-only --trace "$dir/bulk/index.txt" -m "$machine" "$@" > "$dir/profile-replay.txt"
}
# MAP's replayed time in DIR/profile-replay.txt; fails, naming MAP, if absent
# (use it in a plain assignment, so that `set -e` stops the script).
replayed_seconds() {  # DIR MAP
  local t; t=$(awk -v m="$2" '$1 == m { print $2 }' "$1/profile-replay.txt")
  [ -n "$t" ] || { echo "$bench_script: no profile replay of $2 in $1/profile-replay.txt" >&2; return 1; }
  echo "$t"
}

# SimGrid's simulated time in LOG (the output of a `rankmap-sim run`): the
# last "Simulated time: X seconds" it logs. Fails, naming LOG, when there is
# none (use it in a plain assignment, so that `set -e` stops the script).
simulated_seconds() {  # LOG
  local t; t=$(sed -n 's/.*Simulated time: \([^ ]*\) seconds.*/\1/p' "$1" | tail -n 1)
  [ -n "$t" ] || { echo "$bench_script: no simulated time in $1" >&2; return 1; }
  echo "$t"
}

# The short id of the commit the repository is at: the code a run measures.
short_commit() { git -C "$root" rev-parse --short HEAD; }

# The arguments of example PROGRAM at RANKS ranks, from
# bench/profiles/example-args.txt (the one table of them); with ITERS, its
# --iters value replaced (a run whose shape, not totals, matters). Fails when
# the table has no row, or two, for that program and count.
example_args() {  # PROGRAM RANKS [ITERS]
  awk -v prog="$1" -v ranks="$2" -v iters="${3:-}" -v table="$root/bench/profiles/example-args.txt" '
    /^#/ || NF < 2 || $1 != prog { next }
    {
      n = split($2, range, "-"); lo = range[1] + 0; hi = (n == 2 ? range[2] : range[1]) + 0
      if (ranks + 0 < lo || ranks + 0 > hi) next
      found++; args = ""
      for (i = 3; i <= NF; i++) {
        value = (iters != "" && $(i - 1) == "--iters") ? iters : $i
        args = args (i > 3 ? " " : "") value
      }
    }
    END {
      if (found != 1) {
        printf "example_args: %d rows for %s at %s ranks in %s\n", found, prog, ranks, table > "/dev/stderr"
        exit 1
      }
      print args
    }' "$root/bench/profiles/example-args.txt"
}

# A block placement (rank r on node r / PPN) of RANKS ranks on MACHINE,
# written to OUT_MAP, made from a ring profile OUT_MAP.prof: block placement
# does not depend on the traffic.
block_mapping() {  # RANKS MACHINE PPN OUT_MAP
  "$rankmap" synth -q --pattern ring --ranks "$1" -o "$4.prof"
  "$rankmap" map -q -p "$4.prof" -m "$2" --ppn "$3" --algorithm block -o "$4" > /dev/null
}

# Replaces the section NAME of $doc (between <!-- NAME:begin --> and
# <!-- NAME:end -->, appended when absent) with SECTION_FILE, leaving the
# rest byte for byte (bench/replace_doc_section.py); creates $doc if needed.
write_doc_section() {  # NAME SECTION_FILE
  if [ ! -f "$doc" ]; then
    mkdir -p "$(dirname "$doc")"
    printf '# Benchmarks\n' > "$doc"
  fi
  python3 "$root/bench/replace_doc_section.py" "$doc" "$1" "$2"
}

# True when NAME was asked for: SELECTED is empty (everything) or holds NAME.
is_selected() {  # NAME SELECTED...
  local name=$1 s; shift
  [ $# -eq 0 ] && return 0
  for s in "$@"; do [ "$s" = "$name" ] && return 0; done
  return 1
}
