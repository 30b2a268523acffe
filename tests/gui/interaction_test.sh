#!/usr/bin/env bash
# GUI interaction test: the real window under Xvfb, driven with xdotool as a lecturer would, read back through
# --gui-report (app/gui_report.h) and the session saved at exit.
#   - the wheel over a figure scrolls the page and leaves the figure's axes alone; Ctrl+wheel zooms it;
#   - a double-click resets the zoom; a change of the data (a Right-arrow step in the stepper) resets it too;
#   - quick key taps (press and release inside one frame) are each handled once: Ctrl+T toggles the theme once, one
#     Right arrow moves exactly one step; a clicker's PageDown/PageUp step it too;
#   - zoomed to 200% (five Ctrl+= taps) no window covers the menu bar;
#   - the session saved at exit keeps the panel in front and the zoom.
# Usage: interaction_test.sh APP OUTDIR
set -euo pipefail
app=$1 out=$2
. "$(dirname "$0")/xvfb_session.sh"
gui_session "$out" 1600x1000 91 140
report="$out/report.json"
rm -f "$report"
"$app" --fresh --open forward --width 1600 --height 1000 --gui-report "$report" >"$out/app.log" 2>&1 &
app_pid=$!

fail() { echo "interaction test: FAIL: $*"; import -window root "$out/failure.png" 2>/dev/null || true; exit 1; }
q() { python3 -c "import json,sys; r=json.load(open('$report')); print(eval(sys.argv[1]))" "$1"; }
settle() { sleep "${1:-0.6}"; }
for _ in $(seq 100); do [ -s "$report" ] && [ "$(q "len(r['figures'])")" -gt 0 ] 2>/dev/null && break; sleep 0.2; done
settle 2
[ "$(q "len(r['figures'])")" -gt 0 ] || fail "no figure on screen"

# The first figure whose top is on screen: a point inside its first axes (a quarter across, a fifth down).
fig_id=$(q "[f['id'] for f in r['figures'] if 60 < f['rect'][1] < 700][0]")
centre() { q "[(int(f['rect'][0] + f['rect'][2] / 4), int(f['rect'][1] + min(f['rect'][3], 990 - f['rect'][1]) / 5)) for f in r['figures'] if f['id'] == '$fig_id'][0]" | tr -d '(),'; }
zoomed() { q "[f['zoomed'] for f in r['figures'] if f['id'] == '$fig_id'][0]"; }
scroll() { q "[f['window_scroll_y'] for f in r['figures'] if f['id'] == '$fig_id'][0]"; }
read -r cx cy <<<"$(centre)"
xdotool mousemove "$cx" "$cy"
settle
scroll0=$(scroll)

# 1. The wheel scrolls the page; the figure keeps its axes.
xdotool click 5 click 5
settle
python3 -c "import sys; sys.exit(0 if float('$(scroll)') > float('$scroll0') else 1)" || fail "the wheel did not scroll the page"
[ "$(zoomed)" = False ] || fail "the wheel zoomed the figure"
xdotool click 4 click 4   # back up
settle
read -r cx cy <<<"$(centre)"
xdotool mousemove "$cx" "$cy"
settle

# 2. Ctrl+wheel zooms (the Reset view marker shows); a double-click resets.
xdotool keydown ctrl click 4 keyup ctrl
settle
[ "$(zoomed)" = True ] || fail "Ctrl+wheel did not zoom the figure"
xdotool click --repeat 2 --delay 60 1
settle
[ "$(zoomed)" = False ] || fail "the double-click did not reset the zoom"

# 3. A change of the data resets the zoom: one Right-arrow tap (one step on) in the stepper.
xdotool keydown ctrl click 4 keyup ctrl
settle
[ "$(zoomed)" = True ] || fail "Ctrl+wheel did not zoom the figure the second time"
xdotool key Right
settle 1
[ "$(zoomed)" = False ] || fail "the figure stayed zoomed after its data changed"

# 3b. A clicker's keys step the stepper (views/presenter_keys): PageDown once and PageUp twice after the Right arrow
# bring it back to the step it opened at (checked in the session at the end; without PageUp/PageDown it would stay
# one step on).
start_step=layers.0.attn.probs  # ForwardState's default step
xdotool key Next
settle
xdotool key Prior
settle
xdotool key Prior
settle 1

# 4. A quick tap toggles once: Ctrl+T, dark to print.
[ "$(q "r['theme']")" = dark ] || fail "not dark at start"
xdotool key ctrl+t
settle
[ "$(q "r['theme']")" = print ] || fail "Ctrl+T tapped once did not switch to print exactly once"

# 5. Five Ctrl+= taps: 110, 125, 150, 175, 200%; no window covers the menu bar.
for _ in 1 2 3 4 5; do xdotool key ctrl+equal; settle 0.4; done
settle 1.5
[ "$(q "r['zoom']")" = 2.0 ] || fail "five Ctrl+= taps gave zoom $(q "r['zoom']"), not 2.0"
q "r['menu_bar']" >/dev/null || fail "no menu bar"
bad=$(q "[w['name'] for w in r['windows'] if not w['name'].startswith('Debug##') and w['rect'][1] < r['menu_bar'][1] + r['menu_bar'][3] - 0.5]")
[ "$bad" = "[]" ] || fail "windows over the menu bar at 200%: $bad"
import -window root "$out/zoom200.png"

# 6. Quit (Ctrl+Q); the session keeps the front panel and the zoom; the step moved exactly one.
xdotool key ctrl+q
for _ in $(seq 50); do kill -0 "$app_pid" 2>/dev/null || break; sleep 0.2; done
kill -0 "$app_pid" 2>/dev/null && fail "Ctrl+Q did not quit"
app_pid=
session="$XDG_CONFIG_HOME/transformer-workbench/last-session.json"
python3 - "$session" "$start_step" <<'PY' || fail "session check"
import json, sys
s = json.load(open(sys.argv[1]))
assert s.get("front") == "forward", s.get("front")
assert s["zoom"] == 2.0, s["zoom"]
assert s["theme"] == "print", s["theme"]
# Right, PageDown, PageUp, PageUp: back at the step it opened at.
assert s["values"]["forward.step"] == sys.argv[2], (s["values"]["forward.step"], sys.argv[2])
PY
echo "gui interaction: ok (screenshots and report in $out)"
