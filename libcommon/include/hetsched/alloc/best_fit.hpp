#pragma once
/// Frenzy's heterogeneity-aware scheduler (HAS, §IV-B and Alg. 1): take the first of a job's ranked
/// resource plans that the cluster's free GPUs can satisfy, then best-fit it onto nodes: a node whose
/// free GPUs fit the request (the one with the fewest free GPUs first, so an exact fit wins), else
/// greedily the node with the most free GPUs, and repeat for what is left.
#include <map>
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
    ///< No source position here: best-fit copies and scans nodes per plan, and a position carries the
    ///< file name; the readers check the nodes while they still hold the positions.
};

/// A request: this many GPUs with at least this much usable memory each (Frenzy's Job(n, s)).
struct GpuRequest {
    int gpus = 0;
    double min_memory_gib = 0;
    std::string gpu;  ///< only GPUs of this type; empty: any type with the memory
    /// GPUs that must share a node (a tensor-parallel group): each node gives a multiple of it.
    int node_group = 1;
    /// GPUs that must be of one kind (a pipeline stage's dp x tp): each kind gives a multiple of it. A
    /// kind is a GPU type; nodes given by memory alone, with no type, are a kind per memory size.
    int type_group = 1;
    /// A type's own need where it differs from min_memory_gib: a plan sized on one type needs more on a
    /// type of another compute capability (no fused attention for Transformer Engine below 8.0).
    std::map<std::string, double> memory_by_type{};
    double need_gib(const std::string& type) const {
        const auto it = memory_by_type.find(type);
        return it == memory_by_type.end() ? min_memory_gib : it->second;
    }
};

/// GPUs taken from one node.
struct NodeShare {
    std::string node;
    std::string gpu;
    int gpus = 0;
    double memory_gib = 0;  ///< per GPU
};

/// Free GPUs of `nodes` that `r` may use: of its type when it names one, with usable memory (memory
/// times `usable_fraction`) of at least `r.min_memory_gib`.
int free_gpus_with(const std::vector<ClusterNode>& nodes, const GpuRequest& r, double usable_fraction);

/// Best-fit placement of `r` (Alg. 1 lines 11-36) over `nodes`, which it leaves as they are, so a
/// caller trying many plans on one cluster copies nothing per plan; each node gives whole node groups.
/// When the kinds taken (GpuRequest::type_group) do not each hold whole type groups, the best fit on a
/// single kind (the one with the fewest eligible free GPUs that suffice), else whole type groups on
/// several kinds (those with the most room first). Empty when the eligible free GPUs hold too few
/// whole type groups.
std::vector<NodeShare> best_fit_shares(const std::vector<ClusterNode>& nodes, const GpuRequest& r,
                                       double usable_fraction);

/// Whole type groups of `r` the eligible free GPUs hold, summed over kinds.
int whole_type_groups_free(const std::vector<ClusterNode>& nodes, const GpuRequest& r, double usable_fraction);

/// best_fit_shares, then takes the GPUs from `nodes` (unchanged when the result is empty).
std::vector<NodeShare> best_fit(std::vector<ClusterNode>& nodes, const GpuRequest& r, double usable_fraction);

}  // namespace hetsched::alloc
