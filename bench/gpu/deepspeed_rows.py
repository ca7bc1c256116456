#!/usr/bin/env python3
"""Rows for `memest --check` from the JSON lines of bench/gpu/deepspeed_memory.py.

    bench/gpu/deepspeed_rows.py RUNS.jsonl GPU [--header] > rows.csv

Each case gives four rows: the third step's and (first_iteration 1) the first step's peak, each as
max_allocated and max_reserved. GPU is the gpu cell (e.g. h100-sxm-80gb). A pipelined case is read at
the stage it ran, with DeepSpeed's own split of the blocks (what PipelineModule's partition gave) in
layers_per_stage. The model is Hugging Face's Llama block (deepspeed_model hf): `sdpa` attention is
torch's flash kernel; `eager` upcasts the scores to fp32 for the softmax (unfused_fp32_softmax).
"""
from measured_rows import main


def rows(run, gpu):
    pp = run["pp"]
    pipelined = pp > 0
    flash = run["attention"] == "sdpa"
    for index, suffix in ((2, ""), (0, "-first")):
        step = run["steps"][index]
        for kind in ("max_allocated", "max_reserved"):
            yield dict(
                id=f"own-ds-{run['case']}-{gpu.split('-')[0]}{suffix}" + ("-reserved" if kind == "max_reserved" else ""),
                layers=run["layers"], hidden=run["hidden"], heads=run["heads"], kv_heads=run["kv_heads"],
                ffn_hidden=run["ffn"], gated_mlp=1, vocab=run["vocab"], tied_embeddings=0,
                seq_len=run["seq"], micro_batch=run["micro_batch"],
                global_batch=run["micro_batch"] * run["micro_batches"] * run["dp"],
                num_microbatches=run["micro_batches"], tp=1, pp=max(pp, 1), vpp=1, dp=run["dp"], cp=1,
                zero_stage=run["zero"], distributed_optimizer=0, recompute=run["recompute"], seq_parallel=0,
                flash_attn=int(flash), precision=run["precision"],
                stage_measured=str(run["stage"]) if pipelined else "all", gpu=gpu,
                measured_gib=f"{step[kind] / 2**30:.3f}", measure_kind=kind, trust="high",
                source=f"hetsched bench/gpu/deepspeed_memory.py case {run['case']}, step {step['step']}",
                framework="deepspeed",
                layers_per_stage=" ".join(str(n) for n in run["layers_per_stage"]) if pipelined else "",
                compile="", fp8_all_gather="", framework_version=run["deepspeed"].split("+")[0],
                first_iteration=int(index == 0), unfused_fp32_softmax="" if flash else 1,
                attention_backend="flash" if flash else "", deepspeed_model="hf", dropout="", transformer_impl="")


if __name__ == "__main__":
    main(rows, __doc__)
