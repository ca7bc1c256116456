#pragma once
/// Frenzy's heterogeneity-aware scheduler (HAS, §IV-B and Alg. 1): take the first of a job's ranked
/// resource plans that the cluster's free GPUs can satisfy, then best-fit it onto nodes: a node whose
/// free GPUs fit the request (the one with the fewest free GPUs first, so an exact fit wins), else
/// greedily the node with the most free GPUs, and repeat for what is left.
#include <string>
#include <vector>

#include <hetsched/cli/error.hpp>

namespace hetsched::alloc {

/// One node of a cluster: GPUs of one type, some of them free.
struct ClusterNode {
    std::string name;
    std::string gpu;         ///< type name
    double memory_gib = 0;   ///< per GPU
    int gpus = 0;
    int free = 0;
    SourcePos where;
};

/// A request: this many GPUs with at least this much usable memory each (Frenzy's Job(n, s)).
struct GpuRequest {
    int gpus = 0;
    double min_memory_gib = 0;
};

/// GPUs taken from one node.
struct NodeShare {
    std::string node;
    std::string gpu;
    int gpus = 0;
};

/// Free GPUs of `nodes` whose memory times `usable_fraction` is at least `min_memory_gib`.
int free_gpus_with(const std::vector<ClusterNode>& nodes, double min_memory_gib, double usable_fraction);

/// Best-fit placement of `r` (Alg. 1 lines 11-36); takes the GPUs from `nodes`. Empty, and `nodes`
/// unchanged, when the eligible free GPUs are too few.
std::vector<NodeShare> best_fit(std::vector<ClusterNode>& nodes, const GpuRequest& r, double usable_fraction);

}  // namespace hetsched::alloc
