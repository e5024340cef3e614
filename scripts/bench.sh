#!/usr/bin/env bash
# Lumen against ONNX Runtime and PyTorch on the same machine, in the same run: builds Release, then
# for each model and thread count runs Lumen's runner on the PNNX case and on the ONNX file, the
# ONNX Runtime peer (scripts/ort_peer.js) on that same file and the PyTorch peer
# (scripts/pytorch_peer.py) one after another, ROUNDS times, and prints one markdown table of
# medians, the ratios to ORT and to PyTorch, and peak RSS.
#
#   scripts/bench.sh                          # every model, batch 1, 1 and 2 threads, 5 rounds
#   ROUNDS=3 MODELS="resnet18 vit" THREADS=1 scripts/bench.sh
#   ORT_VERSION=1.22.0 scripts/bench.sh       # ONNX Runtime pinned (default: its newest release)
#   INT8_MODELS="resnet18" scripts/bench.sh   # the quantised rows' models ("" for none)
#
# Models (bench name -> golden case): resnet18 -> resnet18, yolov5s -> yolov5s_detect, mobilenet_v3
# -> mobilenet_v3_large_075_160, vit -> vit_d96_p8, transformer -> transformer_prenorm, lstm ->
# lstm_classifier, convnext -> convnext_blocks, superres -> super_resolution, mobilenet_v2 ->
# mobilenet_v2_050, mobilenet_v2_full -> mobilenet_v2_100, squeezenet -> squeezenet1_1, densenet ->
# densenet121_g12, shufflenet -> shufflenet_v2_x0_5, mnasnet -> mnasnet0_5, efficientnet ->
# efficientnet_b0_050, regnet -> regnet_y_400mf_050, unet -> unet_small, style ->
# style_transfer_050, ssdlite -> ssdlite320_head. A case is looked for in tmp/models/, then in
# $LUMEN_SHARED_MODELS (default /work/shared/models). All three engines run the case's weights: the
# PyTorch peer builds the module from the case, scripts/make_onnx_models.py exports that module to
# ONNX (checked against the case's outputs) into $LUMEN_ONNX_DIR (default
# ~/.cache/lumen-bench/onnx), and scripts/install_ort_peer.sh installs onnxruntime-node with npm
# into $LUMEN_ORT_NODE_DIR (default ~/.cache/lumen-bench/node), never into the repository: the
# newest release, resolved at every run, unless ORT_VERSION pins one. The table names the version.
#
# Machines are shared and noisy: alternating the engines round by round exposes them to the same
# conditions, and each round's figure is already a median over REPEAT runs after a warm-up.
# A model Lumen cannot run yet shows "n/a (reason)" in its columns; the table still completes.
#
# A second table quantises INT8_MODELS (default resnet18 mobilenet_v2 mobilenet_v2_full) with
# lumen_quantize: int8 calibrated on 32 inputs (scripts/quantize_accuracy.py), int8 with least-error
# (mse) calibration and the stem kept fp32, and bf16; it times each against the fp32 model,
# alternating round by round, and gives their accuracy against the fp32 model on 32 other inputs. A
# quantised file computes the same values on every CPU (see
# source/layer/quantized/quantized_convolution.cpp), so the accuracy columns hold for VNNI CPUs too.
# Beside them, ONNX Runtime's own int8: the model's ONNX export made a QDQ model by
# scripts/make_qdq_model.py (the same calibration inputs, min/max, per-channel weights), timed
# against ORT's fp32 run of the export; its accuracy is the QDQ file's arithmetic as Lumen runs it
# (in fp32: ORT's int8 kernels may round otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${ROUNDS:-5}
models=${MODELS:-"resnet18 yolov5s mobilenet_v3 vit transformer lstm convnext superres mobilenet_v2
  mobilenet_v2_full squeezenet densenet shufflenet mnasnet efficientnet regnet unet style ssdlite"}
threads_list=${THREADS:-"1 2"}
repeat=${REPEAT:-20}
node_dir=${LUMEN_ORT_NODE_DIR:-$HOME/.cache/lumen-bench/node}
onnx_dir=${LUMEN_ONNX_DIR:-$HOME/.cache/lumen-bench/onnx}
shared_models=${LUMEN_SHARED_MODELS:-/work/shared/models}
export LUMEN_ORT_NODE_DIR=$node_dir LUMEN_ONNX_DIR=$onnx_dir LUMEN_SHARED_MODELS=$shared_models

# Dependencies: Lumen's Debian packages, then the peers' (ONNX export, node and npm, GNU time).
scripts/install_deps.sh
if ! /usr/bin/python3 -c "import torch, onnx" 2>/dev/null || ! command -v npm > /dev/null ||
   ! command -v node > /dev/null || [ ! -x /usr/bin/time ]; then
  echo "Installing the peers' Debian packages (python3-torch python3-onnx nodejs npm time)"
  sudo_if_needed=()
  [ "$(id -u)" -ne 0 ] && sudo_if_needed=(sudo)
  "${sudo_if_needed[@]}" apt-get update
  "${sudo_if_needed[@]}" apt-get install -y --no-install-recommends python3-torch python3-onnx \
    nodejs npm time
fi
installed_ort=$(scripts/install_ort_peer.sh "$node_dir")
# The version the peer really loads (NODE_PATH could hold another onnxruntime-node).
ort_version=$(node scripts/ort_peer.js --version)
[ "$ort_version" = "$installed_ort" ] ||
  echo "Note: scripts/ort_peer.js loads onnxruntime-node $ort_version (NODE_PATH), not the" \
    "$installed_ort installed in $node_dir"
int8_models=${INT8_MODELS-"resnet18 mobilenet_v2 mobilenet_v2_full"}
scripts/release_build.sh lumen_run lumen_quantize lumen_python > /dev/null

# ONNX exports of the selected models (kept from earlier runs; a bad export is refused, and that
# model's ORT column then says so).
# shellcheck disable=SC2086
/usr/bin/python3 scripts/make_onnx_models.py --models $models || true

case_name() {
  case "$1" in
    resnet18) echo resnet18 ;;
    yolov5s) echo yolov5s_detect ;;
    mobilenet_v3) echo mobilenet_v3_large_075_160 ;;
    vit) echo vit_d96_p8 ;;
    transformer) echo transformer_prenorm ;;
    lstm) echo lstm_classifier ;;
    convnext) echo convnext_blocks ;;
    superres) echo super_resolution ;;
    mobilenet_v2) echo mobilenet_v2_050 ;;
    mobilenet_v2_full) echo mobilenet_v2_100 ;;
    squeezenet) echo squeezenet1_1 ;;
    densenet) echo densenet121_g12 ;;
    shufflenet) echo shufflenet_v2_x0_5 ;;
    mnasnet) echo mnasnet0_5 ;;
    efficientnet) echo efficientnet_b0_050 ;;
    regnet) echo regnet_y_400mf_050 ;;
    unet) echo unet_small ;;
    style) echo style_transfer_050 ;;
    ssdlite) echo ssdlite320_head ;;
    *) echo "unknown model $1 (see the list at the top of scripts/bench.sh)" >&2; return 2 ;;
  esac
}

