#!/usr/bin/env bash
# Randomized GUI soak under Xvfb (tests/gui/soak.py): a fixed seed, a bounded time (TW_SOAK_SECONDS, default 150).
# Usage: soak_test.sh APP WORK_DIR
set -uo pipefail
app=$1 work=$2
command -v xdotool >/dev/null || { echo "skip: xdotool not installed (scripts/install-deps.sh installs it)"; exit 0; }
rm -rf "$work" && mkdir -p "$work"
# As in the smoke test: Mesa's dlopen'ed GL driver leaks a few bytes that LeakSanitizer cannot attribute; every other
# sanitizer report still ends the run (halt_on_error) and is caught on stderr.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# Memory measured under AddressSanitizer includes its quarantine and shadow: a looser bound there.
[ "${TW_SANITIZED:-0}" = 1 ] && export TW_SOAK_RSS_GROWTH_MB=${TW_SOAK_RSS_GROWTH_MB:-1200}
exec xvfb-run -a -s "-screen 0 1280x800x24" python3 "$(dirname "$0")/soak.py" "$app" "$work"
