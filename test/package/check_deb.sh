#!/usr/bin/env bash
# The Debian package of a build tree (`cpack`, CMakeLists.txt's CPack settings) without installing
# it on this machine: its control fields (name, CMake's version, a Depends naming the package of
# every shared library its programs load), its files (library, headers, CMake and pkg-config
# files, lumen_run, the Python package where /usr/bin/python3 looks), and, unpacked into a scratch
# folder with dpkg-deb -x, its lumen_run and its Python module each run resnet18 against PyTorch.
#
#   test/package/check_deb.sh LUMEN_SOURCE_DIR LUMEN_BUILD_DIR      (ctest runs it)
set -euo pipefail
source_dir=$(cd "$1" && pwd)
build_dir=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case_dir=$source_dir/tmp/models/resnet18
version=$(sed -n 's/^project(lumen VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")
fail() { echo "$*" >&2; exit 1; }

echo "== cpack"
start=$SECONDS
(cd "$build_dir" && cpack -B "$work/out" > "$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; exit 1; }
deb=$work/out/lumen_${version}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || fail "cpack made no $(basename "$deb"): $(ls "$work/out")"
echo "$(basename "$deb"): $(du -k "$deb" | cut -f1) KiB in $((SECONDS - start)) s"
[ "$(dpkg-deb -f "$deb" Package)" = lumen ] || fail "Package: $(dpkg-deb -f "$deb" Package)"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "Version: $(dpkg-deb -f "$deb" Version)"

echo "== its files"
files=$(dpkg-deb -c "$deb" | awk '{print $6}')
python_dir=usr/lib/python3/dist-packages/lumen  # deb_system: what /usr/bin/python3 reads
for file in usr/bin/lumen_run usr/bin/lumen_quantize usr/include/lumen/lumen.hpp \
            usr/lib/liblumen.a \
            usr/lib/cmake/Lumen/LumenConfig.cmake usr/lib/pkgconfig/lumen.pc \
            "$python_dir/__init__.py" "$python_dir/_lumen.cpython-"; do
  grep -q "^\./$file" <<< "$files" || fail "the package has no /$file"
done
dpkg-deb -x "$deb" "$work/root"

echo "== Depends: $(dpkg-deb -f "$deb" Depends)"
# Every library lumen_run and the module load directly must come from a package the .deb depends
# on. OpenBLAS's variants (libopenblas0-serial, -pthread, -openmp) stand behind one package name,
# libopenblas0, which Debian's libraries depend on and which pulls in one of them.
depends=" $(dpkg-deb -f "$deb" Depends | sed 's/([^)]*)//g; s/[,|]/ /g') "
for binary in "$work/root/usr/bin/lumen_run" "$work/root/$python_dir"/_lumen*.so; do
  for soname in $(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    path=$(ldd "$binary" | awk -v name="$soname" '$1 == name {print $3}')
    [ -n "$path" ] || { [[ $soname == ld-linux* ]] && continue; fail "$soname: not found"; }
    owner=$( { dpkg -S "$(readlink -f "$path")" || dpkg -S "$path"; } 2>/dev/null | head -1 |
             cut -d: -f1)
    [ -n "$owner" ] || fail "$soname ($path) belongs to no Debian package"
    family=$(sed -E 's/-(serial|pthread|openmp)$//' <<< "$owner")
    [[ $depends == *" $owner "* || $depends == *" $family "* ]] ||
      fail "$(basename "$binary") loads $soname from $owner, which Depends does not name"
  done
done

echo "== the unpacked lumen_run and Python module run resnet18"
"$work/root/usr/bin/lumen_run" --case "$case_dir" --threads 2 | tail -1
(cd "$work" && PYTHONPATH="$work/root/usr/lib/python3/dist-packages" \
  /usr/bin/python3 "$source_dir/test/package/run_installed_lumen.py" "$case_dir" \
  "$work/root/$python_dir")
echo "deb: its fields and files are right, its lumen_run and module match PyTorch"
