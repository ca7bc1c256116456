#!/usr/bin/env python3
"""Peak GPU memory of torchtitan training steps, measured on one GPU, for `memest --check`.

torchtitan's own dry-run mode (`comm.mode = "fake_backend"`, NGPU ranks) runs rank 0 of an NGPU-rank
job in one process: every collective is a no-op on a fake process group, while every tensor, the
all-gathered and reduce-scattered buffers included, is really allocated on the GPU by torch's caching
allocator. Rank 0's peaks are therefore those of a real run of that layout; what they leave out is
NCCL's own memory, which `torch.cuda.max_memory_*` never sees. Values are garbage (collectives do not
fill their outputs), which no allocation here depends on: a dense model, no data-dependent shapes.

Each case runs torchtitan's Trainer (train_step, loss, clipping, AdamW) in its own process for three
steps on random tokens, under `PYTORCH_ALLOC_CONF=expandable_segments:True` as torchtitan's launcher
sets it. It prints one JSON line per case: the layout, the model's sizes, and per step the peaks of
allocated and reserved bytes, overall and in each phase (forward, the loss's forward and backward, the
rest of backward with clipping, the optimizer step, the rest), with what is allocated as each ends.

    bench/gpu/torchtitan_memory.py --torchtitan DIR [--out FILE] [--budget S] [--trace STEP] [CASE ...]

With --trace, step STEP runs under torch's allocation history, and the allocations made in that step
that are live at its peak are printed (TRACE lines) grouped by the Python frames that made them (what
was allocated before the step is not listed), then each stream's reserved and allocated bytes and its
largest free block as the step ends.

A pipelined case (pp > 1) measures the stage its rank runs. Its schedule keeps the loss function it
was built with, so its per-phase peaks are only backward (the whole schedule, forwards included), step
and rest.

DIR holds torchtitan's source (its `torchtitan/` package, e.g. the v0.2.2 tag). Packages torchtitan
imports but this measurement never uses (tyro for its command line, datasets and torchdata for its
data) are replaced by empty stand-ins when missing. `--list` prints the cases.
"""
import argparse
import dataclasses
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
import types
from unittest import mock

from alloc_trace import frame_names, print_segments

