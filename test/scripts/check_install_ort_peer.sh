#!/usr/bin/env bash
# scripts/install_ort_peer.sh (bench.sh's ONNX Runtime peer) against a stand-in npm, offline: the
# newest release is installed by default and a newer one replaces it, ORT_VERSION pins a release,
# an up-to-date install is kept, an unreachable registry falls back to the installed release with a
# note and fails with none; the printed version is the installed package.json's. Then
# scripts/ort_peer.js --version reports the release of the package it loads.
#
#   test/scripts/check_install_ort_peer.sh LUMEN_SOURCE_DIR      (ctest runs it; exit 77: no node)
set -euo pipefail
source_dir=$1
command -v node > /dev/null || { echo "node is not installed: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node_dir=$work/node

# The stand-in npm: `view` answers $NEWEST (fails when it is empty, as offline); `install` writes
# the package a real install would, and logs the version.
mkdir "$work/bin"
cat > "$work/bin/npm" << 'EOF'
#!/usr/bin/env bash
case $1 in
  view) [ -n "${NEWEST:-}" ] && echo "$NEWEST" ;;
  install)
    prefix=$(printf '%s\n' "$@" | sed -n '/^--prefix$/{n;p}')
    version=${*: -1}
    version=${version#onnxruntime-node@}
    package=$prefix/node_modules/onnxruntime-node
    mkdir -p "$package"
    echo "{\"name\": \"onnxruntime-node\", \"version\": \"$version\", \"main\": \"index.js\"}" \
      > "$package/package.json"
    echo "module.exports = {env: {versions: {common: '$version', node: '$version'}}};" \
      > "$package/index.js"
    echo "$version" >> "$(dirname "$prefix")/installs.log" ;;
  *) exit 1 ;;
esac
EOF
chmod +x "$work/bin/npm"
export PATH=$work/bin:$PATH
unset ORT_VERSION NODE_PATH LUMEN_ORT_NODE_DIR

failures=0
# expect NAME WANTED_STDOUT WANTED_INSTALLS [STDERR_PATTERN] -- runs the script with the current
# environment; WANTED_STDOUT "fails" wants a non-zero exit.
expect() {
  local name=$1 wanted=$2 installs=$3 pattern=${4:-}
  local got status=0
  : > "$work/installs.log"
  got=$("$source_dir/scripts/install_ort_peer.sh" "$node_dir" 2> "$work/stderr") || status=$?
  local installed
  installed=$(paste -sd' ' "$work/installs.log")
  if [ "$wanted" = fails ]; then
    [ "$status" -ne 0 ] || { echo "FAIL $name: exit 0, printed '$got'"; ((++failures)); return; }
  elif [ "$status" -ne 0 ] || [ "$got" != "$wanted" ]; then
    echo "FAIL $name: exit $status, printed '$got', wanted '$wanted'"
    cat "$work/stderr"
    ((++failures))
    return
  fi
  if [ "$installed" != "$installs" ]; then
    echo "FAIL $name: installed '$installed', wanted '$installs'"
    ((++failures))
    return
  fi
  if [ -n "$pattern" ] && ! grep -q "$pattern" "$work/stderr"; then
    echo "FAIL $name: no '$pattern' in stderr:"
    cat "$work/stderr"
    ((++failures))
    return
  fi
  echo "ok   $name"
}

NEWEST='' expect "offline, nothing installed" fails "" "none is installed"
NEWEST=1.30.0 expect "newest, nothing installed" 1.30.0 1.30.0
NEWEST=1.30.0 expect "newest already installed" 1.30.0 ""
NEWEST=1.31.0 expect "a newer release replaces it" 1.31.0 1.31.0
NEWEST=1.31.0 ORT_VERSION=1.17.3 expect "ORT_VERSION pins" 1.17.3 1.17.3
NEWEST='' expect "offline, one installed" 1.17.3 "" "could not resolve"

# ort_peer.js reports the release it loads: the stand-in installed above.
got=$(LUMEN_ORT_NODE_DIR=$node_dir node "$source_dir/scripts/ort_peer.js" --version)
if [ "$got" = 1.17.3 ]; then
  echo "ok   ort_peer.js --version"
else
  echo "FAIL ort_peer.js --version printed '$got', wanted 1.17.3"
  ((++failures))
fi

[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
echo "install_ort_peer: all cases pass"
