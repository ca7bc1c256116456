#!/usr/bin/env bash
# examples/slurm/sweep.sbatch on a real single-host Slurm: the small sweep (SMALL=1) as an array job,
# merged with `make merge`; the table must have one row per policy and load. Exits 77, saying why,
# when Slurm cannot be started here.   sweep.sh BUILD_DIR
set -u
build=$(cd "$1" && pwd); root=$(cd "$(dirname "$0")/../.." && pwd)
command -v make >/dev/null || { echo "sweep: make is missing" >&2; exit 77; }
tmp=$(mktemp -d)
trap '"$root/tests/slurm/local-slurm.sh" stop "$tmp/slurm"; sleep 1; rm -rf "$tmp"' EXIT
"$root/tests/slurm/local-slurm.sh" start "$tmp/slurm" || exit $?
export SLURM_CONF=$tmp/slurm/slurm.conf
policies="fft gavel fifo" loads="0.2 1"
tasks=$(( $(wc -w <<<"$policies") * $(wc -w <<<"$loads") ))
cd "$tmp"
EXAMPLES=$root/examples POLICIES=$policies LOADS=$loads OUT=$tmp/out SWEEP_MAKE_ARGS="SMALL=1 BIN=$build/tools" \
  sbatch --wait --array=0-$((tasks - 1)) --export=ALL -o "$tmp/task-%a.log" "$root/examples/slurm/sweep.sbatch" >/dev/null ||
  { echo "sweep: an array task failed:"; tail -n 5 "$tmp"/task-*.log; exit 1; }
make -s -C "$root/examples" SMALL=1 OUT="$tmp/out" BIN="$build/tools" merge || { echo "sweep: make merge failed"; exit 1; }
rows=$(($(wc -l <"$tmp/out/results.csv") - 1))
[ "$rows" -eq "$tasks" ] || { echo "sweep: $rows result rows, expected $tasks"; cat "$tmp/out/results.csv"; exit 1; }
for p in $policies; do for l in $loads; do
  grep -q "$p" "$tmp/out/results.csv" || { echo "sweep: no row for $p"; exit 1; }
done; done
echo "sweep: $tasks array tasks on Slurm, $rows rows merged"
