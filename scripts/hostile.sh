#!/usr/bin/env bash
# The hostile models of Lumen issue 9 against build/lumen_run, as a user would meet them.
#
#   scripts/hostile.sh            (after building lumen_run; LUMEN_RUN=path overrides the binary)
#
# scripts/make_hostile_models.py writes every model into a temporary folder, with the big input
# files the unit tests leave out (a batch of 65536, a sparse 120 GB input). Each is run under
# `ulimit -v 4000000` (4 GB of address space) and must, as its run.txt says, exit with status 2
# and print exactly one line naming the file or operator and the problem (or, for the NaN/Inf
# case, exit 0 matching PyTorch), in under 5 seconds. Prints one line per case; fails if any fails.
set -euo pipefail
cd "$(dirname "$0")/.."

lumen_run=$(realpath "${LUMEN_RUN:-build/lumen_run}")
[[ -x "$lumen_run" ]] || { echo "hostile.sh: $lumen_run not found: build lumen_run first" >&2; exit 2; }
# PyTorch writes the NaN/Inf case's references; without it that case only has to run.
python=python3
if /usr/bin/python3 -c "import torch" 2>/dev/null; then python=/usr/bin/python3; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" scripts/make_hostile_models.py --large "$work/models"

failures=0
for folder in "$work"/models/*/; do
  name=$(basename "$folder")
  read -r -a args <<<"$(sed -n 's/^args //p' "$folder/run.txt")"
  want_status=$(sed -n 's/^status //p' "$folder/run.txt")
  start=$(date +%s%N)
  set +e
  (cd "$folder" && ulimit -v 4000000 && exec timeout 60 "$lumen_run" --threads 2 "${args[@]}") \
    >"$work/stdout" 2>"$work/stderr"
  status=$?
  set -e
  milliseconds=$((($(date +%s%N) - start) / 1000000))
  problems=()
  [[ "$status" == "$want_status" ]] || problems+=("exit status $status, expected $want_status")
  ((milliseconds < 5000)) || problems+=("took ${milliseconds} ms, more than 5 s")
  if [[ "$want_status" == 2 ]]; then
    message_file="$work/stderr"
    lines=$(wc -l <"$work/stderr")
    [[ "$lines" == 1 ]] || problems+=("$lines lines on stderr, expected one")
  else
    message_file="$work/stdout"
  fi
  while IFS= read -r fragment; do
    grep -qF -- "$fragment" "$message_file" || problems+=("no '$fragment' in the output")
  done < <(sed -n 's/^expect //p' "$folder/run.txt")
  message=$(head -c 300 "$message_file" | head -n 1)
  if ((${#problems[@]} == 0)); then
    printf 'PASS %-22s status %s, %5d ms: %s\n' "$name" "$status" "$milliseconds" "$message"
  else
    failures=$((failures + 1))
    printf 'FAIL %-22s %s\n' "$name" "$(IFS=';'; echo "${problems[*]}")"
    sed 's/^/    stderr: /' "$work/stderr" | head -c 2000
    sed 's/^/    stdout: /' "$work/stdout" | head -n 20
  fi
done
if ((failures > 0)); then
  echo "hostile.sh: $failures case(s) failed"
  exit 1
fi
echo "hostile.sh: every hostile model was refused cleanly"
