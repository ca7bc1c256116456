#!/usr/bin/env bash
# Checks an installed hetsched tree (a `cmake --install` prefix, or usr/ of an unpacked .deb): the six
# tools run from PREFIX/bin on the installed examples, the man pages (1, 5, 7), the bash, zsh and fish
# completions and the examples are where they belong, and nothing else was installed.
#   check-tree.sh PREFIX SOURCE_DIR VERSION
# Prints one line per problem and exits 1 if there was any.
set -u
prefix=$1 src=$2 version=$3
tools=(memest planalloc placestages fitthroughput schedround replay)
ex=$prefix/share/doc/hetsched/examples
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# --- Files where they belong. ---------------------------------------------------------------------
want=()
for t in "${tools[@]}"; do
  want+=("bin/$t" "share/man/man1/$t.1" "share/bash-completion/completions/$t"
         "share/zsh/vendor-completions/_$t" "share/fish/vendor_completions.d/$t.fish")
done
want+=(share/man/man5/hetsched-formats.5 share/man/man7/hetsched.7 share/fish/vendor_functions.d/__hetsched_catalog.fish
       share/fish/vendor_functions.d/__hetsched_list.fish)
for f in "${want[@]}"; do
  [ -s "$prefix/$f" ] || bad "not installed (or empty): $f"
done
for t in "${tools[@]}"; do
  [ -x "$prefix/bin/$t" ] || bad "not executable: bin/$t"
done
# Every man page renders without a groff warning.
if command -v groff >/dev/null; then
  for page in "$prefix"/share/man/man[157]/*; do
    warnings=$(groff -man -Tutf8 -ww "$page" 2>&1 >/dev/null)
    [ -z "$warnings" ] || bad "${page#"$prefix"/} renders with warnings: $(echo "$warnings" | head -3)"
  done
fi

# The examples: every file of the source's examples/ (less what running them leaves: out/, dot files,
# Python caches, editor backups), byte for byte, executables still executable; and nothing more.
[ -d "$ex" ] || bad "no examples folder: share/doc/hetsched/examples"
expected=$(cd "$src/examples" && find . -mindepth 1 \( -path ./out -o -name '.*' -o -name __pycache__ \) -prune -o \
             -type f ! -name '*.pyc' ! -name '*~' -print | sort)
[ -n "$expected" ] || bad "the source has no examples: $src/examples"
installed=$( (cd "$ex" 2>/dev/null && find . -type f | sort) )
extra=$(comm -13 <(echo "$expected") <(echo "$installed"))
[ -z "$extra" ] || bad "installed examples the source does not have: $(tr '\n' ' ' <<<"$extra")"
while IFS= read -r f; do
  [ -n "$f" ] || continue
  if [ ! -f "$ex/$f" ]; then bad "example not installed: ${f#./}"; continue; fi
  cmp -s "$src/examples/$f" "$ex/$f" || bad "installed example differs from the source: ${f#./}"
  if [ -x "$src/examples/$f" ] && [ ! -x "$ex/$f" ]; then bad "example lost its execute bit: ${f#./}"; fi
done <<<"$expected"

# Nothing else: no library, headers, benchmarks or build outputs.
others=$(cd "$prefix" && find . \( -type f -o -type l \) | sed 's|^\./||' | grep -Ev \
  '^(bin/(memest|planalloc|placestages|fitthroughput|schedround|replay)|share/man/man[157]/[^/]+\.[157]|share/bash-completion/completions/[^/]+|share/zsh/vendor-completions/_[^/]+|share/fish/vendor_completions\.d/[^/]+\.fish|share/fish/vendor_functions\.d/__hetsched_[a-z]+\.fish|share/doc/hetsched/.+)$')
[ -z "$others" ] || bad "installed files no rule should install: $(tr '\n' ' ' <<<"$others" | cut -c1-300)"

# --- Each tool runs from the installed tree: --version, --help, and one real command. -------------
# A scratch folder as the working directory, a bare environment, the installed bin/ first on PATH.
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
run() {  # run NAME EXPECTED-TEXT COMMAND...: exit 0 and EXPECTED-TEXT in stdout
  local name=$1 expect=$2; shift 2
  local rc=0
  env -i PATH="$prefix/bin:/usr/bin:/bin" HOME="$work" LC_ALL=C TZ=UTC NO_COLOR=1 \
    bash -o pipefail -c "$*" >"$work/out" 2>"$work/err" </dev/null || rc=$?
  if [ $rc -ne 0 ]; then
    bad "$name: exit status $rc from: $*"; sed 's/^/    /' "$work/err" | tail -5; return
  fi
  [ -z "$expect" ] || grep -qF -- "$expect" "$work/out" || { bad "$name: no '$expect' in the output of: $*"; head -5 "$work/out" | sed 's/^/    /'; }
}
for t in "${tools[@]}"; do
  bin=$prefix/bin/$t
  [ -x "$bin" ] || continue
  run "$t --version" "$t (hetsched) $version" "'$bin' --version"
  run "$t --help" "See $t(1)" "'$bin' --help"
  # The binary must not lean on the build tree: no RPATH/RUNPATH at all.
  if command -v readelf >/dev/null && readelf -d "$bin" 2>/dev/null | grep -qE 'RPATH|RUNPATH'; then
    bad "$t: has an RPATH/RUNPATH: $(readelf -d "$bin" | grep -E 'RPATH|RUNPATH')"
  fi
done
b=$prefix/bin
run memest "plans:" "'$b/memest' --model llama-2-7b --seq-len 2048 --global-batch 8 --top 3"
run "memest | planalloc | placestages" "placement:" \
  "'$b/memest' '$ex/llama7b-juchi.yaml' --catalog juchi | '$b/planalloc' --catalog juchi | '$b/placestages' --catalog juchi"
run "planalloc --cluster" "method: best-fit" \
  "'$b/memest' --model llama-2-7b --seq-len 4096 --global-batch 32 | '$b/planalloc' --cluster '$ex/nodes.csv'"
run placestages "iteration_time_s" "'$b/placestages' '$ex/llama1.3b-juchi-allocation.yaml' --catalog juchi --format csv"
run fitthroughput "kind: throughput-model" "'$b/fitthroughput' -q '$ex/resnet18-frozen.csv'"
run schedround "job_id,action,gpu,nodes" "'$b/schedround' '$ex/cluster-state.yaml' --format actions"
cp "$ex/cluster-state.yaml" "$work/state.yaml" && chmod u+w "$work/state.yaml"
run "schedround --state" "" "'$b/schedround' -q --state '$work/state.yaml' --actions '$work/actions.csv'"
grep -q '^solve:' "$work/state.yaml" 2>/dev/null || bad "schedround --state: the state was not rewritten"
[ -s "$work/actions.csv" ] || bad "schedround --state: no actions file"
run replay "policy,jobs," "'$b/replay' --trace '$ex/trace.csv' --cluster '$ex/cluster.yaml' --throughputs '$ex/throughputs.csv' --policy fifo --format csv --no-timings"
exit $fail
