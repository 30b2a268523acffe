#!/usr/bin/env bash
# Installs what is missing, builds everything and runs the whole test suite:
#   1. Release build: unit tests, CLI tests, GUI tests under Xvfb;
#   2. the suite again under AddressSanitizer + UndefinedBehaviorSanitizer (any report fails), plus bounded libFuzzer
#      runs (a fixed number of inputs per target) on the scene, safetensors, config and tokenizer parsers. Tests that
#      only re-measure or re-run at length what stage 1 already checks, where the sanitizers add nothing, are not
#      registered there (tests/CMakeLists.txt says which, and why).
# Ends with a timing summary (build and test minutes per stage, the ten slowest tests of each), also on failure.
# TW_QUICK=1 runs stage 1 only (for a fast local loop; CI always runs both).
set -euo pipefail
cd "$(dirname "$0")/.."
start_all=$(date +%s)
scripts/install-deps.sh
jobs=$(nproc)

timings=()
now() { date +%s; }
minutes() { awk -v s="$1" 'BEGIN { printf "%.1f", s / 60 }'; }
# ctest's per-test lines ("  12/940 Test  #17: name ....   Passed   12.34 sec"), slowest first.
slowest() { grep -E 'Test +#[0-9]+: ' "$1" 2>/dev/null | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec.*/\2 \1/' |
  sort -rn | head -n 10 | awk '{ printf "    %8.1f s  %s\n", $1, $2 }'; }
summary() {
  local rc=$?
  # The summary only reports: nothing in it (a SIGPIPE from head, an empty log) may change the exit status.
  set +e +o pipefail
  # A stage 2 build still running beside a failed stage 1 stops with it.
  [ -n "${stage2_pid:-}" ] && kill -- -"$stage2_pid" 2>/dev/null
  echo "== timing summary (wall clock, $(nproc) cores)"
  echo "  whole run, from installing packages to here: $(minutes $(($(date +%s) - start_all))) min"
  for line in "${timings[@]}"; do echo "  $line"; done
  for log in build/ctest.log build-asan/ctest.log; do
    [ -f "$log" ] || continue
    echo "  ten slowest tests of ${log%%/*}:"
    slowest "$log"
  done
  exit $rc
}
trap summary EXIT
# Runs a step, records its minutes under a label.
timed() {
  local label=$1 start
  shift
  start=$(now)
  "$@"
  timings+=("$label: $(minutes $(($(now) - start))) min")
}
# On a fresh clone CTest knows no test's duration and starts them in declaration order, so the longest could start
# last and run alone on one core; tests/costs holds the long ones' seconds from a recent run (written by
# scripts/update-test-costs.sh), which CTest reads as its own history and starts them first. A build tree that has
# run its tests keeps CTest's own, newer timings.
seed_costs() {  # seed_costs BUILD_DIR COSTS_FILE
  local data=$1/Testing/Temporary/CTestCostData.txt
  [ -f "$data" ] && return 0
  mkdir -p "$(dirname "$data")"
  { cat "$2"; echo ---; } >"$data"
}
ctest_logged() {
  local dir=$1
  shift
  set -o pipefail
  ctest --test-dir "$dir" --output-on-failure -j "$jobs" "$@" 2>&1 | tee "$dir/ctest.log"
}

stage2_build() {
  CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO='-O1 -g1' -DCMAKE_CXX_FLAGS_RELWITHDEBINFO='-O1 -g1' \
    -DTW_SANITIZE=ON -DTW_FUZZ=ON -DTW_BUILD_BENCH=OFF && cmake --build build-asan -j "$jobs"
}

echo "== stage 1: Release build and tests"
timed "stage 1 build" bash -c "cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build -j $jobs"
# Stage 2's build starts beside stage 1's tests at the lowest priority: it takes only the CPU the tests leave idle
# (GUI tests waiting on Xvfb, the serial GUI tests' one core), so the tests run as they would alone.
stage2_pid=
if [ "${TW_QUICK:-0}" != 1 ]; then
  mkdir -p build-asan
  setsid nice -n 19 bash -c "$(declare -f stage2_build); jobs=$jobs; stage2_build" >build-asan/build.log 2>&1 &
  stage2_pid=$!
fi
seed_costs build tests/costs/release.txt
timed "stage 1 tests" ctest_logged build
[ "${TW_QUICK:-0}" = 1 ] && exit 0

echo "== stage 2: the suite again under AddressSanitizer + UndefinedBehaviorSanitizer, then bounded fuzzing"
# One clang build serves both: every library is compiled with ASan+UBSan and libFuzzer's coverage hooks, the
# GoogleTest programs run as in stage 1, and each tests/fuzz/fuzz_*.cpp target runs a fixed number of inputs
# over its seed corpus (CTest label "fuzz").
finish_stage2_build() {
  local pid=$stage2_pid
  stage2_pid=
  if ! wait "$pid"; then
    tail -n 200 build-asan/build.log
    echo "stage 2 build failed (whole log: build-asan/build.log)"
    return 1
  fi
  tail -n 3 build-asan/build.log
}
timed "stage 2 build (what was left after stage 1's tests)" finish_stage2_build
export ASAN_OPTIONS=halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
seed_costs build-asan tests/costs/sanitize.txt
timed "stage 2 tests" ctest_logged build-asan
