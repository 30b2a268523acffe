#!/usr/bin/env bash
# GUI smoke test: run the real app under Xvfb with every panel open, then check the screenshot has content.
# Usage: smoke_test.sh APP CHECKER OUTDIR
set -euo pipefail
app=$1 checker=$2 out=$3
mkdir -p "$out"
# Under the sanitizer build: Mesa's dlopen'ed GL driver leaks a few bytes and is unloaded before LeakSanitizer
# reports, so its frames cannot be suppressed by name. Leak checking stays on for every other test.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
rm -f "$out/all-panels.png" "$out/print.png" "$out/zoom2-focus.png"
# A private config dir: the run neither reads nor overwrites the developer's last session.
export XDG_CONFIG_HOME="$out/config"
rm -rf "$XDG_CONFIG_HOME"
xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --all-panels --frames 30 --screenshot "$out/all-panels.png"
"$checker" "$out/all-panels.png"
xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --all-panels --theme print --frames 10 --screenshot "$out/print.png"
"$checker" "$out/print.png"
# Presentation mode: a session saved zoomed with a focused panel and collapsed controls reopens that way
# (fonts built at 2x before the first frame).
mkdir -p "$XDG_CONFIG_HOME/transformer-workbench"
printf '{"version": 1, "zoom": 2, "focus": "softmax", "open": ["softmax"], "windows": {"softmax": {"x": 50, "y": 50, "w": 900, "h": 700, "controls_collapsed": true}}}\n' \
  >"$XDG_CONFIG_HOME/transformer-workbench/last-session.json"
xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --frames 30 --screenshot "$out/zoom2-focus.png"
"$checker" "$out/zoom2-focus.png"
grep -q '"zoom": 2' "$XDG_CONFIG_HOME/transformer-workbench/last-session.json"
grep -q '"focus": "softmax"' "$XDG_CONFIG_HOME/transformer-workbench/last-session.json"
# Every shipped model folder opens with --model (a failure is printed to stderr as "--model DIR: why").
models="$(dirname "$0")/../../assets/models"
for dir in "$models"/*/; do
  rm -rf "$XDG_CONFIG_HOME"
  xvfb-run -a -s "-screen 0 1280x720x24" "$app" --fresh --model "$dir" --frames 30 2>"$out/model.err" >/dev/null
  if grep -q -- "--model" "$out/model.err"; then
    echo "FAIL: --model $dir:" >&2
    cat "$out/model.err" >&2
    exit 1
  fi
done
echo "gui smoke: screenshots in $out"