# The case folder of a case name: tmp/models first, then the shared corpus; empty if neither.
case_folder() {
  local folder
  for folder in "tmp/models/$1" "$shared_models/$1"; do
    [ -f "$folder/case.txt" ] && { echo "$folder"; return; }
  done
}

# "median X ms, min Y ms ..." -> "X Y"
extract() { sed -n 's/^median \([0-9.]*\) ms, min \([0-9.]*\) ms.*/\1 \2/p'; }

# Median of the first column over the lines of a file.
median_of() {
  sort -n "$1" | awk '{m[NR] = $1}
    END {if (NR) printf "%.2f", (NR % 2) ? m[(NR + 1) / 2] : (m[NR / 2] + m[NR / 2 + 1]) / 2}'
}

# Largest number in a file, as MB.
largest_mb() { sort -n "$1" | awk 'END {if (NR) printf "%.0f MB", $1 / 1024}'; }

# Why a run printed no timing: the operators it lacks, else its last error line.
reason_of() {
  local missing
  missing=$(sed -n "s/^  \([A-Za-z0-9_.]*\) '.*' (line [0-9]*)$/\1/p" "$1" | sort -u |
    paste -sd, - || true)
  if [ -n "$missing" ]; then
    echo "missing ${missing//,/, }"
  else
    { grep -v '^\s*$' "$1" || true; } | tail -1 | cut -c1-80 | tr '|' '/'
  fi
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a != "" && b != "" && b > 0) printf "%.2f", a / b;
  else printf "n/a"}'; }

