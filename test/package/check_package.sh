#!/usr/bin/env bash
# Lumen as a user's dependency, three ways, each building test/package/consumer and running
# resnet18 against PyTorch's output: (1) `cmake --install` into ~/lumen (a scratch HOME) then
# find_package(Lumen), (2) the same install through pkg-config, by running the README's own lines
# (the sh block that calls `pkg-config --cflags --libs lumen`) as they are written, (3)
# add_subdirectory of the source tree. The install's Python package runs resnet18 too, from the
# PYTHONPATH the install prints, and `--prefix /usr/local` puts it on python3's sys.path.
#
#   test/package/check_package.sh LUMEN_SOURCE_DIR LUMEN_BUILD_DIR      (ctest runs it)
set -euo pipefail
source_dir=$1
build_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case_dir=$source_dir/tmp/models/resnet18
launcher=()
if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi

# The README installs into ~/lumen: here ~ is a scratch folder, so its lines run unchanged.
home=$work/home
prefix=$home/lumen
echo "== install into $prefix"
cmake --install "$build_dir" --prefix "$prefix" > "$work/install.log"
# Only the public headers are installed.
installed_headers=$(cd "$prefix/include" && find lumen -name '*.hpp' | sort | tr '\n' ' ')
expected_headers="lumen/error.hpp lumen/lumen.hpp lumen/model.hpp lumen/quantize.hpp lumen/session.hpp lumen/summary.hpp lumen/tensor.hpp "
if [ "$installed_headers" != "$expected_headers" ]; then
  echo "installed headers: $installed_headers; expected: $expected_headers" >&2
  exit 1
fi
# Nor does the package ask for Armadillo (comments aside): its headers and settings stay inside
# liblumen.a, and consumer/main.cpp fails to compile if they reach it.
package_files=("$prefix/lib/cmake/Lumen" "$prefix/lib/pkgconfig")
if grep -rhv '^#' "${package_files[@]}" | grep -i 'armadillo\|ARMA_'; then
  echo "the installed package asks for Armadillo (lines above)" >&2
  exit 1
fi

echo "== the Python package, where the install says"
# Off python3's sys.path (a prefix of one's own): the install names the PYTHONPATH to export.
python_path=$(sed -n 's/.*not on .*sys.path: export PYTHONPATH=//p' "$work/install.log")
[ -n "$python_path" ] || {
  cat "$work/install.log"; echo "the install names no PYTHONPATH" >&2; exit 1
}
(cd "$work" && PYTHONPATH=$python_path /usr/bin/python3 \
  "$source_dir/test/package/run_installed_lumen.py" "$case_dir" "$python_path/lumen")
# Into /usr/local (staged with DESTDIR: nothing is written outside $work), where Debian's python3
# looks without PYTHONPATH: /usr/local/lib/python3.X/dist-packages.
DESTDIR=$work/root cmake --install "$build_dir" --prefix /usr/local > "$work/install-local.log"
local_site=$(sed -n 's/^-- Python package lumen: \(.*\)\/lumen (on .*sys.path)$/\1/p' \
             "$work/install-local.log")
[ -n "$local_site" ] && [ -f "$work/root$local_site/lumen/__init__.py" ] || {
  cat "$work/install-local.log"; echo "--prefix /usr/local: the package is not on sys.path" >&2
  exit 1
}
env -u PYTHONPATH /usr/bin/python3 -c 'import sys; sys.exit(sys.argv[1] not in sys.path)' \
  "$local_site" || { echo "$local_site is not on /usr/bin/python3's sys.path" >&2; exit 1; }
echo "--prefix /usr/local: $local_site, on /usr/bin/python3's sys.path"

echo "== find_package(Lumen)"
cmake -S "$source_dir/test/package/consumer" -B "$work/find" -DCMAKE_PREFIX_PATH="$prefix" \
  "${launcher[@]}" > "$work/find.log"
cmake --build "$work/find" -j2 > "$work/find-build.log"
"$work/find/consumer" "$case_dir"

echo "== pkg-config lumen: the README's lines"
# Every ```sh block of README.md that calls pkg-config for lumen: there must be exactly one.
readme_lines=$(awk '/^```sh$/ {block = ""; inside = 1; next}
  inside && /^```$/ {if (block ~ /pkg-config --cflags --libs lumen/) {printf "%s", block; ++found}
                     inside = 0; next}
  inside {block = block $0 "\n"}
  END {if (found != 1) exit 1}' "$source_dir/README.md") || {
  echo "README.md needs exactly one sh block that runs pkg-config --cflags --libs lumen" >&2
  exit 1
}
printf '%s\n' "$readme_lines" | sed 's/^/  /'
# The program the lines build: the name after -o, else a.out.
program=$(printf '%s' "$readme_lines" | sed -n 's/.* -o \([^ ]*\).*/\1/p' | tail -1)
cp "$source_dir/test/package/consumer/main.cpp" "$home/main.cpp"
# Only the README's own settings: no PKG_CONFIG_PATH from this shell.
(cd "$home" && env -u PKG_CONFIG_PATH HOME="$home" bash -euo pipefail -c "$readme_lines")
"$home/${program:-a.out}" "$case_dir"

echo "== add_subdirectory(lumen)"
# Lumen's objects go to a sibling of its build directory, at the same depth below the source
# tree: with CCACHE_BASEDIR at the source tree (scripts/test.sh) every compile command then reads
# as in build/, and ccache serves the library instead of compiling it again.
lumen_objects=$(dirname "$build_dir")/$(basename "$build_dir")-package-subdirectory
rm -rf "$lumen_objects"
trap 'rm -rf "$work" "$lumen_objects"' EXIT
cmake -S "$source_dir/test/package/consumer" -B "$work/subdirectory" \
  -DLUMEN_SOURCE="$source_dir" -DLUMEN_BINARY_DIR="$lumen_objects" "${launcher[@]}" \
  > "$work/subdirectory.log"
cmake --build "$work/subdirectory" -j2 > "$work/subdirectory-build.log"
"$work/subdirectory/consumer" "$case_dir"
echo "package: all three ways build and match PyTorch"
