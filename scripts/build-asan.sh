#!/usr/bin/env bash
# Configures and builds hetsched with clang, AddressSanitizer and UBSan into build-asan/.
set -euo pipefail
cd "$(dirname "$0")/.."
CXX=clang++ cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHETSCHED_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$(nproc)"
