/// The default memory model. Every term is a mechanism a framework really allocates; see the comments
/// for where each factor comes from (Megatron-LM, DeepSpeed ZeRO, PyTorch FSDP2, Korthikanti et al.'s
/// activation accounting) rather than constants fitted to measurements.
#include <hetsched/model/stage_memory.hpp>

#include <algorithm>
#include <array>

#include <hetsched/model/comm_buffers.hpp>
#include <hetsched/model/layer_activations.hpp>
#include <hetsched/model/model_states.hpp>
#include <hetsched/model/transformer.hpp>

namespace hetsched::model {

bool megatron_deepspeed(const catalog::ModelSpec& m, const Training& t) {
    if (t.framework != Framework::deepspeed) return false;
    return t.deepspeed_model.empty() ? !(m.rms_norm && m.gated_mlp) : t.deepspeed_model == "megatron";
}

bool pads_vocab(const catalog::ModelSpec& m, const Training& t) {
    return t.framework == Framework::megatron || megatron_deepspeed(m, t);
}

namespace {

/// A layer's largest weight per tensor rank, in elements: the QKV projection or the MLP's first
/// (gate and up as one matrix when `fused_gate`, as Megatron-LM builds it; each its own in Hugging
/// Face's and torchtitan's blocks).
double largest_layer_weight(const catalog::ModelSpec& m, int tp, bool fused_gate) {
    const double h = static_cast<double>(m.hidden);
    const double fc1 = static_cast<double>(m.ffn_hidden) * (fused_gate && m.gated_mlp ? 2 : 1);
    return std::max(h * fc1, h * (q_width(m) + 2 * kv_width(m))) / tp;
}

/// Micro-batches in flight on `stage` at its peak: min(pp - i, m) under 1F1B; with interleaving,
/// the first stage holds (1 + (pp-1)/(pp*vpp)) x pp micro-batches' worth of its layers.
double in_flight(const Layout& l, int stage, long micro_batches) {
    const double m = static_cast<double>(micro_batches);
    if (l.pp == 1) return 1;
    if (l.vpp == 1) return std::min<double>(l.pp - stage, m);
    const double chunks = 2.0 * (l.pp - stage - 1) + static_cast<double>(l.vpp - 1) * l.pp + 1;
    return std::min(chunks, m * l.vpp) / l.vpp;
}

/// The loss on the last stage at its peak (the start of its backward, unless `phase` says its forward):
/// bytes per logit, and whether those bytes count the 16-bit logits themselves (else the caller has
/// freed them: torchtitan deletes `pred`).
struct LossBytes {
    double per_logit;
    bool holds_logits;
    Phase phase = Phase::backward;  ///< when the loss peaks: its backward, or (a copy's transient) its forward
    /// Bytes per logit as the loss's forward ends, the 16-bit logits counted, where that can be the
    /// peak apart from the backward's (0: never above it).
    double forward_per_logit = 0;
};

LossBytes loss_bytes(const catalog::ModelSpec& m, const Training& t, const Layout& l) {
    const double e = element_bytes(t);
    // Megatron's fused vocab-parallel cross entropy: 16-bit logits + one fp32 copy worked in place.
    if (t.framework == Framework::megatron) return {6, true};
    // A compiled loss is one fused kernel each way: it saves the 16-bit logits (and a per-row
    // log-sum-exp) and writes their 16-bit gradient.
    if (t.compiled_loss) return {2 * e, true};
    // Megatron-DeepSpeed's GPT models (not a LLaMA block) use Megatron's loss. In a pipeline the model's
    // last layer casts the logits to fp32, which the pipe buffers keep; the loss worked on them in place
    // until September 2022 and since subtracts the maximum into a new fp32 tensor that it saves and
    // turns into the gradient. The cast's backward adds the 16-bit gradient. Without a pipeline the
    // loss upcasts a copy of the 16-bit logits; the subtraction's new tensor comes beside both.
    if (megatron_deepspeed(m, t)) {
        const bool in_place = megatron_deepspeed_loss_in_place(t);
        if (l.pp > 1) return {e + (in_place ? 0 : 4), false};
        return in_place ? LossBytes{6, true} : LossBytes{10, true, Phase::forward};
    }
    // torchtitan's loss parallel (FSDP with tp > 1, logits sharded over the vocabulary): DTensor's
    // fused nll/log-softmax backward holds the saved fp32 log-softmax, a zeroed fp32 grad, exp() of
    // the log-softmax and their sum at once.
    if (dtensor_tp(t, l)) return {16, false};
    // torch cross_entropy on upcast logits: the saved fp32 log-softmax, the dense fp32 grad from
    // nll_loss and log_softmax's fp32 input grad coexist. As its forward ends the 16-bit logits, their
    // fp32 copy (`.float()`, none in fp32) and the log-softmax are live: less, but with every gradient
    // the backward may not yet have made.
    return {12, false, Phase::backward, e + (e < 4 ? 4 : 0) + 4};
}

/// The pipeline's own buffers on `stage`.
PipeBuffers pipe_buffers(const catalog::ModelSpec& m, const Training& t, const Layout& l, int stage,
                         double boundary, double logits, long micro_batches) {
    PipeBuffers p;
    if (l.pp == 1 || t.framework == Framework::megatron) return p;  // Megatron frees sent outputs' data
    if (t.framework == Framework::fsdp) {
        // torch.distributed.pipelining (torchtitan) allocates, once, a receive buffer per micro-batch for
        // each virtual stage's input (all but the first) and for the gradient of its output (all but
        // the last), and keeps each forward's output until that micro-batch's backward. An in-flight
        // micro-batch's input buffer is its first block's saved input, which the stash counts already.
        double buffers = 0;
        for (int v = 0; v < l.vpp; ++v) {
            const int global = v * l.pp + stage, last = l.vpp * l.pp - 1;
            buffers += (global > 0 ? 1 : 0) + (global < last ? 1 : 0);
            p.per_micro_batch += (global < last ? boundary : 0) - (global > 0 ? boundary : 0);
        }
        p.receive = buffers * static_cast<double>(micro_batches) * boundary;
        // Before torchtitan 0.2.1 the schedule keeps every output of the last stage, the 16-bit logits,
        // to return them from its step: the earlier micro-batches' stand beside the last one's loss, and
        // all of them (the last one's too) stay through the optimizer step, until the next step clears
        // the stage (clear_runtime_states). As the schedule's step ends it returns them merged
        // (_merge_outputs: torch.cat over the micro-batches), a second copy as large, which torchtitan
        // drops at once: both stand, beside every gradient, before the optimizer step.
        if (stage == l.pp - 1 && torchtitan_keeps_pipeline_outputs(t)) {
            p.kept_logits = static_cast<double>(micro_batches - 1) * logits;
            p.step_logits = p.merged_logits = static_cast<double>(micro_batches) * logits;
        }
        // The schedule's backward takes the micro-batch's output from its forward cache and holds it
        // until the stage's backward returns: unlike torchtitan's own step without a pipeline, which
        // deletes `pred` once the loss is computed, the last stage keeps its 16-bit logits beside the
        // loss's backward and the blocks'.
        if (stage == l.pp - 1) p.output_logits = logits;
        return p;
    }
    // DeepSpeed's pipeline engine keeps each in-flight micro-batch's received input (cloned for the
    // first layer; the int64 token ids, loaded and cloned, on the first stage) and its output until that
    // micro-batch's backward, and one buffer each for receiving activations and gradients (from 0.15.0
    // one buffer for both, grown to the larger).
    // Under tensor parallelism (pipe_partitioned) it splits what crosses stages over the tensor ranks: a
    // kept output holds only its 1/tp slice (the full data is freed), and a received slice is gathered
    // into the full input, which is then the first layer's saved input. A backward restores its output
    // in full, and gathers the gradient too when gradients are partitioned.
    const double tokens = static_cast<double>(t.seq_len) / l.cp * static_cast<double>(l.micro_batch);
    const bool first = stage == 0, last = stage == l.pp - 1, split = l.tp > 1;
    const bool grads_split = split && deepspeed_grads_partitioned(t);
    const double slice = split ? boundary / l.tp : boundary;
    p.per_micro_batch = (first ? 2 * 8 * tokens : split ? 0 : boundary) + (last ? 0 : slice);
    const double receive_activation = first ? 0 : slice, receive_gradient = last ? 0 : grads_split ? slice : boundary;
    // (The shared buffer is grown by a new allocation while the activation view still holds the old
    // one; both are a slice today, so the larger is what stays.)
    p.receive = deepspeed_shared_receive_buffer(t) ? std::max(receive_activation, receive_gradient)
                                                   : receive_activation + receive_gradient;
    if (split && !last) p.backward = boundary + (grads_split ? boundary : 0);
    // The last stage's two pipe buffers never free its outputs, the logits: fp32 from a
    // Megatron-DeepSpeed GPT model, whose last layer upcasts them.
    if (last) p.kept_logits = 2 * logits * (megatron_deepspeed(m, t) ? 4 / element_bytes(t) : 1);
    p.step_logits = p.kept_logits;  // the pipe buffers stay
    p.own_logits = p.kept_logits / 2;  // one of the two buffers holds the micro-batch at work's
    return p;
}

/// Logits per micro-batch on the last stage, per tensor-parallel rank.
double logits_per_micro_batch(const catalog::ModelSpec& m, const Training& t, const Layout& l) {
    const double tokens = static_cast<double>(t.seq_len) / l.cp * static_cast<double>(l.micro_batch);
    return tokens * static_cast<double>(padded_vocab(m, l.tp, pads_vocab(m, t))) / l.tp;
}

/// What the measure adds on top of live tensors: the cuBLAS workspaces (`workspace`), the caching
/// allocator's reserve (beside `cached`: blocks cached for other streams, and those this peak's own
/// allocations cannot reuse), and the CUDA context plus NCCL buffers that only nvidia-smi sees.
double overhead_bytes(Measure measure, double workspace, double dynamic, double cached, int gpus) {
    if (measure == Measure::allocated) return workspace;
    // Activations and logits are freed and re-allocated every micro-batch in different sizes; the
    // caching allocator keeps the freed blocks split and cached. An assumption, not a mechanism worked
    // out block by block: a share of the dynamic peak (6%; the loss's largest cached block is counted
    // apart, in `cached`).
    const double reserved = workspace + 0.06 * dynamic + cached;
    if (measure == Measure::reserved) return reserved;
    const double context = 0.6 * kGiB, nccl = gpus > 1 ? 0.3 * kGiB : 0.0;
    return reserved + context + nccl;
}

/// The two largest of `blocks` units of `block` bytes and a root unit of `root` bytes (0: none): the
/// larger of the root and a block, and a block; with one block, it and the root.
double two_largest(double root, double block, long blocks) {
    return blocks >= 2 ? std::max(root, block) + block : root + block;
}

}  // namespace

StageMemoryModel::StageMemoryModel(const catalog::ModelSpec& m, const Training& t, const Layout& l, Measure measure)
    : model_(m), training_(t), layout_(l), measure_(measure) {
    validate(m, t, l);
    // torch gives each cuBLAS handle and stream its own workspace from the caching allocator: the
    // forward's thread and the autograd engine's backward thread hold a handle each. Transformer
    // Engine's GEMMs share one workspace of its own.
    workspaces_ = 2 * torch_cublas_workspace(t) + transformer_engine_workspace(t);
    const bool pad = pads_vocab(m, t);
    shards_ = state_shards(t, l);
    const StateBytes sb = state_bytes(t, shards_);
    weights_ = sb.weights;
    // Megatron under fp8: Transformer Engine keeps a 1-byte fp8 copy of each of its linear layers'
    // weights, the blocks' (their norms, a few elements, counted alike); Megatron's own word embedding
    // and output layer (ColumnParallelLinear) stay in 16 bits.
    if (t.framework == Framework::megatron && t.precision == "fp8") fp8_copy_ = 1;
    gradients_ = sb.gradients;
    optimizer_ = sb.optimizer;
    const LayerActivations act = layer_activations(m, t, l);
    stored_ = act.stored;
    full_ = act.full;
    const StepBytes step = step_bytes(t, shards_);
    reduce_per_param_ = step.reduce;
    reduce_cap_ = step.reduce_cap;
    step_per_param_ = step.step;
    step_cap_ = step.step_cap;
    step_grads_freed_ = step.grads_freed;
    update_per_param_ = step.update;
    update_grads_freed_ = step.update_grads_freed;
    if (t.first_iteration) {
        const LazyBytes lazy = lazy_bytes(t, shards_);
        lazy_gradients_ = lazy.gradients;
        lazy_optimizer_ = lazy.optimizer;
    }
    // DeepSpeed's optimizer wrappers that make the state at the first step (BF16, and ZeRO from 0.13.2)
    // make it as one flat tensor a kind (exp_avg, exp_avg_sq) over the rank's whole fp32 partition. No
    // block the allocator has cached by then is that large (what the first iteration's forwards and
    // backwards freed, per micro-batch and per layer), so each takes a segment of its own on top of the
    // reserve the first iteration reached: the first iteration reserves as much as a later one, whose
    // candidates hold the state already. Per-parameter state (torch's Adam under FSDP or Megatron, or
    // DeepSpeed's client optimizer in fp32) fits the cached blocks and has no such floor.
    flat_state_segments_ = t.framework == Framework::deepspeed && t.first_iteration && measure != Measure::allocated &&
                           deepspeed_optimizer(t) != DeepSpeedOptimizer::client;
    state_tensors_ = t.optimizer == "sgd" ? 1 : 2;
    micro_batches_ = l.micro_batches(t.global_batch);
    // ZeRO 1 and 2 make the 16-bit grads during backward (stage 1 as each .grad, stage 2 as its
    // partition at the first bucket reduced) and free them at the step: with one micro-batch none
    // exist when the loss back-propagates. Stage 3's partition buffer lives from start-up.
    const bool zero12_one_micro_batch = t.framework == Framework::deepspeed && t.zero_stage >= 1 &&
                                        t.zero_stage <= 2 && micro_batches_ == 1 &&
                                        deepspeed_optimizer(t) == DeepSpeedOptimizer::zero;
    if (zero12_one_micro_batch) loss_grads_absent_ = gradients_;
    // FSDP2 gives each parameter its sharded gradient at its unit's reduce-scatter in backward, and
    // torchtitan sets every gradient to None as a step begins (optimizer.zero_grad). With one
    // micro-batch and no pipeline none exists when the loss back-propagates, and as the backward goes
    // down the blocks their gradients appear while their activations go.
    grads_made_in_backward_ = t.framework == Framework::fsdp && t.zero_stage >= 2 && l.pp == 1 && micro_batches_ == 1;
    if (grads_made_in_backward_) loss_grads_absent_ = gradients_;
    forward_grads_absent_ = loss_grads_absent_;  // neither case has any gradient before its backward
    // ZeRO-2 (contiguous gradients, its default) makes that partition when it first reduces its bucket:
    // when a gradient would overflow the reduce_bucket_size elements the bucket holds (all of the rank's
    // gradients, of every partition). A stage whose gradients up to its first layer's backward fit in
    // one bucket reduces it only as the backward ends (the first stage's embedding, whose gradient comes
    // last, overflows it or joins it): the partition is then absent from every layer's backward too
    // (stage()). Otherwise it is counted at the layers' peak, an upper bound: the first bucket reduced
    // holds the last layers' gradients, and only the rank whose partition they fall in (the last)
    // makes it then; the others at a later bucket, one of which may come after that peak.
    partition_at_first_bucket_ = zero12_one_micro_batch && t.zero_stage == 2;
    reduce_bucket_elements_ = deepspeed_reduce_bucket(t);
    element_ = element_bytes(t);
    layer_ = layer_params(m, l.tp);
    embedding_ = embedding_params(m, l.tp, pad);
    output_ = output_params(m, l.tp, l.pp, pad);
    // FSDP2 all-gathers on a stream of its own and reduce-scatters on another; the caching allocator
    // keeps the blocks each stream frees for that stream alone, so while the compute stream peaks
    // they stay reserved. The all-gather stream keeps its two largest units gathered at once (a unit
    // and the block prefetched after it). Units: each block; from torchtitan 0.2 the embedding, and
    // the final norm with the output layer; before, the root's embedding, norm and output, gathered
    // once and kept. Not resharded after forward (ZeRO-2 here) each unit's all-gather output is still
    // freed to the all-gather stream once copied out (the unsharded copy it fills is the compute
    // stream's, live until the backward: the weights count it), so the same blocks stay cached.
    // The reduce-scatter input is made on the compute stream (torch since mid-2024, pytorch#129721),
    // but its output, of which the sharded gradients are views, on the reduce-scatter stream: by the
    // end of a backward that stream's pool holds every sharded gradient, and when zero_grad frees them
    // (torchtitan: as each step begins) the blocks stay cached there. The compute stream cannot use
    // them, so reserved memory holds the gradients at every candidate, the first iteration's too (its
    // compute stream's blocks are reserved before any gradient is made, the gradients' on top).
    // Allocated, they are absent until made: each unit's at its backward with one micro-batch and no
    // pipeline (grads_made_in_backward_), a stage's at its last backward under a pipeline.
    const bool fsdp_streams = t.framework == Framework::fsdp && t.zero_stage >= 2 && shards_ > 1;
    fsdp_units_ = fsdp_streams && t.zero_stage >= 3 && l.pp == 1;
    own_unit_ = torchtitan_embedding_unit(t) && !m.tied_embeddings;
    if (fsdp_streams && l.pp == 1) {
        // The root gathered once and kept is no unit the all-gather stream passes again.
        stream_pools_ = gathered_pool(own_unit_ ? std::max(embedding_, output_) : 0, m.layers);
    }
    grads_on_reduce_stream_ = fsdp_streams;
    if (fsdp_units_) {
        // Before torchtitan 0.2 the last block is left gathered after its forward, for the backward
        // that follows at once.
        if (!torchtitan_embedding_unit(t)) last_block_gathered_ = gathered_weight_bytes(t) * layer_;
        // The unit FSDP2 prefetches during the first block's backward is the one before it: the
        // embedding, where that is a unit of its own (16-bit: not a linear, never fp8), not a block.
        if (own_unit_) first_block_prefetch_ = element_ * embedding_ - gathered_weight_bytes(t) * layer_;
    }
    // Under a pipeline FSDP2 keeps its two streams: each stage's units are gathered once a step, at
    // their first forward, and reduce-scattered once, at their last backward, so the same blocks stay
    // cached for those streams beside the peak: the stage's blocks and its part of the root (the
    // embedding on the first stage, the final norm and output layer on the last), in stage().
    fsdp_pipeline_pools_ = fsdp_streams && l.pp > 1;
    // Under torchtitan's tensor parallelism the embedding is split by vocabulary rows (RowwiseParallel),
    // but DTensor has no row-split rule for the embedding's backward: its gradient comes out Partial,
    // a whole vocab x hidden matrix on every tp rank, redistributed to the rank's rows only when FSDP2
    // takes it for its reduce-scatter. Under a pipeline FSDP2 first upcasts and accumulates it as it
    // is, in fp32, from the first micro-batch's backward to the last (measured: 3.9 GiB on the first
    // stage of a 70B at tp 8, not 0.49). Without FSDP2 (dp x cp = 1, or ZeRO below 2) autograd keeps
    // it so in .grad, in the gradients' own type, until the step.
    const double embedding_grad = dtensor_tp(t, l) ? embedding_params(m, 1, pad) : embedding_params(m, l.tp, pad);
    if (dtensor_tp(t, l)) embedding_grad_extra_ = embedding_grad - embedding_params(m, l.tp, pad);
    // With one micro-batch and no pipeline it is made last, as the backward ends and the activations
    // are gone: absent from every peak of the backward, it stands at the optimizer step.
    const bool fsdp2_grads = t.zero_stage >= 2 && l.dp * l.cp > 1;
    if (t.framework == Framework::fsdp && !fsdp2_grads) {
        whole_embedding_grad_ = embedding_grad_extra_;
        embedding_grad_made_last_ = l.pp == 1 && micro_batches_ == 1;
    }
    // Each micro-batch's embedding backward, the last of the first stage's, makes a new 16-bit gradient
    // before FSDP2 adds it into the fp32 one.
    if (t.framework == Framework::fsdp && fsdp2_grads && l.pp > 1) embedding_grad_new_ = element_bytes(t) * embedding_grad;
    // Two candidate peaks while back-propagating: the loss (last stage: stored activations + logits
    // buffers), and a layer (stored + gradient temporaries + what recomputation replays of it: the whole
    // layer under full recompute, the ops the policy did not keep under selective).
    working_ = act.working;
    replay_ = act.replayed;
    attention_replayed_ = act.attention_replayed;
    attention_kept_ = act.attention_kept;
    fp32_score_block_ = act.fp32_score_block;
    logits_ = logits_per_micro_batch(m, t, l);
    const LossBytes lb = loss_bytes(m, t, l);
    loss_ = logits_ * lb.per_logit;
    loss_holds_logits_ = lb.holds_logits;
    loss_phase_ = lb.phase;
    loss_forward_ = logits_ * lb.forward_per_logit;
    // torchtitan deletes `pred` once the loss is computed: the 16-bit logits' block is free when the
    // loss back-propagates, but every tensor the loss's backward makes before its peak is an fp32
    // logits-sized one, twice that block, so it stays cached beside the peak (in fp32 the block is
    // their size and is reused). Where the pipeline schedule keeps the output, the block is not freed;
    // see stage().
    if (t.framework == Framework::fsdp && !lb.holds_logits && element_ < 4) freed_logits_ = element_ * logits_;
    // Megatron-LM before 2.6 under fp16 had no gradient-accumulation fusion and no contiguous grad
    // buffer: from the second micro-batch on, autograd adds each weight's newly made 16-bit gradient
    // into its .grad, so a layer's backward holds its largest weight's new gradient beside its own
    // temporaries. From 2.1 (main after the 2.0 tag: b4bc51b, March 2021) the local DDP also points each main_grad at
    // its .grad when it all-reduces, and zero_grad only sets .grad to None: last iteration's 16-bit
    // grads stay alive through main_grad until the next all-reduce, so from the second micro-batch's
    // backward on both copies are live (with one micro-batch the new grads come layer by layer and the
    // loss comes before any).
    if (t.framework == Framework::megatron && t.precision == "fp16" && micro_batches_ > 1 &&
        megatron_fp16(t) != MegatronFp16::contiguous_buffer) {
        if (!t.first_iteration && megatron_main_grad_alias(t)) stale_grads_ = 2;
        wgrad_transient_ = element_ * largest_layer_weight(m, l.tp, true);
    }
    // DeepSpeed's bf16 optimizer at ZeRO-0, by release: whether the 16-bit grads are freed as each
    // backward starts, and whether an fp32 buffer is filled one upcast parameter at a time.
    if (t.framework == Framework::deepspeed && deepspeed_optimizer(t) == DeepSpeedOptimizer::bf16) {
        const DeepSpeedBf16 ds = deepspeed_bf16(t);
        lp_grads_cleared_ = ds == DeepSpeedBf16::fp32_buffer_grads_freed;
        if (lp_grads_cleared_) loss_grads_absent_ = element_;  // none are back when the loss back-propagates
        if (ds == DeepSpeedBf16::fp32_buffer_grads_freed || ds == DeepSpeedBf16::fp32_buffer_grads_kept) {
            upcast_layer_ = largest_layer_weight(m, l.tp, false);
            upcast_vocab_ = static_cast<double>(padded_vocab(m, l.tp, pad)) * static_cast<double>(m.hidden) / l.tp;
        }
    }
    zero_bucket_ = t.framework == Framework::deepspeed && t.zero_stage >= 1 && t.zero_stage <= 2;
    if (t.framework == Framework::deepspeed) ds_buckets_ = deepspeed_buckets(t);
    // ZeRO-3 gathers a module's parameters whole: the largest is a layer's widest weight, the embedding
    // or the output layer (fetched for the loss).
    if (t.framework == Framework::deepspeed && t.zero_stage >= 3)
        zero3_module_ = std::max({largest_layer_weight(m, l.tp, megatron_deepspeed(m, t)), embedding_, output_});
    const double full_sbh = static_cast<double>(t.seq_len) / l.cp * static_cast<double>(l.micro_batch) *
                            static_cast<double>(m.hidden);
    sbh_ = full_sbh / (sequence_parallel(t, l) ? l.tp : 1);
    // The output layer's input is all-gathered to the full sequence under torchtitan's tensor
    // parallelism (its ColwiseParallel saves it), split by sequence parallelism under Megatron's.
    head_inputs_ = element_ * (sbh_ + (dtensor_tp(t, l) ? full_sbh : sbh_));
    // Megatron's global "mpu" buffer, allocated at first use and kept: the local unfused core
    // attention's baddbmm takes its b x (a/tp) x s x s input from it, and its own linear layers all-gather their
    // sequence-parallel input into it (every layer's under the local implementation, the output
    // layer's under Transformer Engine, whose layers gather into their own transient tensors).
    if (megatron_global_buffer(t)) {
        const double s = static_cast<double>(t.seq_len) / l.cp;
        const double scores =
            t.local_impl && !t.flash_attention ? s * s * static_cast<double>(l.micro_batch) * m.heads / l.tp : 0;
        const double gather = t.seq_parallel && l.tp > 1 ? full_sbh : 0;
        global_buffer_ = element_ * (t.local_impl ? std::max(scores, gather) : 0);
        global_buffer_last_ = element_ * std::max(scores, gather);
    }
    for (int i = 0; i < l.pp; ++i)
        pipe_.push_back(pipe_buffers(m, t, l, i, element_ * sbh_, element_ * logits_, micro_batches_));
}

double StageMemoryModel::layer_backward(bool checkpointed) const {
    const double replay = checkpointed ? replay_ : 0, working = working_ + wgrad_transient_;
    if (checkpointed && training_.recompute == Recompute::full) return std::max(replay + working, attention_replayed_);
    return replay + std::max(working, attention_kept_);
}

double StageMemoryModel::gathered_pool(double root, long blocks) const {
    // A block gathers in fp8 under fp8 all-gather; the root's units (embedding, output layer) in 16
    // bits: no float8 linears.
    const double block = (training_.fp8_all_gather ? 1 : element_) * layer_;
    return two_largest(element_ * root, block, blocks);
}

StageMemory StageMemoryModel::stage(int i, long first_layer, long count) const {
    StageMemory st;
    st.stage = i;
    st.first_layer = first_layer;
    st.last_layer = first_layer + count - 1;
    const bool first = i == 0, last = i == layout_.pp - 1;
    double params = static_cast<double>(count) * layer_;
    if (first) params += embedding_;
    if (last) params += output_;
    // Gradients held: the parameters' own, and on the first stage the embedding's beyond its rows when
    // autograd keeps it whole (see the constructor).
    const double grad_params = params + (first ? whole_embedding_grad_ : 0);
    st.weights = params * weights_ + static_cast<double>(count) * layer_ * fp8_copy_;
    st.gradients = grad_params * gradients_;
    st.optimizer = params * optimizer_;
    st.in_flight = in_flight(layout_, i, micro_batches_);
    const PipeBuffers& pipe = pipe_[static_cast<size_t>(i)];

    // Layers N-1, 2N-1, ... of the stage are checkpointed (torchtitan counts its blocks from 1 and
    // wraps those whose count N divides); the others keep everything.
    const long checkpointed = count / training_.checkpoint_every;
    double per_mb = static_cast<double>(checkpointed) * stored_ + static_cast<double>(count - checkpointed) * full_ +
                    pipe.per_micro_batch;
    if (first && model_.dropout > 0) per_mb += sbh_;  // embedding dropout mask
    if (last) per_mb += head_inputs_;                  // final norm input and output-layer input
    const double stash = st.in_flight * per_mb;
    const double fixed = last ? global_buffer_last_ : global_buffer_;
    // What no single layer's work holds: pipe buffers, persistent buffers and FSDP's root units.
    double held = pipe.receive + fixed;
    // FSDP's root module (embedding, final norm, output) is not resharded after forward: its 16-bit
    // copy stays gathered through forward and backward. From torchtitan 0.2 the embedding is a unit of
    // its own, resharded after forward and gathered again only for its backward, the last of all; the
    // final norm and output layer form one that stays gathered (a tied weight lives in the embedding's
    // unit, which the output layer then keeps gathered).
    if (fsdp_units_) held += element_ * ((own_unit_ ? 0 : embedding_) + output_);
    // The embedding's fp32 gradient, accumulated whole under torchtitan's tensor parallelism (see above).
    if (first && embedding_grad_new_ > 0) held += 4 * embedding_grad_extra_;
    CommBytes layer_comm =
        comm_bytes(training_, layout_, layer_, params, params - static_cast<double>(count) * layer_, micro_batches_,
                   zero3_module_, ds_buckets_);
    const double reduce_bucket =
        zero_bucket_ ? zero_bucket_lifetime(training_, layout_, micro_batches_, last, ds_buckets_, layer_comm) : 0;
    const double comm = layer_comm.backward + held;
    // FSDP without a pipeline gathers a block only for its own forward or backward: when the loss
    // back-propagates none has made a gradient yet, and every block is resharded but, before
    // torchtitan 0.2, the last. A loss that peaks in its forward does so before any backward has
    // begun (ZeRO-1/2's reduce bucket not yet made).
    const bool fsdp_alone = training_.framework == Framework::fsdp && layout_.pp == 1;
    const double loss_forward_comm = fsdp_alone ? held + last_block_gathered_ : layer_comm.forward + held;
    const double loss_comm = fsdp_alone || loss_phase_ == Phase::forward ? loss_forward_comm : comm;

    // The candidate peaks, each with the allocator's overhead on its own dynamic memory:
    //  - back-propagating a layer (with what recomputation replays of it);
    //  - a forward, with the stash and one layer's working set;
    //  - the optimizer step, with no activations and the step's temporaries; where those are gone
    //    before the update (ZeRO-1/2), the update apart, with the state a first step makes in it;
    //  - the gradient reduction before the step, with its temporaries;
    //  - the loss's forward as it ends, on the last stage, where its upcast copy can peak apart (with the
    //    gradients a forward holds);
    //  - back-propagating the loss, on the last stage (beside the logits DeepSpeed's pipe buffers keep:
    //    the other micro-batch's, and this one's too when the loss upcasts a copy of them);
    //  - DeepSpeed's fp32 gradient buffer filled one parameter at a time, beside the stash and every
    //    16-bit grad: a 4-byte copy of the largest parameter (the vocabulary matrix on the first stage,
    //    and on the last when it holds the output layer). The embedding's grad comes last in the first
    //    stage's backward, when that micro-batch's activations are gone. FSDP2 under a pipeline holds
    //    there the embedding's new 16-bit gradient beside the fp32 one it accumulates into;
    //  - with FSDP2's gradients made in backward, the first block's backward (see below).
    // Up to 0.16.4, DeepSpeed's BF16 optimizer frees the 16-bit grads as each backward starts: at a
    // layer's replay the other layers' are back, at the loss none are. In the first iteration, what the
    // optimizer makes at its first step is absent from all but the step.
    const double largest = std::max(upcast_layer_, first || (last && output_ >= upcast_vocab_) ? upcast_vocab_ : 0.0);
    const double embedding_new = first ? embedding_grad_new_ : 0;
    const double lazy_grads = lazy_gradients_ * params, lazy_optimizer = lazy_optimizer_ * params;
    struct Candidate {
        Phase phase;
        double activations, logits, comm, grads_absent, optimizer_absent, grads_stale = 0, cached = 0;
    };
    const double stale = stale_grads_ * params;
    // Gradients made in backward (FSDP2): the last block's backward has only the output layer's (the
    // tied embedding's, when it is that weight), with every activation still stashed; the first
    // block's has every block's, with only its own activations. Between the two, a block's
    // activations give way to its gradients, so one of the ends holds the most. The output layer's
    // gradient is sharded by then when the final norm and output are a unit of their own (torchtitan
    // 0.2, untied); otherwise it waits, whole and in 16 bits, for its unit's reduce-scatter, the last.
    const double head_params = output_ + (model_.tied_embeddings ? embedding_ : 0);
    const double head_sharded = own_unit_ ? head_params : 0;
    // FSDP2 reduce-scatters every micro-batch's gradients in its backward (no pipeline): the output
    // layer's 16-bit one waits whole for its unit's, the last, in each of them, not only in a lone one.
    const bool reduced_each = training_.framework == Framework::fsdp && training_.zero_stage >= 2 && layout_.pp == 1 &&
                              layout_.dp * layout_.cp > 1;
    const double head_whole = (grads_made_in_backward_ || reduced_each) && !own_unit_ ? element_ * head_params : 0;
    const double before_blocks = grads_made_in_backward_ ? gradients_ * (params - head_sharded) : 0;
    // Layers N-1, 2N-1, ... are checkpointed: the first only when every layer is.
    const bool first_checkpointed = checkpointed > 0 && training_.checkpoint_every == 1;
    const double first_block = first_checkpointed ? stored_ : full_;
    // The unit holding the embedding reduce-scatters last, once its backward is done: resharded by
    // then, its 16-bit grads and their fp32 reduce-scatter input beside every other unit's grads (the
    // root, with the output layer, before torchtitan 0.2 or when tied).
    const double embedding_unit = own_unit_ ? embedding_ : embedding_ + output_;
    // Whole under torchtitan's tensor parallelism, the embedding's 16-bit gradient is first
    // redistributed to this rank's rows (a new tensor beside it) and let go before the fp32 input is made.
    const double embedding_reduce = std::max(element_ * (embedding_unit + embedding_grad_extra_ + embedding_),
                                             (element_ + 4) * embedding_unit);
    const double loss_kept = pipe.kept_logits - (loss_holds_logits_ ? pipe.own_logits : 0);
    const double loss_cached = pipe.output_logits > 0 ? 0 : freed_logits_;  // a kept output is not freed
    // Grads absent before the stage's last backward (in the first iteration, what no step has made
    // yet): under a pipeline FSDP2 reduce-scatters a stage's gradients only then.
    const bool pipelined_reduce = grads_on_reduce_stream_ && layout_.pp > 1;
    const double before_reduce = pipelined_reduce ? std::max(gradients_ * params, lazy_grads) : lazy_grads;
    const bool partition_late =
        partition_at_first_bucket_ && params - (first ? embedding_ : 0) <= reduce_bucket_elements_;
    const double layer_grads_absent = partition_late ? gradients_ * params : 0;
    // A fixed array: planalloc's capacity bisections call this millions of times.
    std::array<Candidate, 11> candidates{{
        {Phase::backward, stash + layer_backward(checkpointed > 0) + pipe.backward, pipe.kept_logits + pipe.output_logits,
         comm + head_whole,
         (lp_grads_cleared_ ? element_ * layer_ : 0) + before_reduce + before_blocks + layer_grads_absent, lazy_optimizer,
         stale},
        {Phase::forward, stash + working_, pipe.kept_logits, layer_comm.forward + held,
         forward_grads_absent_ * params + before_reduce, lazy_optimizer},
        {Phase::step, 0, pipe.step_logits, std::min(step_per_param_ * params, step_cap_) + pipe.receive + fixed,
         step_grads_freed_ * params, update_per_param_ > 0 ? lazy_optimizer : 0},
        {Phase::step, 0, pipe.step_logits,
         std::min(reduce_per_param_ * params, reduce_cap_) + reduce_bucket + pipe.receive + fixed, lazy_grads,
         lazy_optimizer},
        {loss_phase_, stash, loss_ + loss_kept + (loss_holds_logits_ ? 0 : pipe.output_logits), loss_comm,
         loss_grads_absent_ * params + before_reduce, lazy_optimizer, stale, loss_cached},
        {Phase::backward, (first ? stash * (st.in_flight - 1) / st.in_flight : stash) + pipe.backward,
         pipe.kept_logits, comm + 4 * largest + embedding_new, before_reduce, lazy_optimizer},
        {Phase::backward, first_block + layer_backward(first_checkpointed), 0, comm + head_whole + first_block_prefetch_,
         gradients_ * (params - static_cast<double>(count) * layer_ - head_sharded) + lazy_grads, lazy_optimizer},
        {Phase::backward, 0, 0, embedding_reduce + pipe.receive + fixed,
         (grads_made_in_backward_ ? gradients_ * embedding_unit : 0) + lazy_grads, lazy_optimizer},
        {Phase::step, 0, pipe.step_logits, update_per_param_ * params + pipe.receive + fixed,
         update_grads_freed_ * params, 0},
        // The micro-batch's own 16-bit logits are among those DeepSpeed's pipe buffers keep.
        {Phase::forward, stash, loss_forward_ + pipe.kept_logits - pipe.own_logits, loss_forward_comm,
         forward_grads_absent_ * params + before_reduce, lazy_optimizer},
        // The schedule's merged outputs (torchtitan before 0.2.1), as its step returns: every gradient
        // made, the optimizer step not begun.
        {Phase::backward, 0, pipe.step_logits + pipe.merged_logits, pipe.receive + fixed, lazy_grads, lazy_optimizer}}};
    // FSDP2, reserved: no sharded gradient is absent, its blocks cached for the reduce-scatter stream
    // (see the constructor).
    if (grads_on_reduce_stream_ && measure_ != Measure::allocated)
        for (auto& c : candidates) c.grads_absent = 0;
    // The whole embedding gradient made as the backward ends (one micro-batch, no pipeline): only the
    // optimizer step's candidates hold it.
    if (first && embedding_grad_made_last_)
        for (auto& c : candidates)
            if (c.phase != Phase::step) c.grads_absent += whole_embedding_grad_ * gradients_;
    const double states = st.weights + st.gradients + st.optimizer;
    const double stage_root = (first ? embedding_ : 0) + (last ? output_ : 0);
    // Under a pipeline the stage's gradients count in reserved memory already (see
    // grads_on_reduce_stream_), and two of its largest units' fp32 reduce-scatter inputs are
    // counted beside them: where FSDP2 made that input before mid-2024, on the reduce-scatter stream.
    // Current torch makes it on the compute stream, but our pipelined runs on it reserve that much more
    // (without it their reserved error goes from 3.6% to 4.4% on average, 8.9% to 12.8% at most):
    // kept as measured, its cause not traced.
    const double pools = fsdp_pipeline_pools_
                             ? gathered_pool(stage_root, count) + 4 * two_largest(stage_root, layer_, count)
                             : stream_pools_;
    auto take = [&](const Candidate& c, double overhead, double optimizer_absent) {
        st.phase = c.phase;
        st.activations = c.activations;
        st.logits = c.logits;
        st.comm_buffers = c.comm;
        st.overhead = overhead;
        st.gradients = grad_params * gradients_ - c.grads_absent + c.grads_stale;
        st.optimizer = params * optimizer_ - optimizer_absent;
    };
    // DeepSpeed's flat state made at the first step (see the constructor): the reserve before it, the
    // most any candidate that comes before the state reaches (those that lack it: optimizer_absent), and
    // the candidate that reaches it.
    const double first_state = flat_state_segments_ ? lazy_optimizer : 0;
    double before_state = -1, before_overhead = 0;
    size_t before_k = 0;
    double best = -1;
    for (size_t k = 0; k < candidates.size(); ++k) {
        if ((k == 4 && !last) || (k == 5 && largest == 0 && embedding_new == 0) || (k == 6 && !grads_made_in_backward_) ||
            (k == 7 && !fsdp_units_) || (k == 8 && update_per_param_ == 0) ||
            (k == 9 && (!last || loss_forward_ == 0)) || (k == 10 && pipe.merged_logits == 0))
            continue;
        const Candidate& c = candidates[k];
        const double overhead =
            overhead_bytes(measure_, workspaces_, c.activations + c.logits, pools + c.cached, layout_.gpus());
        const double total = states - c.grads_absent + c.grads_stale - c.optimizer_absent + c.activations + c.logits +
                             c.comm + overhead;
        if (first_state > 0 && c.optimizer_absent > 0 && total > before_state) {
            before_state = total;
            before_overhead = overhead;
            before_k = k;
        }
        if (total <= best) continue;  // ties go to the earlier candidate
        best = total;
        take(c, overhead, c.optimizer_absent);
    }
    if (first_state > 0) {
        // State tensors no larger than a block the backward freed go into it: on the last stage the
        // loss's fp32 logits blocks (it makes several of that size, one a tensor at most), on any stage
        // those of an unfused fp32 softmax's scores (four at its backward's peak). The first step then
        // adds no segment; the next step's loss or softmax does.
        const double loss_block = last ? (training_.compiled_loss ? element_ : 4.0) * logits_ : 0;
        const bool fits = first_state / state_tensors_ <= std::max(loss_block, fp32_score_block_);
        if (!fits && before_state + first_state > best) {
            // The reserve is reached at the first step: the blocks of the candidate before it, cached,
            // and the whole state.
            take(candidates[before_k], before_overhead, 0);
            st.phase = Phase::step;
        }
    }
    return st;
}

long StageMemoryModel::max_layers(int i, double capacity_bytes, long limit) const {
    if (stage(i, 0, 1).total() > capacity_bytes) return 0;
    long lo = 1, hi = limit;  // invariant: lo fits
    while (lo < hi) {
        const long mid = lo + (hi - lo + 1) / 2;
        if (stage(i, 0, mid).total() <= capacity_bytes) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

}  // namespace hetsched::model
