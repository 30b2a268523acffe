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
