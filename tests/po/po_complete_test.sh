#!/usr/bin/env bash
# The Chinese catalogue is complete: every string the sources mark (tr, trn, N_, as scripts/update-po.sh extracts
# them) has a translation in po/zh.po, and zh.po holds no fuzzy and no untranslated entry.
# Usage: po_complete_test.sh <source dir> <build dir>
set -euo pipefail
src="$1"
build="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src"

generated=()
if [ -d "$build/generated" ]; then generated=("$build/generated"); fi
find app core views "${generated[@]}" -name '*.cpp' -o -name '*.h' | LC_ALL=C sort > "$tmp/files"
xgettext --language=C++ --from-code=UTF-8 --keyword= --keyword=tr --keyword=trn:1,2 --keyword=N_ --force-po \
  -f "$tmp/files" -o "$tmp/sources.pot"

# 1. zh.po itself: all translated, nothing fuzzy, formats consistent.
stats=$(LC_ALL=C msgfmt --check-format --statistics -o /dev/null po/zh.po 2>&1)
echo "po/zh.po: $stats"
if echo "$stats" | grep -Eq 'fuzzy|untranslated'; then
  echo "FAIL: po/zh.po has fuzzy or untranslated entries (msgattrib --only-fuzzy / --untranslated po/zh.po lists them)"
  exit 1
fi

# 2. zh.po covers every extracted string.
# msgcmp: every msgid of the sources must be in the catalogue with a (non-fuzzy) translation.
if ! LC_ALL=C msgcmp po/zh.po "$tmp/sources.pot" 2> "$tmp/missing"; then
  grep -c 'this message' "$tmp/missing" | sed 's/^/missing translations: /'
  grep -A1 'this message' "$tmp/missing" | head -40
  echo "FAIL: run scripts/update-po.sh and translate the new entries in po/zh.po (docs/translating.md)"
  exit 1
fi
echo "every extracted string ($(grep -c '^msgid ' "$tmp/sources.pot") msgids) has a Chinese translation"