# Median over the rounds of each round's ratio of two engines' times (two .times files, line by
# line): the two ran seconds apart, so a slow minute of a shared machine slows both, where the
# ratio of the medians may take one engine's median from a slow minute and the other's from a
# quiet one. n/a unless both timed every round.
paired_ratio() {
  if [ "$(wc -l < "$1")" -ne "$rounds" ] || [ "$(wc -l < "$2")" -ne "$rounds" ]; then
    echo "n/a"
    return
  fi
  local median
  median=$(paste -d' ' "$1" "$2" | awk '$3 > 0 {print $1 / $3}' | median_of /dev/stdin)
  echo "${median:-n/a}"
}

with_unit() { if [ -n "$1" ]; then echo "$1 ms"; else echo "n/a"; fi; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo
echo "Machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load average" \
  "$(cut -d' ' -f1-3 /proc/loadavg) at start; batch 1; ${rounds} rounds of ${repeat} runs"
echo "BLAS: $(build/lumen_run --case tmp/models/relu --repeat 1 | sed -n 's/.*BLAS: //p');" \
  "ONNX Runtime: onnxruntime-node $ort_version (node $(node --version));" \
  "PyTorch: $(/usr/bin/python3 -c 'import torch; print(torch.__version__)')"
echo
echo "| model | threads | Lumen median | Lumen on the .onnx | ORT $ort_version median |" \
  "PyTorch median |" \
  "Lumen / ORT | Lumen / ORT, paired | Lumen on the .onnx / ORT | Lumen / PyTorch |" \
  "Lumen peak RSS | ORT peak RSS |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
notes=()
for model in $models; do
  name=$(case_name "$model")
  folder=$(case_folder "$name")
  onnx_file="$onnx_dir/$model.onnx"
  for threads in $threads_list; do
    for engine in lumen lumen_onnx ort torch; do
      : > "$work/$engine.times"
      : > "$work/$engine.rss"
      : > "$work/$engine.log"
    done
    for ((round = 0; round < rounds; ++round)); do
      if [ -n "$folder" ]; then
        /usr/bin/time -f "%M" -o "$work/time.out" build/lumen_run --case "$folder" \
          --threads "$threads" --repeat "$repeat" > "$work/run.log" 2>&1 || true
        cat "$work/run.log" >> "$work/lumen.log"
        if grep -q '^median' "$work/run.log"; then
          extract < "$work/run.log" >> "$work/lumen.times"
          tail -1 "$work/time.out" >> "$work/lumen.rss"
        fi
      else
        echo "no case folder $name" >> "$work/lumen.log"
      fi
      # Lumen on the very file ORT runs, with the case's inputs (its outputs go to the scratch
      # folder: they are PyTorch's within tolerance, as the ONNX golden cases check).
      if [ -f "$onnx_file" ] && [ -n "$folder" ]; then
        mapfile -t onnx_inputs < <(sed -n "s#^input \([^ ]*\) \([^ ]*\)#--input=$folder/\1:\2#p" \
          "$folder/case.txt")
        build/lumen_run "$onnx_file" "${onnx_inputs[@]}" --threads "$threads" --repeat "$repeat" \
          --output-dir "$work" > "$work/run.log" 2>&1 || true
        cat "$work/run.log" >> "$work/lumen_onnx.log"
        extract < "$work/run.log" >> "$work/lumen_onnx.times"
      else
        echo "no ONNX export (scripts/make_onnx_models.py refused or failed)" \
          >> "$work/lumen_onnx.log"
      fi
      if [ -f "$onnx_file" ]; then
        node scripts/ort_peer.js --model "$onnx_file" --threads "$threads" --repeat "$repeat" \
          > "$work/run.log" 2>&1 || true
        cat "$work/run.log" >> "$work/ort.log"
        extract < "$work/run.log" >> "$work/ort.times"
        sed -n 's/^peak RSS \([0-9]*\) kB$/\1/p' "$work/run.log" >> "$work/ort.rss"
      else
        echo "no ONNX export (scripts/make_onnx_models.py refused or failed)" >> "$work/ort.log"
      fi
      /usr/bin/python3 scripts/pytorch_peer.py --model "$model" --threads "$threads" \
        --repeat "$repeat" > "$work/run.log" 2>&1 || true
      cat "$work/run.log" >> "$work/torch.log"
      extract < "$work/run.log" >> "$work/torch.times"
    done
    lumen=$(median_of "$work/lumen.times")
    lumen_onnx=$(median_of "$work/lumen_onnx.times")
    ort=$(median_of "$work/ort.times")
    torch=$(median_of "$work/torch.times")
    lumen_cell=$(with_unit "$lumen")
    lumen_onnx_cell=$(with_unit "$lumen_onnx")
    ort_cell=$(with_unit "$ort")
    torch_cell=$(with_unit "$torch")
    [ -z "$lumen" ] && lumen_cell="n/a ($(reason_of "$work/lumen.log"))"
    [ -z "$lumen_onnx" ] && lumen_onnx_cell="n/a ($(reason_of "$work/lumen_onnx.log"))"
    [ -z "$ort" ] && ort_cell="n/a ($(reason_of "$work/ort.log"))"
    [ -z "$torch" ] && torch_cell="n/a ($(reason_of "$work/torch.log"))"
    # Lumen checks its outputs against PyTorch's on every run: a wrong answer must not pass as fast.
    grep -q ': FAIL' "$work/lumen.log" && lumen_cell="$lumen_cell (outputs FAIL the case)"
    lumen_rss=$(largest_mb "$work/lumen.rss")
    ort_rss=$(largest_mb "$work/ort.rss")
    echo "| $model | $threads | $lumen_cell | $lumen_onnx_cell | $ort_cell | $torch_cell |" \
      "$(ratio "$lumen" "$ort") | $(paired_ratio "$work/lumen.times" "$work/ort.times") |" \
      "$(ratio "$lumen_onnx" "$ort") | $(ratio "$lumen" "$torch") |" \
      "${lumen_rss:-n/a} | ${ort_rss:-n/a} |"
    mode=$(sed -n 's/^torch mode: //p' "$work/torch.log" | sort -u | paste -sd';' -)
    notes+=("$model ($name): PyTorch ${mode:-did not run}")
  done
done
echo
echo "Notes: medians over the rounds of each round's median of $repeat runs; the ratios are those"
echo "medians' ratios, and 'paired' is the median over the rounds of each round's own ratio (the"
echo "two engines ran seconds apart in it, so a slow minute of a shared machine slows both)."
echo "Peak RSS is the largest maximum resident set over the rounds: Lumen's is /usr/bin/time's for"
echo "lumen_run (which also holds the case's inputs and PyTorch's outputs to check them); ORT's is"
echo "node's process.resourceUsage().maxRSS (node with ORT loaded starts near 50 MB)."
echo "ORT is timed around await session.run() in node: a small model's figure includes the call."
printf '%s\n' "${notes[@]}" | sort -u | sed 's/^/- /'

# --- quantised models against their fp32 model --------------------------------------------------
[ -z "$int8_models" ] && exit 0
echo
echo "| model | threads | fp32 median | int8 median | int8 / fp32 | int8 / fp32, paired |" \
  "int8 accuracy |" \
  "int8 (mse, stem fp32) / fp32 | its accuracy | bf16 / fp32 | bf16 accuracy |" \
  "ORT fp32 median | ORT int8 (QDQ) median | ORT int8 / ORT fp32 | QDQ accuracy |" \
  "Lumen int8 / ORT int8 |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
export PYTHONPATH=build/python
# shellcheck disable=SC2086
/usr/bin/python3 scripts/make_onnx_models.py --models $int8_models > /dev/null 2>&1 || true
for model in $int8_models; do
  folder=$(case_folder "$(case_name "$model")")
  [ -z "$folder" ] && { echo "| $model | n/a (no case folder) |"; continue; }
  /usr/bin/python3 scripts/quantize_accuracy.py calibrate "$folder" "$work/calibration_$model"
  # The stem: the first convolution of the file, read from its line.
  stem=$(awk '$1 == "nn.Conv2d" {print $2; exit}' "$folder/model.pnnx.param")
  build/lumen_quantize "$folder/model.pnnx.param" --calibration "$work/calibration_$model" \
    --output "$work/${model}_int8" > /dev/null
  build/lumen_quantize "$folder/model.pnnx.param" --calibration "$work/calibration_$model" \
    --method mse --keep-float "$stem" --output "$work/${model}_int8p" > /dev/null
  build/lumen_quantize "$folder/model.pnnx.param" --to bf16 --output "$work/${model}_bf16" \
    > /dev/null
  onnx_file="$onnx_dir/$model.onnx"
  qdq_file="$work/${model}_qdq.onnx"
  if [ -f "$onnx_file" ]; then
    /usr/bin/python3 scripts/make_qdq_model.py "$onnx_file" "$work/calibration_$model" \
      "$qdq_file" > /dev/null || rm -f "$qdq_file"
  fi
  declare -A accuracy=()
  for variant in int8 int8p bf16; do
    accuracy[$variant]=$(/usr/bin/python3 scripts/quantize_accuracy.py compare "$folder" \
      "$work/${model}_$variant.pnnx.param" | sed 's/top-1 agrees on/top-1/')
  done
  accuracy[qdq]="n/a (no QDQ model)"
  [ -f "$qdq_file" ] && accuracy[qdq]=$(/usr/bin/python3 scripts/quantize_accuracy.py compare \
    "$folder" "$qdq_file" | sed 's/top-1 agrees on/top-1/')
  input=$(sed -n 's#^input \([^ ]*\) \([^ ]*\)#'"$folder"'/\1:\2#p' "$folder/case.txt" | head -1)
  for threads in $threads_list; do
    for variant in fp32 int8 int8p bf16 ort_fp32 ort_int8; do : > "$work/$variant.times"; done
    for ((round = 0; round < rounds; ++round)); do
      for variant in fp32 int8 int8p bf16; do
        param="$work/${model}_$variant.pnnx.param"
        [ "$variant" = fp32 ] && param="$folder/model.pnnx.param"
        build/lumen_run "$param" --input "$input" --threads "$threads" --repeat "$repeat" \
          --output-dir "$work" 2>&1 | extract >> "$work/$variant.times" || true
      done
      for variant in ort_fp32 ort_int8; do
        file=$onnx_file
        [ "$variant" = ort_int8 ] && file=$qdq_file
        [ -f "$file" ] || continue
        node scripts/ort_peer.js --model "$file" --threads "$threads" --repeat "$repeat" 2>&1 |
          extract >> "$work/$variant.times" || true
      done
    done
    declare -A median=()
    for variant in fp32 int8 int8p bf16 ort_fp32 ort_int8; do
      median[$variant]=$(median_of "$work/$variant.times")
    done
    echo "| $model | $threads | $(with_unit "${median[fp32]}") | $(with_unit "${median[int8]}") |" \
      "$(ratio "${median[int8]}" "${median[fp32]}") |" \
      "$(paired_ratio "$work/int8.times" "$work/fp32.times") | ${accuracy[int8]} |" \
      "$(ratio "${median[int8p]}" "${median[fp32]}") | ${accuracy[int8p]} |" \
      "$(ratio "${median[bf16]}" "${median[fp32]}") | ${accuracy[bf16]} |" \
      "$(with_unit "${median[ort_fp32]}") | $(with_unit "${median[ort_int8]}") |" \
      "$(ratio "${median[ort_int8]}" "${median[ort_fp32]}") | ${accuracy[qdq]} |" \
      "$(ratio "${median[int8]}" "${median[ort_int8]}") |"
  done
done
echo
echo "Accuracy: cosine similarity of the outputs with the fp32 model's (min and mean) and top-1"
echo "agreement, on 32 N(0, 1) inputs the calibration (32 others) never saw. The CPU's ISA for the"
echo "int8 kernels (AMX's tdpbsud where amx_int8 is listed, else VNNI's vpdpbusd where avx512_vnni"
echo "is, else AVX2's vpmaddwd) and bf16 (AMX tiles where amx_bf16 is listed, else vdpbf16ps where"
echo "avx512_bf16 is and pays, else fp32):" \
  "$(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' |
    grep -E '^(avx2|fma|avx512f|avx512_vnni|avx512_bf16|amx_bf16|amx_int8)$' | paste -sd' ')"
