#!/usr/bin/env bash
# The Python wheel as a user gets it, offline: setup.py builds it with Debian's pip, setuptools and
# wheel (the module taken from LUMEN_BUILD_DIR's tree, so nothing is compiled twice), a fresh venv
# installs it with no index, and the installed lumen, not the build tree's, runs resnet18 against
# PyTorch's output. The venv sees Debian's packages (--system-site-packages) because numpy, which
# the wheel requires, cannot be downloaded offline.
#
#   test/package/check_wheel.sh LUMEN_SOURCE_DIR LUMEN_BUILD_DIR      (ctest runs it)
set -euo pipefail
source_dir=$(cd "$1" && pwd)
build_dir=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python=/usr/bin/python3
version=$(sed -n 's/^project(lumen VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")
# No package index and no local wheel folders: whatever pip needs must already be installed.
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
unset PIP_FIND_LINKS PYTHONPATH

echo "== pip wheel (module from $build_dir)"
start=$SECONDS
LUMEN_BUILD_DIR=$build_dir "$python" -m pip wheel --no-build-isolation --no-deps --no-cache-dir \
  -w "$work/dist" "$source_dir" > "$work/wheel.log" 2>&1 || { cat "$work/wheel.log"; exit 1; }
wheels=("$work"/dist/*.whl)
wheel=${wheels[0]}
echo "$(basename "$wheel"): $(du -k "$wheel" | cut -f1) KiB in $((SECONDS - start)) s"
# The version is CMake's, and the module is tagged for the interpreter that built it.
tag=$("$python" -c 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")')
case $(basename "$wheel") in
  "lumen-$version-$tag-$tag-linux_"*.whl) ;;
  *) echo "expected lumen-$version-$tag-$tag-linux_*.whl" >&2; exit 1 ;;
esac
contents=$("$python" -m zipfile -l "$wheel")
for file in lumen/__init__.py lumen/case_format.py "lumen/_lumen.cpython-"; do
  grep -q "^$file" <<< "$contents" || { echo "the wheel has no $file" >&2; exit 1; }
done

echo "== a fresh venv installs it"
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install "$wheel" > "$work/install.log" 2>&1 ||
  { cat "$work/install.log"; exit 1; }
site=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_path("platlib"))')
installed_version=$("$work/venv/bin/python" -c 'import importlib.metadata as metadata, lumen
print(metadata.version("lumen"), getattr(lumen, "__version__", ""))')
case $installed_version in
  "$version " | "$version $version") ;;
  *) echo "installed version (metadata, lumen.__version__): $installed_version; CMake: $version" >&2
     exit 1 ;;
esac

echo "== the installed lumen runs resnet18"
# From an unrelated folder, so that neither the source tree nor build/python is importable.
(cd "$work" && "$work/venv/bin/python" "$source_dir/test/package/run_installed_lumen.py" \
  "$source_dir/tmp/models/resnet18" "$site/lumen")
echo "wheel: builds offline, installs into a fresh venv and matches PyTorch"
