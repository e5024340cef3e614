#!/usr/bin/env bash
# Installs scripts/bench.sh's ONNX Runtime peer, onnxruntime-node, with npm into a cache folder
# (never into the repository) and prints the version installed there, read back from the package's
# own package.json. The default is the newest release, resolved now: a pinned old release flatters
# Lumen (1.30.0 ran YOLOv5s about 18% faster than 1.22.0 on an AVX-512 machine). ORT_VERSION pins
# an exact release. An install that already has the wanted version is kept.
#
#   scripts/install_ort_peer.sh [NODE_DIR]     default $LUMEN_ORT_NODE_DIR, else
#                                              ~/.cache/lumen-bench/node
#   ORT_VERSION=1.22.0 scripts/install_ort_peer.sh
#
# When npm cannot resolve the newest release (offline), the installed one is used, with a note on
# stderr; with none installed the script fails. Messages go to stderr, the version to stdout.
set -euo pipefail

node_dir=${1:-${LUMEN_ORT_NODE_DIR:-$HOME/.cache/lumen-bench/node}}

# The version in the installed package's package.json; empty when none is installed.
installed_version() {
  node -p 'require(process.argv[1]).version' \
    "$node_dir/node_modules/onnxruntime-node/package.json" 2> /dev/null || true
}

installed=$(installed_version)
if [ -n "${ORT_VERSION:-}" ]; then
  wanted=$ORT_VERSION
elif wanted=$(npm view onnxruntime-node version 2> /dev/null) && [ -n "$wanted" ]; then
  :
elif [ -n "$installed" ]; then
  echo "Note: npm could not resolve the newest onnxruntime-node (offline?); using the one" \
    "installed in $node_dir, $installed, which may not be the newest" >&2
  wanted=$installed
else
  echo "install_ort_peer: npm could not resolve the newest onnxruntime-node (offline?) and none" \
    "is installed in $node_dir" >&2
  exit 1
fi

if [ "$installed" != "$wanted" ]; then
  echo "Installing onnxruntime-node $wanted into $node_dir${installed:+ (replacing $installed)}" >&2
  mkdir -p "$node_dir"
  [ -f "$node_dir/package.json" ] || echo '{"private": true}' > "$node_dir/package.json"
  # --ignore-scripts: the CPU binary ships in the package; its install script only fetches GPU
  # libraries.
  npm install --prefix "$node_dir" --ignore-scripts --no-audit --no-fund --loglevel=error \
    "onnxruntime-node@$wanted" > /dev/null
  installed=$(installed_version)
  if [ "$installed" != "$wanted" ]; then
    echo "install_ort_peer: asked npm for onnxruntime-node $wanted, $node_dir has" \
      "'$installed'" >&2
    exit 1
  fi
fi
echo "$installed"
