#!/usr/bin/env bash
# Builds rankmap with AddressSanitizer + UndefinedBehaviorSanitizer into
# ./build-sanitize and runs the tests that exercise our own code without
# launching MPI jobs (unit tests, command-line and report tests). The profiler
# and MPI programs are left out: they run inside MPI processes whose runtime
# is not built with the sanitizers.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${RANKMAP_SANITIZE_DIR:-$root/build-sanitize}"
# -O1 (asserts stay on: a Debug build without NDEBUG): the mapper's tests ran
# 4x faster than at -O0 under the sanitizers (the cut bound against brute
# force 182 -> 47 s, determinism for a seed 81 -> 18 s), which keeps this
# pass well inside CI's 90 minutes (at -O0 it took 40 of them on a slow day).
# AddressSanitizer's own guidance: -O1 or higher for reasonable performance.
flags="-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DRANKMAP_BUILD_COMMPROF=OFF \
  -DRANKMAP_BUILD_BENCH=OFF -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DMPI_C_COMPILER=/usr/bin/mpicc.mpich -DMPI_CXX_COMPILER=/usr/bin/mpicxx.mpich \
  -DMPI_Fortran_COMPILER=/usr/bin/mpif90.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich >/dev/null
cmake --build "$build" --parallel "$(nproc)"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$root/tests/lsan.supp"
# Excluded: tests that start MPI processes or SimGrid (labels), the
# installed-package consumer (built without the sanitizer runtime). The
# strong preset's four tests are in since -O1 (4 minutes on two cores; 6-8
# minutes each at -O0 had kept them out).
ctest --test-dir "$build" --output-on-failure --timeout 900 -j "$(nproc)" \
  -LE "^(mpi|launcher|examples|smpi|bench)$" -E "installed package" "$@"
