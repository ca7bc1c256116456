#!/usr/bin/env bash
# Cron safety of `schedround --state`: many overlapping runs on one state file, some killed with
# SIGKILL at random instants. While they run and after, the file must always parse and equal one of
# the states a sequential chain of runs produces (solve.wall_time_s aside), and no temporary file may
# be left behind.   overlap.sh BUILD_DIR [RUNS]
set -u
build=$(cd "$1" && pwd); runs=${2:-40}
schedround=$build/tools/schedround/schedround
tmp=$(mktemp -d); trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp"

# A state big enough that a run takes a while to read and write: 1500 jobs on 64 nodes of 3 types.
awk -v jobs=1500 'BEGIN {
  print "kind: cluster-state\nversion: 1\ntime_s: 86400\nround_length_s: 300"
  print "gpu_types:\n  - {name: V100, memory_gib: 32}\n  - {name: P100, memory_gib: 16}\n  - {name: K80, memory_gib: 12}"
  print "nodes:"
  split("V100 P100 K80", t, " ")
  for (n = 0; n < 64; n++) printf "  - {name: n%d, gpu: %s, gpus: 8}\n", n, t[n % 3 + 1]
  print "jobs:"
  srand(7)
  for (j = 0; j < jobs; j++) {
    g = 2 ^ int(rand() * 4); w = int(1000 + rand() * 1e6)
    printf "  - id: job%d\n    submit_time_s: %d\n    num_gpus: %d\n    work: %d\n    done: %d\n", j, int(rand() * 86400), g, w, int(w * rand() / 2)
    printf "    throughput: {V100: %.3f, P100: %.3f, K80: %.3f}\n", 10 + rand() * 20, 5 + rand() * 10, 1 + rand() * 5
  }
}' >s.yaml
cp s.yaml start.yaml

digest() { grep -v 'wall_time_s:' "$1" | sha256sum | cut -d' ' -f1; }

# The valid states: the start and each state a sequential chain of runs reaches.
valid=$(digest s.yaml)
cp start.yaml chain.yaml
t0=$(date +%s%N)
mkdir chain
# As many as the runs below can make: runs/2 at once, then runs/2 more with a second run behind every
# other one (runs/4), so up to 5 runs/4 decisions.
for ((i = 0; i < runs + runs / 4 + 1; i++)); do
  "$schedround" -q --state chain.yaml || { echo "overlap: a sequential run failed"; exit 1; }
  valid+=$'\n'$(digest chain.yaml)
  grep -v 'wall_time_s:' chain.yaml >"chain/round-$(awk '/^round:/ { print $2; exit }' chain.yaml)"
done
run_ms=$(( ($(date +%s%N) - t0) / 1000000 / (runs + runs / 4 + 1) ))
rm -f chain.yaml chain.yaml.lock

fail=0
check() {  # the file as a reader sees it now
  local d; d=$(digest s.yaml)
  grep -qxF "$d" <<<"$valid" && return
  echo "overlap: s.yaml is not one of the valid states ($1); against the sequential run's state of its round:"
  diff <(grep -v 'wall_time_s:' s.yaml) "chain/round-$(awk '/^round:/ { print $2; exit }' s.yaml)" | head -20
  cp s.yaml "bad-$RANDOM.yaml"; fail=1
}

# Half the runs at once: they queue on the lock while a reader keeps looking.
for ((i = 0; i < runs / 2; i++)); do
  "$schedround" -q --state s.yaml --lock-timeout-s 120 2>>errors.log &
done
while [ -n "$(jobs -rp)" ]; do check "while runs overlap"; sleep 0.01; done
wait
# The other half one at a time, each killed at a random instant of its life (reading, solving,
# writing, renaming), with a second run waiting on the lock behind it.
killed=0
for ((i = 0; i < runs / 2; i++)); do
  # What a run killed mid-way prints is not its fault (a sanitizer build's leak check, cut off by the
  # kill at exit, reports that it could not read the dying threads); a run that ended first counts.
  "$schedround" -q --state s.yaml --lock-timeout-s 120 2>victim.log &
  victim=$!
  ((i % 2)) && { "$schedround" -q --state s.yaml --lock-timeout-s 120 2>>errors.log & }
  sleep "$(awk -v ms="$run_ms" -v r="$RANDOM" 'BEGIN { printf "%.3f", ms * 1.5 * r / 32768 / 1000 }')"
  if kill -9 "$victim" 2>/dev/null; then killed=$((killed + 1)); wait 2>/dev/null; else wait 2>/dev/null; cat victim.log >>errors.log; fi
  rm -f victim.log
  check "after a kill"
done
"$schedround" -q --dry-run --state s.yaml >/dev/null || { echo "overlap: the final state does not read back"; fail=1; }
left=$(ls -A | grep -vxE 's.yaml|s.yaml.lock|start.yaml|errors.log|chain')
[ -z "$left" ] || { echo "overlap: files left behind: $left"; fail=1; }
if grep -v '^$' errors.log | grep -q .; then echo "overlap: runs reported errors:"; head -5 errors.log; fail=1; fi
echo "overlap: $runs runs of about $run_ms ms, $killed killed, state always whole: $([ $fail = 0 ] && echo yes || echo NO)"
exit $fail
