#!/usr/bin/env bash
# Builds Lumen's libFuzzer harnesses (test/fuzz/) and runs each for a while.
#
#   scripts/fuzz.sh [SECONDS]       each fuzzer for SECONDS (default 60), one after the other
#
# Built with clang in build-fuzz (-fsanitize=fuzzer,address,undefined; the LUMEN_FUZZ option).
# Seeds: the param files, the small bins, and param + NUL + bin of the small models, from
# tmp/models/, test/data/layers/ and test/data/hostile/; test/fuzz/pnnx.dict is the dictionary.
# What each fuzzer finds beyond its seeds is kept in build-fuzz/corpus/<fuzzer>/ for the next run.
# Prints the executions and the coverage (cov: edges, ft: features) of each fuzzer. A crash, a
# sanitizer report, a leak or a timeout fails the script; the input is in build-fuzz/artifacts/
# (add it to the regression tests, then delete it).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1 -g -DNDEBUG" -DLUMEN_FUZZ=ON -DLUMEN_BUILD_TESTS=OFF \
  -DLUMEN_BUILD_BENCHMARKS=OFF -DLUMEN_BUILD_PROGRAMS=OFF -DLUMEN_BUILD_DEMOS=OFF \
  -DLUMEN_BUILD_PYTHON=OFF >/dev/null
fuzzers=(param_reader storage_zip model)
cmake --build build-fuzz -j"$(nproc)" --target "${fuzzers[@]/#/lumen_fuzz_}"

# Seeds, rebuilt on every run from the folders of models.
seeds=build-fuzz/seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{param_reader,storage_zip,model} build-fuzz/artifacts
max_seed=$((96 * 1024))
for folder in tmp/models/*/ test/data/layers/*/ test/data/hostile/*/; do
  name=$(basename "$folder")
  param="$folder/model.pnnx.param"
  bin="$folder/model.pnnx.bin"
  [[ -f "$param" ]] || continue
  [[ $(stat -c %s "$param") -le $max_seed ]] && cp "$param" "$seeds/param_reader/$name"
  [[ -f "$bin" ]] || continue
  if (($(stat -c %s "$bin") <= max_seed)); then
    cp "$bin" "$seeds/storage_zip/$name"
    if (($(stat -c %s "$param") + $(stat -c %s "$bin") < max_seed)); then
      { cat "$param"; printf '\0'; cat "$bin"; } >"$seeds/model/$name"
    fi
  fi
done

export GLOG_minloglevel=3  # the readers' warnings about unused weights, millions of times
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
failed=()
summary=()
for fuzzer in "${fuzzers[@]}"; do
  corpus=build-fuzz/corpus/$fuzzer
  mkdir -p "$corpus"
  log=build-fuzz/$fuzzer.log
  echo "fuzz.sh: lumen_fuzz_$fuzzer for $seconds s ($(ls "$seeds/$fuzzer" | wc -l) seeds)"
  set +e
  build-fuzz/lumen_fuzz_$fuzzer "$corpus" "$seeds/$fuzzer" -max_total_time="$seconds" \
    -dict=test/fuzz/pnnx.dict -max_len=$((128 * 1024)) -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$fuzzer-" >"$log" 2>&1
  status=$?
  set -e
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
  line=$(printf '%-13s %10s execs  %s  status %s' "$fuzzer" "${executions:-?}" "${coverage:-cov: ?}" "$status")
  summary+=("$line")
  if ((status != 0)); then
    failed+=("$fuzzer")
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written|==[0-9]+==' "$log" | head -n 20
  fi
done
echo "fuzz.sh: $seconds s per fuzzer"
printf '  %s\n' "${summary[@]}"
if ((${#failed[@]} > 0)); then
  echo "fuzz.sh: findings in: ${failed[*]} (logs build-fuzz/<fuzzer>.log, inputs build-fuzz/artifacts/)" >&2
  exit 1
fi
