#!/usr/bin/env bash
# The whole test suite from any state: installs what is missing, builds Release in build/, runs
# ctest and the Python tests, then proves the course works (scripts/course.sh verify: for every
# lesson, the stubbed tree compiles, the lesson's tests fail on the stubs and pass on Lumen).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install_deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
# The Python module against PyTorch's outputs, and lumen.compare on a planted difference.
PYTHONPATH=build/python /usr/bin/python3 -m pytest -q python/tests
scripts/course.sh verify
