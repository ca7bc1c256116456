#!/usr/bin/env bash
# examples/slurm/hetsched-slurm on a two-node cluster it cannot start here: sinfo, squeue and scontrol
# replaced by scripts that print what Slurm 22.05 prints for a job running on n[1-2] with 2 GPUs a
# node and a job outside the site file on n1. The state must count the first job's 4 GPUs (Slurm's
# request is per node), keep it placed, and offer n1 only the GPU the other job leaves.
#   multinode.sh BUILD_DIR
set -u
build=$(cd "$1" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd)
python3 -c 'import yaml' 2>/dev/null || { echo "multinode: python3 with PyYAML is missing" >&2; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin"
cat >"$tmp/bin/sinfo" <<'SH'
#!/bin/sh
echo '{"nodes": [{"name": "n1", "gres": "gpu:v100:4", "state": "mixed", "state_flags": []},
                 {"name": "n2", "gres": "gpu:v100:4", "state": "mixed", "state_flags": []}]}'
SH
cat >"$tmp/bin/squeue" <<'SH'
#!/bin/sh
[ "$1" = -h ] && { echo PENDING; exit 0; }  # a requeued job's state
echo '{"jobs": [
 {"job_id": 7, "name": "lm", "job_state": "RUNNING", "tres_per_node": "gres:gpu:v100:2", "node_count": 2,
  "nodes": "n[1-2]", "gres_detail": ["gpu:v100:2(IDX:0-1)", "gpu:v100:2(IDX:0-1)"], "submit_time": 900000,
  "restart_cnt": 0, "state_reason": "None"},
 {"job_id": 8, "name": "other", "job_state": "RUNNING", "tres_per_node": "gres:gpu:1", "node_count": 1,
  "nodes": "n1", "gres_detail": ["gpu:v100:1(IDX:2)"], "submit_time": 900000}]}'
SH
cat >"$tmp/bin/scontrol" <<'SH'
#!/bin/sh
if [ "$1 $2" = "show hostnames" ]; then
  case $3 in "n[1-2]") printf 'n1\nn2\n' ;; *) echo "$3" ;; esac
else
  echo "$*" >>"$(dirname "$0")/../scontrol.log"
fi
SH
chmod +x "$tmp"/bin/*
cat >"$tmp/site.yaml" <<'SITE'
gpu_types: {v100: {memory_gib: 32}}
jobs:
  lm: {work: 1000000, throughput: {v100: 10}}
SITE
cd "$tmp"
PATH=$tmp/bin:$PATH "$root/examples/slurm/hetsched-slurm" --state state.yaml --site site.yaml \
  --schedround "$build/tools/schedround/schedround" --time 1000000 || { echo "multinode: the loop failed"; exit 1; }
python3 - <<'PY' || exit 1
import sys, yaml
s = yaml.safe_load(open("state.yaml"))
nodes = {n["name"]: n["gpus"] for n in s["nodes"]}
job = next(j for j in s["jobs"] if j["id"] == "7")
problems = []
if nodes != {"n1/v100": 3, "n2/v100": 4}:
    problems.append("nodes offered: %s (expected n1/v100 3, n2/v100 4)" % nodes)
if job["num_gpus"] != 4:
    problems.append("num_gpus %s (expected 4: 2 a node on 2 nodes)" % job["num_gpus"])
if sum(job.get("placement", {}).get("nodes", {}).values()) != 4:
    problems.append("placement %s (expected 4 GPUs)" % job.get("placement"))
for p in problems:
    print("multinode:", p)
sys.exit(1 if problems else 0)
PY
echo "multinode: a 2-node job and a job outside the site file read as Slurm reports them"
