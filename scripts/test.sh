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
# The unit tests under ASan/UBSan (build-sanitize), then each libFuzzer harness for 60 s
# (build-fuzz); each stage prints how long it took.
start=$SECONDS; scripts/sanitize.sh; echo "test.sh: sanitize.sh took $((SECONDS - start)) s"
start=$SECONDS; scripts/fuzz.sh 60; echo "test.sh: fuzz.sh 60 took $((SECONDS - start)) s"
scripts/course.sh verify
