#!/usr/bin/env bash
# Builds Lumen's libFuzzer harnesses (test/fuzz/) and runs them for a while.
#
#   scripts/fuzz.sh [SECONDS]       the four fuzzers at once, each for SECONDS (default 60)
#
# Built with clang in build-sanitize, the ASan+UBSan tree of scripts/sanitize.sh configured with
# LUMEN_FUZZ (coverage hooks in the library, -fsanitize=fuzzer on the harnesses). The four run
# side by side: on two cores each gets about half of one, and the run takes SECONDS.
# Seeds: the param files, the small bins, and param + NUL + bin of the small models, from
# tmp/models/, test/data/layers/ and test/data/hostile/ (test/fuzz/pnnx.dict is their
# dictionary); for the ONNX fuzzer, the small .onnx files of test/data/onnx/ and tmp/onnx/.
# What each fuzzer finds beyond its seeds is kept in build-sanitize/corpus/<fuzzer>/ for the next
# run. Prints the executions and the coverage (cov: edges, ft: features) of each fuzzer. A crash,
# a sanitizer report, a leak or a timeout fails the script; the input is in
# build-sanitize/artifacts/ (add it to the regression tests, then delete it).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: libFuzzer needs clang (apt-get install clang)" >&2
  exit 1
fi
SANITIZERS=address,undefined scripts/sanitize.sh --configure
build=build-sanitize
fuzzers=(param_reader storage_zip model onnx)
cmake --build "$build" -j"$(nproc)" --target "${fuzzers[@]/#/lumen_fuzz_}"

# Seeds, rebuilt on every run from the folders of models.
seeds=$build/seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{param_reader,storage_zip,model,onnx} $build/artifacts
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

for file in test/data/onnx/*/model.onnx test/data/onnx/hostile/*.onnx tmp/onnx/*/model.onnx; do
  if (($(stat -c %s "$file") <= max_seed)); then
    cp "$file" "$seeds/onnx/${file//\//_}"
  fi
done

export GLOG_minloglevel=3  # the readers' warnings about unused weights, millions of times
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
pids=()
for fuzzer in "${fuzzers[@]}"; do
  corpus=$build/corpus/$fuzzer
  mkdir -p "$corpus"
  echo "fuzz.sh: lumen_fuzz_$fuzzer for $seconds s ($(ls "$seeds/$fuzzer" | wc -l) seeds)"
  dictionary=()
  [[ $fuzzer == onnx ]] || dictionary=(-dict=test/fuzz/pnnx.dict)
  "$build/lumen_fuzz_$fuzzer" "$corpus" "$seeds/$fuzzer" -max_total_time="$seconds" \
    "${dictionary[@]}" -max_len=$((128 * 1024)) -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$fuzzer-" >"$build/$fuzzer.log" 2>&1 &
  pids+=($!)
done
failed=()
summary=()
for index in "${!fuzzers[@]}"; do
  fuzzer=${fuzzers[$index]}
  log=$build/$fuzzer.log
  status=0
  wait "${pids[$index]}" || status=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  coverage=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
  line=$(printf '%-13s %10s execs  %s  status %s' "$fuzzer" "${executions:-?}" "${coverage:-cov: ?}" "$status")
  summary+=("$line")
  if ((status != 0)); then
    failed+=("$fuzzer")
    # The report with its stack, and the input in base64: what a CI log needs to reproduce it.
    grep -m1 -A60 -E 'ERROR|runtime error' "$log" |
      grep -vE '^(#[0-9]+ +(NEW|REDUCE|pulse)|INFO)' || true
    grep -E '^Base64: ' "$log" | head -n 1 | cut -c1-4000 || true
  fi
done
echo "fuzz.sh: $seconds s per fuzzer, side by side"
printf '  %s\n' "${summary[@]}"
if ((${#failed[@]} > 0)); then
  echo "fuzz.sh: findings in: ${failed[*]} (logs $build/<fuzzer>.log, inputs $build/artifacts/)" >&2
  exit 1
fi
