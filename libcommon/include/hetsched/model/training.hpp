#pragma once
/// How a model is trained (batch, precision, optimizer, sharding, recomputation) and how it is laid
/// out on GPUs (tensor, pipeline, data and context parallel degrees).
#include <string>
#include <vector>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/catalog/model_preset.hpp>

namespace hetsched::model {

/// Which framework's allocation habits the memory model follows.
enum class Framework {
    megatron,   ///< Megatron-LM: fp32 main grads, fp32 master weights, fused vocab-parallel loss
    deepspeed,  ///< DeepSpeed ZeRO: 16-bit grads, fp32 optimizer partitions
    fsdp,       ///< PyTorch FSDP2 (torchtitan): fp32 sharded parameters, 16-bit gathered copies
};

enum class Recompute { none, selective, full };

/// Training settings that do not depend on the GPU layout.
struct Training {
    long seq_len = 2048;
    long global_batch = 0;
    std::string precision = "bf16";  ///< bf16, fp16, fp8 (bf16 master) or fp32
    std::string optimizer = "adam";  ///< adam (adamw) or sgd (with momentum)
    int zero_stage = 0;              ///< 0: none, 1: optimizer, 2: + gradients, 3: + parameters sharded
    bool distributed_optimizer = false;
    Recompute recompute = Recompute::none;
    bool seq_parallel = false;
    bool flash_attention = true;
    /// Attention's softmax runs unfused in fp32 on 16-bit scores (Megatron-LM's
    /// --no-masked-softmax-fusion with --attention-softmax-in-fp32, which --apply-query-key-layer-scaling
    /// turns on): it saves its fp32 output beside the 16-bit probabilities. Needs flash_attention off.
    /// An eager Hugging Face LLaMA block does this always.
    bool unfused_fp32_softmax = false;
    Framework framework = Framework::megatron;
    /// torch.compile'd blocks (DeepSpeed, FSDP): elementwise ops fused as Megatron-LM's kernels fuse
    /// them, so a layer saves what Megatron's does; eager PyTorch saves every op's inputs.
    bool compiled = false;
    /// torch.compile'd loss (torchtitan compiles it with the model since April 2025): one fused kernel
    /// reads the 16-bit logits, so no fp32 copy, log-softmax or dense fp32 gradient is materialized.
    bool compiled_loss = false;
    /// FSDP2 all-gathers float8 weights (torchao's enable_fsdp_float8_all_gather): each gathered
    /// weight is one fp8 byte, with no 16-bit copy beside it. Needs precision fp8 and framework fsdp.
    bool fp8_all_gather = false;
    /// DeepSpeed reduces gradients over data parallelism in fp32 (its config's fp32_allreduce, or
    /// communication_data_type fp32 in later releases): each bucket of 16-bit grads is converted
    /// before the all-reduce, so twice the bytes cross the network. The pipeline's tied-weight
    /// all-reduce is unchanged. Needs framework deepspeed (under ZeRO, 0.9.0 or later).
    bool fp32_allreduce = false;
    /// fp32 training whose matrix multiplies run on TF32 tensor cores (PyTorch's
    /// torch.backends.cuda.matmul.allow_tf32, off by default since 1.12; NVIDIA's NGC containers turn it
    /// on): times at half the BF16 tensor peak instead of the FP32 units' peak. Memory is unchanged.
    /// Needs precision fp32.
    bool tf32 = false;
    /// DeepSpeed ZeRO's reduce_bucket_size, in elements (0: its default, 5e8): stages 1-2 allocate a
    /// 16-bit bucket this size as each backward starts and free it once the grads are reduced, stage 3
    /// keeps one from start-up. Needs framework deepspeed and zero_stage 1-3.
    double reduce_bucket_size = 0;
    /// DeepSpeed ZeRO-1/2's overlap_comm: a second reduce bucket, so one fills while the other is
    /// reduced. Needs framework deepspeed and zero_stage 1-2.
    bool overlap_comm = false;
    /// DeepSpeed ZeRO-3's sub_group_size, in elements (0: the release's default, see
    /// deepspeed_sub_group_size). Needs framework deepspeed and zero_stage 3.
    double sub_group_size = 0;
    /// DeepSpeed ZeRO-3's stage3_max_live_parameters, in elements (0: its default, 1e9): the most
    /// parameters it keeps gathered at once. Needs framework deepspeed and zero_stage 3.
    double max_live_parameters = 0;
    /// Under full recompute, only layers N, 2N, ... of a stage (counted from 1) are checkpointed
    /// (torchtitan's layer-level selective_ac_option = N); the others keep all their activations.
    int checkpoint_every = 1;
    /// The framework's release (X.Y or X.Y.Z) whose habits to follow, where they changed (see the
    /// functions below): DeepSpeed's (empty: 0.17.5), Megatron-LM's fp16 gradients before 2.6 (empty:
    /// current), torchtitan's for fsdp (empty: its code before 0.2, which its published December 2024
    /// benchmarks ran).
    std::string framework_version;
    /// The GPU's CUDA compute capability, as its catalog entry gives it (0: unknown, read as 9.0 or
    /// later); set from the GPU a layout is checked against, not from the job document.
    double compute_capability = 0;
    /// Whether the GPU has fp8 matrix units, as its catalog entry says: 1, 0, or -1 when it does not
    /// say (then the compute capability decides). Set with compute_capability.
    int fp8_units = -1;
    /// CUBLAS_WORKSPACE_CONFIG as the run set it (":SIZE:COUNT" pairs, SIZE in KiB, e.g. ":4096:8"),
    /// the size of each cuBLAS workspace torch allocates; "default" when the run left it unset (torch's
    /// default for the GPU); empty: not said (see torch_cublas_workspace).
    std::string cublas_workspace_config;
    /// The fused attention kernel is cuDNN's rather than flash attention's (torchtitan puts cuDNN first
    /// on compute capability 10.0 and up since May 2025). Needs flash_attention (a fused kernel).
    bool cudnn_attention = false;
    /// Whose model code DeepSpeed trains: "megatron" (Megatron-DeepSpeed: Megatron's fused layers and
    /// vocab-parallel loss), "hf" (a Hugging Face model: eager PyTorch layers, torch's loss), or empty:
    /// megatron for a GPT-style model, hf for a LLaMA-style one. Needs framework deepspeed.
    std::string deepspeed_model;
    /// Megatron-LM's --transformer-impl local (its own PyTorch layers; unfused core attention unless the
    /// legacy model's --use-flash-attn) rather than transformer_engine. Needs framework megatron.
    bool local_impl = false;
    /// Predict the peak of the first iteration alone (a memory report after iteration 1): the state an
    /// optimizer makes in its first step is absent before that step.
    bool first_iteration = false;
};

/// `t` as it runs on a GPU of type `g`: its compute capability (catalog::compute_capability_of).
Training on_gpu(const Training& t, const catalog::GpuType& g);

/// Why a GPU of t.compute_capability cannot train in t.precision, or empty: bf16 needs 8.0 (Ampere;
/// below, torch emulates its matrix products in fp32 and Transformer Engine refuses it), fp8 needs
/// 8.9 (Ada, Hopper: fp8 tensor cores, which Transformer Engine and torch's scaled matmul require),
/// unless the catalog says whether the type has fp8 units (t.fp8_units: an AMD part has no compute
/// capability). An unknown compute capability (0) is no objection.
std::string precision_unsupported(const Training& t);
/// " (compute capability 8.6)" for messages about t's GPU, or "" where it is unknown.
std::string capability_note(const Training& t);

/// The sharding stage a job runs when it does not say: 3 under FSDP (FSDP2 and torchtitan shard
/// parameters, gradients and optimizer states by default), 0 (none) under Megatron-LM and DeepSpeed.
int default_zero_stage(Framework f);

/// What DeepSpeed runs for bf16 at ZeRO-0, by release (deepspeed/runtime/engine.py and
/// bf16_optimizer.py at each).
enum class DeepSpeedBf16 {
    /// Up to 0.16.4: BF16_Optimizer with an fp32 gradient buffer; each backward first sets the 16-bit
    /// .grad to None, and adds them into the buffer when it ends (update_hp_grads).
    fp32_buffer_grads_freed,
    /// 0.16.5 to 0.17.5: the same buffer, filled by a hook as each .grad is made (immediate_grad_update
    /// became the default); the 16-bit .grad is zeroed in place, never freed.
    fp32_buffer_grads_kept,
    /// 0.17.6 to 0.18.4: a name clash ("bf16" for both wrappers) selects FP16_Optimizer over bf16
    /// weights: fp32 master weights and moments whole on each rank, a step that upcasts every grad.
    fp16_optimizer,
    /// 0.18.5 on: BF16_Optimizer accumulating in bf16 (the default grad_accum_dtype became the
    /// model's); the step casts each rank's gradient partition to fp32.
    bf16_buffer,
};
DeepSpeedBf16 deepspeed_bf16(const Training& t);

/// The optimizer wrapper a DeepSpeed job runs: ZeRO's (stages 1-3), or at ZeRO-0 the BF16 optimizer,
/// the FP16 optimizer (fp16, and bf16 from 0.17.6 to 0.18.4) or none (the client's own optimizer).
enum class DeepSpeedOptimizer { zero, bf16, fp16, client };
DeepSpeedOptimizer deepspeed_optimizer(const Training& t);

/// How Megatron-LM holds fp16 gradients, by release (megatron/optimizer and model/distributed.py).
enum class MegatronFp16 {
    /// Before 2.5: zero_grad leaves the fp32 master grads allocated between iterations, and the local
    /// DDP (no contiguous buffer by default) flattens every 16-bit grad into one tensor to all-reduce.
    master_grads_kept,
    /// 2.5: master grads freed with the rest; the step's copy makes them anew beside the live 16-bit
    /// grads, and the all-reduce still flattens those.
    grads_flattened,
    /// 2.6 on (a contiguous grad buffer by default), and Megatron-Core (read from releases below 1.0).
    contiguous_buffer,
};
MegatronFp16 megatron_fp16(const Training& t);
/// Whether Megatron-LM's local DDP, without a contiguous buffer, points each parameter's main_grad at
/// its 16-bit .grad when it all-reduces (from March 2021, after the 2.0 tag, until 2.6 made the buffer
/// the default; read as releases 2.1 to 2.5, 2.1 standing for main between the 2.0 and 2.5 tags), so
/// that last iteration's grads outlive zero_grad.
bool megatron_main_grad_alias(const Training& t);

/// Whether torchtitan makes the token embedding its own FSDP unit, resharded after forward, and the
/// final norm with the output layer another, kept gathered (from 0.2, code of July 2025), rather than
/// leaving them all to the root module, which stays gathered through forward and backward.
bool torchtitan_embedding_unit(const Training& t);
/// Whether torchtitan's per-op selective checkpointing saves cuDNN attention's output, as it saves
/// flash attention's (from 0.2.1; before, cuDNN attention is recomputed in backward).
bool torchtitan_saves_cudnn_attention(const Training& t);

/// Whether torchtitan's RMSNorm is torch's fused CUDA kernel, which saves only its 16-bit input and
/// an fp32 1/rms per row (from 0.2, which runs on torch 2.9 or later), rather than an upcast
/// composite that saves an fp32 copy of its input and the normalised 16-bit tensor too.
bool torchtitan_fused_rms_norm(const Training& t);

/// Whether torchtitan's attention takes K and V at their own heads (scaled_dot_product_attention's
/// enable_gqa, from 0.2.2: ff0829c, January 2026) rather than repeated to every query head.
bool torchtitan_gqa_without_repeat(const Training& t);
/// Whether torchtitan's AdamW is torch's fused kernel (its default from 6e49885, February 2025, and so
/// in every release from 0.1.0), which updates in place; before, the foreach implementation.
bool torchtitan_fused_adamw(const Training& t);
/// Whether torchtitan's per-op checkpointing policy saves every aten.abs output (from #701, November
/// 2024, until #820, February 2025: read as code before 0.1.0), meant for the float8 casts' amax.
bool torchtitan_sac_saves_abs(const Training& t);
/// Whether torchtitan's pipeline schedule keeps the last stage's outputs, the logits of every
/// micro-batch, until its step returns them (before 0.2.1, e5ef99a of October 2025, which passes
/// return_outputs=False).
bool torchtitan_keeps_pipeline_outputs(const Training& t);

/// Whether Megatron-LM keeps its global "mpu" buffer (code of May 2022 on, 739cb43: read as current,
/// Megatron-Core, or 3.0 and later): a persistent tensor that the local core attention's baddbmm and
/// the sequence-parallel all-gather of its own linear layers (the output layer's under either
/// implementation) take their inputs from.
bool megatron_global_buffer(const Training& t);

/// Bytes of Transformer Engine's cuBLAS workspace, which its GEMMs share: Megatron-LM's layers under
/// transformer_impl transformer_engine (read as current, Megatron-Core, or 3.0 and later) allocate it
/// once, 32 MiB from compute capability 9.0 (or unknown), 4 MiB below; 0 for other frameworks.
double transformer_engine_workspace(const Training& t);
/// Whether a fused attention kernel (flash attention, cuDNN's, or torch's memory-efficient one) runs:
/// flash_attention, but for Megatron-LM's Transformer Engine layers on a GPU below compute capability
/// 8.0 (Volta, Turing), where Transformer Engine has neither flash nor cuDNN attention and runs its
/// unfused DotProductAttention, which saves the scores as Megatron's local core attention does.
/// torch's scaled_dot_product_attention falls back to its memory-efficient kernel there instead.
bool runs_fused_attention(const Training& t);
/// Whether selective recompute replays the core attention in backward: Megatron-Core's layers (from
/// Megatron-LM 3.0) checkpoint it whatever its kernel; Megatron-LM's earlier layers and
/// Megatron-DeepSpeed's only where it runs unfused (with flash attention they skip the checkpoint).
bool replays_core_attention(const Training& t);
/// Bytes of each cuBLAS workspace torch allocates (one per cuBLAS handle and stream, from the caching
/// allocator): the job's CUBLAS_WORKSPACE_CONFIG; under "default" torch's, 32 MiB from compute
/// capability 9.0 (or unknown) and 8 MiB + 128 KiB below; unsaid, 32 MiB (the larger). -1 when the
/// config is neither ":SIZE:COUNT" pairs of at most kMaxCublasWorkspace in all nor "default".
double torch_cublas_workspace(const Training& t);
inline constexpr double kMaxCublasWorkspace = 1024.0 * 1024 * 1024;
/// ZeRO-3's sub_group_size, the elements its step works on at once: the job's, else the default, 1e9
/// from DeepSpeed 0.4.1, 1e12 (the whole partition) before.
double deepspeed_sub_group_size(const Training& t);
/// ZeRO's reduce_bucket_size in elements: the job's, else 5e8.
double deepspeed_reduce_bucket(const Training& t);
/// ZeRO-3's stage3_max_live_parameters in elements: the job's, else 1e9.
double deepspeed_max_live(const Training& t);
/// When DeepSpeed's ZeRO allocates its reduce bucket, by release (stage_1_and_2.py, stage3.py).
struct DeepSpeedBuckets {
    /// From 0.16.5 ZeRO-1/2 make it from each parameter's gradient hook (backward_prologue), so every
    /// pipeline stage has it from its first backward; before, only ZeRO's own backward() did, which
    /// the pipeline engine runs on its last stage alone.
    bool from_hooks;
    /// From 0.17.2 reducing under the pipeline engine (reduce_gradients, pipeline_parallel) adds a
    /// bucket to those there; before, it replaced them with one.
    bool pipeline_reduce_adds;
    /// From 0.6.0 ZeRO-3 allocates its bucket at start-up; before, each backward made one, and a
    /// second one for overlap_comm (on by default for ZeRO-3).
    bool zero3_at_start;
    /// From 0.17.2 that bucket is in the communication type (a reduce converts what it holds back);
    /// before, in the weights' type (a reduce in another type converts a copy).
    bool zero3_in_comm_type;
};
DeepSpeedBuckets deepspeed_buckets(const Training& t);
/// The forward-backward passes ZeRO-3 runs before its record of the module order is complete, with
/// no prefetch and each module's parameters released once it is done: the first (the record is
/// reset after each backward); from 0.15.4 the first two (reset as each forward starts, the first
/// reset completes an empty record, which the next pass finds invalid and records again).
long deepspeed_zero3_untraced_passes(const Training& t);
/// Whether DeepSpeed's pipeline engine all-reduces a tied weight's fp32 gradient (the BF16
/// optimizer's _hp_grad, while it accumulates in fp32) rather than its 16-bit .grad.
bool deepspeed_tied_grad_fp32(const Training& t);
/// Whether DeepSpeed wraps an fp16 (ZeRO-0) optimizer in the fused FP16_Optimizer, which flattens
/// the upcast grads into one buffer to step, rather than FP16_UnfusedOptimizer, which upcasts them one
/// parameter at a time: only an Adam counts as fused, and apex's FusedAdam (Megatron-DeepSpeed's) from
/// 0.5.0 on.
bool deepspeed_fp16_fused(const Training& t);
/// Whether DeepSpeed's optimizer wrapper takes a step on zero gradients at start-up, so that the
/// optimizer's state exists before the first iteration: the FP16 wrappers always, ZeRO and the BF16
/// optimizer before 0.13.2 (which made their state lazy).
bool deepspeed_state_at_start(const Training& t);
/// Whether Megatron-DeepSpeed's vocab-parallel cross entropy subtracts the maximum logit in place, as
/// its code did until September 2022 (read from the DeepSpeed release it ran with: before 0.7.4).
bool megatron_deepspeed_loss_in_place(const Training& t);
/// Whether DeepSpeed's pipeline engine, under tensor parallelism, also partitions the gradients it
/// sends back over the tensor ranks (the activations always are): from 0.5.4.
bool deepspeed_grads_partitioned(const Training& t);
/// Whether DeepSpeed's pipeline engine receives activations and gradients into one shared buffer,
/// grown to the larger (from 0.15.0), not one buffer each.
bool deepspeed_shared_receive_buffer(const Training& t);
/// Whether `v` is a release X.Y or X.Y.Z (each part 1-3 digits), also written v0.2.2, 0.14.5.post1 or
/// 0.16.4+cu124 (read as their release), 0.2.2rc1 or 0.17.6.dev0 (just before it).
bool is_release(const std::string& v);

/// A parallel layout; every GPU of it holds the same memory except across pipeline stages.
struct Layout {
    int tp = 1;
    int pp = 1;
    int dp = 1;
    int cp = 1;
    int vpp = 1;           ///< virtual pipeline chunks per stage (interleaved 1F1B)
    long micro_batch = 1;
    /// Layers of each stage, first stage first (pp of them, summing to the model's layers); empty: the
    /// framework's own split (pipeline_split.hpp).
    std::vector<long> layers_per_stage;

