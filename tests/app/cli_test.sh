#!/usr/bin/env bash
# Command-line behaviour of the real executable. Usage: cli_test.sh APP
set -uo pipefail
# A private config folder: the user's saved session (and its warnings) never reaches these checks.
export XDG_CONFIG_HOME=$(mktemp -d)
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
app=$1
fail=0
check() {  # check NAME EXPECTED_EXIT GREP_PATTERN -- command...
  local name=$1 want=$2 pattern=$3; shift 4
  local out; out=$("$@" 2>&1); local got=$?
  if [ "$got" -ne "$want" ] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: exit $got (want $want), output: $out"; fail=1
  else
    echo "ok   $name"
  fi
}
check help 0 "--frames" -- "$app" --help
check version 0 "^transformer-workbench [0-9]+\.[0-9]+\.[0-9]+" -- "$app" --version
check no-display 3 "no display.*export" -- env -u DISPLAY -u WAYLAND_DISPLAY "$app" --frames 1
check one-line-no-display 0 "^1$" -- bash -c "env -u DISPLAY -u WAYLAND_DISPLAY '$app' --frames 1 2>&1 | wc -l"
check unknown-panel 2 "no panel with id 'nope'" -- "$app" --open nope
check bad-frames 105 "frames" -- "$app" --frames -3
exit $fail
