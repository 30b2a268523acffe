#!/usr/bin/env bash
# Damage-tracked rendering (app/render/render_damage.h) draws what a full redraw draws, pixel for pixel:
#   1. TW_DAMAGE=check under Xvfb, driven with xdotool (pointer over controls and figures, a slider dragged, the
#      wheel, a panel opened from the overview, a window dragged by its title bar, Ctrl+T, Ctrl+=; the temperature
#      slider, which changes most figures): every frame is drawn both ways in the process and compared; none may
#      differ, and some must have been drawn only in part (some usually in rectangles merged by limit_rects). While
#      the window is dragged its image is copied (app/render/window_move.h): such frames may differ at a few edge pixels
#      (ImGui moves vertices by float additions), at most 0.1% of the window, and the frame after the drag, drawn
#      afresh, must not differ at all;
#   2. the last frame of a --frames run with every panel open, tracked and forced full (TW_DAMAGE=full): identical
#      screenshots (compare -metric AE = 0), in the back buffer and in the offscreen image (TW_DAMAGE=offscreen).
# The reference modes are in the test build of the app (CHECK_APP, compiled with TW_RENDER_CHECK); the tracked frame
# in the back buffer is the app's own, the one users run.
# Usage: damage_test.sh APP CHECK_APP OUTDIR
set -euo pipefail
app=$1 check_app=$2 out=$3
. "$(dirname "$0")/xvfb_session.sh"
gui_session "$out" 1600x1000 141 190
fail() { echo "damage test: FAIL: $*"; tail -5 "$out/app.log" 2>/dev/null; exit 1; }

# 1. Interactions, every frame checked in the process.
TW_DAMAGE=check "$check_app" --fresh --open softmax --width 1600 --height 1000 >"$out/app.log" 2>&1 &
app_pid=$!
sleep 4
step() { sleep "${1:-0.4}"; }
for p in "300 300" "540 170" "560 240" "1200 400" "1250 700" "100 700"; do xdotool mousemove $p; step 0.25; done
xdotool mousemove 538 170 mousedown 1  # the first slider of the panel (d_k)
for x in 560 590 620 650; do xdotool mousemove "$x" 170; step 0.1; done
xdotool mouseup 1
step
xdotool mousemove 538 248 mousedown 1  # the temperature slider: most of the panel's figures change
for x in 560 590 620 650 600; do xdotool mousemove "$x" 248; step 0.1; done
xdotool mouseup 1
step
xdotool mousemove 1200 400 click 5 click 5
step
xdotool click 4 click 4
step
xdotool mousemove 34 159 click 1  # "Open" of the overview's first entry: a page comes to the front
step 1.5
xdotool mousemove 900 31 mousedown 1  # a title bar, dragged
step 0.2
for i in 1 2 3 4 5 6 7 8 9 10; do xdotool mousemove $((900 + 20 * i)) $((31 + 8 * i)); step 0.1; done
for i in 9 8 7 6 5 4 3 2 1 0; do xdotool mousemove $((900 + 20 * i)) $((31 + 8 * i)); step 0.1; done
xdotool mouseup 1
step
xdotool key ctrl+t
step
xdotool key ctrl+t
step
xdotool key ctrl+equal
step 1
xdotool key ctrl+q
for _ in $(seq 100); do kill -0 "$app_pid" 2>/dev/null || break; sleep 0.2; done
kill -0 "$app_pid" 2>/dev/null && fail "Ctrl+Q did not quit"
app_pid=
summary=$(grep "frames compared with a full redraw" "$out/app.log") || fail "no damage check summary in the log"
echo "$summary"
grep "pixels differ from the full redraw" "$out/app.log" && fail "tracked frames differ from full redraws"
read -r compared partial merged differed < <(echo "$summary" |
  sed -E 's/.*: ([0-9]+) frames .*\(([0-9]+) drawn in part, ([0-9]+) of them .*, ([0-9]+) differed/\1 \2 \3 \4/')
[ "$differed" = 0 ] || fail "$differed frames differed"
[ "$compared" -ge 20 ] || fail "only $compared frames compared"
[ "$partial" -ge 5 ] || fail "only $partial frames drawn in part: the tracking was not exercised"
# Frames drawn in rectangles merged by limit_rects (more than 12 changed areas) depend on the timing: counted, not
# required (limit_rects itself: tests/app/test_damage.cpp).
echo "frames drawn in merged rectangles: $merged"
moved=$(grep "frames copied a moved window's image" "$out/app.log") || fail "no moved-window summary in the log"
echo "$moved"
read -r copied most < <(echo "$moved" | sed -E 's/.*: ([0-9]+) frames .* at most ([0-9]+) pixels/\1 \2/')
[ "$copied" -ge 3 ] || fail "only $copied frames copied the dragged window's image"
[ "$most" -le 1600 ] || fail "a copied frame differed from the full redraw in $most pixels (more than 0.1%)"

# 2. The same last frame, tracked and in full, with every panel open; in the back buffer (llvmpipe's path) and in
#    the offscreen image (the path of other drivers).
for path in "" offscreen; do
  for mode in on full; do
    rm -rf "$XDG_CONFIG_HOME"
    # The app itself for the tracked back-buffer frame; the test build for the references.
    run=$check_app
    [ "$mode$path" = on ] && run=$app
    TW_DAMAGE=$mode${path:+,$path} "$run" --fresh --all-panels --width 1600 --height 1000 --frames 30 \
      --screenshot "$out/all-$mode$path.png" >>"$out/app.log" 2>&1 || fail "--frames run ($mode $path)"
  done
  ae=$(compare -metric AE "$out/all-on$path.png" "$out/all-full$path.png" null: 2>&1) || true
  echo "all panels, tracked vs full redraw ${path:-back buffer}: $ae pixels differ"
  [ "$ae" = 0 ] || fail "the tracked frame differs from the full redraw in $ae pixels (${path:-back buffer})"
done
echo "damage test: OK"