    long gpus() const { return static_cast<long>(tp) * pp * dp * cp; }
    /// Micro-batches per iteration on each data-parallel rank.
    long micro_batches(long global_batch) const { return global_batch / (micro_batch * dp); }
};

/// The largest value each size may take, from a flag or a file (hetsched-formats(5)): far beyond any
/// real run, small enough that no product of them overflows and no enumeration runs for minutes.
namespace limits {
inline constexpr long layers = 10000;
inline constexpr long hidden = 1L << 20;
inline constexpr long heads = 1L << 16;
inline constexpr long head_dim = 1L << 16;
inline constexpr long q_width = 1L << 22;  ///< heads x head_dim
inline constexpr long ffn_hidden = 1L << 22;
inline constexpr long vocab = 1L << 24;
inline constexpr long seq_len = 1L << 24;
inline constexpr long global_batch = 1L << 20;
inline constexpr long iterations = 1000000000L;
inline constexpr long degree = 1L << 16;      ///< tp, pp, dp, cp or vpp
inline constexpr long layout_gpus = 1L << 20;  ///< tp x pp x dp x cp
inline constexpr long stages = 1024;            ///< pipeline stages of an allocation to place
inline constexpr double bucket_elements = 1e13;  ///< a DeepSpeed bucket or sub-group, elements
inline constexpr double min_link_gb_s = 0.001;  ///< network speeds, GB/s
inline constexpr double max_link_gb_s = 1e6;
inline constexpr double max_memory_gib = 1e5;   ///< one GPU's memory, or one plan's peak
inline constexpr double min_time_s = 1e-9;      ///< measured or profiled times, seconds
inline constexpr double max_time_s = 1e6;
/// Time SLOs (training.slo_s, --slo-s), seconds: from a millisecond to about 31,700 years.
inline constexpr double min_slo_s = 1e-3;
inline constexpr double max_slo_s = 1e12;
}  // namespace limits

/// Whether torchtitan trains layout `l` of a mixed-precision fsdp job in fp32: tensor or pipeline
/// parallelism without FSDP or context parallelism (dp x cp = 1) leaves FSDP2's mixed-precision
/// policy out, and its maybe_enable_amp gives autocast to a single device only.
bool torchtitan_trains_fp32(const Training& t, const Layout& l);
/// Says so, for a note beside an estimate at the job's own precision; empty when it does not.
std::string torchtitan_fp32_note(const Training& t, const Layout& l);

/// Whether the job can run as a pipeline (pp > 1): not under DeepSpeed at ZeRO-2 or 3, which its
/// pipeline engine refuses (deepspeed/runtime/pipe/engine.py).
bool can_pipeline(const Training& t);

/// Whether the optimizer's states (fp32 master weights and moments) are split over the data-parallel
/// ranks: Megatron's distributed optimizer, ZeRO-1 and above (FSDP's sharding), and DeepSpeed's BF16
/// optimizer, which partitions them even at ZeRO-0.
bool optimizer_sharded(const Training& t);

/// megatron, deepspeed or fsdp in any case, or a name one goes by (megatron-lm, megatron-core, mcore,
/// nemo; megatron-deepspeed; fsdp2, torchtitan), with '-', '_' or a space between words; DataError
/// otherwise.
Framework parse_framework(const std::string& s);
std::string framework_name(Framework f);
/// Whether `text` names Megatron-DeepSpeed (with a hyphen, an underscore or a space), the fork whose
/// model code DeepSpeed then trains.
bool names_megatron_deepspeed(const std::string& text);
/// none (also no, off, empty), selective (also op, per-op: torchtitan's per-op option; sac) or full.
Recompute parse_recompute(const std::string& s);
/// A precision as the model names it: bf16, fp16, fp8, fp32 in any case, or torch's dtype names
/// (bfloat16, float16 or half, float32 or float, float8 and its e4m3fn/e5m2 kinds, with or without
/// "torch."), or Lightning's bf16-mixed and 16-mixed; anything else lower-cased, for validation to refuse.
std::string precision_word(const std::string& s);
/// Sets what torch.compile covers from `s`: model, loss, model+loss (either order), a true boolean
/// (both, as torchtitan's --compile does today), a false one, none or empty (neither). DataError otherwise.
void parse_compile(const std::string& s, Training& t);
/// Sets whose model DeepSpeed trains from `s`: megatron or hf. DataError otherwise.
void parse_deepspeed_model(const std::string& s, Training& t);
/// Sets Megatron-LM's layer implementation from `s`: local or transformer_engine. DataError otherwise.
void parse_transformer_impl(const std::string& s, Training& t);
/// Sets the fused attention kernel from `s`: flash or cudnn. DataError otherwise.
void parse_attention_backend(const std::string& s, Training& t);
/// The inverse of parse_compile: none, model, loss or model+loss.
std::string compile_name(const Training& t);
std::string recompute_name(Recompute r);

/// Checks the model, the training settings and the layout together; DataError naming the first
/// inconsistency (heads not dividing hidden, tp not dividing heads, batch not divisible, ...).
void validate(const catalog::ModelSpec& m, const Training& t, const Layout& l);
/// Checks the model and training settings alone.
void validate(const catalog::ModelSpec& m, const Training& t);
/// DataError unless `micro_batch` (0: not given) divides the global batch.
void check_micro_batch(const Training& t, long micro_batch);
/// "the micro-batch (64) is larger than the global batch (32)", or "does not divide" it.
std::string micro_batch_misfit(long micro_batch, long global_batch);
/// Checks the model's shape alone (positive sizes, heads dividing hidden, ...).
void validate_model(const catalog::ModelSpec& m);
/// DataError unless a pipeline split (layers per stage; empty: none given) sums to `layers`.
void check_split_sum(const std::vector<long>& split, long layers);
/// Checks the training settings alone.
void validate_training(const Training& t);

}  // namespace hetsched::model
