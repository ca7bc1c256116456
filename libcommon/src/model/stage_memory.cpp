/// The default memory model. Every term is a mechanism a framework really allocates; see the comments
/// for where each factor comes from (Megatron-LM, DeepSpeed ZeRO, PyTorch FSDP2, Korthikanti et al.'s
/// activation accounting) rather than constants fitted to measurements.
#include <hetsched/model/stage_memory.hpp>

#include <algorithm>
#include <cmath>

#include <hetsched/model/transformer.hpp>

namespace hetsched::model {
namespace {

/// Bytes per parameter of each model-state kind after sharding over `dp` ranks.
struct StateBytes {
    double weights, gradients, optimizer;
};

StateBytes state_bytes(const Training& t, int dp) {
    const bool fp32 = t.precision == "fp32";
    const double c = element_bytes(t);                    // compute copy of the weights
    const double moments = t.optimizer == "sgd" ? 4 : 8;  // momentum, or Adam's m and v, in fp32
    const double master = fp32 ? 0 : 4;                   // fp32 master weights in mixed precision
    const double d = dp;
    const int z = t.zero_stage;
    StateBytes b{};
    switch (t.framework) {
    case Framework::megatron:
        // bf16/fp16 params; fp32 main-grad buffer (accumulate in fp32); optimizer sharded by the
        // distributed optimizer (== ZeRO-1); TE keeps fp8 copies of weights under fp8.
        b.weights = c + (t.precision == "fp8" ? 1 : 0);
        b.gradients = 4 / (z >= 2 ? d : 1);
        b.optimizer = (master + moments) / (t.distributed_optimizer || z >= 1 ? d : 1);
        break;
    case Framework::deepspeed:
        // 16-bit params and grads; ZeRO partitions the fp32 optimizer (and an fp32 grad partition).
        b.weights = c / (z >= 3 ? d : 1);
        b.gradients = c / (z >= 2 ? d : 1) + (z >= 1 && !fp32 ? 4 / d : 0);
        b.optimizer = (master + moments) / (z >= 1 ? d : 1);
        break;
    case Framework::fsdp:
        // FSDP2 keeps fp32 parameters (the optimizer's own), sharded under FULL_SHARD; grads fp32.
        b.weights = 4 / (z >= 3 ? d : 1) + (z < 3 && !fp32 ? c : 0);
        b.gradients = 4 / (z >= 2 ? d : 1);
        b.optimizer = moments / (z >= 1 ? d : 1);
        break;
    }
    return b;
}

/// Activation bytes stored by one layer for one micro-batch (Korthikanti et al. accounting, per tensor).
struct LayerActivations {
    double stored;   ///< kept from forward to backward
    double full;     ///< what the layer holds when nothing is recomputed (for full recompute's replay)
    double working;  ///< largest gradient temporaries while back-propagating through it
};

LayerActivations layer_activations(const catalog::ModelSpec& m, const Training& t, const Layout& l) {
    const double s = static_cast<double>(t.seq_len) / l.cp, b = static_cast<double>(l.micro_batch);
    const double h = static_cast<double>(m.hidden), f = static_cast<double>(m.ffn_hidden), tp = l.tp;
    const double a = static_cast<double>(m.heads), kv = static_cast<double>(m.kv_heads) * (h / a);
    const double e = element_bytes(t);
    const double sbh = s * b * h, sp = t.seq_parallel ? tp : 1;
    const bool dropout = m.dropout > 0;

    // Replicated across tensor ranks (split by sequence parallelism): two norm inputs, the inputs of
    // the QKV and FC1 GEMMs, and two 1-byte dropout masks.
    double replicated = 4 * e * sbh + (dropout ? 2 * sbh : 0);
    // Split by tp: Q, K, V (GQA shrinks K and V), attention context, FC1 output (x2 when gated), and
    // the activation function's output that feeds FC2.
    double split = e * s * b * (h + 2 * kv) + e * sbh + e * s * b * f * (m.gated_mlp ? 2 : 1) + e * s * b * f;
    // Unfused attention keeps the softmax, its dropout mask and the dropped-out scores: 5as²b bytes.
    double scores = 0;
    if (!t.flash_attention) scores = (e + (dropout ? 1 + e : 0)) * a * s * s * b;
    else split += 4 * s * b * a;  // flash attention's fp32 log-sum-exp per row

    LayerActivations out{};
    out.full = replicated / sp + (split + scores) / tp;
    switch (t.recompute) {
    case Recompute::none: out.stored = out.full; break;
    case Recompute::selective:
        if (t.framework == Framework::fsdp) {
            // torchtitan's op-level policy: keep the layer input, the attention output and every other
            // matmul output (wq, wv, w1, w2 of wq wk wv wo w1 w3 w2); replay everything else.
            out.stored = e * sbh / sp + (e * sbh + e * s * b * (h + kv + f) + 4 * s * b * a) / tp;
        } else {
            out.stored = replicated / sp + split / tp;  // Megatron: only core attention is replayed
        }
        break;
    case Recompute::full: out.stored = e * sbh / sp; break;  // only the layer input
    }
    out.working = e * s * b * f * (m.gated_mlp ? 2 : 1) / tp + e * sbh;
    return out;
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

/// Logits and loss buffers per micro-batch on the last stage.
double logits_bytes(const catalog::ModelSpec& m, const Training& t, const Layout& l) {
    const double tokens = static_cast<double>(t.seq_len) / l.cp * static_cast<double>(l.micro_batch);
    const double vocab = static_cast<double>(padded_vocab(m, l.tp, t.framework == Framework::megatron)) / l.tp;
    // Megatron: 16-bit logits + one fp32 copy worked in place (6 bytes). torch cross_entropy on
    // upcast logits: at the start of backward the saved fp32 log-softmax, the dense fp32 grad from
    // nll_loss and log_softmax's fp32 input grad coexist (12 bytes).
    const double per_logit = t.framework == Framework::megatron ? 6 : 12;
    return tokens * vocab * per_logit;
}

/// Communication buffers: DeepSpeed's reduce bucket, FSDP's gathered 16-bit layers and their grads.
double comm_bytes(const Training& t, const Layout& l, double layer, double stage_params) {
    if (t.framework == Framework::deepspeed && t.zero_stage >= 1)
        return 2 * std::min(5e8, stage_params) * (t.zero_stage >= 3 ? 2 : 1);
    if (t.framework == Framework::fsdp && t.zero_stage >= 3 && l.dp > 1)
        return 2 * 2 * layer + 4 * layer;  // current + prefetched bf16 layer, one unsharded fp32 grad
    return 0;
}

/// What the measure adds on top of live tensors: the caching allocator's reserve, and the CUDA
/// context plus NCCL buffers that only nvidia-smi sees.
double overhead_bytes(Measure measure, double dynamic, int gpus) {
    // cuBLAS/cuBLASLt workspaces come from the caching allocator: 32 MiB each for the compute and
    // communication streams on Hopper-class GPUs.
    const double workspace = 64.0 * 1024 * 1024;
    if (measure == Measure::allocated) return workspace;
    // Activations and logits are freed and re-allocated every micro-batch in different sizes; the
    // caching allocator keeps the freed blocks split and cached, a share of the dynamic peak.
    const double reserved = workspace + 0.12 * dynamic;
    if (measure == Measure::reserved) return reserved;
    const double context = 0.6 * kGiB, nccl = gpus > 1 ? 0.3 * kGiB : 0.0;
    return reserved + context + nccl;
}

}  // namespace

StageMemoryModel::StageMemoryModel(const catalog::ModelSpec& m, const Training& t, const Layout& l, Measure measure)
    : model_(m), training_(t), layout_(l), measure_(measure) {
    validate(m, t, l);
    const bool pad = t.framework == Framework::megatron;
    const StateBytes sb = state_bytes(t, l.dp);
    weights_ = sb.weights;
    gradients_ = sb.gradients;
    optimizer_ = sb.optimizer;
    const LayerActivations act = layer_activations(m, t, l);
    stored_ = act.stored;
    micro_batches_ = l.micro_batches(t.global_batch);
    element_ = element_bytes(t);
    layer_ = layer_params(m, l.tp);
    embedding_ = embedding_params(m, l.tp, pad);
    output_ = output_params(m, l.tp, l.pp, pad);
    // Two candidate peaks: the loss (last stage: stored activations + logits buffers), and
    // back-propagating a layer (stored + gradient temporaries + the replayed layer under full
    // recompute). Whichever is larger is the stage's peak.
    backward_peak_ = act.working + (t.recompute == Recompute::full ? act.full : 0);
    logits_ = logits_bytes(m, t, l);
    sbh_ = static_cast<double>(t.seq_len) / l.cp * static_cast<double>(l.micro_batch) *
           static_cast<double>(m.hidden) / (t.seq_parallel ? l.tp : 1);
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
    st.weights = params * weights_;
    st.gradients = params * gradients_;
    st.optimizer = params * optimizer_;
    st.in_flight = in_flight(layout_, i, micro_batches_);

    double per_mb = static_cast<double>(count) * stored_;
    if (first && model_.dropout > 0) per_mb += sbh_;  // embedding dropout mask
    if (last) per_mb += 2 * element_ * sbh_;           // final norm input and output-layer input
    const bool loss_peak = last && logits_ > backward_peak_;
    st.activations = st.in_flight * per_mb + (loss_peak ? 0 : backward_peak_);
    st.logits = loss_peak ? logits_ : 0;
    st.comm_buffers = comm_bytes(training_, layout_, layer_, params);
    st.overhead = overhead_bytes(measure_, st.activations + st.logits, layout_.gpus());
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
