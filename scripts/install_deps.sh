#!/usr/bin/env bash
# Installs every Debian package Lumen needs to build, test, benchmark and run its demos.
# Idempotent: when everything is already installed it does nothing (and needs no root).
set -euo pipefail

packages=(
  cmake make g++                      # build tools (CMake >= 3.24)
  libarmadillo-dev                    # the Tensor's storage (used header-only)
  libopenblas-openmp-dev              # BLAS: the OpenMP build shares one thread pool with Lumen
  libgoogle-glog-dev                  # CHECK/LOG for internal invariants
  libgtest-dev libgmock-dev           # unit tests
  libbenchmark-dev                    # Google Benchmark
  libopencv-core-dev libopencv-imgproc-dev libopencv-imgcodecs-dev  # demos' image I/O only
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
