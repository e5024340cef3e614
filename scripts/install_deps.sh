#!/usr/bin/env bash
# Installs every Debian package Lumen needs to build, test, benchmark and run its demos.
# Idempotent: when everything is already installed it does nothing (and needs no root).
set -euo pipefail

packages=(
  cmake make g++ ccache               # build tools (CMake >= 3.16)
  libarmadillo-dev                    # the Tensor's storage (used header-only)
  libopenblas-serial-dev              # BLAS: sequential; Lumen runs its own threads
  libgoogle-glog-dev                  # CHECK/LOG for internal invariants
  libgtest-dev libgmock-dev           # unit tests
  libbenchmark-dev                    # Google Benchmark
  libopencv-core-dev libopencv-imgproc-dev libopencv-imgcodecs-dev  # demos' image I/O only
  libcli11-dev                        # the programs' command-line parser (header only)
  pybind11-dev python3-dev python3-numpy python3-pytest  # the Python module and its tests
  python3-pip python3-setuptools python3-wheel python3-venv  # the wheel (setup.py), offline
  dpkg-dev                            # cpack's .deb: dpkg-shlibdeps reads its Depends
  python3-torch                       # PyTorch for lumen.compare and the benchmark's peer
  pkg-config                          # the package test checks lumen.pc
  clang libclang-rt-dev               # fuzzers (libFuzzer) and the sanitizer build
  protobuf-compiler libprotobuf-dev   # the ONNX reader: protoc generates its classes from onnx.proto
  python3-onnx                        # scripts/make_onnx_cases.py checks and writes ONNX exports
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "Installing: ${missing[*]}"
sudo_if_needed=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_if_needed=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_if_needed[@]}" apt-get update
"${sudo_if_needed[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
