#!/usr/bin/env bash
# Installs what is missing, builds everything and runs the whole test suite:
#   1. Release build: unit tests, CLI tests, GUI smoke test under Xvfb;
#   2. the same suite again under AddressSanitizer + UndefinedBehaviorSanitizer (any report fails);
#   3. bounded libFuzzer runs (a fixed number of inputs per target) on the file and text parsers.
# TW_QUICK=1 runs stage 1 only (for a fast local loop; CI always runs all three).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)

echo "== stage 1: Release build and tests"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"
[ "${TW_QUICK:-0}" = 1 ] && exit 0

echo "== stage 2: AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTW_SANITIZE=ON -DTW_BUILD_BENCH=OFF
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=abort_on_error=0:halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs"

if ls tests/fuzz/*.cpp >/dev/null 2>&1; then
  echo "== stage 3: bounded fuzzing (clang, libFuzzer)"
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTW_FUZZ=ON \
    -DTW_BUILD_TESTS=OFF -DTW_BUILD_BENCH=OFF
  cmake --build build-fuzz -j "$jobs" --target fuzz_all
  ctest --test-dir build-fuzz --output-on-failure -j "$jobs"
fi
