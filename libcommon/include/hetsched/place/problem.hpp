#pragma once
/// A stage-placement problem reduced to numbers: the GPU types an allocation offers, how many layers
/// each holds at each pipeline position, and what a micro-batch costs on each. The placers and the
/// estimator see only this, so they can be tested on hand-made problems as well as built ones.
#include <memory>
#include <string>
#include <vector>

#include <hetsched/model/stage_memory.hpp>
#include <hetsched/place/pipeline_schedule.hpp>

namespace hetsched::place {

/// One GPU type of the allocation and everything the placers need to know about it.
struct StageType {
    std::string name;
    int stages = 0;                    ///< stages of the allocation that run on this type
    double tflops = 0;                 ///< F(t), the computing capability CMR and load balancing use
    double memory_gib = 0;             ///< M(t), memory per GPU
    std::vector<long> max_layers;      ///< by stage position: the most layers memory allows (0: none)
    std::vector<double> forward;       ///< prefix sums over the model's layers, seconds per micro-batch
    std::vector<double> backward;      ///< (size layers + 1; entry i = time of layers [0, i))
    double head_forward = 0, head_backward = 0;  ///< embedding, on the first stage
    double tail_forward = 0, tail_backward = 0;  ///< output layer and loss, on the last stage
    double allreduce_s_per_param = 0;  ///< gradient sync among the stage's dp GPUs, per parameter
    double optimizer_s_per_param = 0;  ///< the optimizer step, per parameter of the stage
    double link_s = 0;                 ///< one micro-batch's activation to an adjacent stage of this type on its node
    double node_link_s = 0;            ///< the same to an adjacent stage of this type on the next node
    /// Stages of this type one node holds, filled in pipeline order (0: every pair is link_s apart).
    int stages_per_node = 0;
    double nic_bytes_s = 0;            ///< its node's network to other nodes (the catalog's nic_gb_s, else the network's)
    double tied_alone_s = 0;           ///< the tied-embedding sync when every stage is of this type
    double usable_gib = 0;             ///< memory a stage may fill (for reports)
    double first_layer_gib = 0;        ///< a middle stage with one layer (for shortfall messages)
    double per_layer_gib = 0;          ///< what each further layer adds there
    /// The memory model on this type (its compute capability sets Transformer Engine's workspace, and
    /// torch's cuBLAS ones under cublas_workspace_config default), for
    /// reports; absent in hand-made problems.
    std::shared_ptr<const model::StageMemoryModel> memory;
};

struct Problem {
    std::string model;
    long layers = 0;
    int dp = 1;
    int tp = 1;                    ///< tensor-parallel GPUs of each stage (its times and memory per GPU)
    long micro_batches = 1;
    std::vector<StageType> types;
    double layer_params = 0, head_params = 0, tail_params = 0;  ///< for the gradient sync
    /// One micro-batch's activation between stages of two different types, types.size() squared (row:
    /// from); empty: no time (hand-made problems without a network).
    std::vector<double> cross_links;
    double tied_sync_s = 0;        ///< the tied embedding's gradient all-reduce, first with last stage
    bool tied_before_allreduce = false;  ///< DeepSpeed syncs it before the data-parallel all-reduce
    ScheduleKind schedule = ScheduleKind::overlapped;

    int stages() const;
    double forward_s(size_t type, int pos, long first, long count) const;
    double backward_s(size_t type, int pos, long first, long count) const;
    /// Parameters of a stage at position `pos` holding `count` layers (the ends included).
    double stage_params(int pos, long count) const;
    /// What the stage runs after its last backward: the gradient sync, then the optimizer step.
    double tail_s(size_t type, int pos, long count) const {
        return stage_params(pos, count) * (types[type].allreduce_s_per_param + types[type].optimizer_s_per_param);
    }
    /// One micro-batch's activation from a stage of type `from`, the `index`-th of its type in pipeline
    /// order (0-based), to the next stage, of type `to`. A type's stages fill its nodes in pipeline
    /// order, so two adjacent stages of one type share a node unless the first ends one.
    double transfer_s(size_t from, size_t to, long index) const {
        if (from != to) return cross_links.empty() ? 0.0 : cross_links[from * types.size() + to];
        const StageType& t = types[from];
        return t.stages_per_node > 0 && (index + 1) % t.stages_per_node == 0 ? t.node_link_s : t.link_s;
    }
    /// Fastest forward + backward of any single layer on `type` (for lower bounds).
    double min_layer_s(size_t type) const;
};

/// A placement: the GPU type of each stage in pipeline order and how many consecutive layers it holds.
struct Placement {
    std::vector<size_t> order;  ///< index into Problem::types, one per stage
    std::vector<long> layers;   ///< per stage; they sum to Problem::layers

    bool empty() const { return order.empty(); }
};

/// Whether every stage holds at least one layer and no more than its memory allows, and the layers
/// add up.
bool feasible(const Problem& p, const Placement& pl);

}  // namespace hetsched::place
