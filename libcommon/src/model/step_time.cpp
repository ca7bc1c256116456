#include <hetsched/model/step_time.hpp>

#include <algorithm>

#include <hetsched/io/comma_list.hpp>
#include <hetsched/model/memory.hpp>
#include <hetsched/model/transformer.hpp>

namespace hetsched::model {
namespace {

constexpr double kFallbackLinkGBs = 32;  ///< PCIe Gen3 x16, both directions

}  // namespace

double intra_node_bytes_s(const catalog::GpuType& g, const Network& n) {
    if (n.intra_node_gb_s > 0) return n.intra_node_gb_s * 1e9;
    return (g.link_gb_s > 0 ? g.link_gb_s : kFallbackLinkGBs) / 2 * 1e9;
}

double inter_node_bytes_s(const Network& n) { return n.inter_node_gb_s * 1e9; }

StageNetwork stage_network(const catalog::GpuType& g, const Network& n, int gpus, int tp) {
    StageNetwork out;
    out.intra_bytes_s = intra_node_bytes_s(g, n);
    out.nic_bytes_s = g.nic_gb_s > 0 ? g.nic_gb_s * 1e9 : inter_node_bytes_s(n);
    out.nic_share = std::min(gpus, g.gpus_per_node);
    out.stages_per_node = std::max(1, g.gpus_per_node / gpus);
    out.allreduce_bytes_s = gpus <= g.gpus_per_node ? out.intra_bytes_s : out.nic_bytes_s / std::min(tp, g.gpus_per_node);
    return out;
}

double ring_allreduce_s(double bytes, int ranks, double bytes_s) {
    if (ranks <= 1) return 0;
    return 2.0 * (ranks - 1) / ranks * bytes / bytes_s;
}

MicroBatchWork micro_batch_work(const catalog::ModelSpec& m, const Training& t, long micro_batch) {
    const double seq = static_cast<double>(t.seq_len);
    const double tokens = seq * static_cast<double>(micro_batch);
    const double h = static_cast<double>(m.hidden), ff = static_cast<double>(m.ffn_hidden);
    const double q = q_width(m), kv = kv_width(m);  // Q (and attention output) and K and V widths
    MicroBatchWork f;
    const double matmul = layer_matmul_flops(m, tokens);
    // A fused attention kernel (flash, cuDNN's, Transformer Engine's) works the score matrix block by
    // block and skips the blocks a causal mask zeroes whole: about half of them. Its backward computes
    // the scores again beside the four gradient matmuls, 2.5 times its forward; unfused attention
    // computes every score and masks it, and back-propagates with two matmuls a product, twice.
    const bool fused = runs_fused_attention(t);
    const double attention = attention_flops(m, tokens, seq) * (fused && m.causal ? 0.5 : 1);
    f.layer_forward = matmul + attention;
    f.layer_backward = 2 * matmul + (fused ? 2.5 : 2) * attention;
    // Full recompute replays the forward of each checkpointed layer (every checkpoint_every-th; a
    // layer's share of them, as a stage's count is not known here).
    if (t.recompute == Recompute::full) f.layer_backward += f.layer_forward / t.checkpoint_every;
    if (t.recompute == Recompute::selective) {
        if (t.framework == Framework::fsdp) {
            // torchtitan's op-level policy saves every other matmul's output and the attention's: the
            // backward replays wk, wo and one hidden x ffn matmul (w3, or w2 without gating), and the
            // attention too where its kernel is not on the save list: cuDNN's before 0.2.1, or SDPA's
            // unfused math path, whose matmuls (bmm) the list does not name.
            f.layer_backward += 2 * tokens * (h * kv + q * h + h * ff);
            if (!fused || (t.cudnn_attention && !torchtitan_saves_cudnn_attention(t))) f.layer_backward += attention;
        } else if (replays_core_attention(t)) {
            f.layer_backward += attention;
        }
    }
    f.tail_forward = logits_forward_flops(m, tokens);
    f.tail_backward = 2 * f.tail_forward;

    const double e = element_bytes(t);
    const double up = ff * (m.gated_mlp ? 2 : 1);  // FC1's output width
    // Per token: QKV (in h, out q + 2kv), attention (Q, K, V in, q out), projection (q in, h out),
    // FC1 (h in, up out), activation (up in, f out), FC2 (f in, h out), two norms and two residual
    // adds (h in, h out each; an add reads two).
    const double per_token = (h + (q + 2 * kv)) + ((q + 2 * kv) + q) + (q + h) + (h + up) + (up + ff) + (ff + h) +
                             2 * 2 * h + 2 * 3 * h;
    f.layer_forward_bytes = e * (layer_params(m, 1) + tokens * per_token);
    // (The bytes a selective replay moves are left out: a few of the forward's operators.)
    f.layer_backward_bytes =
        2 * f.layer_forward_bytes + (t.recompute == Recompute::full ? f.layer_forward_bytes / t.checkpoint_every : 0);
    return f;
}

double matmul_tflops(const catalog::GpuType& g, const Training& t) {
    if (t.precision != "fp32" || g.tflops_from_fp32) return g.tflops;
    const bool tf32_units = g.compute_capability == 0 || g.compute_capability >= 8.0;
    if (t.tf32 && tf32_units) return g.tflops / 2;  // dense TF32 is half the dense BF16 rate (A100 156/312, H100 494/989)
    return g.fp32_tflops > 0 ? g.fp32_tflops : g.tflops;
}

double roofline_s(const catalog::GpuType& g, double tflops, double flops, double bytes, double efficiency) {
    const double compute = flops / (tflops * 1e12 * efficiency);
    if (g.mem_bw_gb_s <= 0) return compute;
    return std::max(compute, bytes / (g.mem_bw_gb_s * 1e9 * kBandwidthEfficiency));
}

double optimizer_step_bytes(const Training& t, int dp) {
    const bool mixed = t.precision != "fp32";
    const double grad = 4;                               // fp32 gradients (main grads, or the fp32 partition)
    const double states = t.optimizer == "sgd" ? 4 : 8;  // momentum, or Adam's m and v, in fp32
    const double master = 4;                             // fp32 master weights (the weights under fp32)
    const double bytes = grad /* norm */ + grad + 2 * (master + states) + (mixed ? element_bytes(t) : 0);
    return optimizer_sharded(t) ? bytes / dp : bytes;
}

std::string unknown_bandwidth_note(const catalog::GpuCatalog& c, const std::vector<std::string>& types) {
    std::vector<std::string> none;
    for (const auto& name : types)
        if (const catalog::GpuType* g = c.lookup(name); g && g->mem_bw_gb_s <= 0 &&
                                                        std::find(none.begin(), none.end(), g->name) == none.end())
            none.push_back(g->name);
    if (none.empty()) return "";
    return io::join(none) + (none.size() > 1 ? " give" : " gives") +
           " no mem_bw_gb_s in the catalog: memory-bound work there (the optimizer step, layers the compute "
           "model finds bandwidth-bound) is timed as free, so too fast";
}

double optimizer_step_s(const catalog::GpuType& g, const Training& t, int dp, double params) {
    if (g.mem_bw_gb_s <= 0) return 0;
    return params * optimizer_step_bytes(t, dp) / (g.mem_bw_gb_s * 1e9 * kBandwidthEfficiency);
}

double boundary_bytes(const catalog::ModelSpec& m, const Training& t, long micro_batch) {
    return static_cast<double>(t.seq_len) * static_cast<double>(micro_batch) * static_cast<double>(m.hidden) *
           element_bytes(t);
}

GradientSync gradient_sync(const Training& t) {
    GradientSync g;
    // Megatron-LM and FSDP reduce fp32 gradients; DeepSpeed reduces them in the training precision
    // unless told to upcast (fp32_allreduce), which its ReduceTiedGrads, an all-reduce of the weight's
    // own grad (the BF16 optimizer's fp32 one while it accumulates in fp32), ignores.
    const bool deepspeed = t.framework == Framework::deepspeed;
    g.tied_bytes_per_param = deepspeed && !deepspeed_tied_grad_fp32(t) ? element_bytes(t) : 4;
    g.bytes_per_param = deepspeed && !t.fp32_allreduce ? element_bytes(t) : 4;
    if (t.zero_stage >= 3) g.allreduce_equivalents = 1.5;
    return g;
}

}  // namespace hetsched::model
