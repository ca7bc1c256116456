"""What bench/gpu/*_rows.py share: the columns of a `memest --check` row, and the command line that
turns a measurement script's JSON lines into rows."""
import csv
import json
import sys

HEADER = ("id,layers,hidden,heads,kv_heads,ffn_hidden,gated_mlp,vocab,tied_embeddings,seq_len,micro_batch,"
          "global_batch,num_microbatches,tp,pp,vpp,dp,cp,zero_stage,distributed_optimizer,recompute,"
          "seq_parallel,flash_attn,precision,stage_measured,gpu,measured_gib,measure_kind,trust,source,"
          "framework,layers_per_stage,compile,fp8_all_gather,framework_version,first_iteration,"
          "unfused_fp32_softmax,attention_backend,deepspeed_model,dropout,transformer_impl").split(",")


def main(rows, usage):
    """RUNS.jsonl GPU [--header]: each run's rows (rows(run, gpu) yields dicts) as CSV on stdout."""
    if len(sys.argv) < 3:
        sys.exit(usage)
    out = csv.DictWriter(sys.stdout, HEADER, lineterminator="\n")
    if "--header" in sys.argv:
        out.writeheader()
    for line in open(sys.argv[1]):
        for row in rows(json.loads(line), sys.argv[2]):
            out.writerow(row)
