#!/usr/bin/env bash
# The fuzzing pass of scripts/test.sh: builds the libFuzzer harnesses of the
# four readers (profile, mapping, machine, trace; fuzz/) with clang, AddressSanitizer
# and UBSan into ./build-fuzz, and runs each for RANKMAP_FUZZ_SECONDS (default
# 60) from its seed corpus and dictionary. Any crash, sanitizer report, leak,
# timeout (10 s per input) or out-of-memory (2 GB) fails the pass; the input
# that did it is kept as build-fuzz/fuzz/crash-READER-* for the seed corpus.
#   scripts/fuzz.sh                          (60 s per reader)
#   RANKMAP_FUZZ_SECONDS=600 scripts/fuzz.sh (docs/benchmarks.md's figure)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${RANKMAP_FUZZ_DIR:-$root/build-fuzz}"
seconds="${RANKMAP_FUZZ_SECONDS:-60}"
CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRANKMAP_FUZZ=ON \
  -DRANKMAP_BUILD_TESTS=OFF -DRANKMAP_BUILD_COMMPROF=OFF -DRANKMAP_BUILD_BENCH=OFF \
  -DMPI_C_COMPILER=/usr/bin/mpicc.mpich -DMPI_CXX_COMPILER=/usr/bin/mpicxx.mpich \
  -DMPI_Fortran_COMPILER=/usr/bin/mpif90.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target fuzz_profile fuzz_mapping fuzz_machine fuzz_trace
export ASAN_OPTIONS="detect_leaks=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
failed=0
for reader in profile mapping machine trace; do
  # New inputs go to a scratch corpus; the repository's seed corpus is only read.
  scratch="$build/fuzz/corpus-$reader"
  mkdir -p "$scratch"
  log="$build/fuzz/$reader.log"
  if "$build/fuzz/fuzz_$reader" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -dict="$root/fuzz/$reader.dict" -artifact_prefix="$build/fuzz/crash-$reader-" -print_final_stats=1 \
      "$scratch" "$root/fuzz/corpus/$reader" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    echo "fuzz: $reader reader: ${runs:-?} inputs in ${seconds} s, no crash"
  else
    echo "fuzz: $reader reader FAILED (log: $log):"
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -20 || tail -20 "$log"
    failed=1
  fi
done
exit "$failed"
