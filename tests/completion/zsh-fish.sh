#!/usr/bin/env bash
# zsh and fish completions: each file must parse (zsh -n, fish -n) and offer the right candidates:
# fish completes a command line without a terminal (complete -C); zsh is typed into through a zpty
# (zsh-capture.zsh).
#   zsh-fish.sh BUILD_DIR SHELL    exits 77 (skipped) when SHELL is not installed
set -u
build=$(cd "$1" && pwd); shell=$2; root=$(cd "$(dirname "$0")/../.." && pwd)
command -v "$shell" >/dev/null || { echo "$shell not installed"; exit 77; }
export PATH="$(printf '%s:' "$build"/tools/*)$PATH" LC_ALL=C
fail=0
gpus=$(memest --list-gpus | tail -n +2 | cut -d, -f1)
juchi="RTX-A6000 A30 RTX-3090 RTX-A4000"
policies="fft gavel gavel-agnostic tiresias srtf fifo opportunistic allox has sia iceshare"
# check LINE GOT [= WORD... | + WORD... | - WORD...]: GOT (one a line) is exactly the words (=), holds
# each of them (+), or none of them (-).
check() {
  local line=$1 got=$2 how=$3 want w; shift 3
  case $how in
    =) want=$(printf '%s\n' "$@" | sed '/^$/d' | sort -u); got=$(sed '/^$/d' <<<"$got" | sort -u)
       [ "$got" = "$want" ] || { echo "$shell completion of '$line': expected [$(echo $want)], got [$(echo $got)]"; fail=1; } ;;
    +) for w in "$@"; do
         grep -qxF -- "$w" <<<"$got" || { echo "$shell completion of '$line': '$w' missing from [$(echo $got | cut -c1-300)]"; fail=1; }
       done ;;
    -) for w in "$@"; do
         grep -qxF -- "$w" <<<"$got" && { echo "$shell completion of '$line': '$w' offered"; fail=1; }
       done ;;
  esac
}

if [ "$shell" = zsh ]; then
  for f in "$root"/completions/zsh/_*; do zsh -n "$f" || { echo "zsh -n $f failed"; fail=1; }; done
  # An option's spec as zsh reads it (its quoting undone) keeps the help's apostrophes.
  spec=$(grep -E -- "'--checkpoint-every=?\[" "$root/completions/zsh/_memest" | sed 's/ \\$//')
  got=$(zsh -fc "print -r -- $spec")
  [[ $got == *"(torchtitan's layer-level AC)]"* ]] || { echo "zsh spec of --checkpoint-every reads [$got]"; fail=1; }
  # Driven: each case's line is typed with a TAB into an interactive zsh (zsh-capture.zsh, in a zpty).
  cases=(
    "memest --method |= default frenzy"
    "memest --catalog juchi --gpu |= $juchi"
    "memest --catalog=juchi --gpu |= $juchi"
    "memest --catalog juchi --gpu=|= $juchi"
    "replay --reference-gpu |= $gpus"
    "replay --catalog juchi --reference-gpu |= $juchi"
    "replay --policy |= $policies"
    "replay --policy fft,ga|= gavel gavel-agnostic"
    "replay --cluster examples/clu|= cluster-state.yaml cluster.yaml"  # compadd -p examples/
    "replay exam|="
    "replay --no-t|= --no-timings"
    "memest --framework=|= megatron deepspeed fsdp"
    "memest --framework=m|= megatron"
    "memest --compile=|= model loss model+loss none"
    "memest --compile |- model loss"
    "memest --comp|+ --compile"
    "planalloc --catalog juchi --types=A30,RTX-A|= RTX-A6000 RTX-A4000"
    "planalloc --catalog juchi --types=A30,|- A30"  # a type once
    "planalloc --catalog juchi --types=A30,|+ RTX-A6000"
    "placestages --catalog juchi --stages A30,|= $juchi"  # a stage's type again
    "memest --output=examples/clu|= cluster-state.yaml cluster.yaml"
  )
  lines=(); for c in "${cases[@]}"; do lines+=("${c%%|*}"); done
  out=$(mktemp); trap 'rm -f "$out"' EXIT
  (cd "$root" && timeout 120 zsh -f "$root/tests/completion/zsh-capture.zsh" "$root/completions/zsh" "$out" "${lines[@]}") ||
    { echo "zsh-capture.zsh failed"; exit 1; }
  for c in "${cases[@]}"; do
    line=${c%%|*}; spec=${c#*|}
    got=$(awk -v l="=== $line" '$0 == l { on = 1; next } /^=== / { on = 0 } on' "$out")
    set -f; check "$line" "$got" "${spec:0:1}" ${spec:1}; set +f
  done
  exit $fail
fi
for f in "$root"/completions/fish/*.fish "$root"/completions/fish/functions/*.fish; do fish -n "$f" || { echo "fish -n $f failed"; fail=1; }; done
# expect LINE WORD...: fish offers each word for LINE.
expect() {
  local line=$1; shift
  local got w
  got=$(cd "$root" && fish --no-config -c "set fish_function_path completions/fish/functions \$fish_function_path; for f in completions/fish/*.fish; source \$f; end; complete -C '$line'" | cut -f1)
  for w in "$@"; do
    grep -qxF -- "$w" <<<"$got" || { echo "fish completion of '$line': '$w' missing from [$(echo $got | cut -c1-300)]"; fail=1; }
  done
}
# describe LINE TEXT: fish's description of LINE's candidate holds TEXT as the help says it.
describe() {
  local got
  got=$(cd "$root" && fish --no-config -c "set fish_function_path completions/fish/functions \$fish_function_path; for f in completions/fish/*.fish; source \$f; end; complete -C '$1'" | cut -f2)
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
# fish_is LINE [= | + | -] WORD...: as check, on fish's candidates for LINE.
fish_is() {
  local line=$1; shift
  check "$line" "$(cd "$root" && fish --no-config -c "set fish_function_path completions/fish/functions \$fish_function_path; for f in completions/fish/*.fish; source \$f; end; complete -C '$line'" | cut -f1)" "$@"
}
# replay has no --list-gpus: its GPU types come from a tool that has; every GPU list takes --catalog.
fish_is "replay --reference-gpu " = $gpus
fish_is "replay --catalog juchi --reference-gpu " = $juchi
fish_is "memest --catalog juchi --gpu " = $juchi
fish_is "memest --catalog=juchi --gpu=" = $(for g in $juchi; do echo --gpu=$g; done)
fish_is "placestages --catalog juchi --stages " = $juchi
# Comma lists: the entries after the first.
fish_is "planalloc --types A100-40GB-SXM," + A100-40GB-SXM,A30 A100-40GB-SXM,T4
fish_is "placestages --catalog juchi --stages A30,RTX-A" = A30,RTX-A6000 A30,RTX-A4000
fish_is "planalloc --catalog juchi --types=A30,RTX-A" = --types=A30,RTX-A6000 --types=A30,RTX-A4000
fish_is "replay --policy " = $policies
fish_is "replay --policy fft,ga" = fft,gavel fft,gavel-agnostic
# replay --cluster takes a file; replay takes no FILE.
fish_is "replay --cluster examples/clu" + examples/cluster.yaml examples/cluster-state.yaml
fish_is "replay exam" =
# --compile's values only after '='.
fish_is "memest --compile=" = --compile=model --compile=loss --compile=model+loss --compile=none
fish_is "memest --compile " - model loss
exit $fail
