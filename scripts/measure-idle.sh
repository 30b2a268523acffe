#!/usr/bin/env bash
# Idle CPU of the running app, measured from outside: starts transformer-workbench with the given arguments, lets it
# settle (start-up, the panels' first results, start-page thumbnails), then reads utime+stime of /proc/PID/stat
# (the whole process: every thread, the GL driver's render threads included) before and after a quiet span with no
# input, and prints the CPU used as a percentage of one core.
#   xvfb-run -a -s "-screen 0 1920x1080x24" scripts/measure-idle.sh build/transformer-workbench --fresh --all-panels
# Environment: IDLE_SECONDS (default 10), SETTLE_SECONDS (default 5).
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: measure-idle.sh <transformer-workbench> [arguments...]" >&2
  exit 2
fi
idle_seconds=${IDLE_SECONDS:-10}
settle_seconds=${SETTLE_SECONDS:-5}
"$@" &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
ticks() {  # utime + stime in clock ticks; the fields after the parenthesised command name, which may hold spaces
  local rest
  rest=$(sed 's/^.*) //' "/proc/$pid/stat")
  # shellcheck disable=SC2086
  set -- $rest
  echo $((${12} + ${13}))
}
sleep "$settle_seconds"
if ! kill -0 "$pid" 2>/dev/null; then
  echo "measure-idle: the app exited during start-up" >&2
  exit 1
fi
t0=$(date +%s.%N)
c0=$(ticks)
sleep "$idle_seconds"
c1=$(ticks)
t1=$(date +%s.%N)
hz=$(getconf CLK_TCK)
threads=$(ls "/proc/$pid/task" | wc -l)
awk -v c="$((c1 - c0))" -v hz="$hz" -v t0="$t0" -v t1="$t1" -v n="$threads" \
  'BEGIN { s = t1 - t0; printf "idle_cpu_percent_of_one_core %.2f  (%.2f s CPU over %.1f s, %d threads)\n", 100 * c / hz / s, c / hz, s, n }'
