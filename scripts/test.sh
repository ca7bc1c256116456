#!/usr/bin/env bash
# Installs dependencies, builds, and runs every unit, golden and fuzz-corpus test twice: in the
# release build (build/), then in a clang build with AddressSanitizer and UBSan (build-asan/), where
# any sanitizer report fails the test that caused it. HETSCHED_SKIP_ASAN=1 skips the second pass.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
(cd build && ctest --output-on-failure -j"$(nproc)")
[ "${HETSCHED_SKIP_ASAN:-0}" = 1 ] && exit 0
scripts/build-asan.sh
# LeakSanitizer cannot run where ptrace is denied (some containers): leaks are checked where it can.
leaks=1
ASAN_OPTIONS=detect_leaks=1 build-asan/tools/memest/memest --version >/dev/null 2>&1 || leaks=0
[ $leaks = 1 ] || echo "test.sh: LeakSanitizer unavailable here; running ASan without leak checks" >&2
export ASAN_OPTIONS=detect_leaks=$leaks:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd build-asan && ctest --output-on-failure -j"$(nproc)"
