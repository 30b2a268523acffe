#!/usr/bin/env bash
# Refreshes the translation files after source strings changed (docs/translating.md):
#   1. xgettext extracts every tr("…"), trn("…", "…", n) and N_("…") from app/, core/, views/ (and the build's
#      generated sources, e.g. the panel explanations compiled from views/text/*.txt) into
#      po/transformer-workbench.pot;
#   2. msgmerge brings po/zh.po up to date with it (new strings untranslated, vanished ones commented out).
# Then translate what `msgattrib --untranslated po/zh.po` lists, in zh.po itself.
# Usage: scripts/update-po.sh [build-dir]      (build-dir default: build)
set -euo pipefail
cd "$(dirname "$0")/.."

build="${1:-build}"

generated=()
if [ -d "$build/generated" ]; then generated=("$build/generated"); fi
sources=$(find app core views "${generated[@]}" -name '*.cpp' -o -name '*.h' | LC_ALL=C sort)

xgettext --language=C++ --from-code=UTF-8 --keyword= --keyword=tr --keyword=trn:1,2 --keyword=N_ \
  --add-comments=TRANSLATORS: --force-po --sort-by-file --package-name=transformer-workbench \
  --msgid-bugs-address="the issue tracker" --copyright-holder= -o po/transformer-workbench.pot $sources
# Drop the creation date so an unchanged extraction leaves the file unchanged.
sed -i '/^"POT-Creation-Date:/d' po/transformer-workbench.pot

if [ ! -f po/zh.po ]; then
  msginit --no-translator --locale=zh_CN.UTF-8 -i po/transformer-workbench.pot -o po/zh.po
fi
msgmerge --quiet --update --backup=none --no-fuzzy-matching --sort-by-file po/zh.po po/transformer-workbench.pot

msgfmt --statistics -o /dev/null po/zh.po