# name: (flavor, NGPU, tp, cp, local batch, seq, activation checkpointing, compile[, micro-batches
#        [, pp, pipeline schedule, rank]]). With pp > 1 the local batch is the number of pipeline
# micro-batches (torchtitan's default micro-batch size, 1), and the rank picks the stage measured:
# ranks are laid out pp-major (rank = pp index x NGPU/pp + the rest), so rank NGPU/pp x k runs stage k.
CASES = {
    "l8b-fsdp8-sel-b1-s8192": ("8B", 8, 1, 1, 1, 8192, "selective", False),
    "l8b-fsdp8-sel-b2-s8192": ("8B", 8, 1, 1, 2, 8192, "selective", False),
    "l8b-fsdp8-full-b2-s8192": ("8B", 8, 1, 1, 2, 8192, "full", False),
    "l8b-fsdp8-none-b1-s4096": ("8B", 8, 1, 1, 1, 4096, "none", False),
    "s06b-fsdp4-sel-b4-s4096": ("0.6B", 4, 1, 1, 4, 4096, "selective", False),
    "s06b-fsdp2-none-b2-s2048": ("0.6B", 2, 1, 1, 2, 2048, "none", False),
    "s06b-fsdp8-full-b8-s2048": ("0.6B", 8, 1, 1, 8, 2048, "full", False),
    "m3b-fsdp8-sel-b2-s8192": ("3B", 8, 1, 1, 2, 8192, "selective", False),
    "l8b-fsdp4-tp2-sel-b2-s8192": ("8B", 8, 2, 1, 2, 8192, "selective", False),
    "l70b-fsdp64-full-b1-s8192": ("70B", 64, 1, 1, 1, 8192, "full", False),
    "l8b-fsdp4-cp2-full-b1-s16384": ("8B", 8, 1, 2, 1, 16384, "full", False),
    "l8b-fsdp8-sel-compile-b2-s8192": ("8B", 8, 1, 1, 2, 8192, "selective", True),
    "l8b-fsdp8-sel-b1-s8192-ga2": ("8B", 8, 1, 1, 1, 8192, "selective", False, 2),
    "s06b-fsdp4-full-b4-s4096-ga2": ("0.6B", 4, 1, 1, 4, 4096, "full", False, 2),
    "m3b-fsdp8-none-b1-s4096": ("3B", 8, 1, 1, 1, 4096, "none", False),
    "s06b-pp2-fsdp2-none-b4-s4096-r0": ("0.6B", 4, 1, 1, 4, 4096, "none", False, 1, 2, "1F1B", 0),
    "s06b-pp2-fsdp2-none-b4-s4096-r2": ("0.6B", 4, 1, 1, 4, 4096, "none", False, 1, 2, "1F1B", 2),
    "l8b-pp4-fsdp2-sel-b8-s8192-r0": ("8B", 8, 1, 1, 8, 8192, "selective", False, 1, 4, "1F1B", 0),
    "l8b-pp4-fsdp2-sel-b8-s8192-r2": ("8B", 8, 1, 1, 8, 8192, "selective", False, 1, 4, "1F1B", 2),
    "l8b-pp4-fsdp2-sel-b8-s8192-r6": ("8B", 8, 1, 1, 8, 8192, "selective", False, 1, 4, "1F1B", 6),
    "l8b-pp4-fsdp2-full-b8-s8192-r0": ("8B", 8, 1, 1, 8, 8192, "full", False, 1, 4, "1F1B", 0),
    "l8b-pp2-vpp2-fsdp4-sel-b8-s8192-r0": ("8B", 8, 1, 1, 8, 8192, "selective", False, 1, 2,
                                           "Interleaved1F1B", 0),
    "l8b-pp2-vpp2-fsdp4-sel-b8-s8192-r4": ("8B", 8, 1, 1, 8, 8192, "selective", False, 1, 2,
                                           "Interleaved1F1B", 4),
    "l70b-tp8-pp4-fsdp2-full-b8-s8192-r0": ("70B", 64, 8, 1, 8, 8192, "full", False, 1, 4, "1F1B", 0),
    "l70b-tp8-pp4-fsdp2-full-b8-s8192-r48": ("70B", 64, 8, 1, 8, 8192, "full", False, 1, 4, "1F1B", 48),
    "m3b-pp2-tp2-fsdp2-sel-b4-s8192-r0": ("3B", 8, 2, 1, 4, 8192, "selective", False, 1, 2, "1F1B", 0),
    "m3b-pp2-tp2-fsdp2-sel-b4-s8192-r4": ("3B", 8, 2, 1, 4, 8192, "selective", False, 1, 2, "1F1B", 4),
    "m3b-pp4-fsdp2-sel-b8-s8192-r6": ("3B", 8, 1, 1, 8, 8192, "selective", False, 1, 4, "1F1B", 6),
    "s06b-pp4-fsdp2-none-b8-s4096-r2": ("0.6B", 8, 1, 1, 8, 4096, "none", False, 1, 4, "1F1B", 2),
    "l70b-tp8-pp8-vpp2-fsdp2-full-b16-s8192-r0": ("70B", 128, 8, 1, 16, 8192, "full", False, 1, 8,
                                                  "Interleaved1F1B", 0),
    "l405b-tp8-pp16-fsdp4-full-b16-s8192-r0": ("405B", 512, 8, 1, 16, 8192, "full", False, 1, 16, "1F1B", 0),
    "l8b-pp2-cp2-fsdp2-full-b4-s16384-r0": ("8B", 8, 1, 2, 4, 16384, "full", False, 1, 2, "1F1B", 0),
    "l8b-pp2-cp2-fsdp2-full-b4-s16384-r4": ("8B", 8, 1, 2, 4, 16384, "full", False, 1, 2, "1F1B", 4),
    "l405b-tp8-pp8-fsdp8-full-b8-s8192-r0": ("405B", 512, 8, 1, 8, 8192, "full", False, 1, 8, "1F1B", 0),
    "l405b-tp8-pp8-fsdp8-full-b8-s8192-r448": ("405B", 512, 8, 1, 8, 8192, "full", False, 1, 8, "1F1B",
                                               448),
    "l405b-tp8-pp8-vpp2-fsdp8-full-b16-s8192-r0": ("405B", 512, 8, 1, 16, 8192, "full", False, 1, 8,
                                                   "Interleaved1F1B", 0),
    "m3b-fsdp4-full-b4-s4096": ("3B", 4, 1, 1, 4, 4096, "full", False),
    "s06b-fsdp8-sel-b2-s8192": ("0.6B", 8, 1, 1, 2, 8192, "selective", False),
    "m3b-fsdp2-tp2-none-b1-s4096": ("3B", 4, 2, 1, 1, 4096, "none", False),
    "s06b-fsdp4-cp2-sel-b1-s16384": ("0.6B", 8, 1, 2, 1, 16384, "selective", False),
    "m3b-pp2-fsdp4-full-b8-s4096-r0": ("3B", 8, 1, 1, 8, 4096, "full", False, 1, 2, "1F1B", 0),
    "m3b-pp2-fsdp4-full-b8-s4096-r4": ("3B", 8, 1, 1, 8, 4096, "full", False, 1, 2, "1F1B", 4),
    "s06b-pp4-fsdp2-sel-b8-s4096-r0": ("0.6B", 8, 1, 1, 8, 4096, "selective", False, 1, 4, "1F1B", 0),
    "s06b-pp4-fsdp2-sel-b8-s4096-r6": ("0.6B", 8, 1, 1, 8, 4096, "selective", False, 1, 4, "1F1B", 6),
    "m3b-fsdp4-sel-compile-b2-s4096": ("3B", 4, 1, 1, 2, 4096, "selective", True),
    "s06b-fsdp8-full-compile-b4-s4096": ("0.6B", 8, 1, 1, 4, 4096, "full", True),
    "m3b-fsdp2-cp2-sel-b1-s16384": ("3B", 4, 1, 2, 1, 16384, "selective", False),
    "s06b-fsdp4-tp2-sel-b2-s8192": ("0.6B", 8, 2, 1, 2, 8192, "selective", False),
}

