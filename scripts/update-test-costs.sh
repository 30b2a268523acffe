#!/usr/bin/env bash
# Writes tests/costs/{release,sanitize}.txt from the ctest logs of a scripts/test.sh run (build/ctest.log,
# build-asan/ctest.log): every test that took 3 s or more, with its seconds, in CTest's cost-data format.
# scripts/test.sh copies them into each build tree before running ctest, so that on a fresh clone, where CTest has no
# timings of its own, the long tests start first instead of last: a 200 s test started at the end of the queue ran
# alone on one core for minutes. Rerun after a change that makes a test much longer or shorter.
# Usage: scripts/update-test-costs.sh [BUILD_LOG] [SANITIZE_LOG]
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p tests/costs
costs() {  # ctest's per-test lines ("  12/940 Test  #17: name ....   Passed   12.34 sec") → "name 1 seconds"
  grep -E 'Test +#[0-9]+: ' "$1" | sed -E 's/.*Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec.*/\1 1 \2/' |
    awk '$3 >= 3' | sort -k3,3 -rn
}
costs "${1:-build/ctest.log}" >tests/costs/release.txt
costs "${2:-build-asan/ctest.log}" >tests/costs/sanitize.txt
wc -l tests/costs/release.txt tests/costs/sanitize.txt
