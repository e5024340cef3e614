#!/usr/bin/env bash
# The whole test suite from any state: installs what is missing, builds Release in build/, runs
# ctest, then proves the course works (scripts/course.sh verify: for every lesson, the stubbed tree
# compiles, the lesson's tests fail on the stubs and pass on Lumen).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install_deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
scripts/course.sh verify
