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
rank() {
  local i
  for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done
  echo "unknown layer '$1' (scripts/check-layers.sh lists them)" >&2
  exit 2
}
folder_of() {  # core/text/byte_tokenizer.h -> text; core/base/utf8.h, core/assets.h -> base
  local rest=${1#core/}
  case $rest in */*) echo "${rest%%/*}" ;; *) echo base ;; esac
}
found=$(mktemp)
trap 'rm -f "$found"' EXIT
while IFS= read -r file; do
  from=$(folder_of "$file")
  r_from=$(rank "$from")
  while IFS= read -r inc; do
    to=$(folder_of "$inc")
    [ "$(rank "$to")" -gt "$r_from" ] && echo "$file -> $inc" >>"$found"
  done < <(sed -n 's/^#include "\(core\/[^"]*\)".*/\1/p' "$file")
done < <(find core -name '*.h' -o -name '*.cpp' | LC_ALL=C sort)
if [ -s "$found" ]; then
  echo "an include reaches a layer above its own (move the code down, or the include up):"
  LC_ALL=C sort "$found" | sed 's/^/  /'
  exit 1
fi
echo "core layers: $(find core -name '*.h' -o -name '*.cpp' | wc -l) files, no include reaches up (${layers[*]})"
