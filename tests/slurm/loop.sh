#!/usr/bin/env bash
# The cron loop on a real Slurm: starts a single-host Slurm (local-slurm.sh), submits sleeping jobs
# with untyped GPU requests, runs examples/slurm/hetsched-slurm for two iterations (a dry run first,
# which must change nothing), and checks with squeue that the cluster does what each decision says:
# every job the state places runs on its type with its GPU count, every other managed job waits held,
# and no type is over-committed. Exits 77, saying why, when Slurm cannot be started here.
#   loop.sh BUILD_DIR
set -u
build=$(cd "$1" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd)
loop=$root/examples/slurm/hetsched-slurm; schedround=$build/tools/schedround/schedround
python3 -c 'import yaml' 2>/dev/null || { echo "loop: python3 with PyYAML is missing (apt-get install python3-yaml)" >&2; exit 77; }
tmp=$(mktemp -d); [ -n "${HETSCHED_KEEP:-}" ] && echo "loop: keeping $tmp"
trap '"$root/tests/slurm/local-slurm.sh" stop "$tmp/slurm"; sleep 1; [ -n "${HETSCHED_KEEP:-}" ] || rm -rf "$tmp"' EXIT
"$root/tests/slurm/local-slurm.sh" start "$tmp/slurm" || exit $?
export SLURM_CONF=$tmp/slurm/slurm.conf
cd "$tmp"
fail=0
bad() { echo "loop: $*"; fail=1; }

cat >site.yaml <<'SITE'
round_length_s: 300
gpu_types:
  v100: {memory_gib: 32}
  k80: {memory_gib: 12}
jobs:
  lm-b: {work: 400000, throughput: {v100: 111.0, k80: 35.7}, checkpoint_gib: 1.2}
  rec-d: {work: 50000, throughput: {v100: 13.3, k80: 20.0}}
  cyclegan-c: {work: 20000, throughput: {v100: 4.43, k80: 0.5}}
  rec-e: {work: 50000, throughput: {v100: 13.3, k80: 20.0}}
SITE
submit() { sbatch --parsable --hold -J "$1" --gres="gpu:$2" -o /dev/null --wrap "sleep 600"; }
submit lm-b 2 >/dev/null && submit rec-d 1 >/dev/null && submit cyclegan-c 1 >/dev/null || { echo "loop: sbatch failed"; exit 1; }
sbatch --parsable -J unmanaged -o /dev/null --wrap "sleep 600" >/dev/null  # no GPUs, not in the site file

# What squeue says, as "id state type count" per managed job (type and count of the GPUs it holds).
observed() {
  squeue --json | python3 -c '
import json, re, sys
for j in json.load(sys.stdin)["jobs"]:
    if j["name"] == "unmanaged" or j["job_state"] in ("CANCELLED", "COMPLETED"):
        continue
    held = {}
    for part in ",".join(j.get("gres_detail") or []).split(","):
        m = re.match(r"gpu:([^:(]+):(\d+)", part)
        if m and int(m.group(2)):
            held[m.group(1)] = int(m.group(2))
    t = next(iter(held), "-")
    print(j["job_id"], j["job_state"], t, held.get(t, 0), j.get("state_reason", ""))'
}
# What the state says: "id placed type count" or "id waiting - 0".
decided() {
  python3 -c '
import sys, yaml
for j in yaml.safe_load(open(sys.argv[1]))["jobs"]:
    p = j.get("placement")
    if p:
        print(j["id"], "placed", p["gpu"], sum(p["nodes"].values()))
    else:
        print(j["id"], "waiting", "-", 0)' state.yaml
}
# Slurm starts a released job within a scheduling pass: wait until nothing decided to run is pending.
settle() {
  for _ in $(seq 40); do
    pending=$(decided | while read -r id what t n; do
      [ "$what" = placed ] && observed | grep "^$id PENDING" >/dev/null && echo "$id"; done)
    [ -z "$pending" ] && return 0
    sleep 0.5
  done
}
check() {  # iteration name
  settle
  local o; o=$(observed)
  while read -r id what t n; do
    line=$(grep "^$id " <<<"$o")
    if [ "$what" = placed ]; then
      grep -q "^$id RUNNING $t $n" <<<"$line" || bad "$1: job $id should run on $n $t GPUs, squeue says: $line"
    else
      grep -q "^$id PENDING" <<<"$line" && grep -qi held <<<"$line" || bad "$1: job $id should wait held, squeue says: $line"
    fi
  done < <(decided)
  for t in v100 k80; do
    used=$(awk -v t=$t '$2 == "RUNNING" && $3 == t { s += $4 } END { print s + 0 }' <<<"$o")
    [ "$used" -le 2 ] || bad "$1: $used $t GPUs in use, the node has 2"
  done
  echo "loop: $1: $(awk '$2 == "RUNNING"' <<<"$o" | wc -l) managed jobs running as decided"
}

# A dry run prints the decision and the commands, and changes nothing.
before=$(observed)
"$loop" --state state.yaml --site site.yaml --schedround "$schedround" --dry-run --time 1000000 >dry.out 2>dry.err ||
  bad "the dry run failed: $(cat dry.err)"
grep -q '^scontrol release ' dry.out || bad "the dry run printed no scontrol release: $(cat dry.out)"
[ -e state.yaml ] && bad "the dry run wrote the state"
[ "$(observed)" = "$before" ] || bad "the dry run changed the cluster"

"$loop" --state state.yaml --site site.yaml --schedround "$schedround" --time 1000000 || bad "iteration 1 failed"
check "iteration 1"
submit rec-e 1 >/dev/null
"$loop" --state state.yaml --site site.yaml --schedround "$schedround" --time 1000300 || bad "iteration 2 failed"
check "iteration 2"
[ "$(grep -c 'placement:' state.yaml)" -ge 3 ] || bad "iteration 2 placed fewer than 3 jobs"
# schedround's bookkeeping carries over: the round count, and the 300 s the first jobs ran credited.
grep -q '^round: 2$' state.yaml || bad "the state's round is not 2 after two iterations: $(grep '^round:' state.yaml)"
python3 -c 'import sys, yaml; sys.exit(0 if any(j.get("attained_gpu_s", 0) >= 300 for j in yaml.safe_load(open("state.yaml"))["jobs"]) else 1)' ||
  bad "no job was credited the GPU time it ran between the iterations"
squeue -h -n unmanaged -o %T | grep -q RUNNING || bad "the job outside the site file was touched"
exit $fail
