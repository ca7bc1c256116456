#include <hetsched/model/job_spec.hpp>

#include <cctype>

#include <algorithm>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/catalog/known_keys.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/model/model_style.hpp>

namespace hetsched::model {
namespace {

using io::YamlDocument;

/// Every key a reader of the job's `model:` section knows.
const std::vector<std::string> kModelKeys = {
    "name", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden", "vocab", "gated_mlp",
    "tied_embeddings", "rms_norm", "linear_bias", "causal", "qk_norm", "dropout", "learned_positions"};
/// Every key a reader of `training:` knows: read_job_spec's, and planalloc's `slo_s`.
const std::vector<std::string> kTrainingKeys = {
    "seq_len", "global_batch", "micro_batch", "iterations", "layers_per_stage", "precision", "optimizer",
    "zero_stage", "distributed_optimizer", "seq_parallel", "flash_attention", "unfused_fp32_softmax",
    "attention_backend", "fp8_all_gather", "fp32_allreduce", "tf32", "overlap_comm", "reduce_bucket_size",
    "sub_group_size", "stage3_max_live_parameters", "first_iteration", "framework_version",
    "cublas_workspace_config", "transformer_impl", "deepspeed_model", "checkpoint_every", "compile", "recompute",
    "framework", "slo_s"};

long read_count(const YamlDocument& doc, const YAML::Node& sec, const char* key, long fallback, bool required,
               long hi) {
    YAML::Node n = io::optional_child(doc, sec, key);
    if (!n.IsDefined()) {
        if (required) throw DataError(std::string("missing key '") + key + "'", doc.where(sec));
        return fallback;
    }
    return io::yaml_integer(doc, n, key, 1, hi);
}

bool read_flag(const YamlDocument& doc, const YAML::Node& sec, const char* key, bool fallback) {
    YAML::Node n = io::optional_child(doc, sec, key);
    return n.IsDefined() ? io::yaml_bool(doc, n, key) : fallback;
}

/// A DeepSpeed element count under `key` (1 to 1e13), or `fallback` when the key is absent.
double read_elements(const YamlDocument& doc, const YAML::Node& sec, const char* key, double fallback) {
    YAML::Node n = io::optional_child(doc, sec, key);
    return n.IsDefined() ? io::yaml_number(doc, n, key, 1, limits::bucket_elements) : fallback;
}

/// Sets `t` from the word under `key` with `parse` (one of training.hpp's parse_*), if the key is
/// there; a word `parse` refuses is reported at its position.
void read_setting(const YamlDocument& doc, const YAML::Node& sec, const char* key,
                  void (*parse)(const std::string&, Training&), Training& t) {
    YAML::Node n = io::optional_child(doc, sec, key);
    if (!n.IsDefined()) return;
    const std::string written = io::yaml_string(doc, n, key), word = io::folded_name(written);
    try {
        parse(word, t);  // words in any case: Selective, Megatron
    } catch (const DataError& e) {
        std::string why = e.what();  // quoting the word as written, not as folded
        if (const size_t at = why.find("'" + word + "'"); at != std::string::npos) why.replace(at + 1, word.size(), written);
        throw DataError(why, doc.where(n));
    }
}

/// Sets `t` from the word under `key` with `set`, if the key is there, checking the word on its own
/// first (in a Training that is otherwise the defaults), so that a word validate_training refuses
/// is reported at its position; combinations with other keys are checked later, at the section.
void read_checked(const YamlDocument& doc, const YAML::Node& sec, const char* key,
                  void (*set)(const std::string&, Training&), Training& t) {
    YAML::Node n = io::optional_child(doc, sec, key);
    if (!n.IsDefined()) return;
    const std::string word = io::yaml_string(doc, n, key);
    try {
        Training alone;
        alone.seq_len = alone.global_batch = 1;
        set(word, alone);
        validate_training(alone);
    } catch (const DataError& e) {
        throw DataError(e.what(), doc.where(n));
    }
    set(word, t);
}

/// The model section; `dropout_stated` says whether it gives the dropout (or names a preset, whose
/// style does).
catalog::ModelSpec read_model(const YamlDocument& doc, const YAML::Node& sec, bool& dropout_stated) {
    catalog::check_known_keys(doc, sec, "model", kModelKeys);
    catalog::ModelSpec m;
    YAML::Node name = io::optional_child(doc, sec, "name");
    bool preset = false;
    if (name.IsDefined()) {
        try {
            m = catalog::find_model(io::yaml_string(doc, name, "name"));
            preset = true;
        } catch (const UsageError& e) {
            m.name = name.Scalar();  // a custom model: every dimension must be given
            if (!io::optional_child(doc, sec, "layers").IsDefined())
                throw DataError(std::string(e.what()) + "; a custom model needs layers, hidden, heads and vocab",
                                doc.where(name));
        }
    }
    m.layers = read_count(doc, sec, "layers", m.layers, !preset, limits::layers);
    m.hidden = read_count(doc, sec, "hidden", m.hidden, !preset, limits::hidden);
    m.heads = read_count(doc, sec, "heads", m.heads, !preset, limits::heads);
    m.kv_heads = read_count(doc, sec, "kv_heads", preset ? m.kv_heads : m.heads, false, limits::heads);
    if (YAML::Node d = io::optional_child(doc, sec, "head_dim"); d.IsDefined())
        m.head_dim = io::yaml_integer(doc, d, "head_dim", 1, limits::head_dim);
    m.ffn_hidden = read_count(doc, sec, "ffn_hidden", preset ? m.ffn_hidden : 4 * m.hidden, false, limits::ffn_hidden);
    m.vocab = read_count(doc, sec, "vocab", m.vocab, !preset, limits::vocab);
    m.gated_mlp = read_flag(doc, sec, "gated_mlp", m.gated_mlp);
    m.tied_embeddings = read_flag(doc, sec, "tied_embeddings", m.tied_embeddings);
    // A custom model that does not state its norm or biases has those of the style its MLP names.
    const NormAndBias style = preset ? NormAndBias{m.rms_norm, m.linear_bias} : style_norm_and_bias(m.gated_mlp);
    m.rms_norm = read_flag(doc, sec, "rms_norm", style.rms_norm);
    m.linear_bias = read_flag(doc, sec, "linear_bias", style.linear_bias);
    m.causal = read_flag(doc, sec, "causal", m.causal);
    m.qk_norm = read_flag(doc, sec, "qk_norm", m.qk_norm);
    dropout_stated = preset;
    if (YAML::Node d = io::optional_child(doc, sec, "dropout"); d.IsDefined()) {
        m.dropout = io::yaml_number(doc, d, "dropout", 0, 0.99);
        dropout_stated = true;
    }
    if (YAML::Node p = io::optional_child(doc, sec, "learned_positions"); p.IsDefined())
        m.learned_positions = io::yaml_integer(doc, p, "learned_positions", 0, limits::seq_len);
    return m;
}

}  // namespace

JobSpec read_job_spec(const YamlDocument& doc, bool checked) {
    JobSpec job;
    job.model = read_model(doc, io::required_child(doc, doc.root, "model"), job.dropout_stated);
    YAML::Node sec = io::required_child(doc, doc.root, "training");
    // The count of micro-batches is no setting: it follows from the batch sizes (the nearest key,
    // micro_batch, is the size of one).
    if (sec.IsMap())
        for (const char* count : {"micro_batches", "num_microbatches", "num_micro_batches", "gradient_accumulation_steps"})
            if (const YAML::Node n = io::optional_child(doc, sec, count); n.IsDefined())
                throw DataError(std::string("unknown key '") + count +
                                    "' in 'training': the micro-batches an iteration are global_batch / (micro_batch x dp); "
                                    "give global_batch and micro_batch (sequences a micro-batch)",
                                doc.where(n));
    catalog::check_known_keys(doc, sec, "training", kTrainingKeys);
    Training& t = job.training;
    t.seq_len = read_count(doc, sec, "seq_len", 0, true, limits::seq_len);
    t.global_batch = read_count(doc, sec, "global_batch", 0, true, limits::global_batch);
    job.micro_batch = read_count(doc, sec, "micro_batch", 0, false, limits::global_batch);
    job.iterations = read_count(doc, sec, "iterations", 0, false, limits::iterations);
    if (YAML::Node split = io::optional_child(doc, sec, "layers_per_stage"); split.IsDefined()) {
        if (!split.IsSequence() || split.size() == 0 || split.size() > static_cast<size_t>(limits::degree))
            throw DataError("expected a list of layer counts, one per pipeline stage, under 'layers_per_stage'",
                            doc.where(split));
        for (const auto& n : split) job.layers_per_stage.push_back(io::yaml_integer(doc, n, "layers_per_stage", 1, limits::layers));
        job.layers_per_stage_where = doc.where(split);
    }
    // planalloc's SLO, range-checked here too, so that no tool passes a bad one on to it.
    if (YAML::Node slo = io::optional_child(doc, sec, "slo_s"); slo.IsDefined())
        io::yaml_number(doc, slo, "slo_s", limits::min_slo_s, limits::max_slo_s);
    read_checked(doc, sec, "precision", +[](const std::string& w, Training& t) { t.precision = precision_word(w); }, t);
    read_checked(doc, sec, "optimizer", +[](const std::string& w, Training& t) { t.optimizer = io::folded_name(w); }, t);
    if (YAML::Node z = io::optional_child(doc, sec, "zero_stage"); z.IsDefined()) {
        t.zero_stage = static_cast<int>(io::yaml_integer(doc, z, "zero_stage", 0, 3));
        job.zero_stage_given = true;
    }
    t.distributed_optimizer = read_flag(doc, sec, "distributed_optimizer", t.distributed_optimizer);
    t.seq_parallel = read_flag(doc, sec, "seq_parallel", t.seq_parallel);
    t.flash_attention = read_flag(doc, sec, "flash_attention", t.flash_attention);
    t.unfused_fp32_softmax = read_flag(doc, sec, "unfused_fp32_softmax", t.unfused_fp32_softmax);
    read_setting(doc, sec, "attention_backend", parse_attention_backend, t);
    t.fp8_all_gather = read_flag(doc, sec, "fp8_all_gather", t.fp8_all_gather);
    t.fp32_allreduce = read_flag(doc, sec, "fp32_allreduce", t.fp32_allreduce);
    t.tf32 = read_flag(doc, sec, "tf32", t.tf32);
    t.overlap_comm = read_flag(doc, sec, "overlap_comm", t.overlap_comm);
    // "auto", as Hugging Face's DeepSpeed configs write it: the Trainer sets hidden x hidden.
    if (const YAML::Node b = io::optional_child(doc, sec, "reduce_bucket_size"); b.IsDefined() && b.IsScalar() &&
                                                                                 io::folded_name(b.Scalar()) == "auto") {
        job.reduce_bucket_auto = true;  // apply_job_options works it out again for the model flags leave
        t.reduce_bucket_size = static_cast<double>(job.model.hidden) * static_cast<double>(job.model.hidden);
    } else
        t.reduce_bucket_size = read_elements(doc, sec, "reduce_bucket_size", t.reduce_bucket_size);
    t.sub_group_size = read_elements(doc, sec, "sub_group_size", t.sub_group_size);
    t.max_live_parameters = read_elements(doc, sec, "stage3_max_live_parameters", t.max_live_parameters);
    t.first_iteration = read_flag(doc, sec, "first_iteration", t.first_iteration);
    read_checked(doc, sec, "framework_version", +[](const std::string& w, Training& t) { t.framework_version = w; }, t);
    read_checked(doc, sec, "cublas_workspace_config",
                 +[](const std::string& w, Training& t) { t.cublas_workspace_config = w; }, t);
    read_setting(doc, sec, "transformer_impl", parse_transformer_impl, t);
    read_setting(doc, sec, "deepspeed_model", parse_deepspeed_model, t);
    if (YAML::Node c = io::optional_child(doc, sec, "checkpoint_every"); c.IsDefined())
        t.checkpoint_every = static_cast<int>(io::yaml_integer(doc, c, "checkpoint_every", 1, limits::layers));
    read_setting(doc, sec, "compile", parse_compile, t);
    read_setting(doc, sec, "recompute", +[](const std::string& w, Training& t) { t.recompute = parse_recompute(w); }, t);
    // megatron-deepspeed: DeepSpeed's engine on Megatron-DeepSpeed's model code, unless deepspeed_model says.
    job.framework_given = io::optional_child(doc, sec, "framework").IsDefined();
    read_setting(doc, sec, "framework", +[](const std::string& w, Training& t) {
        t.framework = parse_framework(w);
        if (t.framework == Framework::deepspeed && t.deepspeed_model.empty() && names_megatron_deepspeed(w))
            t.deepspeed_model = "megatron";
    }, t);
    if (!job.zero_stage_given) t.zero_stage = default_zero_stage(t.framework);
    if (!job.dropout_stated) job.model.dropout = default_dropout(job.model, t);
    if (checked) check_job_spec(doc, job);
    // A table the document states must hold the sequence; a preset's grows to it (see below).
    const YAML::Node positions = io::optional_child(doc, io::required_child(doc, doc.root, "model"), "learned_positions");
    if (positions.IsDefined() && job.model.learned_positions > 0 && job.model.learned_positions < t.seq_len)
        throw DataError("learned_positions (" + std::to_string(job.model.learned_positions) +
                            ") is shorter than seq_len (" + std::to_string(t.seq_len) +
                            "): a token past the table's last row has no position to read",
                        doc.where(positions));
    cover_sequence(job);
    return job;
}

size_t named_at(const std::string& message, const std::string& key) {
    auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
    for (size_t at = message.find(key); at != std::string::npos; at = message.find(key, at + 1))
        if ((at == 0 || !word_char(message[at - 1])) &&
            (at + key.size() >= message.size() || !word_char(message[at + key.size()]) ||
             (message[at + key.size()] == '.' && (at + key.size() + 1 == message.size() || message[at + key.size() + 1] == ' '))))
            return at;
    return std::string::npos;
}

DataError document_error(const YamlDocument& doc, const std::string& message) {
    size_t best = std::string::npos;
    // (Positions, not nodes: assigning a yaml-cpp node writes into the node it stands for.)
    SourcePos where = doc.where(io::required_child(doc, doc.root, "training"));
    for (const char* section : {"model", "training"}) {
        const YAML::Node sec = io::required_child(doc, doc.root, section);
        if (!sec.IsMap()) continue;
        for (const auto& kv : sec)
            if (const size_t at = named_at(message, kv.first.Scalar()); at < best) best = at, where = doc.where(kv.first);
    }
    return DataError(message, where);
}

void check_job_spec(const YamlDocument& doc, const JobSpec& job) {
    // In apply_job_options' order, so that the first failure is the same with the flags as without.
    try {
        validate_model(job.model);
        validate_training(job.training);
    } catch (const DataError& e) {
        throw document_error(doc, e.what());
    }
    if (!job.layers_per_stage.empty()) {
        try {
            check_split_sum(job.layers_per_stage, job.model.layers);
        } catch (const DataError& e) {
            throw DataError(e.what(), job.layers_per_stage_where);
        }
    }
}

void cover_sequence(JobSpec& job) {
    auto& m = job.model;
    if (m.learned_positions > 0) m.learned_positions = std::max(m.learned_positions, job.training.seq_len);
}

YAML::Node model_to_yaml(const catalog::ModelSpec& m) {
    YAML::Node n(YAML::NodeType::Map);
    n["name"] = m.name;
    n["layers"] = m.layers;
    n["hidden"] = m.hidden;
    n["heads"] = m.heads;
    n["kv_heads"] = m.kv_heads;
    if (m.head_dim > 0) n["head_dim"] = m.head_dim;
    n["ffn_hidden"] = m.ffn_hidden;
    n["gated_mlp"] = m.gated_mlp;
    n["vocab"] = m.vocab;
    n["tied_embeddings"] = m.tied_embeddings;
    n["rms_norm"] = m.rms_norm;
    n["linear_bias"] = m.linear_bias;
    if (m.qk_norm) n["qk_norm"] = true;
    n["learned_positions"] = m.learned_positions;
    n["dropout"] = io::yaml_number_node(m.dropout);
    n["causal"] = m.causal;
    return n;
}

YAML::Node training_to_yaml(const JobSpec& job) {
    const Training& t = job.training;
    const long micro_batch = job.micro_batch, iterations = job.iterations;
    YAML::Node n(YAML::NodeType::Map);
    n["seq_len"] = t.seq_len;
    n["global_batch"] = t.global_batch;
    if (micro_batch > 0) n["micro_batch"] = micro_batch;
    n["precision"] = t.precision;
    n["optimizer"] = t.optimizer;
    n["framework"] = framework_name(t.framework);
    n["zero_stage"] = t.zero_stage;
    n["distributed_optimizer"] = t.distributed_optimizer;
    n["recompute"] = recompute_name(t.recompute);
    n["seq_parallel"] = t.seq_parallel;
    n["flash_attention"] = t.flash_attention;
    if (t.unfused_fp32_softmax) n["unfused_fp32_softmax"] = true;
    if (t.cudnn_attention) n["attention_backend"] = "cudnn";
    if (!t.deepspeed_model.empty()) n["deepspeed_model"] = t.deepspeed_model;
    if (t.local_impl) n["transformer_impl"] = "local";
    if (t.compiled || t.compiled_loss) n["compile"] = compile_name(t);
    if (t.fp8_all_gather) n["fp8_all_gather"] = true;
    if (t.fp32_allreduce) n["fp32_allreduce"] = true;
    if (t.tf32) n["tf32"] = true;
    if (t.reduce_bucket_size > 0) n["reduce_bucket_size"] = io::yaml_number_node(t.reduce_bucket_size);
    if (t.overlap_comm) n["overlap_comm"] = true;
    if (t.sub_group_size > 0) n["sub_group_size"] = io::yaml_number_node(t.sub_group_size);
    if (t.max_live_parameters > 0) n["stage3_max_live_parameters"] = io::yaml_number_node(t.max_live_parameters);
    if (!t.framework_version.empty()) n["framework_version"] = t.framework_version;
    if (!t.cublas_workspace_config.empty()) n["cublas_workspace_config"] = t.cublas_workspace_config;
    if (t.checkpoint_every > 1) n["checkpoint_every"] = t.checkpoint_every;
    if (t.first_iteration) n["first_iteration"] = true;
    if (iterations > 0) n["iterations"] = iterations;
    if (!job.layers_per_stage.empty()) {
        YAML::Node split(YAML::NodeType::Sequence);
        for (long c : job.layers_per_stage) split.push_back(c);
        n["layers_per_stage"] = split;
    }
    return n;
}

}  // namespace hetsched::model
