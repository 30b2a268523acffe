#!/usr/bin/env bash
# Performance record (label perf), not a timed test: runs the real app under Xvfb at 1920x1080 with every panel
# open, prints what its frames and its idle window cost into the log (so a regression is visible in CI), and fails
# only on bounds no healthy build can miss even on a loaded two-core machine.
# Usage: perf_check.sh APP MEASURE_IDLE OUTDIR [RENDER_CHECK_APP]
# RENDER_CHECK_APP: the test build of the app, which has the full-redraw reference (TW_DAMAGE=full); without it that
# line is left out.
set -euo pipefail
app=$1 measure_idle=$2 out=$3 check_app=${4:-}
mkdir -p "$out"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export XDG_CONFIG_HOME="$out/config"
rm -rf "$XDG_CONFIG_HOME" "$out/perf.json"
screen=(-a -s "-screen 0 1920x1080x24")
# 120 frames, every one drawn (--frames), then 6 s of the same loop with no input (a full redraw every 0.5 s, the
# behaviour the bound below catches, shows in any window of a few seconds).
xvfb-run "${screen[@]}" "$app" --fresh --all-panels --width 1920 --height 1080 --frames 120 \
  --perf-idle-seconds 6 --perf-report "$out/perf.json"
# One number from the JSON (written by nlohmann::json::dump(2): one key per line).
field_in() {  # field_in FILE SECTION KEY
  sed -n "/\"$2\": {/,/}/p" "$1" | sed -n "s/^ *\"$3\": \([-0-9.e+]*\).*/\1/p" | head -1
}
field() { field_in "$out/perf.json" "$@"; }
renderer=$(sed -n 's/^ *"renderer": "\(.*\)",*$/\1/p' "$out/perf.json")
ttff=$(sed -n 's/^  "time_to_first_frame_ms": \([-0-9.e+]*\).*/\1/p' "$out/perf.json")  # top level: two spaces
idle=$(field idle cpu_percent_of_one_core)
echo "perf: renderer: $renderer"
echo "perf: all panels, 1920x1080: frame wall p50 $(field frame_wall_ms p50) ms, p99 $(field frame_wall_ms p99) ms;" \
  "process CPU per frame p50 $(field frame_process_cpu_ms p50) ms"
echo "perf: the same frames redrew $(field damaged_mpx mean) million pixels each on average (damage tracking," \
  "app/render/render_damage.h; the window has 2.07)"
# The same frames drawn in full every time (TW_DAMAGE=full): what a frame costs when everything changes.
if [ -n "$check_app" ]; then
  rm -rf "$XDG_CONFIG_HOME"
  TW_DAMAGE=full xvfb-run "${screen[@]}" "$check_app" --fresh --all-panels --width 1920 --height 1080 --frames 60 \
    --perf-idle-seconds 0 --perf-report "$out/perf-full.json"
  full_field() { field_in "$out/perf-full.json" "$@"; }
  echo "perf: all panels, every frame redrawn in full (TW_DAMAGE=full): frame wall p50 $(full_field frame_wall_ms p50) ms," \
    "p99 $(full_field frame_wall_ms p99) ms; process CPU per frame p50 $(full_field frame_process_cpu_ms p50) ms"
fi
# The front page dragged by its title bar (scripts/measure-drag.sh): the frames a user waits for.
if command -v xdotool >/dev/null; then
  rm -rf "$XDG_CONFIG_HOME"
  REPORT="$out/perf-drag.json" xvfb-run "${screen[@]}" "$(dirname "$measure_idle")/measure-drag.sh" "$app" --fresh \
    --all-panels --width 1920 --height 1080 >/dev/null
  drag_field() { field_in "$out/perf-drag.json" "$@"; }
  echo "perf: all panels, front page dragged: frame wall p50 $(drag_field frame_wall_ms p50) ms," \
    "p99 $(drag_field frame_wall_ms p99) ms; process CPU per frame p50 $(drag_field frame_process_cpu_ms p50) ms;" \
    "$(drag_field damaged_mpx mean) million pixels redrawn per frame on average"
  # The drag's own frames (perf.json window_drag: while ImGui moved the window, and the frame after).
  read -r p50 p99 copied n < <(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])).get("window_drag", {})
w = d.get("frame_wall_ms", {})
print(w.get("p50", -1), w.get("p99", -1), d.get("copied_frames", 0), w.get("frames", 0))' "$out/perf-drag.json")
  echo "perf: the drag's own frames: frame wall p50 $p50 ms, p99 $p99 ms; $copied of $n copied the window's image"
fi
echo "perf: idle (in-process, 6 s of the main loop): $idle % of one core, $(field idle frames_drawn) frames drawn"
echo "perf: time to first frame $ttff ms"
# The same idle figure from outside: /proc/PID/stat of the running app, every thread.
outside=$(SETTLE_SECONDS=8 IDLE_SECONDS=6 xvfb-run "${screen[@]}" "$measure_idle" "$app" --fresh --all-panels \
  --width 1920 --height 1080)
echo "perf: idle (from /proc, all panels): $outside"
outside_percent=$(echo "$outside" | sed -n 's/^idle_cpu_percent_of_one_core \([0-9.]*\).*/\1/p')
# Bounds: an idle window draws nothing, so it uses well under 1% of a core; 5% leaves room for a machine busy with
# other jobs (scheduler and timer noise) and still fails the old behaviour (a full frame every 0.5 s: 20-50%).
# No bound on frame time: on a shared CI machine it depends on the load, so it is printed, not asserted.
awk -v a="$idle" -v b="$outside_percent" 'BEGIN { exit !(a >= 0 && a < 5 && b >= 0 && b < 5) }' || {
  echo "perf: FAIL: idle CPU above 5% of one core (in-process $idle %, from /proc $outside_percent %)" >&2
  exit 1
}
