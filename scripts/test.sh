#!/usr/bin/env bash
# README command 2: install dependencies, build, run every test.
# First the sanitizer pass (ASan + UBSan over everything that runs without MPI
# processes; RANKMAP_SANITIZE=0 skips it), then the fuzzing pass (libFuzzer on
# the four readers, 60 s each; RANKMAP_FUZZ_SECONDS=0 skips it), then the
# whole suite in ./build, whose CTest summary is the last line printed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/install-deps.sh"
if [ "${RANKMAP_SANITIZE:-1}" != 0 ]; then
  echo "== sanitizer pass (scripts/sanitize.sh)"
  "$root/scripts/sanitize.sh"
fi
if [ "${RANKMAP_FUZZ_SECONDS:-60}" != 0 ]; then
  echo "== fuzzing pass (scripts/fuzz.sh, ${RANKMAP_FUZZ_SECONDS:-60} s per reader)"
  "$root/scripts/fuzz.sh"
fi
echo "== full test suite"
"$root/scripts/build.sh"
build="${RANKMAP_BUILD_DIR:-$root/build}"
ctest --test-dir "$build" --output-on-failure --timeout 600 "$@"
