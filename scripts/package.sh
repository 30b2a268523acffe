#!/usr/bin/env bash
# Builds the Debian package transformer-workbench_<version>_amd64.deb in build-package/ and checks it with lintian.
# The version comes from git (cmake/version.cmake); install it with: sudo apt-get install ./build-package/*.deb
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build-package -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
  -DTW_BUILD_TESTS=OFF -DTW_BUILD_BENCH=OFF
cmake --build build-package
rm -f build-package/transformer-workbench_*.deb
(cd build-package && cpack -G DEB)
deb=$(ls build-package/transformer-workbench_*.deb)
lintian --fail-on error "$deb"
echo "$deb"
