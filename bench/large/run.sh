#!/bin/sh
# Time and peak memory of `rankmap map` (default preset) and `rankmap evaluate`
# on large profiles: 50,000 and 100,000 ranks sending to 10 random partners
# each (500,000 and 1,000,000 p2p lines), on 25x25x10 and 25x25x20 tori
# (6,250 and 12,500 nodes) at 8 ranks per node: memory should double, not
# quadruple. Prints one Markdown table row per command (docs/benchmarks.md,
# "Large inputs"). Usage: bench/large/run.sh BUILD_DIR [WORKDIR]
set -eu
build=${1:?usage: run.sh BUILD_DIR [WORKDIR]}
work=${2:-$(mktemp -d "${TMPDIR:-/tmp}/rankmap-large.XXXXXX")}
rankmap=$build/mapper/rankmap
echo "| command | ranks | p2p lines | profile MB | wall s | user s | peak MB | load average |"
echo "|---|---|---|---|---|---|---|---|"
measure() {  # label command...
  label=$1
  shift
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f '%e %U %M' -o "$work/time.txt" "$@" >/dev/null 2>"$work/stderr.txt" || { cat "$work/stderr.txt" >&2; exit 1; }
  read -r wall user kb < "$work/time.txt"
  echo "| \`$label\` | $ranks | $lines | $size | $wall | $user | $((kb / 1024)) | $load |"
}
for size_machine in "50000 torus=25x25x10" "100000 torus=25x25x20"; do
  ranks=${size_machine%% *}
  machine="${size_machine#* } node=package:2,core:4"
  prof=$work/random-$ranks.prof
  [ -f "$prof" ] || "$rankmap" synth --pattern random --ranks "$ranks" --degree 10 --seed 1 -o "$prof" >/dev/null 2>&1
  lines=$(grep -c '^p2p ' "$prof")
  size=$(du -m "$prof" | cut -f1)
  measure "rankmap map" "$rankmap" map --no-bound -p "$prof" -m "$machine" --ppn 8 -o "$work/random-$ranks.map"
  measure "rankmap evaluate" "$rankmap" evaluate --no-bound -p "$prof" "$work/random-$ranks.map"
done
