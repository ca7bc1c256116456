#!/usr/bin/env bash
# zsh and fish completions: each file must parse (zsh -n, fish -n), and fish, which can complete a
# command line without a terminal (complete -C), must offer the right candidates.
#   zsh-fish.sh BUILD_DIR SHELL    exits 77 (skipped) when SHELL is not installed
set -u
build=$(cd "$1" && pwd); shell=$2; root=$(cd "$(dirname "$0")/../.." && pwd)
command -v "$shell" >/dev/null || { echo "$shell not installed"; exit 77; }
export PATH="$(printf '%s:' "$build"/tools/*)$PATH" LC_ALL=C
fail=0
if [ "$shell" = zsh ]; then
  for f in "$root"/completions/zsh/_*; do zsh -n "$f" || { echo "zsh -n $f failed"; fail=1; }; done
  # An option's spec as zsh reads it (its quoting undone) keeps the help's apostrophes.
  spec=$(grep -F -- "'--checkpoint-every[" "$root/completions/zsh/_memest" | sed 's/ \\$//')
  got=$(zsh -fc "print -r -- $spec")
  [[ $got == *"(torchtitan's layer-level AC)]"* ]] || { echo "zsh spec of --checkpoint-every reads [$got]"; fail=1; }
  exit $fail
fi
for f in "$root"/completions/fish/*.fish; do fish -n "$f" || { echo "fish -n $f failed"; fail=1; }; done
# expect LINE WORD...: fish offers each word for LINE.
expect() {
  local line=$1; shift
  local got w
  got=$(cd "$root" && fish --no-config -c "for f in completions/fish/*.fish; source \$f; end; complete -C '$line'" | cut -f1)
  for w in "$@"; do
    grep -qxF -- "$w" <<<"$got" || { echo "fish completion of '$line': '$w' missing from [$(echo $got | cut -c1-300)]"; fail=1; }
  done
}
# describe LINE TEXT: fish's description of LINE's candidate holds TEXT as the help says it.
describe() {
  local got
  got=$(cd "$root" && fish --no-config -c "for f in completions/fish/*.fish; source \$f; end; complete -C '$1'" | cut -f2)
  grep -qF -- "$2" <<<"$got" || { echo "fish description of '$1': '$2' missing from [$got]"; fail=1; }
}
describe "memest --checkpoint-e" "(torchtitan's layer-level AC)"
expect "memest --method " default frenzy
expect "memest --model " gpt2 llama-2-7b gpt3-13b
expect "memest --catalog " default juchi sia
expect "memest --gpu " A100-80GB-SXM T4
expect "placestages --method " cmr whale hph optimal
expect "planalloc --method " espresso exhaustive homogeneous
expect "planalloc --model " espresso-llama-1.3b
expect "fitthroughput --model " pollux icefrog-ddp
expect "memest --" --method --model --catalog
expect "schedround --policy " fft gavel tiresias allox
expect "schedround --format " state actions
exit $fail
