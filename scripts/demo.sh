#!/usr/bin/env bash
# A demo from any state: installs what is missing, builds Release in build/, and runs it on the
# bundled model and image.
#
#   scripts/demo.sh                  # ResNet18 classifies demos/resnet/chelsea.jpg (top-5)
#   scripts/demo.sh yolo             # YOLOv5s detects objects in demos/yolo/astronaut.jpg
#   scripts/demo.sh yolo --help      # further arguments go to the demo
set -euo pipefail
cd "$(dirname "$0")/.."

demo=resnet
if [ $# -gt 0 ] && { [ "$1" = --help ] || [ "$1" = -h ]; }; then
  # The script's own modes first (the resnet demo's options follow).
  sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
  echo
fi
if [ $# -gt 0 ] && { [ "$1" = resnet ] || [ "$1" = yolo ]; }; then
  demo=$1
  shift
fi

scripts/install_deps.sh
scripts/release_build.sh "lumen_${demo}" > /dev/null
build/lumen_${demo} "$@"
