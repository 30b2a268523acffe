#!/usr/bin/env bash
# Frame wall time while the front window is dragged: starts transformer-workbench with --perf-report and the given
# arguments, drags the front panel's title bar with xdotool (120 moves, about 60 per second), quits with Ctrl+Q and
# prints the report's frame statistics (every frame the real loop drew: the drag and the frames around it).
#   xvfb-run -a -s "-screen 0 1920x1080x24" scripts/measure-drag.sh build/transformer-workbench --fresh --all-panels
# Environment: SETTLE_SECONDS (default 6), REPORT (default: a temporary file), GRAB_X/GRAB_Y (the title bar, 900 31).
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: measure-drag.sh <transformer-workbench> [arguments...]" >&2
  exit 2
fi
report=${REPORT:-$(mktemp --suffix=.json)}
"$@" --perf-report "$report" --perf-idle-seconds 0 &
pid=$!
sleep "${SETTLE_SECONDS:-6}"
x=${GRAB_X:-900} y=${GRAB_Y:-31}
xdotool mousemove "$x" "$y" mousedown 1
sleep 0.1  # held a moment before the first move, as a hand does
for i in $(seq 1 120); do
  # back and forth, so the window stays on screen and the page behind it is uncovered and covered again
  d=$(( (i % 60) < 30 ? (i % 30) * 6 : (30 - i % 30) * 6 ))
  xdotool mousemove $((x + d)) $((y + d / 2))
  sleep 0.016
done
xdotool mouseup 1
sleep 0.5
xdotool keydown ctrl keydown q; sleep 0.3; xdotool keyup q keyup ctrl  # held across frames (ImGui 1.86 reads key state)
wait "$pid"
# Every frame the loop drew, then the drag's own (while the window moved, and the frame after it: window_drag).
python3 - "$report" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("renderer:", r["renderer"])
drag = r.get("window_drag")  # absent from the reports of builds before it; no frames when no window moved
if drag and drag["frame_wall_ms"]["frames"] == 0:
    drag = None
for name, part in (("all frames", r), ("drag frames", drag)) if drag else (("all frames", r),):
    for key in ("frame_wall_ms", "frame_process_cpu_ms"):
        s = part[key]
        print(f"{name}: {key} frames {s['frames']} p50 {s['p50']:.2f} p95 {s['p95']:.2f} p99 {s['p99']:.2f} max {s['max']:.2f}")
if drag:
    print("drag frames that copied the window's image:", drag["copied_frames"])
PY
echo "report: $report"
