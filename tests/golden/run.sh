#!/usr/bin/env bash
# Runs one golden case: tests/golden/<tool>/<NNN-slug>/{cmd,expout,experr,rc}.
#   run.sh BUILD_DIR CASE_DIR [--bless]
# `cmd` is one shell line run (under `set -o pipefail`) inside the case folder with the built tools first on PATH, under
# LC_ALL=C TZ=UTC NO_COLOR=1. --bless rewrites expout/experr/rc from what the tools do now.
set -u
build=$(cd "$1" && pwd); case_dir=$(cd "$2" && pwd); bless=${3:-}
export PATH="$(printf '%s:' "$build"/tools/*)$PATH" LC_ALL=C TZ=UTC NO_COLOR=1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
(cd "$case_dir" && bash -o pipefail -c "$(cat cmd)" >"$tmp/out" 2>"$tmp/err" </dev/null); echo $? >"$tmp/rc"
if [ "$bless" = "--bless" ]; then
  cp "$tmp/out" "$case_dir/expout"; cp "$tmp/err" "$case_dir/experr"; cp "$tmp/rc" "$case_dir/rc"; exit 0
fi
status=0
for f in out err rc; do
  exp="$case_dir/exp$f"; [ "$f" = rc ] && exp="$case_dir/rc"
  if ! diff -u "$exp" "$tmp/$f" >"$tmp/diff"; then
    echo "golden: $(basename "$(dirname "$case_dir")")/$(basename "$case_dir"): $f differs"; cat "$tmp/diff"; status=1
  fi
done
exit $status
