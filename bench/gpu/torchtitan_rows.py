#!/usr/bin/env python3
"""Rows for `memest --check` from the JSON lines of bench/gpu/torchtitan_memory.py.

    bench/gpu/torchtitan_rows.py RUNS.jsonl GPU [--header] > rows.csv

Each case gives four rows: the second step's and (first_iteration 1) the first step's peak, each as
max_allocated and max_reserved. GPU is the gpu cell (e.g. h100-sxm-80gb). A pipelined case is read at
the stage its rank runs (rank // (NGPU / pp)), with torchtitan 0.2.2's own split of the layers
(embedding and output each weighing one layer) in layers_per_stage, one count per pipeline rank
(the sum of its virtual stages' under interleaving).
"""
import sys

from measured_rows import main


def torchtitan_split(stages, layers):
    """Layers of each virtual stage, as torchtitan 0.2.2's generate_llm_fqn_per_model_part cuts them."""
    effective = layers + 2
    base, extra = divmod(effective, stages)
    counts = [base + (i < extra) for i in range(stages)]
    counts[0] -= 1
    counts[-1] -= 1
    return counts


def rows(run, gpu):
    if run["ac"] == "selective" and run.get("selective_ac_option", "op") not in ("", "op"):
        sys.exit(f"{run['case']}: layer-level selective checkpointing (selective_ac_option "
                 f"{run['selective_ac_option']}) has no row form here; write recompute full and checkpoint_every")
    pp = run.get("pp", 1)
    run.setdefault("dp", run["ngpu"] // (run["tp"] * run["cp"] * pp))
    vpp = len(run.get("stages") or [None])  # virtual stages this rank ran
    per_rank = run["ngpu"] // pp
    split = ""
    stage = "all"
    if pp > 1:
        chunks = torchtitan_split(pp * vpp, run["layers"])
        # Looped schedules: rank r runs virtual stages r, r + pp, ...
        split = " ".join(str(sum(chunks[r::pp])) for r in range(pp))
        stage = str(run["rank"] // per_rank)
        mine = [chunks[s] for s in range(run["rank"] // per_rank, pp * vpp, pp)]
        assert mine == [s["layers"] for s in run["stages"]], (run["case"], mine, run["stages"])
    local, accumulated = run["local_batch"], run.get("micro_batches", 1)
    pipelined = pp > 1
    for index, suffix in ((1, ""), (0, "-first")):
        step = run["steps"][index]
        for kind, key in (("max_allocated", "max_allocated"), ("max_reserved", "max_reserved")):
            yield dict(
                id=f"own-tt-{run['case']}-{gpu.split('-')[0]}{suffix}" + ("-reserved" if kind == "max_reserved" else ""),
                layers=run["layers"], hidden=run["hidden"], heads=run["heads"], kv_heads=run["kv_heads"],
                ffn_hidden=run["ffn_hidden"], gated_mlp=1, vocab=run["vocab"], tied_embeddings=0,
                seq_len=run["seq"], micro_batch=1 if pipelined else local,
                global_batch=local * run["dp"] * accumulated,
                num_microbatches=local if pipelined else accumulated,
                tp=run["tp"], pp=pp, vpp=vpp, dp=run["dp"], cp=run["cp"], zero_stage=3, distributed_optimizer=0,
                recompute=run["ac"], seq_parallel=int(run["tp"] > 1), flash_attn=1, precision="bf16",
                stage_measured=stage, gpu=gpu, measured_gib=f"{step[key] / 2**30:.3f}", measure_kind=kind,
                trust="high",
                source=f"hetsched bench/gpu/torchtitan_memory.py case {run['case']}, step {step['step']}",
                framework="fsdp", layers_per_stage=split, compile=int(run["compile"]) if run["compile"] else "",
                fp8_all_gather="", framework_version="0.2.2", first_iteration=int(index == 0),
                unfused_fp32_softmax="", attention_backend="cudnn" if run["cudnn_sdpa"] else "flash",
                deepspeed_model="", dropout="", transformer_impl="")


if __name__ == "__main__":
    main(rows, __doc__)
