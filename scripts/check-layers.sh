#!/usr/bin/env bash
# core/'s folders in layers: a file may include its own folder and the layers below it, never one above, so the
# layers build on each other without a loop (docs/source-layout.md). The order, lowest first:
#   base         core/*.h, core/*.cpp: assets, numbers, threads, tensors (no folder)
#   text         UTF-8, i18n, tokenizers
#   io           files, JSON, safetensors
#   ops          the free-function operations and their backward
#   model        configs, weights, the one forward pass
#   train        tasks, the trainer, optimisers
#   experiments  what each panel computes
#   lessons      lesson files and their checks
# Includes that break the order today are listed in scripts/layer-exceptions.txt ("from -> to", one per line), each a
# move still to make; the check fails on any other, and on a listed one that no longer exists (so the list only
# shrinks). Usage: scripts/check-layers.sh [--list]   (--list prints every breaking include and exits 0)
set -euo pipefail
cd "$(dirname "$0")/.."
layers=(base text io ops model train experiments lessons)
rank() {
  local i
  for i in "${!layers[@]}"; do [ "${layers[$i]}" = "$1" ] && { echo "$i"; return; }; done
  echo "unknown layer '$1' (scripts/check-layers.sh lists them)" >&2
  exit 2
}
folder_of() {  # core/text/utf8.h -> text; core/assets.h -> base
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
LC_ALL=C sort -o "$found" "$found"
if [ "${1:-}" = "--list" ]; then cat "$found"; exit 0; fi
allowed=scripts/layer-exceptions.txt
new=$(LC_ALL=C comm -23 "$found" <(grep -v '^#' "$allowed" | LC_ALL=C sort))
gone=$(LC_ALL=C comm -13 "$found" <(grep -v '^#' "$allowed" | LC_ALL=C sort))
status=0
if [ -n "$new" ]; then
  echo "an include reaches a layer above its own (move the code down, or the include up):"
  echo "$new" | sed 's/^/  /'
  status=1
fi
if [ -n "$gone" ]; then
  echo "fixed, so remove from $allowed:"
  echo "$gone" | sed 's/^/  /'
  status=1
fi
[ $status = 0 ] && echo "core layers: no include reaches up, apart from the $(grep -vc '^#' "$allowed") listed in $allowed"
exit $status
