#include <hetsched/model/step_time.hpp>

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

double ring_allreduce_s(double bytes, int ranks, double bytes_s) {
    if (ranks <= 1) return 0;
    return 2.0 * (ranks - 1) / ranks * bytes / bytes_s;
}

MicroBatchFlops micro_batch_flops(const catalog::ModelSpec& m, const Training& t, long micro_batch) {
    const double seq = static_cast<double>(t.seq_len);
    const double tokens = seq * static_cast<double>(micro_batch);
    MicroBatchFlops f;
    f.layer_forward = layer_forward_flops(m, tokens, seq);
    f.layer_backward = 2 * f.layer_forward;
    if (t.recompute == Recompute::full) f.layer_backward += f.layer_forward;
    if (t.recompute == Recompute::selective) f.layer_backward += 4 * tokens * seq * static_cast<double>(m.hidden);
    f.tail_forward = logits_forward_flops(m, tokens);
    f.tail_backward = 2 * f.tail_forward;
    return f;
}

double boundary_bytes(const catalog::ModelSpec& m, const Training& t, long micro_batch) {
    return static_cast<double>(t.seq_len) * static_cast<double>(micro_batch) * static_cast<double>(m.hidden) *
           element_bytes(t);
}

GradientSync gradient_sync(const Training& t) {
    GradientSync g;
    // Megatron-LM and FSDP reduce fp32 gradients; DeepSpeed reduces them in the training precision.
    g.bytes_per_param = t.framework == Framework::deepspeed ? element_bytes(t) : 4;
    if (t.zero_stage >= 3) g.allreduce_equivalents = 1.5;
    return g;
}

}  // namespace hetsched::model
