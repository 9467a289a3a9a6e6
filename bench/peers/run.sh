#!/usr/bin/env bash
# One command for the peer benchmark (docs/benchmarks.md, "Side by side with
# peer mappers"): sets up the peers' Python environment if needed, builds the
# driver, runs every instance and rewrites only this benchmark's section of
# docs/benchmarks.md (between <!-- peers:begin --> and <!-- peers:end -->).
#
#   bench/peers/run.sh              (the whole benchmark: every instance, every
#                                    tool, 5 seeds of the default; ~30 min on 2 cores)
#   bench/peers/run.sh --doc-only   (re-assemble the section from the last run,
#                                    e.g. after editing bench/peers/notes.md)
#   bench/peers/run.sh [rankmap_bench_peers options, e.g. --filter "desmos, 2"]
#   bench/peers/run.sh --networks [--doc-only | options]
#                                   (the fat-trees and the dragonfly: --suite
#                                    networks, its own section between
#                                    <!-- peers-networks:begin --> and
#                                    <!-- peers-networks:end -->, notes from
#                                    bench/peers/notes-networks.md; ~6 min)
#   bench/peers/run.sh --partial [--doc-only | options]
#                                   (recorded profiles on tori with more slots
#                                    than ranks: the job needs half or a
#                                    quarter of the machine; its own section
#                                    between <!-- peers-partial:begin --> and
#                                    <!-- peers-partial:end -->, notes from
#                                    bench/peers/notes-partial.md; ~15 min)
#
# A partial run (--filter, --tool, --suite, --spread-seeds, --list) never
# touches docs/benchmarks.md: its tables go to BUILD/bench/peers/peers-tables-partial.md
# (peers-networks-tables-partial.md with --networks).
#
# Environment: RANKMAP_BENCH_VENV (default /opt/rankmap-bench-venv),
# RANKMAP_BENCH_BUILD (default <repo>/build-peers), JOBS (default 2).
set -euo pipefail

# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
here=$root/bench/peers
repo=$root
build=${RANKMAP_BENCH_BUILD:-$repo/build-peers}
venv=${RANKMAP_BENCH_VENV:-/opt/rankmap-bench-venv}
doc=$repo/docs/benchmarks.md

out=$build/bench/peers
# The suite: the tori (no flag), --networks or --partial; each has its own
# section (peers, peers-networks, peers-partial) and notes file.
flag=""
case "${1:-}" in
  --networks | --partial) flag=" $1"; shift ;;
