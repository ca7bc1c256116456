#!/usr/bin/env bash
# Runs every example command of the README (```sh blocks) and of the man pages (man/*.h2m, EXAMPLES)
# as written, from a scratch folder that sees the repository's examples/ and tests/data/ where the
# repository root has them, with the built tools first on PATH; each must exit 0 (the docs show no
# output to compare).
#   run.sh BUILD_DIR [--list]
set -u
build=$(cd "$1" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd)
export PATH="$(printf '%s:' "$build"/tools/*)$PATH" LC_ALL=C TZ=UTC NO_COLOR=1

# One example per line: continuation lines joined, trailing "# comment" dropped.
extract() {
  awk '/^```sh$/ { on = 1; next } /^```$/ { on = 0 } on' "$root/README.md"
  for f in "$root"/man/*.h2m; do
    awk '/^\[EXAMPLES\]/ { sec = 1; next } /^\[/ { sec = 0 } sec && /^\.nf/ { on = 1; next } /^\.fi/ { on = 0 } sec && on' "$f" |
      sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\\\/\\/g'
  done
}
examples=$(extract | awk '
  { line = (held != "" ? held " " : "") $0; held = "" }
  /\\$/ { sub(/[ \t]*\\$/, "", line); held = line; next }
  { sub(/[ \t]+#.*$/, "", line); gsub(/[ \t]+/, " ", line); if (line != "") print line }' |
  grep -v '^scripts/')
[ "${2:-}" = --list ] && { echo "$examples"; exit 0; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ln -s "$root/examples" "$tmp/examples"
mkdir -p "$tmp/tests" && ln -s "$root/tests/data" "$tmp/tests/data"
cd "$tmp"
fail=0 count=0
while IFS= read -r cmd; do
  count=$((count + 1))
  if ! out=$(bash -o pipefail -c "$cmd" 2>&1 </dev/null); then
    echo "example failed: $cmd"; echo "$out" | tail -5 | sed 's/^/    /'; fail=1
  fi
done <<<"$examples"
echo "$count examples run"
exit $fail
