#!/usr/bin/env bash
# Command-line behaviour of the real executable. Usage: cli_test.sh APP
set -uo pipefail
source "$(dirname "$0")/check_lib.sh"  # private config folder, fail=0, check()
app=$1
check help 0 "--frames" -- "$app" --help
check version 0 "^transformer-workbench [0-9]+\.[0-9]+\.[0-9]+" -- "$app" --version
check no-display 3 "no display.*export" -- env -u DISPLAY -u WAYLAND_DISPLAY "$app" --frames 1
check one-line-no-display 0 "^1$" -- bash -c "env -u DISPLAY -u WAYLAND_DISPLAY '$app' --frames 1 2>&1 | wc -l"
check unknown-panel 2 "no panel with id 'nope'" -- "$app" --open nope
check bad-frames 2 "frames: Value -3 not in range 0 to 1000000000$" -- "$app" --frames -3  # exit 2 as documented; no 300-digit bound
check bad-zoom 2 "zoom.*not in range 0.75" -- "$app" --zoom 5
# --help and messages in Chinese: CLI11's own words too; no line of the help is left in English.
check help-zh 0 "^用法: .*\[选项\]" -- "$app" --lang zh --help
check help-zh-flag 0 "显示此帮助信息并退出" -- "$app" --lang zh dump --help
check help-zh-subcommands 0 "^子命令:" -- "$app" --lang zh --help
if "$app" --lang zh --help | grep -qE "Print this help|^Options:|^Usage:|^Subcommands:"; then
  echo "FAIL help-zh-english: $("$app" --lang zh --help | grep -E "Print this help|^Options:|^Usage:|^Subcommands:")"; fail=1
fi
check set-error-zh 2 "应为整数数组" -- "$app" --lang zh export --scene norms --set norms.dims=8,x --out "$(mktemp -d)"
# export --slide: every PNG is 16:9 at 1280 x 720 times the scale (the PNG header's width and height).
slide_dir=$(mktemp -d)
check export-slide 0 "^1280x720 1280x720 1280x720 1280x720$" -- bash -c "'$app' export --scene softmax --out '$slide_dir' \
  --format png --scale 1 --slide --no-caption >/dev/null && for f in '$slide_dir'/*.png; do \
  python3 -c 'import struct,sys; w,h=struct.unpack(\">II\", open(sys.argv[1],\"rb\").read(24)[16:24]); print(f\"{w}x{h}\")' \"\$f\"; \
  done | paste -sd' '"
rm -rf "$slide_dir"
exit $fail
