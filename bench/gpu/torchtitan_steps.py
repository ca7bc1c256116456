#!/usr/bin/env python3
"""placestages' compute model against the step times of bench/gpu/torchtitan_memory.py's runs.

    bench/gpu/torchtitan_steps.py RUNS.jsonl GPU_TYPE [--placestages BIN] [--efficiency E]

Those runs train one rank of a layout on one GPU with a fake process group: every collective and
pipeline transfer returns at once, so a step is that rank's compute alone, its micro-batches' forward
and backward through its stages and its optimizer step. For each case this builds the job and the
allocation (GPU_TYPE, a catalog name such as H100-SXM, on every stage; a looped schedule's virtual
stages as stages of their own; links of 1 PB/s, so that the tensor-parallel all-reduces inside a
layer, which the fake group skips, take no time either), runs `placestages --method given`, and adds up the forward_s,
backward_s and optimizer_s of the stages the measured rank ran, once per micro-batch (the optimizer
once). It prints one CSV row a case (the fastest of the steps after the first, which compiles and
allocates) and the mean and max |error| on stderr. Cases with context parallelism are left out:
placestages' allocations have none.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

from torchtitan_rows import torchtitan_split


def job_yaml(run, gpu):
    pp = run.get("pp", 1)
    vpp = len(run.get("stages") or [None])
    dp = run.get("dp", run["ngpu"] // (run["tp"] * run["cp"] * pp))
    chunks = torchtitan_split(pp * vpp, run["layers"]) if pp > 1 else [run["layers"]]
    local, accumulated = run["local_batch"], run.get("micro_batches", 1)
    micro = 1 if pp > 1 else local
    stages = ", ".join(f"{{gpu: {gpu}, layers: {n}}}" for n in chunks)
    return chunks, f"""kind: job
version: 1
model: {{name: {run['flavor']}, layers: {run['layers']}, hidden: {run['hidden']}, heads: {run['heads']}, kv_heads: {run['kv_heads']}, ffn_hidden: {run['ffn_hidden']}, gated_mlp: true, vocab: {run['vocab']}, tied_embeddings: false, rms_norm: true, linear_bias: false, learned_positions: 0, dropout: 0}}
training: {{seq_len: {run['seq']}, global_batch: {local * dp * accumulated}, micro_batch: {micro}, precision: bf16, optimizer: adamw, framework: fsdp, framework_version: 0.2.2, zero_stage: 3, recompute: {run['ac']}, flash_attention: true, seq_parallel: {'true' if run['tp'] > 1 else 'false'}}}
network: {{intra_node_gb_s: 1e6, inter_node_gb_s: 1e6}}
allocation:
  dp: {dp}
  tp: {run['tp']}
  stages: [{stages}]
"""


STAGE = re.compile(r"\{stage: (\d+),.*forward_s: ([^,]+), backward_s: ([^,]+),.*optimizer_s: ([^,]+),")


def predicted_s(run, gpu, placestages, efficiency):
    chunks, text = job_yaml(run, gpu)
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
    try:
        out = subprocess.run([placestages, f.name, "--method", "given", "--efficiency", str(efficiency), "-q"],
                             capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(f.name)
    stages = {int(m[0]): tuple(map(float, m[1:])) for m in STAGE.findall(out)}
    micro_batches = int(re.search(r"micro_batches: (\d+)", out).group(1))
    pp = run.get("pp", 1)
    mine = range(run["rank"] // (run["ngpu"] // pp), len(chunks), pp) if pp > 1 else [0]
    return sum(micro_batches * (stages[s][0] + stages[s][1]) + stages[s][2] for s in mine)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs")
    parser.add_argument("gpu")
    parser.add_argument("--placestages", default=os.path.join(os.path.dirname(__file__), "../../build/tools/placestages/placestages"))
    parser.add_argument("--efficiency", type=float, default=0.45)
    args = parser.parse_args()
    errors = []
    print("case,measured_s,predicted_s,error_pct")
    for line in open(args.runs):
        run = json.loads(line)
        if run["cp"] > 1:
            print(f"{run['case']}: left out (context parallelism)", file=sys.stderr)
            continue
        measured = min(step["seconds"] for step in run["steps"][1:])
        predicted = predicted_s(run, args.gpu, args.placestages, args.efficiency)
        errors.append(100 * (predicted - measured) / measured)
        print(f"{run['case']},{measured:.3f},{predicted:.3f},{errors[-1]:.1f}")
    magnitudes = [abs(e) for e in errors]
    print(f"{len(errors)} runs: mean |error| {statistics.mean(magnitudes):.1f}%, max {max(magnitudes):.1f}%",
          file=sys.stderr)


if __name__ == "__main__":
    main()
