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
/// Seconds a ring all-reduce of `bytes` takes over `ranks` GPUs at `bytes_s` per direction:
/// 2 (n-1)/n of the buffer crosses each link.
double ring_allreduce_s(double bytes, int ranks, double bytes_s);

/// FLOPs of one micro-batch through one GPU (no tensor parallelism).
struct MicroBatchFlops {
    double layer_forward = 0, layer_backward = 0;  ///< one transformer layer
    double tail_forward = 0, tail_backward = 0;    ///< output projection and loss (last stage)
};
/// Backward is twice the forward's matmuls; full recompute replays the forward, selective recompute
/// the attention scores.
MicroBatchFlops micro_batch_flops(const catalog::ModelSpec& m, const Training& t, long micro_batch);

/// Bytes of the activation one pipeline stage sends the next per micro-batch (its gradient comes back
/// the same size).
double boundary_bytes(const catalog::ModelSpec& m, const Training& t, long micro_batch);

/// Bytes of gradient per parameter that data parallelism synchronises, and the traffic of that sync
/// in units of one ring all-reduce of them (ZeRO-3/FSDP full sharding also all-gathers the weights
/// for forward and backward: 1.5).
struct GradientSync {
    double bytes_per_param = 2;
    double allreduce_equivalents = 1;
};
GradientSync gradient_sync(const Training& t);

}  // namespace hetsched::model
