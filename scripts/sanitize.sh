#!/usr/bin/env bash
# The unit tests and the small golden cases under AddressSanitizer and UndefinedBehaviorSanitizer.
#
#   scripts/sanitize.sh              builds lumen_tests in build-sanitize and runs it
#   scripts/sanitize.sh --configure  only configures build-sanitize (scripts/fuzz.sh builds there)
#   SANITIZERS=address scripts/sanitize.sh     another set (the LUMEN_SANITIZE CMake option)
#
# Built at -O1 so that the build stays short and the reports point at lines. The library is
# instrumented; the tests are linked with the sanitizers' runtime (see LUMEN_SANITIZE in
# CMakeLists.txt). With clang and the default set, the tree is configured with LUMEN_FUZZ: the
# same ASan+UBSan library also carries libFuzzer's coverage hooks, so scripts/fuzz.sh links its
# harnesses against it instead of compiling Lumen a third time (CI's two cores spent four
# minutes on that). The whole-model golden cases (ResNet18, YOLOv5s, ViT, ConvNeXt, MobileNet,
# transformers) are left out: under the sanitizers they take minutes, and the layers they use are
# covered by the small cases. Any report stops the run (halt_on_error) and fails.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizers=${SANITIZERS:-address,undefined}
options=(-DCMAKE_BUILD_TYPE=Release -DLUMEN_BUILD_BENCHMARKS=OFF -DLUMEN_BUILD_PROGRAMS=OFF
  -DLUMEN_BUILD_DEMOS=OFF -DLUMEN_BUILD_PYTHON=OFF)
if command -v ccache >/dev/null; then
  source scripts/ccache_settings.sh "$PWD"
  options+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# Line tables are all a report needs to name lines, at a fraction of full debug information's cost.
if command -v clang++ >/dev/null; then
  options+=(-DCMAKE_CXX_COMPILER=clang++
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -gline-tables-only -DNDEBUG")
  if [ "$sanitizers" = address,undefined ]; then
    options+=(-DLUMEN_FUZZ=ON -DLUMEN_SANITIZE=)
  else
    options+=(-DLUMEN_FUZZ=OFF -DLUMEN_SANITIZE="$sanitizers")
  fi
else
  options+=(-DCMAKE_CXX_FLAGS_RELEASE="-O1 -g1 -DNDEBUG" -DLUMEN_FUZZ=OFF
    -DLUMEN_SANITIZE="$sanitizers")
fi
cmake -S . -B build-sanitize "${options[@]}" >/dev/null
if [ "${1:-}" = --configure ]; then exit 0; fi
cmake --build build-sanitize -j"$(nproc)" --target lumen_tests

slow='*resnet18*:*yolov5s*:*vit*:*convnext*:*mobilenet*:*transformer*'
# allocator_may_return_null: Lumen reports an allocation that fails as lumen::Error, which the
# tests check; without it ASan stops at any allocation larger than it supports.
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Two shards on two cores; each prints only failures and its summary.
shards=$(nproc)
pids=()
for ((shard = 0; shard < shards; ++shard)); do
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$shard build-sanitize/lumen_tests \
    --gtest_filter="-$slow" --gtest_brief=1 >"build-sanitize/shard$shard.log" 2>&1 &
  pids+=($!)
done
failed=0
for ((shard = 0; shard < shards; ++shard)); do
  if ! wait "${pids[$shard]}"; then failed=1; fi
  cat "build-sanitize/shard$shard.log"
done
if ((failed)); then
  echo "sanitize.sh: a test failed or a sanitizer reported (see above; $sanitizers)" >&2
  exit 1
fi
echo "sanitize.sh: lumen_tests passed under -fsanitize=$sanitizers (whole models excluded: $slow)"
