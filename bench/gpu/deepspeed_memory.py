#!/usr/bin/env python3
"""Peak GPU memory of DeepSpeed training steps, measured on one GPU, for `memest --check`.

One process plays one rank of a larger job: torch's fake process group (backend "fake") stands in
for NCCL, so every collective and every send or receive is a no-op while every tensor the engine
makes (its flat buffers, the pipeline's receive buffers, ZeRO's partitions and gathered parameters)
is really allocated on the GPU by torch's caching allocator. The peaks are therefore those of that
rank in a real run; NCCL's own memory, which `torch.cuda.max_memory_*` never sees, is left out.
Values are garbage where a collective should have filled them; no allocation here depends on them.

The model is Hugging Face's Llama block (transformers' LlamaDecoderLayer: fp32 RMSNorm, SwiGLU,
rotary, `sdpa` or `eager` attention), trained either through DeepSpeed's pipeline engine (a
PipelineModule of an embedding, the blocks and a norm + LM head, the loss on fp32 logits, blocks
checkpointed one at a time with DeepSpeed's own checkpointing when recompute is full) or, with pp 0,
through DeepSpeed's plain engine on LlamaForCausalLM (Hugging Face's gradient checkpointing). The
optimizer is the ds_config's AdamW, DeepSpeed's FusedAdam (built on the machine at start), or with
`--optimizer torch` torch's fused AdamW (also in place, and nothing to build).

A later pipeline stage learns its input's shape from the stage before it (`_recv_tensor_meta`),
which a fake group never fills; the script answers with the shape a block passes on: (micro-batch,
seq, hidden) in the training precision. Received activations and gradients are set to 1e-3 (a
fake receive leaves zeros, and BF16_Optimizer refuses a zero gradient norm).

Each case runs three steps (train_batch, or forward/backward/step per micro-batch) in its own
process and prints one JSON line: the layout, the split, and per step the peaks of allocated and
reserved bytes, overall and per phase (forward, backward, reduce, step, other), with what is
allocated as the step ends.

    bench/gpu/deepspeed_memory.py --deepspeed DIR [--out FILE] [--jobs N] [--budget S] [--trace [--events DIR]]
                                  [--optimizer fusedadam|torch] [CASE ...]

With --trace, each case runs under torch's allocation history from before its model is built to the
end of its third step, and prints (TRACE lines, into the log) every segment the caching allocator
reserved, with the reserved and allocated totals then and the Python frames that asked for it, and
the segments it holds at the end: where reserved memory outgrows allocated memory, and why. With
--events DIR as well, each case's whole allocation history goes to DIR/CASE.json.gz (every alloc, free
and segment event with its size, address and the Python frames that made it; alloc_trace.dump_events),
enough to replay the allocator offline or list what is live at any peak.

DIR holds DeepSpeed's source (its `deepspeed/` package with `ops/csrc` for FusedAdam; v0.14.5 here)
and any pure-Python package it needs that the machine lacks (pydantic 1.10, hjson). As it was made:
`git archive v0.14.5 deepspeed op_builder accelerator csrc/adam csrc/includes` of DeepSpeed, the
symbolic links deepspeed/ops/op_builder and deepspeed/accelerator replaced by copies of what they
point to, csrc copied to deepspeed/ops/csrc, a deepspeed/git_version_info_installed.py naming the
release with no op installed (each is then built on first use), and pydantic's v1.10.26 `pydantic/`
and hjson-py's `hjson/` beside `deepspeed/`.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

# name: (layers, hidden, heads, kv_heads, ffn, vocab)
MODELS = {
    "s05b": (16, 1536, 12, 4, 4096, 32000),
    "s1b": (16, 2048, 16, 16, 5504, 32000),
    "s2b": (12, 2560, 20, 4, 6912, 50304),
}

# name: (model, pp, dp, zero, recompute, attention, micro-batch, micro-batches, seq, stage,
#        precision, partition). pp 0 is the plain engine (no pipeline). The stage measured is rank
#        stage x dp (DeepSpeed's pipe-major topology).
CASES = {
    "s1b-pp2-z0-full-sdpa-mb2-s2048-st0": ("s1b", 2, 1, 0, "full", "sdpa", 2, 8, 2048, 0, "bf16", "parameters"),
    "s1b-pp2-z0-full-sdpa-mb2-s2048-st1": ("s1b", 2, 1, 0, "full", "sdpa", 2, 8, 2048, 1, "bf16", "parameters"),
    "s1b-pp4-z0-full-sdpa-mb4-s2048-st0": ("s1b", 4, 1, 0, "full", "sdpa", 4, 8, 2048, 0, "bf16", "parameters"),
    "s1b-pp4-z0-full-sdpa-mb4-s2048-st1": ("s1b", 4, 1, 0, "full", "sdpa", 4, 8, 2048, 1, "bf16", "parameters"),
    "s1b-pp4-z0-full-sdpa-mb4-s2048-st3": ("s1b", 4, 1, 0, "full", "sdpa", 4, 8, 2048, 3, "bf16", "parameters"),
    "s05b-pp4-z0-full-sdpa-mb2-s4096-st0-uniform": ("s05b", 4, 1, 0, "full", "sdpa", 2, 8, 4096, 0, "bf16",
                                                    "uniform"),
    "s05b-pp4-z0-full-sdpa-mb2-s4096-st3-uniform": ("s05b", 4, 1, 0, "full", "sdpa", 2, 8, 4096, 3, "bf16",
                                                    "uniform"),
    "s05b-pp2-z0-none-sdpa-mb2-s2048-st0": ("s05b", 2, 1, 0, "none", "sdpa", 2, 4, 2048, 0, "bf16", "parameters"),
    "s05b-pp2-z0-none-sdpa-mb2-s2048-st1": ("s05b", 2, 1, 0, "none", "sdpa", 2, 4, 2048, 1, "bf16", "parameters"),
    "s05b-pp2-z0-full-eager-mb1-s2048-st0": ("s05b", 2, 1, 0, "full", "eager", 1, 8, 2048, 0, "bf16",
                                             "parameters"),
    "s05b-pp2-z0-full-eager-mb1-s2048-st1": ("s05b", 2, 1, 0, "full", "eager", 1, 8, 2048, 1, "bf16",
                                             "parameters"),
    "s1b-pp2-dp2-z1-full-sdpa-mb2-s2048-st0": ("s1b", 2, 2, 1, "full", "sdpa", 2, 8, 2048, 0, "bf16",
                                               "parameters"),
    "s1b-pp2-dp2-z1-full-sdpa-mb2-s2048-st1": ("s1b", 2, 2, 1, "full", "sdpa", 2, 8, 2048, 1, "bf16",
                                               "parameters"),
    "s05b-pp2-z0-full-sdpa-fp16-mb2-s2048-st0": ("s05b", 2, 1, 0, "full", "sdpa", 2, 8, 2048, 0, "fp16",
                                                 "parameters"),
    "s05b-pp2-z0-full-sdpa-fp16-mb2-s2048-st1": ("s05b", 2, 1, 0, "full", "sdpa", 2, 8, 2048, 1, "fp16",
                                                 "parameters"),
    "s1b-pp2-dp4-z0-full-sdpa-mb2-s2048-st1": ("s1b", 2, 4, 0, "full", "sdpa", 2, 8, 2048, 1, "bf16",
                                               "parameters"),
    "s1b-pp2-z0-full-sdpa-mb1-s8192-st0": ("s1b", 2, 1, 0, "full", "sdpa", 1, 8, 8192, 0, "bf16", "parameters"),
    "s05b-pp3-z0-full-sdpa-mb2-s2048-st1": ("s05b", 3, 1, 0, "full", "sdpa", 2, 6, 2048, 1, "bf16", "parameters"),
    "s05b-dp2-z1-none-sdpa-mb2-s2048": ("s05b", 0, 2, 1, "none", "sdpa", 2, 1, 2048, 0, "bf16", ""),
    "s05b-dp2-z2-full-eager-mb2-s2048": ("s05b", 0, 2, 2, "full", "eager", 2, 1, 2048, 0, "bf16", ""),
    "s05b-dp1-z0-none-sdpa-fp16-mb2-s2048": ("s05b", 0, 1, 0, "none", "sdpa", 2, 1, 2048, 0, "fp16", ""),
    "s1b-dp1-z0-full-sdpa-mb4-s2048": ("s1b", 0, 1, 0, "full", "sdpa", 4, 1, 2048, 0, "bf16", ""),
    "s1b-dp4-z2-full-sdpa-mb4-s2048": ("s1b", 0, 4, 2, "full", "sdpa", 4, 1, 2048, 0, "bf16", ""),
    "s1b-dp4-z3-full-sdpa-mb4-s2048": ("s1b", 0, 4, 3, "full", "sdpa", 4, 1, 2048, 0, "bf16", ""),
    "s05b-pp2-z0-full-sdpa-mb4-s1024-st0": ("s05b", 2, 1, 0, "full", "sdpa", 4, 8, 1024, 0, "bf16", "parameters"),
    "s1b-pp3-z0-full-sdpa-mb1-s4096-st2": ("s1b", 3, 1, 0, "full", "sdpa", 1, 6, 4096, 2, "bf16", "parameters"),
    "s1b-pp2-z0-none-sdpa-mb1-s2048-st0": ("s1b", 2, 1, 0, "none", "sdpa", 1, 8, 2048, 0, "bf16", "parameters"),
    "s1b-dp2-z1-full-sdpa-mb2-s4096": ("s1b", 0, 2, 1, "full", "sdpa", 2, 1, 4096, 0, "bf16", ""),
    "s05b-pp4-z0-full-sdpa-mb2-s2048-st1": ("s05b", 4, 1, 0, "full", "sdpa", 2, 8, 2048, 1, "bf16", "parameters"),
    "s05b-pp4-z0-full-sdpa-mb2-s2048-st3": ("s05b", 4, 1, 0, "full", "sdpa", 2, 8, 2048, 3, "bf16", "parameters"),
    "s1b-pp2-dp2-z1-full-eager-mb1-s4096-st1": ("s1b", 2, 2, 1, "full", "eager", 1, 8, 4096, 1, "bf16",
                                                "parameters"),
    "s05b-pp2-z0-none-sdpa-mb4-s1024-st1": ("s05b", 2, 1, 0, "none", "sdpa", 4, 8, 1024, 1, "bf16", "parameters"),
    "s1b-pp4-z0-full-sdpa-mb2-s4096-st0": ("s1b", 4, 1, 0, "full", "sdpa", 2, 8, 4096, 0, "bf16", "parameters"),
    "s1b-pp4-z0-full-sdpa-mb2-s4096-st2": ("s1b", 4, 1, 0, "full", "sdpa", 2, 8, 4096, 2, "bf16", "parameters"),
    "s1b-dp2-z2-none-sdpa-mb1-s2048": ("s1b", 0, 2, 2, "none", "sdpa", 1, 1, 2048, 0, "bf16", ""),
    "s05b-dp4-z3-full-eager-mb2-s4096": ("s05b", 0, 4, 3, "full", "eager", 2, 1, 4096, 0, "bf16", ""),
    "s1b-pp3-z0-full-sdpa-mb2-s2048-st0": ("s1b", 3, 1, 0, "full", "sdpa", 2, 6, 2048, 0, "bf16", "parameters"),
    "s2b-pp2-z0-full-sdpa-mb1-s4096-st0": ("s2b", 2, 1, 0, "full", "sdpa", 1, 8, 4096, 0, "bf16", "parameters"),
    "s2b-pp2-z0-full-sdpa-mb1-s4096-st1": ("s2b", 2, 1, 0, "full", "sdpa", 1, 8, 4096, 1, "bf16", "parameters"),
    "s2b-dp2-z1-full-sdpa-mb2-s2048": ("s2b", 0, 2, 1, "full", "sdpa", 2, 1, 2048, 0, "bf16", ""),
}


def shim_old_apis(torch):
    """DeepSpeed 0.14 names a few torch and stdlib APIs that newer releases moved."""
    import functools
    try:
        import distutils  # noqa: F401  (Python 3.12 has none; setuptools provides it)
    except ImportError:
        import setuptools  # noqa: F401
    amp = torch.cuda.amp
    if not hasattr(amp, "custom_fwd"):
        amp.custom_fwd = functools.partial(torch.amp.custom_fwd, device_type="cuda")
        amp.custom_bwd = functools.partial(torch.amp.custom_bwd, device_type="cuda")


def ds_config(c, dp):
    model, pp, _, zero, _, _, mb, gas, *_rest = c
    precision = c[10]
    cfg = {
        "train_micro_batch_size_per_gpu": mb,
        "gradient_accumulation_steps": gas,
        "train_batch_size": mb * gas * dp,
        "optimizer": {"type": "AdamW", "params": {"lr": 1e-5, "weight_decay": 0.0}},
        "gradient_clipping": 1.0,
        "zero_optimization": {"stage": zero},
        "steps_per_print": 1000000,
        "wall_clock_breakdown": False,
    }
    if os.environ.get("DS_MEASURE_TORCH_ADAM"):  # FusedAdam did not build: torch's fused AdamW, also in place
        cfg["optimizer"]["params"].update(torch_adam=True, fused=True)
    if precision == "bf16":
        cfg["bf16"] = {"enabled": True}
    else:
        cfg["fp16"] = {"enabled": True, "initial_scale_power": 12}
    return cfg


def run_case(name, ds_dir):
    c = CASES[name]
    model, pp, dp, zero, recompute, attn, mb, gas, seq, stage, precision, partition = c
    layers, hidden, heads, kv_heads, ffn, vocab = MODELS[model]
    world = max(pp, 1) * dp
    rank = stage * dp
    os.environ.update(LOCAL_RANK="0", RANK=str(rank), WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1",
                      MASTER_PORT="29512")
    sys.path.insert(0, ds_dir)
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    shim_old_apis(torch)
    torch.cuda.set_device(0)
    tracing = bool(os.environ.get("DS_MEASURE_TRACE"))
    if tracing:
        torch.cuda.memory._record_memory_history(max_entries=4_000_000, stacks="python")
    torch.distributed.init_process_group("fake", rank=rank, world_size=world)

    import deepspeed
    import transformers
    from transformers import LlamaConfig
    from transformers.models.llama import modeling_llama as ml

    deepspeed.init_distributed()
    dtype = torch.bfloat16 if precision == "bf16" else torch.float16
    cfg = LlamaConfig(vocab_size=vocab, hidden_size=hidden, intermediate_size=ffn, num_hidden_layers=layers,
                      num_attention_heads=heads, num_key_value_heads=kv_heads, max_position_embeddings=seq,
                      rms_norm_eps=1e-5, tie_word_embeddings=False, attention_dropout=0.0)
    cfg._attn_implementation = attn

    steps, peak = [], {"phase": "other", "acc": {}}

    def mark(phase):
        """Attributes the peak since the last mark to the phase that ran, then starts `phase`."""
        torch.cuda.synchronize()
        prev = peak["phase"]
        a, r = torch.cuda.max_memory_allocated(), torch.cuda.max_memory_reserved()
        old = peak["acc"].get(prev, [0, 0])
        peak["acc"][prev] = [max(old[0], a), max(old[1], r)]
        torch.cuda.reset_peak_memory_stats()
        peak["phase"] = phase

    def begin_step():
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        peak.update(phase="other", acc={})

    def end_step(i):
        mark("other")
        acc = peak["acc"]
        steps.append({"step": i, "max_allocated": max(v[0] for v in acc.values()),
                      "max_reserved": max(v[1] for v in acc.values()),
                      "phases": acc, "end_allocated": torch.cuda.memory_allocated()})

    def batches():
        g = torch.Generator().manual_seed(0)
        while True:
            ids = torch.randint(0, vocab, (mb, seq + 1), generator=g)
            yield ids[:, :-1].contiguous(), ids[:, 1:].contiguous()

    info = {}
    if pp > 0:
        from deepspeed.pipe import LayerSpec, PipelineModule
        from deepspeed.runtime.pipe import schedule
        from deepspeed.runtime.pipe.engine import PipelineEngine

        class EmbedPipe(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(vocab, hidden)

            def forward(self, ids):
                return self.embed(ids)

        class DecoderLayerPipe(nn.Module):
            def __init__(self, idx):
                super().__init__()
                self.layer = ml.LlamaDecoderLayer(cfg, idx)
                self.rotary = ml.LlamaRotaryEmbedding(config=cfg)

            def forward(self, x):
                b, q = x.shape[0], x.shape[1]
                pos = torch.arange(q, device=x.device).unsqueeze(0).expand(b, -1)
                mask = None
                if attn == "eager":
                    mask = torch.full((q, q), torch.finfo(x.dtype).min, dtype=x.dtype, device=x.device)
                    mask = mask.triu(1)[None, None]
                out = self.layer(x, attention_mask=mask, position_ids=pos,
                                 position_embeddings=self.rotary(x, pos))
                return out[0] if isinstance(out, tuple) else out

        class HeadPipe(nn.Module):
            def __init__(self):
                super().__init__()
                self.norm = ml.LlamaRMSNorm(hidden, eps=1e-5)
                self.lm_head = nn.Linear(hidden, vocab, bias=False)

            def forward(self, x):
                return self.lm_head(self.norm(x))

        def loss_fn(logits, labels):
            return F.cross_entropy(logits.float().view(-1, vocab), labels.view(-1))

        specs = [LayerSpec(EmbedPipe)] + [LayerSpec(DecoderLayerPipe, i) for i in range(layers)] + \
            [LayerSpec(HeadPipe)]
        net = PipelineModule(layers=specs, num_stages=pp, loss_fn=loss_fn, partition_method=partition,
                             activation_checkpoint_interval=1 if recompute == "full" else 0,
                             checkpointable_layers=["DecoderLayerPipe"])
        parts = list(net.parts)
        info["layers_per_stage"] = [sum(1 for i in range(parts[s], parts[s + 1]) if 1 <= i <= layers)
                                    for s in range(pp)]

        def recv_meta(self, send_stage):
            return self._allocate_buffer([mb, seq, hidden], num_buffers=1)[0]

        PipelineEngine._recv_tensor_meta = recv_meta
        # A fake receive leaves its buffer as it was (zeros): a stage before the last would then see
        # zero gradients, which BF16_Optimizer refuses (its norm must be positive). Received values
        # are set to a small constant instead; no allocation depends on them.
        from deepspeed.runtime.pipe import p2p
        fake_recv = p2p.recv

        def recv(tensor, src_stage, async_op=False):
            fake_recv(tensor, src_stage, async_op)
            if tensor.is_floating_point():
                tensor.fill_(1e-3)

        p2p.recv = recv
        phase_of = {schedule.ForwardPass: "forward", schedule.BackwardPass: "backward",
                    schedule.OptimizerStep: "step", schedule.ReduceGrads: "reduce",
                    schedule.ReduceTiedGrads: "reduce"}
        for cls, fn in list(PipelineEngine._INSTRUCTION_MAP.items()):
            def wrapped(self, *a, _fn=fn, _phase=phase_of.get(cls, "other"), **k):
                mark(_phase)
                return _fn(self, *a, **k)
            PipelineEngine._INSTRUCTION_MAP[cls] = wrapped
        engine, _, _, _ = deepspeed.initialize(model=net, model_parameters=[p for p in net.parameters()],
                                               config=ds_config(c, dp))
        data = batches()
        for i in range(1, 4):
            begin_step()
            engine.train_batch(data_iter=data)
            end_step(i)
    else:
        net = ml.LlamaForCausalLM(cfg)
        if recompute == "full":
            net.gradient_checkpointing_enable()
            info["checkpointing"] = repr(getattr(net, "_gradient_checkpointing_func", None))
        engine, _, _, _ = deepspeed.initialize(model=net, model_parameters=[p for p in net.parameters()],
                                               config=ds_config(c, dp))
        data = batches()
        for i in range(1, 4):
            begin_step()
            for _ in range(gas):
                ids, _labels = next(data)
                ids = ids.cuda()
                mark("forward")
                loss = engine(input_ids=ids, labels=ids).loss
                mark("backward")
                engine.backward(loss)
                mark("step")
                engine.step()
            end_step(i)
    if tracing:
        from alloc_trace import print_segment_allocs, print_segments
        snapshot = torch.cuda.memory._snapshot()
        print_segment_allocs(snapshot)
        print_segments(snapshot)
        if os.environ.get("DS_MEASURE_EVENTS"):
            from alloc_trace import dump_events
            dump_events(snapshot, os.path.join(os.environ["DS_MEASURE_EVENTS"], name + ".json.gz"))
        torch.cuda.memory._record_memory_history(enabled=None)
    info.update(case=name, model=model, layers=layers, hidden=hidden, heads=heads, kv_heads=kv_heads, ffn=ffn,
                vocab=vocab, pp=pp, dp=dp, zero=zero, recompute=recompute, attention=attn, micro_batch=mb,
                micro_batches=gas, seq=seq, stage=stage, precision=precision, partition=partition,
                local_params=sum(p.numel() for p in engine.module.parameters()),
                optimizer=type(engine.optimizer).__name__, basic_optimizer=type(engine.basic_optimizer).__name__,
                gpu=torch.cuda.get_device_name(), torch=torch.__version__, deepspeed=deepspeed.__version__,
                transformers=transformers.__version__, steps=steps)
    print("RESULT " + json.dumps(info), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deepspeed", required=True)
    ap.add_argument("--out", default="-")
    ap.add_argument("--log", default=None)
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--budget", type=float, default=400, help="seconds after which no case is started")
    ap.add_argument("--case-timeout", type=float, default=240, help="seconds after which a case is killed")
    ap.add_argument("--optimizer", choices=("fusedadam", "torch"), default="fusedadam",
                    help="DeepSpeed's FusedAdam (built on the machine first) or torch's fused AdamW")
    ap.add_argument("--trace", action="store_true", help="print where the allocator reserved its segments")
    ap.add_argument("--events", default=None, help="with --trace, a folder for each case's allocation history")
    ap.add_argument("--case", default=None, help=argparse.SUPPRESS)
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    if args.case:
        run_case(args.case, os.path.abspath(args.deepspeed))
        return
    ds = os.path.abspath(args.deepspeed)
    env = dict(os.environ, PYTHONPATH=ds + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")
    start = time.time()
    if args.optimizer == "torch":  # torch's fused AdamW: in place like FusedAdam, nothing to build
        env["DS_MEASURE_TORCH_ADAM"] = "1"
    if args.trace:
        env["DS_MEASURE_TRACE"] = "1"
        if args.events:
            os.makedirs(args.events, exist_ok=True)
            env["DS_MEASURE_EVENTS"] = os.path.abspath(args.events)
    build = subprocess.run(["true"]) if args.optimizer == "torch" else subprocess.run([sys.executable, "-c", "import torch, sys; sys.path.insert(0, %r);"
                            "exec(open(%r).read().split('def ds_config')[0]); shim_old_apis(torch);"
                            "from deepspeed.ops.op_builder import FusedAdamBuilder; FusedAdamBuilder().load()"
                            % (ds, os.path.abspath(__file__))], env=env, capture_output=True, text=True)
    log = open(args.log, "a") if args.log else sys.stderr
    print(f"fused_adam build rc {build.returncode} in {time.time() - start:.0f} s", file=log, flush=True)
    if build.returncode:
        print(build.stdout[-3000:] + build.stderr[-6000:], file=log, flush=True)
        env["DS_MEASURE_TORCH_ADAM"] = "1"
    out = sys.stdout if args.out == "-" else open(args.out, "a")
    todo = list(args.cases or CASES)
    running, done = [], 0
    while todo or running:
        # The first case runs alone: when it fails the rest would fail alike, and are not started.
        while todo and len(running) < (args.jobs if done else 1) and time.time() - start < args.budget:
            name = todo.pop(0)
            text = tempfile.TemporaryFile("w+")
            p = subprocess.Popen([sys.executable, __file__, "--deepspeed", ds, "--case", name], env=env,
                                 stdout=text, stderr=subprocess.STDOUT, text=True)
            running.append((name, p, time.time(), text))
        if todo and time.time() - start >= args.budget:
            print("over budget, not run: " + " ".join(todo), file=log, flush=True)
            todo = []
        for item in list(running):
            name, p, t0, text = item
            if p.poll() is None:
                if time.time() - t0 > args.case_timeout:
                    p.kill()
                continue
            running.remove(item)
            text.seek(0)
            text = text.read()
            lines = [ln[7:] for ln in text.splitlines() if ln.startswith("RESULT ")]
            print(f"{name}: rc {p.returncode} in {time.time() - t0:.0f} s", file=log, flush=True)
            trace = [ln for ln in text.splitlines() if ln.startswith("TRACE ")]
            if trace:
                print("\n".join(f"{name}: {ln}" for ln in trace), file=log, flush=True)
            if lines:
                out.write(lines[-1] + "\n")
                out.flush()
            else:
                print(text[-5000:], file=log, flush=True)
                if not done:
                    print("the first case failed: the rest not run", file=log, flush=True)
                    todo = []
            done += 1
        time.sleep(0.5)


if __name__ == "__main__":
    main()
