#!/usr/bin/env bash
# README command 2: install dependencies, build, run every test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
build="${RANKMAP_BUILD_DIR:-$root/build}"
ctest --test-dir "$build" --output-on-failure --timeout 600 "$@"
