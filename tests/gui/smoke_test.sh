#!/usr/bin/env bash
# GUI smoke test: run the real app under Xvfb with every panel open, then check the screenshot has content.
# Usage: smoke_test.sh APP CHECKER OUTDIR
set -euo pipefail
app=$1 checker=$2 out=$3
mkdir -p "$out"
rm -f "$out/all-panels.png" "$out/print.png"
xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --all-panels --frames 30 --screenshot "$out/all-panels.png"
"$checker" "$out/all-panels.png"
xvfb-run -a -s "-screen 0 1600x1000x24" "$app" --all-panels --theme print --frames 10 --screenshot "$out/print.png"
"$checker" "$out/print.png"
echo "gui smoke: screenshots in $out"
