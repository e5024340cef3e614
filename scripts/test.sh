#!/usr/bin/env bash
# The whole test suite from any state: installs what is missing, builds Release in build/, runs
# the unit tests (scripts/unit_tests.sh), ctest's other tests and the Python tests, the unit tests
# under ASan/UBSan (build-sanitize), the libFuzzer
# harnesses for 60 s (linked in build-sanitize), the unit tests under ThreadSanitizer with
# concurrent sessions (build-sanitize-thread: only the library is compiled, the rest comes from
# build/ through ccache), then proves the course works (scripts/course.sh verify: for every lesson,
# the stubbed tree compiles, the lesson's tests fail on the stubs and on its known-bad variants, and
# pass on Lumen). Each stage prints how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."

stage() {
  local name=$1 start=$SECONDS
  shift
  "$@"
  echo "test.sh: $name took $((SECONDS - start)) s"
}

scripts/install_deps.sh
# ccache (installed above): the course trees of scripts/course.sh and the package test's
# add_subdirectory build compile the same files with the same flags as build/, and with these
# settings they are served from the cache instead of costing CI's two cores a full build each.
source scripts/ccache_settings.sh "$PWD"
stage build scripts/release_build.sh
# The unit tests in one process per core, then ctest for every other test (scripts/unit_tests.sh
# says why the unit tests do not go through ctest here).
stage unit scripts/unit_tests.sh build
stage ctest ctest --test-dir build --output-on-failure -j"$(nproc)" --label-exclude unit
# The Python module against PyTorch's outputs, and lumen.compare on a planted difference.
stage pytest env PYTHONPATH=build/python /usr/bin/python3 -m pytest -q python/tests
# Every hostile model of issue 9 through lumen_run: exit status 2, one line, under 5 s.
stage hostile scripts/hostile.sh
stage sanitize scripts/sanitize.sh
stage fuzz scripts/fuzz.sh 60
stage tsan env SANITIZERS=thread scripts/sanitize.sh
stage course scripts/course.sh verify
