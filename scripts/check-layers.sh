#!/usr/bin/env bash
# core/'s folders in layers: a file may include its own folder and the layers below it, never one above, so the
# layers build on each other without a loop (docs/source-layout.md). The order, lowest first:
#   base         core/base/ (UTF-8, i18n, file reading, JSON) and core/*.h, core/*.cpp (assets, numbers, threads)
#   text         tokenizers, corpora, n-grams, tokenizer training
#   io           atomic files, safetensors, .npy, user folders
#   ops          the free-function operations and their backward
#   model        configs, weights, the one forward pass
#   train        tasks, the trainer, optimisers
#   experiments  what each panel computes
#   lessons      lesson files and their checks
# The check fails on any include that reaches up, naming it. Usage: scripts/check-layers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
layers=(base text io ops model train experiments lessons)  # base: core/base/ and core/'s own files
files=$(find core -name '*.h' -o -name '*.cpp' | LC_ALL=C sort)
# One awk pass over every file (a shell loop per include took 20 s): the folder of the including file and of each
# core include, ranked by the list above; an unknown folder stops the check, an include reaching up is printed.
found=$(printf '%s\n' $files | xargs awk -v order="${layers[*]}" '
  function folder(path,  rest) { rest = substr(path, 6); return index(rest, "/") ? substr(rest, 1, index(rest, "/") - 1) : "base" }
  function rank(name) {
    if (!(name in r)) { print "unknown layer \x27" name "\x27 (scripts/check-layers.sh lists them)" > "/dev/stderr"; bad = 1; exit 2 }
    return r[name]
  }
  BEGIN { n = split(order, l, " "); for (i = 1; i <= n; ++i) r[l[i]] = i }
  FNR == 1 { from = rank(folder(FILENAME)) }
  /^#include "core\// {
    inc = $0; sub(/^#include "/, "", inc); sub(/".*/, "", inc)
    if (rank(folder(inc)) > from) print FILENAME " -> " inc
  }')
if [ -n "$found" ]; then
  echo "an include reaches a layer above its own (move the code down, or the include up):"
  LC_ALL=C sort <<<"$found" | sed 's/^/  /'
  exit 1
fi
echo "core layers: $(wc -w <<<"$files") files, no include reaches up (${layers[*]})"
