#!/usr/bin/env bash
# Slide mode in the real window under Xvfb at 1280×720 and 150% zoom (a projector), read back through --gui-report's
# "slide" entry (app/gui_report.h): a scene opens the forward stepper's figure as a slide; the figure keeps 16:9,
# lies inside the slide window below the menu bar with its controls above it; a clicker's PageDown steps the stepper
# (the figure's data changes); Esc leaves slide mode and the panels come back; the session saved at exit has no slide.
# Usage: slide_test.sh APP OUTDIR
set -euo pipefail
app=$1 out=$2
. "$(dirname "$0")/xvfb_session.sh"
gui_session "$out" 1280x720 141 190
report="$out/report.json"
rm -f "$report"
scene="$out/slide.twscene.json"
cat >"$scene" <<'JSON'
{"version": 1, "open": ["forward"], "slide": {"panel": "forward", "figure": "step", "controls": []}}
JSON
"$app" --fresh "$scene" --width 1280 --height 720 --zoom 1.5 --gui-report "$report" >"$out/app.log" 2>&1 &
app_pid=$!

fail() { echo "slide test: FAIL: $*"; import -window root "$out/failure.png" 2>/dev/null || true; exit 1; }
q() { python3 -c "import json,sys; r=json.load(open('$report')); print(eval(sys.argv[1]))" "$1"; }
for _ in $(seq 150); do [ -s "$report" ] && [ "$(q "r['slide']['on'] and r['slide']['figure_rect'][2] > 0")" = True ] 2>/dev/null && break; sleep 0.2; done
sleep 1
[ "$(q "r['slide']['on']")" = True ] || fail "the scene did not open slide mode"
[ "$(q "(r['slide']['panel'], r['slide']['figure'])")" = "('forward', 'step')" ] || fail "slide: $(q "r['slide']")"
python3 - "$report" <<'PY' || fail "slide geometry"
import json, sys
r = json.load(open(sys.argv[1]))
s = r["slide"]
win, fig = s["window"], s["figure_rect"]
menu = r["menu_bar"]
def inside(o, i, e=0.5):
    return i[2] > 0 and i[3] > 0 and i[0] >= o[0] - e and i[1] >= o[1] - e and \
        i[0] + i[2] <= o[0] + o[2] + e and i[1] + i[3] <= o[1] + o[3] + e
assert inside([0, 0, 1280, 720], win), win
assert win[1] >= menu[1] + menu[3] - 0.5, (win, menu)          # below the menu bar
assert inside(win, fig), (win, fig)
assert abs(fig[2] / fig[3] - 16 / 9) < 0.01, fig                 # 16:9
assert fig[3] > 0.7 * 720, fig                                    # fitted to the height
assert s["control_rects"], s
for c in s["control_rects"]:
    assert inside(win, c), (win, c)
    assert c[1] + c[3] <= fig[1] + 0.5, (c, fig)                  # above the figure
# The figure on screen is the slide's, at the same place.
f = [f for f in r["figures"] if f["id"] == "step"]
assert f and abs(f[0]["rect"][0] - fig[0]) < 0.5 and abs(f[0]["rect"][3] - fig[3]) < 0.5, (f, fig)
PY
import -window root "$out/slide150.png"

# The clicker: PageDown steps the stepper (the figure's data changes: a zoom would reset).
session="$XDG_CONFIG_HOME/transformer-workbench/last-session.json"
xdotool key Next
sleep 1
# Esc leaves: slide off, the forward panel's window is back.
xdotool key Escape
sleep 1
[ "$(q "r['slide']['on']")" = False ] || fail "Esc did not leave slide mode"
[ "$(q "'slide_rect' not in r['slide'] and any('###forward' in w['name'] for w in r['windows'])")" = True ] ||
  fail "the forward panel did not come back: $(q "[w['name'] for w in r['windows']]")"
xdotool key ctrl+q
for _ in $(seq 50); do kill -0 "$app_pid" 2>/dev/null || break; sleep 0.2; done
kill -0 "$app_pid" 2>/dev/null && fail "Ctrl+Q did not quit"
app_pid=
python3 - "$session" <<'PY' || fail "session check"
import json, sys
s = json.load(open(sys.argv[1]))
assert "slide" not in s, s.get("slide")
# One PageDown from the default step: the stepper moved on.
assert s["values"]["forward.step"] != "layers.0.attn.probs", s["values"]["forward.step"]
PY
echo "gui slide: ok (screenshots and report in $out)"
