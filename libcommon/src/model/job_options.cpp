#include <hetsched/model/job_options.hpp>

#include <hetsched/cli/app.hpp>
#include <hetsched/cli/error.hpp>

namespace hetsched::model {

namespace cli = hetsched::cli;

void add_job_options(CLI::App& app, JobOptions& o, bool layout) {
    const char* m = "Model";
    app.add_option("--model", o.model, "Model preset (see --list-models)")->group(m);
    app.add_option("--layers", o.layers, "Transformer layers")->group(m)->check(cli::positive());
    app.add_option("--hidden", o.hidden, "Hidden size")->group(m)->check(cli::positive());
    app.add_option("--heads", o.heads, "Attention heads")->group(m)->check(cli::positive());
    app.add_option("--kv-heads", o.kv_heads, "Key/value heads (GQA groups)")->group(m)->check(cli::positive());
    app.add_option("--ffn-hidden", o.ffn_hidden, "MLP inner size")->group(m)->check(cli::positive());
    app.add_option("--vocab", o.vocab, "Vocabulary size")->group(m)->check(cli::positive());
    const char* t = "Training";
    app.add_option("--seq-len", o.seq_len, "Sequence length in tokens")->group(t)->check(cli::positive());
    app.add_option("--global-batch", o.global_batch, "Sequences per iteration")->group(t)->check(cli::positive());
    app.add_option("--micro-batch", o.micro_batch, "Sequences per micro-batch")->group(t)->check(cli::positive());
    app.add_option("--iterations", o.iterations, "Training iterations")->group(t)->check(cli::positive());
    app.add_option("--precision", o.precision, "bf16, fp16, fp8 or fp32")->group(t)
        ->check(CLI::IsMember({"bf16", "fp16", "fp8", "fp32"}));
    app.add_option("--optimizer", o.optimizer, "adam, adamw or sgd")->group(t)->check(CLI::IsMember({"adam", "adamw", "sgd"}));
    app.add_option("--framework", o.framework, "Allocation habits: megatron, deepspeed or fsdp")->group(t)
        ->check(CLI::IsMember({"megatron", "deepspeed", "fsdp"}));
    app.add_option("--zero-stage", o.zero_stage, "ZeRO/FSDP sharding stage 0-3")->group(t)->check(CLI::Range(0, 3));
    app.add_flag("--distributed-optimizer", o.distributed_optimizer, "Megatron's sharded optimizer")->group(t);
    app.add_option("--recompute", o.recompute, "none, selective or full")->group(t)
        ->check(CLI::IsMember({"none", "selective", "full"}));
    app.add_flag("--seq-parallel", o.seq_parallel, "Sequence parallelism with tensor parallelism")->group(t);
    app.add_flag("--no-flash-attention", o.no_flash_attention, "Unfused attention (stores the score matrices)")->group(t);
    if (!layout) return;
    const char* l = "Layout (omit all for ranked plans)";
    app.add_option("--tp", o.tp, "Tensor-parallel degree")->group(l)->check(cli::positive());
    app.add_option("--pp", o.pp, "Pipeline-parallel degree")->group(l)->check(cli::positive());
    app.add_option("--dp", o.dp, "Data-parallel degree")->group(l)->check(cli::positive());
    app.add_option("--cp", o.cp, "Context-parallel degree")->group(l)->check(cli::positive());
    app.add_option("--vpp", o.vpp, "Virtual pipeline chunks per stage (interleaved 1F1B)")->group(l)
        ->check(cli::positive());
}

JobSpec job_from_options(const JobOptions& o) {
    JobSpec job;
    if (!o.model.empty()) {
        job.model = catalog::find_model(o.model);
    } else if (o.layers && o.hidden && o.heads && o.vocab) {
        job.model.kv_heads = o.heads;
        job.model.ffn_hidden = 4 * o.hidden;
    } else {
        throw UsageError("no model: give --model NAME, or --layers, --hidden, --heads and --vocab, or a job document");
    }
    if (!o.seq_len || !o.global_batch) throw UsageError("--seq-len and --global-batch are required with --model");
    apply_job_options(o, job);
    return job;
}

void apply_job_options(const JobOptions& o, JobSpec& job) {
    auto& m = job.model;
    auto set = [](long v, long& dst) { if (v) dst = v; };
    set(o.layers, m.layers);
    set(o.hidden, m.hidden);
    set(o.heads, m.heads);
    set(o.kv_heads, m.kv_heads);
    set(o.ffn_hidden, m.ffn_hidden);
    set(o.vocab, m.vocab);
    auto& t = job.training;
    set(o.seq_len, t.seq_len);
    set(o.global_batch, t.global_batch);
    set(o.micro_batch, job.micro_batch);
    set(o.iterations, job.iterations);
    if (!o.precision.empty()) t.precision = o.precision;
    if (!o.optimizer.empty()) t.optimizer = o.optimizer;
    if (!o.framework.empty()) t.framework = parse_framework(o.framework);
    if (!o.recompute.empty()) t.recompute = parse_recompute(o.recompute);
    if (o.zero_stage >= 0) t.zero_stage = o.zero_stage;
    if (o.distributed_optimizer) t.distributed_optimizer = true;
    if (o.seq_parallel) t.seq_parallel = true;
    if (o.no_flash_attention) t.flash_attention = false;
}

Layout layout_from_options(const JobOptions& o, const JobSpec& job) {
    Layout l;
    l.tp = o.tp ? o.tp : 1;
    l.pp = o.pp ? o.pp : 1;
    l.dp = o.dp ? o.dp : 1;
    l.cp = o.cp ? o.cp : 1;
    l.vpp = o.vpp ? o.vpp : 1;
    l.micro_batch = job.micro_batch ? job.micro_batch : 1;
    return l;
}

}  // namespace hetsched::model
