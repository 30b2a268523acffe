# Sourced by the GUI tests that drive the real window: a fresh config home under OUTDIR, sanitizer options that
# suit a GUI run, and an Xvfb of the given size on a free display (DISPLAY exported), stopped with the app on exit.
#   . xvfb_session.sh; gui_session OUTDIR 1600x1000 FIRST_DISPLAY LAST_DISPLAY
# The app's pid goes into app_pid once it is started, so the exit trap stops it too.
gui_session() {
  local out=$1 size=$2 first=$3 last=$4 d
  mkdir -p "$out"
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  export XDG_CONFIG_HOME="$out/config"
  rm -rf "$XDG_CONFIG_HOME"
  display=
  for d in $(seq "$first" "$last"); do [ -e /tmp/.X11-unix/X$d ] || { display=:$d; break; }; done
  [ -n "$display" ] || { echo "no free X display in :$first..:$last"; exit 1; }
  Xvfb "$display" -screen 0 "${size}x24" >/dev/null 2>&1 &
  xvfb=$!
  app_pid=
  trap 'gui_session_stop' EXIT
  export DISPLAY=$display
  for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
}
gui_session_stop() {
  [ -n "${app_pid:-}" ] && kill "$app_pid" 2>/dev/null
  kill "$xvfb" 2>/dev/null
  return 0
}