# Model shapes beside torchtitan's own flavors: a few hundred million parameters, and Llama 3.2 3B's.
CUSTOM_FLAVORS = {
    "0.6B": dict(dim=1024, n_layers=24, n_heads=16, n_kv_heads=8, ffn_dim_multiplier=1.3, multiple_of=256,
                 rope_theta=500000),
    "3B": dict(dim=3072, n_layers=28, n_heads=24, n_kv_heads=8, ffn_dim_multiplier=1.0, multiple_of=256,
               rope_theta=500000),
}


class _EmptyModule(types.ModuleType):
    """A stand-in module: any name it is asked for is a new empty class."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        cls = type(name, (), {"__init__": lambda self, *a, **k: None})
        setattr(self, name, cls)
        return cls


def stand_in(name, module_factory):
    try:
        importlib.import_module(name)
        return
    except ImportError:
        pass
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        full = ".".join(parts[:i])
        if full not in sys.modules:
            sys.modules[full] = module_factory(full)
            if i > 1:
                setattr(sys.modules[".".join(parts[: i - 1])], parts[i - 1], sys.modules[full])


class RandomTokens:
    """torchtitan's dataloader contract: yields ({"input": ids}, labels) on the CPU."""

    def __init__(self, vocab, batch, seq):
        self.vocab, self.batch, self.seq = vocab, batch, seq

    def __iter__(self):
        import torch

        g = torch.Generator().manual_seed(0)
        while True:
            ids = torch.randint(0, self.vocab, (self.batch, self.seq + 1), generator=g)
            yield {"input": ids[:, :-1].contiguous()}, ids[:, 1:].contiguous()


