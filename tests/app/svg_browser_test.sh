#!/usr/bin/env bash
# Exported SVGs render the same in a browser as in rsvg-convert: text positions, CJK and math glyphs, nothing missing.
# Renders a few figures (typeset formulas, Chinese labels) with both, shrinks both to a quarter (glyph antialiasing,
# which differs between the two rasterizers, averages out; a label is still a blot) and fails when more than 0.5% of
# the shrunk pixels differ by more than 15%. Measured: 0 to 24 of ~12,000 differ for the four figures; leaving out
# the softmax figure's title makes 150 differ. Skipped (exit 77) when Debian's chromium is not installed: it is a check, not a dependency.
# Usage: svg_browser_test.sh APP WORK_DIR
set -uo pipefail
app=$1 work=$2
browser=$(command -v chromium || true)
if [ -z "$browser" ] || ! command -v rsvg-convert >/dev/null || ! command -v compare >/dev/null; then
  echo "SKIP: chromium, rsvg-convert or ImageMagick's compare is not installed"; exit 77
fi
rm -rf "$work" && mkdir -p "$work"
export XDG_CONFIG_HOME="$work/config"
fail=0
for lang in en zh; do
  for scene in softmax rope norms; do
    "$app" --lang "$lang" export --scene "$scene" --out "$work/$lang" --format svg >/dev/null || { echo "FAIL export $lang $scene"; fail=1; }
  done
done
for svg in "$work"/en/softmax-sweep.svg "$work"/zh/softmax-sweep.svg "$work"/zh/rope-angles.svg "$work"/zh/norms-norms.svg; do
  [ -f "$svg" ] || { echo "FAIL missing $svg"; fail=1; continue; }
  w=$(grep -o 'width="[0-9.]*"' "$svg" | head -1 | tr -dc 0-9.); h=$(grep -o 'height="[0-9.]*"' "$svg" | head -1 | tr -dc 0-9.)
  w=${w%.*} h=${h%.*}
  base=${svg%.svg}
  rsvg-convert -b white -w "$w" -h "$h" "$svg" -o "$base-rsvg.png"
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --default-background-color=ffffffff \
    --screenshot="$base-browser.png" --window-size="$w,$h" "$svg" >/dev/null 2>&1
  convert "$base-rsvg.png" -resize 25% "$base-rsvg-small.png"
  convert "$base-browser.png" -resize 25% "$base-browser-small.png"
  n=$(identify -format '%[fx:w*h]' "$base-rsvg-small.png")
  ae=$(compare -metric AE -fuzz 15% "$base-rsvg-small.png" "$base-browser-small.png" null: 2>&1 | cut -d' ' -f1)
  if awk -v a="$ae" -v n="$n" 'BEGIN { exit !(a == a + 0 && a <= 0.005 * n) }'; then
    echo "ok   $(basename "$svg"): $ae of $n pixels differ"
  else
    echo "FAIL $(basename "$svg"): $ae of $n pixels differ between rsvg-convert and chromium"; fail=1
  fi
done
exit $fail
