#!/usr/bin/env bash
# Configures and builds Lumen's Release tree in build/ the one way every script does (demo.sh,
# bench.sh, test.sh), so that a later script never finds build/ configured differently:
#
#   scripts/release_build.sh [TARGET ...]      no target: everything
#
# With ccache installed (scripts/install_deps.sh installs it), every compile goes through it, set
# up by scripts/ccache_settings.sh: the course trees and the package test's add_subdirectory build
# then compile the same commands and are served from the cache instead of compiling Lumen again.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/ccache_settings.sh "$PWD"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build build -j"$(nproc)" "${targets[@]}"
