#!/usr/bin/env bash
# Lumen as a user's dependency, three ways, each building test/package/consumer and running
# resnet18 against PyTorch's output: (1) `cmake --install` then find_package(Lumen), (2) the same
# install through pkg-config, (3) add_subdirectory of the source tree.
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

echo "== install into $work/prefix"
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
# Only the public headers are installed.
installed_headers=$(cd "$work/prefix/include" && find lumen -name '*.hpp' | sort | tr '\n' ' ')
expected_headers="lumen/base/error.hpp lumen/lumen.hpp lumen/runtime/model.hpp lumen/runtime/session.hpp lumen/tensor/tensor.hpp "
if [ "$installed_headers" != "$expected_headers" ]; then
  echo "installed headers: $installed_headers; expected: $expected_headers" >&2
  exit 1
fi

echo "== find_package(Lumen)"
cmake -S "$source_dir/test/package/consumer" -B "$work/find" -DCMAKE_PREFIX_PATH="$work/prefix" \
  "${launcher[@]}" > "$work/find.log"
cmake --build "$work/find" -j2 > "$work/find-build.log"
"$work/find/consumer" "$case_dir"

echo "== pkg-config lumen"
export PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig:$work/prefix/lib/$(gcc -print-multiarch)/pkgconfig
# shellcheck disable=SC2046
g++ -O2 "$source_dir/test/package/consumer/main.cpp" -o "$work/pkg-consumer" \
  $(pkg-config --cflags --libs lumen) $(pkg-config --libs --static lumen | grep -o -- '-lglog')
"$work/pkg-consumer" "$case_dir"

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
