#!/usr/bin/env bash
# Maintainer step (never part of building, running or the default tests): fetches and cleans the text the shipped
# language models learn from, and writes
#   OUT/poems/train.txt   OUT/poems/heldout.txt    Tang poems, simplified script (npm chinese-poetry, MIT)
#   OUT/quotes/train.txt  OUT/quotes/heldout.txt   every fortune file Debian's fortunes + fortunes-min install
#   OUT/poems/all.txt     OUT/quotes/all.txt       both parts in the sources' order: what `train` reads
#                                                  (train.corpus "file" holds out every tenth record itself)
#   OUT/poems/LICENSE     OUT/quotes/LICENSE       the licence of each text
# in UTF-8, one record (a poem, a fortune) after another, each followed by a blank line.
#
# The split is fixed by the sources' own order: records are numbered in the order the package holds them (poems:
# files poet.tang.0.json, poet.tang.1000.json, ... by number, poems in file order; fortunes: files by name, records
# in file order) and record i is held out when i % 10 == 9. Nothing is random, so the same package versions give the
# same bytes.
#
# Poems: chinese-poetry 2.0.1's quantangshi/poet.tang.*.json (57,607 poems of the Complete Tang Poems, traditional
# script), each poem's `paragraphs` joined without separators, converted to simplified characters by OpenCC's t2s
# (Debian package opencc) so the text matches what a student types. Editorial notes in brackets ("（一作…）", "[…]",
# "{…}") are removed; a poem with a lost character (□, ○ as a placeholder) or no text left is dropped. Titles and
# authors are metadata: they are not part of the text the model learns.
#
# Needs: npm (the registry), python3, opencc, fortunes, fortunes-min.
#   scripts/prepare-corpora.sh ~/corpora
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 OUT" >&2
  exit 2
fi
out=$1
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
for tool in npm python3 opencc; do
  command -v "$tool" >/dev/null || { echo "$0: $tool is missing (apt-get install ${tool/python3/python3})" >&2; exit 1; }
done
for pkg in fortunes fortunes-min; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    { echo "$0: Debian package $pkg is missing (apt-get install $pkg)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out/poems" "$out/quotes"

# [SECTION] Tang poems
(cd "$work" && npm pack --silent chinese-poetry@2.0.1 >/dev/null && tar xzf chinese-poetry-2.0.1.tgz)
pkg=$work/package
# One poem per line, traditional script, in the package's order.
python3 - "$pkg/dist/quantangshi" >"$work/tang.trad" <<'PY'
import json, os, re, sys
d = sys.argv[1]
files = sorted((f for f in os.listdir(d) if re.fullmatch(r"poet\.tang\.\d+\.json", f)),
               key=lambda f: int(f.split(".")[2]))
notes = re.compile(r"（[^（）]*）|\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}|〔[^〔〕]*〕|【[^【】]*】")
kept = dropped = 0
for f in files:
    for poem in json.load(open(os.path.join(d, f), encoding="utf-8")):
        text = "".join(p.strip() for p in poem.get("paragraphs", []))
        text = notes.sub("", text)
        text = re.sub(r"\s+", "", text)
        if not text or "□" in text or "○" in text or "\n" in text:
            dropped += 1
            continue
        print(text)
        kept += 1
print(f"poems: {kept} kept, {dropped} dropped (lost characters or empty)", file=sys.stderr)
PY
opencc -c t2s.json -i "$work/tang.trad" -o "$work/tang.simp"
python3 - "$work/tang.simp" "$out/poems" <<'PY'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
lines = [l for l in lines if l]
with open(sys.argv[2] + "/train.txt", "w", encoding="utf-8") as tr, \
     open(sys.argv[2] + "/heldout.txt", "w", encoding="utf-8") as ho, \
     open(sys.argv[2] + "/all.txt", "w", encoding="utf-8") as al:
    for i, l in enumerate(lines):
        (ho if i % 10 == 9 else tr).write(l + "\n\n")
        al.write(l + "\n\n")
PY
cp "$pkg/LICENSE" "$out/poems/LICENSE"
printf '\nSource: npm package chinese-poetry 2.0.1 (quantangshi/poet.tang.*.json), converted to simplified\ncharacters with OpenCC t2s; see scripts/prepare-corpora.sh.\n' >>"$out/poems/LICENSE"

# [SECTION] English fortunes
files=$(dpkg -L fortunes fortunes-min | grep '^/usr/share/games/fortunes/' | grep -v -E '\.(dat|u8)$' | sort)
python3 - "$out/quotes" $files <<'PY'
import sys
out, files = sys.argv[1], sys.argv[2:]
records = []
for f in files:
    raw = open(f, encoding="utf-8").read().replace("\r", "")
    cur = []
    for line in raw.split("\n"):
        if line == "%":
            text = "\n".join(l.rstrip() for l in cur).strip("\n")
            if text.strip():
                records.append(text)
            cur = []
        else:
            cur.append(line.expandtabs(8))
    text = "\n".join(l.rstrip() for l in cur).strip("\n")
    if text.strip():
        records.append(text)
# A record's own blank lines would read as a record break: they become single line breaks.
records = ["\n".join(l for l in r.split("\n") if l.strip()) for r in records]
with open(out + "/train.txt", "w", encoding="utf-8") as tr, open(out + "/heldout.txt", "w", encoding="utf-8") as ho, \
     open(out + "/all.txt", "w", encoding="utf-8") as al:
    for i, r in enumerate(records):
        (ho if i % 10 == 9 else tr).write(r + "\n\n")
        al.write(r + "\n\n")
print(f"fortunes: {len(records)} records from {len(files)} files", file=sys.stderr)
PY
cp /usr/share/doc/fortunes/copyright "$out/quotes/LICENSE"
printf '\nSource: every fortune file of the Debian packages fortunes and fortunes-min; see scripts/prepare-corpora.sh.\n' >>"$out/quotes/LICENSE"

for m in poems quotes; do
  for part in train heldout; do
    echo "$m/$part.txt: $(python3 -c 'import sys; print(len(open(sys.argv[1], encoding="utf-8").read()))' "$out/$m/$part.txt") characters"
  done
done
