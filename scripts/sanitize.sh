#!/usr/bin/env bash
# The unit tests and the small golden cases under AddressSanitizer and UndefinedBehaviorSanitizer,
# or under ThreadSanitizer.
#
#   scripts/sanitize.sh              builds lumen_tests in build-sanitize and runs it
#   scripts/sanitize.sh --configure  only configures build-sanitize (scripts/fuzz.sh builds there)
#   SANITIZERS=thread scripts/sanitize.sh      ThreadSanitizer, in build-sanitize-thread
#   SANITIZERS=address scripts/sanitize.sh     another set, in build-sanitize-address (the
#                                              LUMEN_SANITIZE CMake option)
#
# Built at -O1 so that the build stays short and the reports point at lines. The library is
# instrumented; the tests are linked with the sanitizers' runtime (see LUMEN_SANITIZE in
# CMakeLists.txt). With clang and the default set, the tree is configured with LUMEN_FUZZ: the
# same ASan+UBSan library also carries libFuzzer's coverage hooks, so scripts/fuzz.sh links its
# harnesses against it instead of compiling Lumen a third time (CI's two cores spent four
# minutes on that). The whole-model golden cases (ResNet18, YOLOv5s, ViT, ConvNeXt, MobileNet,
# transformers) are left out: under the sanitizers they take minutes, and the layers they use are
# covered by the small cases. Any report stops the run (halt_on_error) and fails.
#
# SANITIZERS=thread (scripts/test.sh's tsan stage) guards what sessions promise: running
# concurrently, bit-identically. It runs the unit tests, the small golden cases on 1 and 2
# threads, the concurrent-session tests (4 sessions of a residual block, 2 threads each; attention
# and LSTM sessions at two shapes at once), then ResNet18 in 4 sessions of 2 threads through
# `lumen_run --sessions 4`, 2 runs each (the first grows the scratch, the second reuses it)
# instead of the unit test's 50: ThreadSanitizer reports two accesses that nothing orders whether
# or not they happened to overlap, so repeating adds little but minutes. It is built with the
# Release tree's compiler (GCC on Debian): only the library is compiled, at -O1 -g1 with
# -fsanitize=thread; lumen_tests and lumen_run keep the Release flags, so ccache serves them from
# build/. Lumen's threads are its own (base/thread_pool; no OpenMP, and its kernels never call the
# BLAS), so no uninstrumented library synchronises them and no suppression is needed.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizers=${SANITIZERS:-address,undefined}
build=build-sanitize
if [ "$sanitizers" != address,undefined ]; then build=build-sanitize-${sanitizers//,/-}; fi
options=(-DCMAKE_BUILD_TYPE=Release -DLUMEN_BUILD_BENCHMARKS=OFF -DLUMEN_BUILD_PROGRAMS=OFF
  -DLUMEN_BUILD_DEMOS=OFF -DLUMEN_BUILD_PYTHON=OFF)
if command -v ccache >/dev/null; then
  source scripts/ccache_settings.sh "$PWD"
  options+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# Line tables are all a report needs to name lines, at a fraction of full debug information's cost.
if [ "$sanitizers" = thread ]; then
  # Only the library is compiled for ThreadSanitizer; the tests and lumen_run keep the compiler and
  # flags of the Release tree, so that ccache serves them from build/'s objects (scripts/test.sh
  # builds build/ first): CI compiles the library alone, about half of the build.
  options+=(-DLUMEN_BUILD_PROGRAMS=ON -DCMAKE_CXX_FLAGS_RELEASE="-O3 -DNDEBUG" -DLUMEN_FUZZ=OFF
    -DLUMEN_SANITIZE=thread "-DLUMEN_SANITIZE_FLAGS=-O1;-g1")
elif command -v clang++ >/dev/null; then
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
cmake -S . -B "$build" "${options[@]}" >/dev/null
if [ "${1:-}" = --configure ]; then exit 0; fi
targets=(lumen_tests)
if [ "$sanitizers" = thread ]; then targets+=(lumen_run); fi
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"

# gtest filters are case-sensitive: the golden cases are named after their folders (resnet18),
# the unit tests that run the whole model after the model (ResNet18: 4 sessions of 50 runs took
# 200 s of one shard's 263 under ASan, while the other shard was done after 82).
# swin_t and r3d_18 (whole models) are left out for the same reason; their kernels have unit tests.
slow='*resnet18*:*ResNet18*:*yolov5s*:*vit*:*convnext*:*mobilenet*:*transformer*:*swin_t*:*r3d_18*'
filter="-$slow"
# Under ThreadSanitizer, also the single-threaded tests that cost it most and check nothing about
# threads (measured alone, one process: the corpus load 19 s, the generic int8 kernel's
# 4 x 1000 x 4608 product 27 s over its four tests); both run in the unit and ASan stages.
if [ "$sanitizers" = thread ]; then
  filter="$filter:Corpus.EveryCaseIsSupported:*Int8GemmTest.*/generic_m4_n1000_k4608"
fi
# allocator_may_return_null: Lumen reports an allocation that fails as lumen::Error, which the
# tests check; without it the sanitizers stop at any allocation larger than they support.
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:allocator_may_return_null=1
# Under ThreadSanitizer ResNet18 runs below instead, through lumen_run, 2 runs per session.
# One shard per core (scripts/unit_tests.sh); each prints only failures and its summary.
failed=0
scripts/unit_tests.sh "$build" "$filter" || failed=1
if [ "$sanitizers" = thread ] && ((!failed)); then
  # One whole model in 4 concurrent sessions of 2 threads each, every output bit-identical.
  if ! "$build/lumen_run" --case tmp/models/resnet18 --sessions 4 --threads 2 --repeat 2; then
    failed=1
  fi
fi
if ((failed)); then
  echo "sanitize.sh: a test failed or a sanitizer reported (see above; $sanitizers)" >&2
  exit 1
fi
echo "sanitize.sh: lumen_tests passed under -fsanitize=$sanitizers (left out: ${filter#-})"
