#!/usr/bin/env bash
# A single-host Slurm for tests, from Debian's packages: munged, slurmctld and slurmd on localhost,
# one node with two GPU GRES types declared by count over empty device files (AutoDetect=off).
#   local-slurm.sh start DIR [PORT]   start it in DIR (exports nothing; use SLURM_CONF=DIR/slurm.conf)
#   local-slurm.sh stop DIR
# `start` exits 77 with the reason when the daemons cannot be started here (not installed, not root).
set -u
cmd=$1 dir=$2 port=${3:-$((20000 + $$ % 20000))}
if [ "$cmd" = stop ]; then
  for p in slurmd slurmctld munged; do [ -f "$dir/$p.pid" ] && kill "$(cat "$dir/$p.pid")" 2>/dev/null; done
  exit 0
fi
skip() { echo "local-slurm: cannot start a local Slurm: $*" >&2; exit 77; }
for b in munged slurmctld slurmd sinfo; do command -v $b >/dev/null || skip "$b is not installed (apt-get install slurm-wlm munge)"; done
[ "$(id -u)" = 0 ] || skip "slurmd must run as root"
mkdir -p "$dir"/{dev,state,spool,log}
touch "$dir"/dev/{v100-0,v100-1,k80-0,k80-1}
host=$(hostname -s)
dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 2>/dev/null && chmod 600 "$dir/munge.key"
munged --force --key-file="$dir/munge.key" --socket="$dir/munge.sock" --pid-file="$dir/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/munge.seed" || skip "munged did not start"
cat >"$dir/slurm.conf" <<CONF
ClusterName=hetschedtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock,cred_expire=5
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) Gres=gpu:v100:2,gpu:k80:2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
CONF
cat >"$dir/gres.conf" <<CONF
AutoDetect=off
NodeName=$host Name=gpu Type=v100 File=$dir/dev/v100-[0-1]
NodeName=$host Name=gpu Type=k80 File=$dir/dev/k80-[0-1]
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 &
sleep 1
slurmd -D -f "$SLURM_CONF" -N "$host" >"$dir/log/slurmd.out" 2>&1 &
for _ in $(seq 60); do
  sinfo -h -o %T 2>/dev/null | grep -qx idle && exit 0
  sleep 0.5
done
tail -5 "$dir"/log/*.log >&2
skip "the node did not come up idle within 30 s"
