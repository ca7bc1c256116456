#!/usr/bin/env bash
# Drives each tool's bash completion the way bash does (COMP_WORDS, COMP_CWORD, the _tool function)
# on a few command lines and checks the candidates.   bash.sh BUILD_DIR
set -u
build=$(cd "$1" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd)
export PATH="$(printf '%s:' "$build"/tools/*)$PATH" LC_ALL=C
for f in "$root"/completions/bash/*; do source "$f"; done
fail=0

# Candidates for LINE (a trailing space means the word being completed is empty), sorted, one a line.
# Its words are split as bash splits them: at spaces, and at each '=' (in COMP_WORDBREAKS: --opt=val is
# --opt, = and val), unless whole_eq=1 (a COMP_WORDBREAKS without '=').
whole_eq=0
candidates() {
  local line=$1 tool=${1%% *} words=$1
  [ "$whole_eq" = 1 ] || words=${line//=/ = }
  read -r -a COMP_WORDS <<<"$words"
  [[ $line == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
  COMPREPLY=()
  "_$tool" "$tool"
  printf '%s\n' "${COMPREPLY[@]}" | sort -u
}

# expect_exactly LINE WORD...: the candidates are exactly the words.
expect_exactly() {
  local line=$1; shift
  local got want
  got=$(candidates "$line"); want=$(printf '%s\n' "$@" | sort -u)
  [ "$got" = "$want" ] || { echo "bash completion of '$line': expected [$(echo $want)], got [$(echo $got)]"; fail=1; }
}

# expect_some LINE WORD...: each word is a candidate, and nothing with a space or a '|'.
expect_some() {
  local line=$1; shift
  local got w
  got=$(candidates "$line")
  for w in "$@"; do
    grep -qxF -- "$w" <<<"$got" || { echo "bash completion of '$line': '$w' missing from [$(echo $got | cut -c1-300)]"; fail=1; }
  done
  if grep -q '[|]' <<<"$got"; then echo "bash completion of '$line': help text among the candidates"; fail=1; fi
}

# expect_none LINE WORD...: no word is a candidate.
expect_none() {
  local line=$1; shift
  local got w
  got=$(candidates "$line")
  for w in "$@"; do
    if grep -qxF -- "$w" <<<"$got"; then echo "bash completion of '$line': '$w' offered"; fail=1; fi
  done
}

models=$(memest --list-models | tail -n +2 | cut -d, -f1)
gpus=$(memest --list-gpus | tail -n +2 | cut -d, -f1)
policies="fft gavel gavel-agnostic tiresias srtf fifo opportunistic allox has sia iceshare"
juchi="RTX-A6000 A30 RTX-3090 RTX-A4000"
cd "$root"  # file candidates: the repository's own files

expect_some "memest " --help --model --catalog --method --gpu README.md
expect_exactly "memest --me" --measure --method
expect_exactly "memest --method " default frenzy
expect_exactly "memest --model " $models
expect_exactly "memest --model gpt3-1" gpt3-1.3b gpt3-13b gpt3-175b
expect_some "memest --catalog " default juchi sia examples
expect_exactly "memest --catalog juchi --gpu " $juchi
expect_exactly "memest --layers " 
expect_exactly "memest --format " yaml csv
expect_some "memest -o exam" examples

expect_some "placestages " --stages --dp --profile --list-gpus
expect_exactly "placestages --method " cmr whale hph optimal given
expect_exactly "placestages --model " $models
expect_some "placestages --catalog " default juchi sia
expect_exactly "placestages --catalog juchi --stages A30,RTX-A" A30,RTX-A6000 A30,RTX-A4000
expect_some "placestages --profile tests/data/la" tests/data/layer_profile.csv

expect_some "planalloc " --slo-s --cluster --list-models
expect_exactly "planalloc --method " espresso exhaustive homogeneous
expect_exactly "planalloc --placer " cmr whale hph optimal
expect_exactly "planalloc --model " $models
expect_some "planalloc --catalog " default juchi sia
expect_exactly "planalloc --catalog juchi --types RTX-3090," RTX-3090,RTX-A6000 RTX-3090,A30 RTX-3090,RTX-3090 RTX-3090,RTX-A4000

expect_some "fitthroughput " --params --predict --tune --sharing
expect_exactly "fitthroughput --model " pollux icefrog-ddp icefrog-sdp icefrog-pp icefrog-hp
expect_some "fitthroughput --gpu " T4 V100-SXM2-32GB
expect_some "fitthroughput --params tests/data/fi" tests/data/fit

expect_some "schedround " --policy --state --format --actions --explain --exact examples
expect_exactly "schedround --policy " fft gavel gavel-agnostic tiresias srtf fifo opportunistic allox has sia iceshare
expect_exactly "schedround --policy ga" gavel gavel-agnostic
expect_exactly "schedround --format " state actions
expect_some "schedround --catalog " default juchi sia
expect_some "schedround --state examples/clu" examples/cluster-state.yaml
expect_some "replay " --trace --cluster --throughputs --policy --jobs-out --rounds-out
expect_exactly "replay --format " yaml csv
expect_some "replay --trace examples/tr" examples/trace.csv
# replay has no --list-gpus: its GPU types come from a tool that has (and take its --catalog).
expect_exactly "replay --reference-gpu " $gpus
expect_exactly "replay --catalog juchi --reference-gpu " $juchi
# replay --policy: a comma-separated list of schedround's policies.
expect_exactly "replay --policy " $policies
expect_exactly "replay --policy ti" tiresias
expect_exactly "replay --policy fft,ga" fft,gavel fft,gavel-agnostic
# replay --cluster takes a file; a bare word is nothing (replay takes no FILE), options are still offered.
expect_some "replay --cluster examples/clu" examples/cluster.yaml examples/cluster-state.yaml
expect_exactly "replay exam"
expect_exactly "replay --no-timings exam"
expect_exactly "replay --no-t" --no-timings

# --opt=VALUE, as bash splits it (--opt, =, VALUE) and whole (COMP_WORDBREAKS without '=').
for whole_eq in 0 1; do
  pre=""; [ $whole_eq = 1 ] && pre=--framework=
  expect_exactly "memest --framework=" ${pre}megatron ${pre}deepspeed ${pre}fsdp
  expect_exactly "memest --framework=m" ${pre}megatron
  pre=""; [ $whole_eq = 1 ] && pre=--compile=
  expect_exactly "memest --compile=" ${pre}model ${pre}loss ${pre}model+loss ${pre}none
  expect_exactly "planalloc --compile=l" ${pre}loss
  pre=""; [ $whole_eq = 1 ] && pre=--catalog=
  expect_some "memest --catalog=ju" ${pre}juchi
  pre=""; [ $whole_eq = 1 ] && pre=--gpu=
  expect_exactly "memest --catalog=juchi --gpu=" $(for g in $juchi; do echo $pre$g; done)
  expect_exactly "memest --catalog=juchi --gpu " $juchi
  pre=""; [ $whole_eq = 1 ] && pre=--types=
  expect_exactly "planalloc --catalog juchi --types=A30,RTX-A" ${pre}A30,RTX-A6000 ${pre}A30,RTX-A4000
  pre=""; [ $whole_eq = 1 ] && pre=--policy=
  expect_exactly "replay --policy=fft,ga" ${pre}fft,gavel ${pre}fft,gavel-agnostic
  pre=""; [ $whole_eq = 1 ] && pre=--state=
  expect_some "schedround --state=examples/clu" ${pre}examples/cluster-state.yaml
  expect_exactly "memest --quiet="   # a flag takes no value
  expect_exactly "memest --quiet=x"
done
whole_eq=0
# --compile's values only after '=': a word after --compile is the input FILE.
expect_none "memest --compile " model loss
expect_some "memest --compile " --model examples
exit $fail
