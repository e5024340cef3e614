#!/usr/bin/env bash
# Lumen on an idle machine and beside busy processes, in the same run (issue 9's measurement):
# for each model, `lumen_run --repeat` with 1 and 2 threads, first alone, then beside BUSY
# processes that spin on the CPU (six on a 2-core machine: a laptop or shared server at work).
#
#   scripts/contention.sh                     # resnet18, yolov5s_detect, mobilenet_v3, 3 rounds
#   ROUNDS=5 BUSY=6 MODELS="resnet18" scripts/contention.sh
#
# Each figure is the median, over ROUNDS rounds, of the median of REPEAT runs; the rounds alternate
# idle and busy so that both see the same machine. Goal: with the machine busy, 2 threads are no
# slower than 1; idle, 2 threads keep their speed-up.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${ROUNDS:-3}
busy=${BUSY:-6}
repeat=${REPEAT:-20}
models=${MODELS:-"resnet18 yolov5s_detect mobilenet_v3_large_075_160"}
runner=build/lumen_run
if [ ! -x "$runner" ]; then
  echo "contention.sh: build Lumen first (scripts/test.sh or cmake)" >&2
  exit 2
fi

spinners=()
start_busy() {
  for ((i = 0; i < busy; ++i)); do
    (while :; do :; done) &
    spinners+=($!)
  done
}
stop_busy() {
  [ ${#spinners[@]} -eq 0 ] || kill "${spinners[@]}" 2>/dev/null || true
  wait "${spinners[@]}" 2>/dev/null || true
  spinners=()
}
trap stop_busy EXIT

# The median of `lumen_run --repeat` for case $1 on $2 threads.
latency() {
  "$runner" --case "tmp/models/$1" --threads "$2" --repeat "$repeat" 2>/dev/null |
    sed -n 's/^median \([0-9.]*\) ms.*/\1/p'
}

# The median of the numbers on standard input, one per line.
median() {
  sort -g | awk '{ v[NR] = $1 }
    END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

declare -A figures
for ((round = 1; round <= rounds; ++round)); do
  for condition in idle busy; do
    [ "$condition" = busy ] && start_busy
    for model in $models; do
      for threads in 1 2; do
        figures[$model/$condition/$threads]+="$(latency "$model" "$threads") "
      done
    done
    stop_busy
  done
  echo "contention.sh: round $round of $rounds done" >&2
done

echo "| model | idle, 1 thread | idle, 2 threads | busy ($busy spinners), 1 thread |" \
  "busy, 2 threads | busy 2 / busy 1 |"
echo "|---|---|---|---|---|---|"
for model in $models; do
  row=()
  for key in idle/1 idle/2 busy/1 busy/2; do
    row+=("$(printf '%s\n' ${figures[$model/$key]} | median)")
  done
  ratio=$(awk -v a="${row[3]}" -v b="${row[2]}" 'BEGIN { printf "%.2f", a / b }')
  printf '| %s | %s ms | %s ms | %s ms | %s ms | %s |\n' "$model" "${row[@]}" "$ratio"
done