def run_case(name, tt_dir):
    flavor, ngpu, tp, cp, batch, seq, ac, compile_, *rest = CASES[name]
    micro_batches, pp, schedule, rank = (list(rest) + [1, 1, "1F1B", 0][len(rest):])
    trace_step = int(os.environ.get("TT_TRACE_STEP", "0"))
    os.environ.update(NGPU=str(ngpu), LOCAL_RANK="0", RANK=str(rank), WORLD_SIZE=str(ngpu))
    sys.path.insert(0, tt_dir)
    stand_in("tyro", lambda n: mock.MagicMock(name=n))
    for m in ("datasets", "datasets.distributed", "torchdata", "torchdata.stateful_dataloader"):
        stand_in(m, _EmptyModule)

    import torch
    from torchtitan.config import JobConfig
    from torchtitan.models.llama3.model.args import TransformerModelArgs
    from torchtitan.protocols.train_spec import get_train_spec, register_train_spec
    from torchtitan.train import Trainer
    import torchtitan.distributed.utils as tt_dist

    def init_fake_rank(world_size, comm_mode="fake_backend"):
        # torchtitan's dry run is always rank 0; a pipeline's other stages need other ranks.
        torch.distributed.init_process_group("fake", rank=rank, world_size=world_size)

    tt_dist.init_fake_mode = init_fake_rank

    base = get_train_spec("llama3")
    flavors = dict(base.model_args)
    flavors.update({k: TransformerModelArgs(**v) for k, v in CUSTOM_FLAVORS.items()})
    vocab = flavors[flavor].vocab_size
    spec = dataclasses.replace(
        base, model_args=flavors, build_tokenizer_fn=None, build_validator_fn=None,
        build_dataloader_fn=lambda **kw: RandomTokens(vocab, batch, seq))
    register_train_spec("llama3", spec)
    if pp > 1:
        # A stage after the first learns its input's shape from the previous stage
        # (recv_object_list), which a fake process group never fills: the hidden states a
        # llama3 stage passes on are (micro-batch 1, seq, dim) in bf16, split on the sequence
        # over cp and over tp (sequence parallelism).
        def recv_shape(objects, *a, **k):
            objects[0] = (torch.empty(1, seq // (tp * cp), flavors[flavor].dim, dtype=torch.bfloat16,
                                      device="meta"),)

        torch.distributed.recv_object_list = recv_shape

    cfg = JobConfig()
    cfg.job.dump_folder = tempfile.mkdtemp()
    cfg.model.name, cfg.model.flavor = "llama3", flavor
    cfg.training.local_batch_size, cfg.training.seq_len, cfg.training.steps = batch, seq, 3
    # Gradient accumulation: torchtitan runs global / (local x data-parallel ranks) micro-batches.
    cfg.training.global_batch_size = batch * (ngpu // (tp * cp * pp)) * micro_batches
    cfg.parallelism.pipeline_parallel_degree = pp
    cfg.parallelism.pipeline_parallel_schedule = schedule
    cfg.lr_scheduler.warmup_steps = 1
    cfg.parallelism.tensor_parallel_degree, cfg.parallelism.context_parallel_degree = tp, cp
    cfg.activation_checkpoint.mode = ac
    cfg.activation_checkpoint.selective_ac_option = "op"
    cfg.compile.enable = compile_
    cfg.comm.mode = "fake_backend"
    cfg.metrics.log_freq = 1000

    steps = []

    class Measured(Trainer):
        def train_step(self, data_iterator):
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            before = {"allocated_at_start": torch.cuda.memory_allocated()}
            step = self.optimizers.step

            def measured_step(*a, **k):
                phase("backward")
                out = step(*a, **k)
                phase("step")
                return out

            loss_fn = self.loss_fn

            def phase(name):
                # The peak since the last phase ended (the largest over micro-batches), and what is
                # allocated as this one ends.
                torch.cuda.synchronize()
                for key, value in ((f"peak_{name}", torch.cuda.max_memory_allocated()),
                                   (f"reserved_{name}", torch.cuda.max_memory_reserved())):
                    before[key] = max(before.get(key, 0), value)
                before[f"allocated_after_{name}"] = torch.cuda.memory_allocated()
                torch.cuda.reset_peak_memory_stats()

            def measured_loss(pred, labels):
                phase("forward")
                loss = loss_fn(pred, labels)
                phase("loss_forward")
                pred.register_hook(lambda grad: phase("loss_backward"))
                return loss

            self.optimizers.step = measured_step
            self.loss_fn = measured_loss
            trace = self.step == trace_step
            if trace:
                torch.cuda.memory._record_memory_history(max_entries=4_000_000, stacks="python")
            t0 = time.perf_counter()
            super().train_step(data_iterator)
            if trace:
                torch.cuda.synchronize()
                snapshot = torch.cuda.memory._snapshot()
                print_peak_allocations(snapshot, before["allocated_at_start"])
                print_segments(snapshot)
                torch.cuda.memory._record_memory_history(enabled=None)
            torch.cuda.synchronize()
            self.optimizers.step, self.loss_fn = step, loss_fn
            phase("rest")
            # Each phase resets the peaks: the step's peak is the largest of theirs.
            names = ("forward", "loss_forward", "loss_backward", "backward", "step", "rest")
            peak = max(names, key=lambda n: before.get(f"peak_{n}", 0))
            steps.append(dict(before, step=self.step, seconds=time.perf_counter() - t0, peak_phase=peak,
                              max_allocated=before[f"peak_{peak}"],
                              max_reserved=max(before.get(f"reserved_{n}", 0) for n in names)))

    trainer = Measured(cfg)
    # The metrics logger resets the peaks at the end of its first step; each step resets them here.
    trainer.metrics_processor.device_memory_monitor.reset_peak_stats = lambda: None
    trainer.train()

    args = trainer.model_args
    parts = trainer.model_parts
    model = parts[0]
    try:
        ffn = int(next(iter(model.layers.values())).feed_forward.w1.weight.shape[0])
    except AttributeError:
        ffn = -1
    gpu = torch.cuda.get_device_properties(0)
    return dict(
        case=name, flavor=flavor, ngpu=ngpu, tp=tp, cp=cp, pp=pp, dp=ngpu // (tp * cp * pp), local_batch=batch,
        seq=seq, micro_batches=micro_batches, schedule=schedule if pp > 1 else "", rank=rank,
        # This rank's stages: their transformer layers, and whether each holds the embedding or
        # the output (norm and projection).
        stages=[dict(layers=len(getattr(p, "layers", None) or []),
                     embedding=getattr(p, "tok_embeddings", None) is not None,
                     output=getattr(p, "output", None) is not None) for p in parts],
        ac=ac, selective_ac_option="op" if ac == "selective" else "", compile=compile_,
        layers=args.n_layers, hidden=args.dim, heads=args.n_heads, kv_heads=args.n_kv_heads or args.n_heads,
        ffn_hidden=ffn, vocab=args.vocab_size,
        params=sum(p.numel() for part in parts for p in part.parameters()), steps=steps,
        gpu=gpu.name, capability=f"{gpu.major}.{gpu.minor}", torch=torch.__version__,
        cuda=torch.version.cuda, cudnn=torch.backends.cudnn.version(),
        alloc_conf=os.environ.get("PYTORCH_ALLOC_CONF", ""),
        cudnn_sdpa=cudnn_attention_runs(torch, args.dim // args.n_heads))


def print_peak_allocations(snapshot, at_start, top=40):
    """The step's allocations live at its peak, grouped by where Python made them (TRACE lines)."""
    events = snapshot["device_traces"][0]
    # torch's allocated count drops at a free request, also for blocks allocated before the step (the
    # last step's gradients, freed by zero_grad): find the peak's place in one pass, then replay up
    # to it to know which of the step's own allocations are live there.
    total, peak, peak_at = 0, 0, -1
    for i, event in enumerate(events):
        if event["action"] == "alloc":
            total += event["size"]
        elif event["action"] == "free_requested":
            total -= event["size"]
        if total > peak:
            peak, peak_at = total, i
    at_peak = {}
    for event in events[: peak_at + 1]:
        if event["action"] == "alloc":
            at_peak[event["addr"]] = event
        elif event["action"] == "free_requested":
            at_peak.pop(event["addr"], None)
    groups = {}
    for event in at_peak.values():
        key = " < ".join(frame_names(event)[:5])
        size, count = groups.get(key, (0, 0))
        groups[key] = (size + event["size"], count + 1)
    print(f"TRACE peak {(at_start + peak) / 2**30:.3f} GiB: {at_start / 2**30:.3f} at the step's start, "
          f"{peak / 2**30:+.3f} allocated and freed in it up to its peak; the step's own allocations "
          "live there:", flush=True)
    for key, (size, count) in sorted(groups.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"TRACE {size / 2**30:8.3f} GiB {count:6d}x {key}", flush=True)


def cudnn_attention_runs(torch, head_dim):
    """Whether torch's cuDNN attention (first in torchtitan's backend list) takes this shape here."""
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q = torch.randn(1, 8, 256, head_dim, device="cuda", dtype=torch.bfloat16)
    try:
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)
        return True
    except RuntimeError:
        return False


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--torchtitan", help="folder holding torchtitan's source")
    p.add_argument("--out", help="append each case's JSON line to this file too")
    p.add_argument("--budget", type=float, default=1e9, help="start no case after this many seconds")
    p.add_argument("--timeout", type=float, default=240, help="seconds a case may run")
    p.add_argument("--alloc-conf", default="expandable_segments:True",
                   help="PYTORCH_ALLOC_CONF for the runs (default: torchtitan's launcher's)")
    p.add_argument("--trace", type=int, default=0, metavar="STEP",
                   help="record step STEP's allocations and print those live at its peak by where they were made")
    p.add_argument("--list", action="store_true", help="print the cases and exit")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("cases", nargs="*", help="cases to run (default: all)")
    a = p.parse_args()
    if a.list:
        for name, c in CASES.items():
            print(name, *c)
        return 0
    if a.child:
        print("RESULT " + json.dumps(run_case(a.child, a.torchtitan)), flush=True)
        return 0
    if not a.torchtitan:
        p.error("--torchtitan is required")
    start, failed = time.monotonic(), 0
    env = dict(os.environ, PYTORCH_ALLOC_CONF=a.alloc_conf, PYTHONUNBUFFERED="1", TT_TRACE_STEP=str(a.trace))
    for name in a.cases or CASES:
        if name not in CASES:
            p.error(f"unknown case {name!r} (see --list)")
        if time.monotonic() - start > a.budget:
            print(f"# {name}: skipped, budget spent", flush=True)
            continue
        cmd = [sys.executable, os.path.abspath(__file__), "--torchtitan", a.torchtitan, "--child", name]
        try:
            r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=a.timeout)
            out, err, rc = r.stdout, r.stderr, r.returncode
        except subprocess.TimeoutExpired as e:
            text = lambda b: b.decode(errors="replace") if isinstance(b, bytes) else (b or "")
            out, err, rc = text(e.stdout), text(e.stderr), "timeout"
        lines = [line[7:] for line in (out or "").splitlines() if line.startswith("RESULT ")]
        for line in (out or "").splitlines():
            if line.startswith("TRACE "):
                print(line, flush=True)
        if rc != 0 or not lines:
            failed += 1
            print(f"# {name}: failed ({rc})\n" + "\n".join((err or "").splitlines()[-25:]), flush=True)
            continue
        print(lines[-1], flush=True)
        if a.out:
            with open(a.out, "a") as f:
                f.write(lines[-1] + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
