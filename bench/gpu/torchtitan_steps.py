#!/usr/bin/env python3
"""placestages' compute model against the step times of bench/gpu/torchtitan_memory.py's runs.

    bench/gpu/torchtitan_steps.py RUNS.jsonl GPU_TYPE [--placestages BIN] [--efficiency E]

Those runs train one rank of a layout on one GPU with a fake process group: every collective and
pipeline transfer returns at once, so a step is that rank's compute alone, its micro-batches' forward
and backward through its stages and its optimizer step. For each case this builds the job (the
configuration torchtitan_rows.py writes as a memest row) and the allocation (GPU_TYPE, a catalog name
such as H100-SXM, on every stage; a looped schedule's virtual stages as stages of their own; links of
1 PB/s, so that the tensor-parallel all-reduces inside a layer, which the fake group skips, take no
time either), runs `placestages --method given`, and adds up the forward_s, backward_s and
optimizer_s of the stages the measured rank ran, once per micro-batch (the optimizer once). It prints
one CSV row a case (the fastest of the steps after the first, which compiles and allocates) and the
mean and max |error| on stderr. Cases with context parallelism are left out: placestages'
allocations have none.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

from torchtitan_rows import rows, torchtitan_split


def job_yaml(run, gpu):
    """The virtual stages' layer counts and the job document of `run` on `gpu` everywhere."""
    row = next(rows(run, gpu))
    pp, vpp = int(row["pp"]), int(row["vpp"])
    chunks = torchtitan_split(pp * vpp, run["layers"]) if pp > 1 else [run["layers"]]
    stages = ", ".join(f"{{gpu: {gpu}, layers: {n}}}" for n in chunks)
    optional = "".join(f", {key}: {value}" for key, value in (("attention_backend", row["attention_backend"]),
                                                              ("compile", row["compile"])) if value != "")
    return chunks, f"""kind: job
version: 1
model: {{name: {run['flavor']}, layers: {row['layers']}, hidden: {row['hidden']}, heads: {row['heads']}, kv_heads: {row['kv_heads']}, ffn_hidden: {row['ffn_hidden']}, gated_mlp: true, vocab: {row['vocab']}, tied_embeddings: false, rms_norm: true, linear_bias: false, learned_positions: 0, dropout: 0}}
training: {{seq_len: {row['seq_len']}, global_batch: {row['global_batch']}, micro_batch: {row['micro_batch']}, precision: bf16, optimizer: adamw, framework: fsdp, framework_version: {row['framework_version']}, zero_stage: 3, recompute: {row['recompute']}, flash_attention: true, seq_parallel: {'true' if row['seq_parallel'] else 'false'}{optional}}}
network: {{intra_node_gb_s: 1e6, inter_node_gb_s: 1e6}}
allocation:
  dp: {row['dp']}
  tp: {row['tp']}
  stages: [{stages}]
"""


STAGE = re.compile(r"\{stage: (\d+),.*forward_s: ([^,]+), backward_s: ([^,]+),.*optimizer_s: ([^,]+),")


def predicted_s(run, gpu, placestages, efficiency):
    chunks, text = job_yaml(run, gpu)
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(text)
    try:
        done = subprocess.run([placestages, f.name, "--method", "given", "--efficiency", str(efficiency), "-q"],
                              capture_output=True, text=True)
    finally:
        os.unlink(f.name)
    if done.returncode != 0:
        sys.exit(f"{run['case']}: placestages exited {done.returncode}: {done.stderr.strip()}")
    stages = {int(m[0]): tuple(map(float, m[1:])) for m in STAGE.findall(done.stdout)}
    micro_batches = int(re.search(r"micro_batches: (\d+)", done.stdout).group(1))
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
