#include <hetsched/model/job_options.hpp>

#include <hetsched/catalog/model_preset.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/model/model_style.hpp>

namespace hetsched::model {

bool flags_describe_job(const JobOptions& o) { return !o.model.empty() || (o.layers && o.hidden); }

JobSpec job_from_options(const JobOptions& o) {
    JobSpec job;
    if (!o.model.empty()) {
        job.model = catalog::find_model(o.model);
        job.dropout_stated = true;  // a preset's style
    } else if (o.layers && o.hidden && o.heads && o.vocab) {
        job.model.kv_heads = o.heads;
        job.model.ffn_hidden = 4 * o.hidden;
        // A model of the flags alone has the norm and biases of the style its MLP names, as a custom
        // model of a document does: GPT-2's, unless --gated-mlp.
        job.model.gated_mlp = o.gated_mlp == 1;
        const NormAndBias style = style_norm_and_bias(job.model.gated_mlp);
        job.model.rms_norm = style.rms_norm;
        job.model.linear_bias = style.linear_bias;
    } else {
        throw UsageError("no model: give --model NAME, or --layers, --hidden, --heads and --vocab, or a job document");
    }
    if (!o.seq_len || !o.global_batch) throw UsageError("--seq-len and --global-batch are required with --model");
    apply_job_options(o, job);
    return job;
}

void apply_job_options(const JobOptions& o, JobSpec& job, std::vector<std::string>* keys) {
    // Each flag given sets its job document key; `keys` records which (the document's failures are
    // told apart from the flags' by them).
    auto given = [keys](bool said, const char* key) {
        if (said && keys) keys->push_back(key);
        return said;
    };
    if (given(!o.model.empty(), "name") && o.model != job.model.name) {  // --model replaces a document's model whole
        job.model = catalog::find_model(o.model);
        job.dropout_stated = true;  // a preset's style
    }
    auto& m = job.model;
    auto set = [&](long v, long& dst, const char* key) {
        if (given(v, key)) dst = v;
    };
    set(o.layers, m.layers, "layers");
    set(o.hidden, m.hidden, "hidden");
    set(o.heads, m.heads, "heads");
    set(o.kv_heads, m.kv_heads, "kv_heads");
    set(o.head_dim, m.head_dim, "head_dim");
    set(o.ffn_hidden, m.ffn_hidden, "ffn_hidden");
    set(o.vocab, m.vocab, "vocab");
    if (given(o.gated_mlp >= 0, "gated_mlp")) m.gated_mlp = o.gated_mlp == 1;
    if (given(o.tied_embeddings >= 0, "tied_embeddings")) m.tied_embeddings = o.tied_embeddings == 1;
    if (given(o.qk_norm >= 0, "qk_norm")) m.qk_norm = o.qk_norm == 1;
    if (given(o.dropout >= 0, "dropout")) {
        m.dropout = o.dropout;
        job.dropout_stated = true;
    }
    if (given(o.learned_positions >= 0, "learned_positions")) m.learned_positions = o.learned_positions;
    auto& t = job.training;
    set(o.seq_len, t.seq_len, "seq_len");
    set(o.global_batch, t.global_batch, "global_batch");
    set(o.micro_batch, job.micro_batch, "micro_batch");
    set(o.iterations, job.iterations, "iterations");
    if (given(!o.precision.empty(), "precision")) t.precision = o.precision;
    if (given(!o.optimizer.empty(), "optimizer")) t.optimizer = o.optimizer;
    const Framework before = t.framework;
    if (given(!o.framework.empty(), "framework")) t.framework = parse_framework(o.framework);
    if (given(!o.recompute.empty(), "recompute")) t.recompute = parse_recompute(o.recompute);
    if (given(o.zero_stage >= 0, "zero_stage")) {
        t.zero_stage = o.zero_stage;
        job.zero_stage_given = true;
    } else if ((t.framework != before && job.framework_given) || !job.zero_stage_given) {
        // A stage unsaid, or said for a framework the document names and --framework replaces: the new
        // framework's default. (A document that names none gives its stage for whichever runs it.)
        t.zero_stage = default_zero_stage(t.framework);
        job.zero_stage_given = false;
    }
    if (given(o.distributed_optimizer, "distributed_optimizer")) t.distributed_optimizer = true;
    if (given(o.seq_parallel, "seq_parallel")) t.seq_parallel = true;
    if (given(o.no_flash_attention, "flash_attention")) t.flash_attention = false;
    if (given(o.unfused_fp32_softmax, "unfused_fp32_softmax")) t.unfused_fp32_softmax = true;
    if (given(!o.attention_backend.empty(), "attention_backend")) parse_attention_backend(o.attention_backend, t);
    if (given(!o.deepspeed_model.empty(), "deepspeed_model")) parse_deepspeed_model(o.deepspeed_model, t);
    if (given(!o.transformer_impl.empty(), "transformer_impl")) parse_transformer_impl(o.transformer_impl, t);
    if (given(!o.compile.empty(), "compile")) parse_compile(o.compile, t);
    if (given(o.fp8_all_gather, "fp8_all_gather")) t.fp8_all_gather = true;
    if (given(o.fp32_allreduce, "fp32_allreduce")) t.fp32_allreduce = true;
    if (given(o.tf32, "tf32")) t.tf32 = true;
    if (given(o.overlap_comm, "overlap_comm")) t.overlap_comm = true;
    if (given(o.reduce_bucket_size > 0, "reduce_bucket_size")) {
        t.reduce_bucket_size = o.reduce_bucket_size;
        job.reduce_bucket_auto = false;
    } else if (job.reduce_bucket_auto) {
        t.reduce_bucket_size = static_cast<double>(m.hidden) * static_cast<double>(m.hidden);  // the model's now
    }
    if (given(o.sub_group_size > 0, "sub_group_size")) t.sub_group_size = o.sub_group_size;
    if (given(o.max_live_parameters > 0, "stage3_max_live_parameters")) t.max_live_parameters = o.max_live_parameters;
    if (given(o.first_iteration, "first_iteration")) t.first_iteration = true;
    if (given(!o.framework_version.empty(), "framework_version")) t.framework_version = o.framework_version;
    if (given(!o.cublas_workspace_config.empty(), "cublas_workspace_config"))
        t.cublas_workspace_config = o.cublas_workspace_config;
    if (given(o.checkpoint_every, "checkpoint_every")) t.checkpoint_every = o.checkpoint_every;
    if (given(!o.layers_per_stage.empty(), "layers_per_stage")) job.layers_per_stage = o.layers_per_stage;
    if (!job.dropout_stated) m.dropout = default_dropout(m, t);  // for the framework the flags leave
    // A table the flag states must hold the sequence, as a document's must; a preset's grows to it.
    if (o.learned_positions > 0 && o.learned_positions < t.seq_len)
        throw UsageError("--learned-positions (" + std::to_string(o.learned_positions) + ") is shorter than seq_len (" +
                         std::to_string(t.seq_len) + "): a token past the table's last row has no position to read");
    cover_sequence(job);  // for the sequence --seq-len gives
    // A model or training that fails now is a usage error; load_job_document tells the document's own
    // failures apart.
    try {
        validate(m, t);
        check_split_sum(job.layers_per_stage, m.layers);
        if (o.micro_batch || o.global_batch) check_micro_batch(t, job.micro_batch);
    } catch (const DataError& e) {
        throw UsageError(e.what());
    }
}

Layout layout_from_options(const JobOptions& o, const JobSpec& job) {
    Layout l;
    l.tp = o.tp ? o.tp : 1;
    l.pp = o.pp ? o.pp : 1;
    l.dp = o.dp ? o.dp : 1;
    l.cp = o.cp ? o.cp : 1;
    l.vpp = o.vpp ? o.vpp : 1;
    l.micro_batch = job.micro_batch ? job.micro_batch : 1;
    l.layers_per_stage = job.layers_per_stage;
    if (!o.pp && !l.layers_per_stage.empty()) l.pp = static_cast<int>(l.layers_per_stage.size());
    // A document's own split was checked as it was read: a layout that fails now is the flags' doing
    // (--tp 5 for 32 heads, --pp 3 beside a split of two stages), a usage error as for the model's flags.
    if (o.layout_given()) {
        try {
            validate(job.model, job.training, l);
        } catch (const DataError& e) {
            throw UsageError(e.what());
        }
    }
    return l;
}

}  // namespace hetsched::model
