#pragma once
/// The compute and communication time model: FLOPs of one micro-batch per layer and at the model's
/// two ends, achieved GPU speed, bytes between pipeline stages, and link speeds with the ring
/// all-reduce that data parallelism runs over them.
#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/catalog/model_preset.hpp>
#include <hetsched/model/training.hpp>

namespace hetsched::model {

/// Achieved share of a GPU's peak TFLOPS when no profile says otherwise (model FLOPs utilisation of
/// well-tuned transformer training, 40-55% in published Megatron-LM and DeepSpeed runs).
inline constexpr double kDefaultEfficiency = 0.45;
/// Achieved share of a GPU's peak memory bandwidth by streaming kernels (elementwise ops, the fused
/// optimizer step): STREAM-style copy and triad kernels reach 80-90% of the datasheet figure.
inline constexpr double kBandwidthEfficiency = 0.8;

/// Link speeds, GB/s in one direction.
struct Network {
    double inter_node_gb_s = 25;  ///< between nodes (a 200 Gb/s NIC per node)
    double intra_node_gb_s = 0;   ///< between GPUs of one node; 0: each type's own link
};

/// One-direction bytes/s between two GPUs of type `g` in one node (half the type's bidirectional
/// link; PCIe Gen3 x16 when the type lists none).
double intra_node_bytes_s(const catalog::GpuType& g, const Network& n);
/// One-direction bytes/s between nodes.
double inter_node_bytes_s(const Network& n);

/// How a pipeline stage of `gpus` GPUs (dp x tp, tp of them a replica) of type `g` reaches other GPUs, a type's stages
/// filling its nodes in pipeline order: within a node over its link, across nodes over the node's
/// network (the type's nic_gb_s, else the network's inter-node speed), which the stage's GPUs on the
/// node share.
struct StageNetwork {
    double intra_bytes_s = 0;  ///< within a node (intra_node_bytes_s)
    double nic_bytes_s = 0;    ///< a node's network
    double nic_share = 1;      ///< the stage's GPUs on a node, sharing it
    int stages_per_node = 1;   ///< whole stages a node holds; 1 also when a stage spans nodes
    /// The speed of the stage's data-parallel gradient rings: within its node where it fits in one,
    /// else the node's network shared by the tp ranks' rings that cross it.
    double allreduce_bytes_s = 0;
    double cross_bytes_s() const { return nic_bytes_s / nic_share; }  ///< one GPU's, across nodes
};
StageNetwork stage_network(const catalog::GpuType& g, const Network& n, int gpus, int tp = 1);
/// Seconds a ring all-reduce of `bytes` takes over `ranks` GPUs at `bytes_s` per direction:
/// 2 (n-1)/n of the buffer crosses each link.
double ring_allreduce_s(double bytes, int ranks, double bytes_s);

/// FLOPs and device-memory traffic of one micro-batch through one GPU (no tensor parallelism).
struct MicroBatchWork {
    double layer_forward = 0, layer_backward = 0;  ///< FLOPs of one transformer layer
    double tail_forward = 0, tail_backward = 0;    ///< FLOPs of the output projection and loss (last stage)
    double layer_forward_bytes = 0, layer_backward_bytes = 0;  ///< bytes one layer reads and writes
};
/// Backward is twice the forward's matmuls, and 2.5 times a fused attention kernel's (it recomputes the
/// scores), which skips the blocks a causal mask zeroes; full recompute replays the forward of each
/// checkpointed layer, selective recompute the core attention (where the layers replay it:
/// replays_core_attention) or the matmuls torchtitan's op-level policy does not save. The bytes count every operator's inputs and outputs once (weights, GEMM
/// operands, norms, activation function, residual adds, flash attention's Q, K, V and output); the
/// backward moves about twice the forward's, plus the replayed forward under recompute.
MicroBatchWork micro_batch_work(const catalog::ModelSpec& m, const Training& t, long micro_batch);

/// The peak TFLOPS the job's matrix multiplies run at on `g`: the tensor peak (BF16, else FP16) for
/// 16- and 8-bit training; for fp32, the FP32 units' peak (PyTorch's default since 1.12), or with tf32
/// TF32 tensor cores at half the BF16 peak (compute capability 8.0 on, or not said; below it, and where
/// the catalog has only an FP32 figure, the FP32 peak). The tensor peak where the FP32 one is unknown.
double matmul_tflops(const catalog::GpuType& g, const Training& t);

/// Seconds `g` takes for `flops` that move `bytes`, by the roofline: the slower of compute at
/// `efficiency` x `tflops` (matmul_tflops) and traffic at kBandwidthEfficiency x peak bandwidth
/// (compute alone when the type's bandwidth is unknown, as in a user's catalog without it).
double roofline_s(const catalog::GpuType& g, double tflops, double flops, double bytes, double efficiency);

/// Bytes of device memory the optimizer step moves per parameter a GPU holds: the gradient norm
/// reads the gradients, the fused Adam (or SGD) kernel reads the gradient and reads and writes the
/// fp32 master weights and moments, and the 16-bit weights are written back. Divided by dp where the
/// optimizer is sharded (distributed optimizer, ZeRO-1 and above, FSDP's full sharding, DeepSpeed's
/// BF16 optimizer).
double optimizer_step_bytes(const Training& t, int dp);
/// Seconds of that step for `params` parameters on `g` (memory-bound; 0 when its bandwidth is unknown).
double optimizer_step_s(const catalog::GpuType& g, const Training& t, int dp, double params);

/// A note naming those of `types` (catalog names in `c`) with no memory bandwidth, whose memory-bound
/// work (the optimizer step, and the bandwidth-bound layers the compute model times) then counts no
/// time; empty when every one gives it.
std::string unknown_bandwidth_note(const catalog::GpuCatalog& c, const std::vector<std::string>& types);

/// Bytes of the activation one pipeline stage sends the next per micro-batch (its gradient comes back
/// the same size).
double boundary_bytes(const catalog::ModelSpec& m, const Training& t, long micro_batch);

/// Bytes of gradient per parameter that data parallelism synchronises, and the traffic of that sync
/// in units of one ring all-reduce of them (ZeRO-3/FSDP full sharding also all-gathers the weights
/// for forward and backward: 1.5); and the bytes per parameter of a pipeline's tied-weight all-reduce.
struct GradientSync {
    double bytes_per_param = 2;
    double allreduce_equivalents = 1;
    double tied_bytes_per_param = 2;
};
GradientSync gradient_sync(const Training& t);

}  // namespace hetsched::model