esac
mode=${flag# --}
section_name=peers${mode:+-$mode}
notes=$here/notes${mode:+-$mode}.md
suite=()
profiles=$repo/bench/profiles
case "$mode" in
  "") title="Side by side with peer mappers" ;;
  networks)
    title="Peer mappers on fat-trees and a dragonfly"
    suite=(--suite networks) ;;
  partial)
    title="Peer mappers when the job needs part of the machine"
    suite=(--filter recorded)
    # The recorded profiles of one machine, offered to a larger one at the
    # same or fewer ranks per node (the driver's groups name the machines):
    # 128 ranks of desmos-4 on 8x8 at 4 per node (half) and on desmos at 6
    # (two thirds), 64 of 4x4-4 on 4x4x4 at 2 (half), 256 of 8x8-4 on
    # 8x4x4x4 at 2 (a quarter).
    profiles=$(mktemp -d)
    trap 'rm -rf "$profiles"' EXIT
    for pair in desmos-4:8x8-4 desmos-4:desmos-6 4x4-4:4x4x4-2 8x8-4:8x4x4x4-2; do
      mkdir -p "$profiles/${pair#*:}"
      ln -s "$repo/bench/profiles/${pair%%:*}"/*.prof "$profiles/${pair#*:}/"
    done ;;
esac
tables=$out/$section_name-tables.md
header=$out/$section_name-header.md
if [ "${1:-}" != "--doc-only" ]; then
  "$here/setup.sh" "$venv"
  if [ ! -f "$build/CMakeCache.txt" ]; then
    cmake -S "$repo" -B "$build" -G Ninja -DRANKMAP_BUILD_BENCH=ON -DRANKMAP_BUILD_COMMPROF=OFF \
      -DMPI_C_COMPILER=/usr/bin/mpicc.mpich -DMPI_CXX_COMPILER=/usr/bin/mpicxx.mpich
  fi
  cmake --build "$build" -j"${JOBS:-2}" --target rankmap_bench_peers

  partial=""
  for arg in "$@"; do
    case "$arg" in
      --filter* | --tool* | --suite* | --spread-seeds* | --list) partial=yes ;;
    esac
  done
  # Recorded profiles (bench/profiles/GROUP/*.prof, see its README) join the
  # suite; so do the real applications' (bench/profiles/lammps/, desmos at 4
  # per node, fewer ranks than slots).
  apps=()
  # (The networks and partial suites take their profiles from --recorded-dir only.)
  if [ ${#suite[@]} -eq 0 ]; then
    for f in "$repo"/bench/profiles/lammps/*.prof; do
      [ -f "$f" ] && apps+=(--recorded "lammps-$(basename "$f" .prof)=$f")
    done
  fi
  if [ -n "$partial" ]; then
    rm -f "$out/$section_name-tables-partial.md"
    "$out/rankmap_bench_peers" "${suite[@]}" --python "$venv/bin/python" --markdown "$out/$section_name-tables-partial.md" \
      --recorded-dir "$profiles" "${apps[@]}" "$@"
    [ -f "$out/$section_name-tables-partial.md" ] && echo "run.sh: partial run, tables in $out/$section_name-tables-partial.md; $doc untouched"
    exit 0
  fi
  command_line="bench/peers/run.sh$flag${*:+ $*}"
  start=$(date +%s)
  "$out/rankmap_bench_peers" "${suite[@]}" --python "$venv/bin/python" --markdown "$tables.new" --recorded-dir "$profiles" "${apps[@]}" "$@"
  elapsed=$(( $(date +%s) - start ))
  mv "$tables.new" "$tables"

  cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
  peers=$( { "$venv/bin/python" -m pip list 2>/dev/null || true; } |
    awk '$1 == "mtkahypar" || $1 == "kahip" { printf "%s%s %s", sep, $1, $2; sep = ", " }')
  scotch=$( { scotch_gmap -V 2>&1 || true; } | sed -n 's/.*version \([0-9.]*\).*/\1/p' | head -1)
  mapper_state=""
  if git -C "$repo" status --porcelain -- mapper 2>/dev/null | grep -q .; then mapper_state=' + uncommitted mapper/ changes'; fi
  {
    echo "- Command: \`$command_line\` ($elapsed s wall time, $(date -u +%Y-%m-%d))"
    echo "- Machine: $cpu, $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM (shared with other jobs)"
    echo "- rankmap: commit \`$(short_commit)\`$mapper_state"
    echo "- Peers: Scotch ${scotch:-not installed} (scotch_gmap, amk_grf); ${peers:-Python peers not installed} (venv \`$venv\`)"
  } > "$header"
fi
if [ ! -f "$tables" ] || [ ! -f "$header" ]; then echo "run.sh: no previous run under $out" >&2; exit 1; fi

section=$(mktemp)
trap 'rm -f "$section"; [ "$profiles" = "$repo/bench/profiles" ] || rm -rf "$profiles"' EXIT
{
  echo "## $title"
  echo
  echo "<!-- Generated by bench/peers/run.sh$flag from bench/peers/$(basename "$notes") and the driver's tables; edit those. -->"
  echo
  cat "$header"
  echo
  cat "$notes"
  echo
  cat "$tables"
} > "$section"

write_doc_section "$section_name" "$section"
echo "run.sh: wrote the $section_name section of $doc"
