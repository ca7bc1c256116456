#pragma once
/// What the command line says about a job (model, training, layout), as plain values: the tools
/// register the flags (cli/job_flags.hpp), the library builds or overrides a job from them.
#include <string>
#include <vector>

#include <hetsched/model/job_spec.hpp>

namespace hetsched::model {

/// Values given on the command line; zero or empty means "not given".
struct JobOptions {
    bool catalog_given = false;  ///< --catalog named on the command line (a job's own gpus: then conflict)
    std::string model;
    long layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn_hidden = 0, vocab = 0;
    int gated_mlp = -1, tied_embeddings = -1;  ///< --gated-mlp/--plain-mlp, --tied/--untied-embeddings; -1 unsaid
    int qk_norm = -1;                          ///< --qk-norm/--no-qk-norm; -1 unsaid
    double dropout = -1;                       ///< --dropout; -1 unsaid
    long learned_positions = -1;               ///< --learned-positions; -1 unsaid
    long seq_len = 0, global_batch = 0, micro_batch = 0, iterations = 0;
    std::string precision, optimizer, recompute, framework, framework_version, attention_backend, deepspeed_model,
        transformer_impl, cublas_workspace_config;
    int zero_stage = -1;
    int checkpoint_every = 0;
    bool distributed_optimizer = false, seq_parallel = false, no_flash_attention = false, fp8_all_gather = false;
    bool unfused_fp32_softmax = false, fp32_allreduce = false, overlap_comm = false, tf32 = false;
    double reduce_bucket_size = 0, sub_group_size = 0, max_live_parameters = 0;
    bool first_iteration = false;
    std::string compile;  ///< --compile[=model|loss|model+loss]; bare --compile is model+loss
    int tp = 0, pp = 0, dp = 0, cp = 0, vpp = 0;
    std::vector<long> layers_per_stage;  ///< --layers-per-stage

    bool layout_given() const { return tp || pp || dp || cp || vpp || !layers_per_stage.empty(); }
};

/// Whether the flags describe a job without a document (--model, or --layers and --hidden).
bool flags_describe_job(const JobOptions& o);

/// A job built from the flags alone (needs --model or every dimension); UsageError otherwise.
JobSpec job_from_options(const JobOptions& o);
/// Overrides `job` with whatever the flags give, adding to `keys` (where given) the job document's
/// keys (model:, training:) they set, as each is set: a caller that catches the UsageError a failed
/// combination throws has them.
void apply_job_options(const JobOptions& o, JobSpec& job, std::vector<std::string>* keys = nullptr);
/// The layout the flags give (unset degrees are 1; micro-batch from the flag or the job; the split
/// from the flag or the job, pp from the split when not given). A layout the flags give that the job
/// cannot take (tp not dividing heads, a split of other than pp stages) is a UsageError.
Layout layout_from_options(const JobOptions& o, const JobSpec& job);

}  // namespace hetsched::model
