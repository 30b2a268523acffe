#!/usr/bin/env bash
# The Debian package, as a user gets it: CPack builds it from this build tree; lintian (errors), desktop-file-validate
# and appstreamcli check it; dpkg -x unpacks it into a scratch root (no root rights needed for that); and the
# unpacked program runs from another working directory with the source tree hidden (a private mount namespace puts
# an empty tmpfs over it) and no system data folders: --version must name the unpacked data folder, the softmax
# preset must export headless, and a GUI frame must draw under Xvfb.
# Usage: package_test.sh BUILD_DIR SOURCE_DIR CHECK_SCREENSHOT
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2") checker=$(realpath "$3")
work=$(mktemp -d /tmp/tw-package-XXXXXX)  # outside the source tree, which is hidden below
trap 'rm -rf "$work"' EXIT
fail() { echo "package test: $*" >&2; exit 1; }

cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/cpack" >"$work/cpack.log" || { cat "$work/cpack.log"; fail "cpack failed"; }
deb=$(ls "$work"/cpack/transformer-workbench_*_amd64.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "cpack wrote no .deb"
echo "package: $(basename "$deb") ($(stat -c %s "$deb") bytes)"
depends=$(dpkg-deb --field "$deb" Depends)
for need in fonts-dejavu-core fonts-noto-cjk libglfw3 libopenblas0 libicu; do
  grep -q "$need" <<<"$depends" || fail "Depends lacks $need: $depends"
done
recommends=$(dpkg-deb --field "$deb" Recommends)
for want in fortunes-zh fortunes; do
  grep -qw "$want" <<<"$recommends" || fail "Recommends lacks $want (the text corpora): $recommends"
done
[[ $(dpkg-deb --field "$deb" Version) =~ ^[0-9] ]] || fail "version does not start with a digit"
lintian_out=$(lintian --fail-on error "$deb" 2>&1) || fail "lintian reports errors: $lintian_out"

root="$work/root"
dpkg -x "$deb" "$root"
desktop-file-validate "$root"/usr/share/applications/*.desktop || fail "desktop-file-validate"
appstreamcli validate --no-net "$root"/usr/share/metainfo/*.metainfo.xml || fail "appstreamcli validate"
for px in 16 22 24 32 48 64 128 256 512; do
  [ -s "$root/usr/share/icons/hicolor/${px}x${px}/apps/transformer-workbench.png" ] || fail "no ${px}px icon"
done
zcat "$root/usr/share/man/man1/transformer-workbench.1.gz" | grep '^\.SS export' >/dev/null || fail "man page lacks the export section"
[ -s "$root/usr/share/doc/transformer-workbench/copyright" ] || fail "no copyright file"

# Run the unpacked program with the source tree out of reach.
cp "$checker" "$work/check_screenshot"
mkdir -p "$work/home" "$work/run" "$work/no-system-data"
unshare_cmd=(unshare --mount --propagation private)
[ "$(id -u)" -eq 0 ] || unshare_cmd=(unshare --mount --map-root-user --propagation private)
"${unshare_cmd[@]}" env -i HOME="$work/home" PATH=/usr/bin:/bin XDG_CONFIG_HOME="$work/home/config" \
  XDG_DATA_DIRS="$work/no-system-data" SRC="$src" ROOT="$root" WORK="$work" ASAN_OPTIONS="${ASAN_OPTIONS:-}" \
  bash -euo pipefail -c '
    mount -t tmpfs none "$SRC"
    [ -z "$(ls -A "$SRC")" ] || { echo "source tree still visible"; exit 1; }
    cd "$WORK/run"
    app="$ROOT/usr/bin/transformer-workbench"
    "$app" --version >"$WORK/version.txt"
    "$app" export --scene softmax --out "$WORK/export" --format png,svg,csv >"$WORK/export.log"
    xvfb-run -a -s "-screen 0 1280x720x24" "$app" --fresh --open softmax --frames 20 --screenshot "$WORK/gui.png"
    "$WORK/check_screenshot" "$WORK/gui.png"
  ' || fail "the unpacked program failed with the source tree hidden"
grep -qx "data: $root/usr/share/transformer-workbench" "$work/version.txt" ||
  fail "data folder is not the unpacked one: $(grep '^data:' "$work/version.txt")"
[ -s "$work/export/softmax-sweep.png" ] && [ -s "$work/export/softmax-sweep.svg" ] && [ -s "$work/export/softmax-sweep.csv" ] ||
  fail "export wrote no softmax figures"
echo "package test: $(head -n 1 "$work/version.txt"); export and GUI frame from the unpacked package passed"
