#!/usr/bin/env bash
# Installs what is missing, builds a Release binary and opens the Transformer Workbench window.
# Extra arguments go to the app, e.g. scripts/run.sh --open softmax
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DTW_BUILD_BENCH=OFF
cmake --build build --target transformer-workbench
exec build/transformer-workbench "$@"
