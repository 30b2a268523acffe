#!/bin/sh
# `export --lesson N --lang en|zh` for every shipped lesson: exits 0 and writes a folder per step with at least one
# PNG in each (tests/CMakeLists.txt: lesson_export).
set -eu
exe="$1"; lessons="$2"; out="$3"
rm -rf "$out"; mkdir -p "$out"
found=0
for file in "$lessons"/*.json; do
  [ -e "$file" ] || continue
  n=$(basename "$file" | sed 's/^\([0-9]*\).*/\1/')
  for lang in en zh; do
    found=1
    if ! "$exe" export --lesson "$n" --lang "$lang" --out "$out/$lang" --format png >"$out/$n-$lang.log" 2>"$out/$n-$lang.err"; then
      echo "FAIL: export --lesson $n --lang $lang:"; cat "$out/$n-$lang.err"; exit 1
    fi
    steps=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['steps']))" "$file")
    dirs=$(find "$out/$lang" -mindepth 2 -maxdepth 2 -type d -path "*/$n-*/*" | wc -l)
    if [ "$dirs" -ne "$steps" ]; then echo "FAIL: lesson $n ($lang): $dirs step folders for $steps steps"; exit 1; fi
    for d in $(find "$out/$lang" -mindepth 2 -maxdepth 2 -type d -path "*/$n-*/*"); do
      ls "$d"/*.png >/dev/null 2>&1 || { echo "FAIL: $d has no PNG"; exit 1; }
      [ -s "$d/step.md" ] || { echo "FAIL: $d has no step.md"; exit 1; }
    done
    echo "ok: lesson $n ($lang): $steps steps"
  done
done
[ "$found" -eq 1 ] || { echo "FAIL: no lesson files in $lessons"; exit 1; }
# A lesson that does not exist and a broken file are one line and exit 2.
if "$exe" export --lesson 99 --out "$out/none" 2>"$out/none.err"; then echo "FAIL: lesson 99 exported"; exit 1; fi
grep -q "no shipped lesson 99" "$out/none.err" || { echo "FAIL: lesson 99 message"; cat "$out/none.err"; exit 1; }
echo '{"format": 1}' >"$out/bad.json"
if "$exe" export --lesson "$out/bad.json" --out "$out/bad" 2>"$out/bad.err"; then echo "FAIL: bad lesson exported"; exit 1; fi
grep -q "bad.json: id:" "$out/bad.err" || { echo "FAIL: bad lesson message"; cat "$out/bad.err"; exit 1; }
echo "lesson export: all ok"
