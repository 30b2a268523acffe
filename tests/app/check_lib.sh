# Shared by the command-line test scripts (source it after `set -uo pipefail`): a private config folder and
# `check`, which counts a failure in $fail instead of stopping, so one run lists every broken behaviour.

# A private config folder: the user's saved session (and its warnings) never reaches these checks.
export XDG_CONFIG_HOME=$(mktemp -d)
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
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
one_line_error() {  # one_line_error NAME PATTERN -- command...: exit 2 and exactly one line on stderr
  local name=$1 pattern=$2; shift 3
  local err; err=$("$@" 2>&1 >/dev/null); local got=$?
  if [ "$got" -ne 2 ] || [ "$(wc -l <<<"$err")" -ne 1 ] || ! grep -qE -- "$pattern" <<<"$err"; then
    echo "FAIL $name: exit $got (want 2), stderr: $err"; fail=1
  else
    echo "ok   $name"
  fi
}
