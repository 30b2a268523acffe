#!/usr/bin/env bash
# Writes po/zh.po with every po/fragments/*.po folded in to OUT (msgcat --use-first: zh.po's own translations win;
# a fragment fills only what zh.po leaves untranslated; a fragment without a PO header gets one). Run from the
# source tree. Used by scripts/update-po.sh --fold and tests/po/po_complete_test.sh, so both fold the same way.
# Usage: scripts/po-with-fragments.sh OUT.po
set -euo pipefail
out=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inputs=(po/zh.po)
for f in po/fragments/*.po; do
  [ -s "$f" ] || continue
  if grep -q 'charset=' "$f"; then cp "$f" "$tmp/$(basename "$f")"
  else printf 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n' | cat - "$f" > "$tmp/$(basename "$f")"; fi
  inputs+=("$tmp/$(basename "$f")")
done
msgcat --use-first --force-po "${inputs[@]}" -o "$out"
