#!/usr/bin/env bash
# Lumen against PyTorch on the same machine, in the same run: builds Release, then for each model
# and thread count runs Lumen's runner and the PyTorch peer (scripts/pytorch_peer.py) alternately,
# ROUNDS times each, and prints a table of medians and minimums and the ratio Lumen / PyTorch.
#
#   scripts/bench.sh                 # ResNet18 (224) and YOLOv5s (640), batch 1, 1 and 2 threads
#   ROUNDS=3 MODELS=resnet18 scripts/bench.sh
#
# Machines are shared and noisy: alternating the two engines round by round exposes both to the
# same conditions, and each round's figure is already a median over REPEAT runs after a warm-up.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${ROUNDS:-5}
models=${MODELS:-"resnet18 yolov5s"}
threads_list=${THREADS:-"1 2"}
repeat=${REPEAT:-20}

scripts/install_deps.sh
if ! /usr/bin/python3 -c "import torch, torchvision" 2>/dev/null; then
  echo "Installing the PyTorch peer (Debian's python3-torch and python3-torchvision)"
  sudo_if_needed=()
  [ "$(id -u)" -ne 0 ] && sudo_if_needed=(sudo)
  "${sudo_if_needed[@]}" apt-get install -y --no-install-recommends python3-torch python3-torchvision
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j"$(nproc)" --target lumen_run > /dev/null

# "median X ms, min Y ms ..." -> "X Y"
extract() { sed -n 's/^median \([0-9.]*\) ms, min \([0-9.]*\) ms.*/\1 \2/p'; }

# Median of the first column and minimum of the second, over the lines of a file.
summarise() {
  sort -n "$1" | awk '{m[NR] = $1; if (NR == 1 || $2 < low) low = $2}
    END {median = (NR % 2) ? m[(NR + 1) / 2] : (m[NR / 2] + m[NR / 2 + 1]) / 2;
         printf "%.2f %.2f", median, low}'
}

echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; batch 1; ${rounds} rounds"
echo "BLAS: $(build/lumen_run --case tmp/models/relu --repeat 1 | sed -n 's/.*BLAS: //p')"
printf '\n| %-9s | %7s | %12s | %10s | %14s | %12s | %17s |\n' model threads "Lumen median" "Lumen min" \
  "PyTorch median" "PyTorch min" "Lumen / PyTorch"
printf '|%s|%s|%s|%s|%s|%s|%s|\n' ----------- --------- -------------- ------------ \
  ---------------- -------------- -------------------
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for model in $models; do
  case "$model" in
    resnet18) case_dir=tmp/models/resnet18 ;;
    yolov5s) case_dir=tmp/models/yolov5s_detect ;;
    *) echo "unknown model $model" >&2; exit 2 ;;
  esac
  for threads in $threads_list; do
    : > "$work/lumen"
    : > "$work/torch"
    for ((round = 0; round < rounds; ++round)); do
      build/lumen_run --case "$case_dir" --threads "$threads" --repeat "$repeat" | extract >> "$work/lumen"
      /usr/bin/python3 scripts/pytorch_peer.py --model "$model" --threads "$threads" \
        --repeat "$repeat" 2> /dev/null | extract >> "$work/torch"
    done
    read -r lumen_median lumen_min <<< "$(summarise "$work/lumen")"
    read -r torch_median torch_min <<< "$(summarise "$work/torch")"
    ratio=$(awk -v a="$lumen_median" -v b="$torch_median" 'BEGIN {printf "%.2f", a / b}')
    printf '| %-9s | %7s | %9s ms | %7s ms | %11s ms | %9s ms | %17s |\n' "$model" "$threads" \
      "$lumen_median" "$lumen_min" "$torch_median" "$torch_min" "$ratio"
  done
done
