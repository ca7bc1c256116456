#!/usr/bin/env bash
# `cmake --install BUILD_DIR --prefix` a scratch folder, then the same checks as the .deb's
# (check-tree.sh): each tool runs from there; man pages, completions and examples where they belong.
#   install.sh BUILD_DIR
set -u
build=$(cd "$1" && pwd) || exit 1
here=$(cd "$(dirname "$0")" && pwd)
cache() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
version=$(cache CMAKE_PROJECT_VERSION) src=$(cache hetsched_SOURCE_DIR)
if [ -z "$version" ] || [ ! -d "$src" ]; then echo "FAIL: $build is not a configured hetsched build folder"; exit 1; fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1; then
  echo "FAIL: cmake --install failed:"; tail -20 "$tmp/install.log"; exit 1
fi
"$here/check-tree.sh" "$tmp/prefix" "$src" "$version" || exit 1
echo "ok: $(find "$tmp/prefix" -type f | wc -l) files installed, each tool ran from $tmp/prefix/bin"
