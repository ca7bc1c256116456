#pragma once
/// What one transformer layer keeps for its backward, per micro-batch, under each framework's habits
/// (Korthikanti et al.'s tensor-by-tensor accounting, extended to eager PyTorch blocks, torchtitan's
/// DTensor tensor parallelism and selective checkpointing, and unfused attention's softmax).
#include <hetsched/catalog/model_preset.hpp>
#include <hetsched/model/training.hpp>

namespace hetsched::model {

/// Whether the layers run as eager PyTorch modules that save every op's inputs (a LLaMA block from
/// Hugging Face under DeepSpeed, or torchtitan's without torch.compile): RMSNorm upcasts to fp32
/// (torchtitan's from 0.2 is torch's fused kernel), SwiGLU keeps gate, silu(gate), up and their
/// product, and K and V are repeated to every head before attention (torchtitan's from 0.2.2 are
/// not). Megatron-LM's (and compiled) blocks fuse these.
bool eager_ops(const catalog::ModelSpec& m, const Training& t);

/// Whether tensor parallelism is torchtitan's (DTensor): it saves gathered, full-sequence GEMM inputs
/// and shards the logits over the vocabulary for a parallel loss.
bool dtensor_tp(const Training& t, const Layout& l);

/// Whether the layers run sequence-parallel under tensor parallelism: as a job says for Megatron's
/// layers, always for torchtitan's (its plan shards the norms and the residual stream by sequence,
/// SequenceParallel and Shard(1) outputs, with no option to turn that off).
bool sequence_parallel(const Training& t, const Layout& l);

/// Activation bytes stored by one layer for one micro-batch.
struct LayerActivations {
    double stored;   ///< kept from forward to backward
    double full;     ///< what the layer holds when nothing is recomputed (for full recompute's replay)
    double working;  ///< largest gradient temporaries while back-propagating through it
    /// What recomputation replays of the layer in its backward: `full` less what the policy kept of it
    /// (0 with nothing recomputed). A kept tensor no backward reads (torchtitan's saved abs of float8
    /// casts) is in `stored` but no part of `full`, nor of this.
    double replayed = 0;
    /// Unfused attention at its softmax's backward: what a replayed layer holds beyond its input, and
    /// what a kept layer adds to its stored tensors (0 with flash attention).
    double attention_replayed = 0, attention_kept = 0;
    /// The bytes of one fp32 score tensor an unfused fp32 softmax makes (its output, its gradients),
    /// freed by the end of the layer's backward (0 without one): a block the layer leaves cached.
    double fp32_score_block = 0;
};

LayerActivations layer_activations(const catalog::ModelSpec& m, const Training& t, const Layout& l);

}  // namespace hetsched::model
