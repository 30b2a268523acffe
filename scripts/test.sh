#!/usr/bin/env bash
# Installs what is missing, builds everything and runs the whole test suite:
#   1. Release build: unit tests, CLI tests, GUI smoke test under Xvfb;
#   2. the same suite again under AddressSanitizer + UndefinedBehaviorSanitizer (any report fails), plus
#      bounded libFuzzer runs (a fixed number of inputs per target) on the scene, safetensors, config and
#      tokenizer parsers.
# TW_QUICK=1 runs stage 1 only (for a fast local loop; CI always runs both).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
jobs=$(nproc)

echo "== stage 1: Release build and tests"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"
[ "${TW_QUICK:-0}" = 1 ] && exit 0

echo "== stage 2: the suite again under AddressSanitizer + UndefinedBehaviorSanitizer, then bounded fuzzing"
# One clang build serves both: every library is compiled with ASan+UBSan and libFuzzer's coverage hooks, the
# GoogleTest programs run as in stage 1, and each tests/fuzz/fuzz_*.cpp target runs a fixed number of inputs
# over its seed corpus (CTest label "fuzz").
CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DTW_SANITIZE=ON -DTW_FUZZ=ON -DTW_BUILD_BENCH=OFF
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs"
