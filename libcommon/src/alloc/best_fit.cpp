#include <hetsched/alloc/best_fit.hpp>

#include <algorithm>
#include <tuple>

namespace hetsched::alloc {
namespace {

bool eligible(const ClusterNode& n, double min_memory_gib, double usable_fraction) {
    return n.free > 0 && n.memory_gib * usable_fraction >= min_memory_gib;
}

}  // namespace

int free_gpus_with(const std::vector<ClusterNode>& nodes, double min_memory_gib, double usable_fraction) {
    int n = 0;
    for (const auto& node : nodes)
        if (eligible(node, min_memory_gib, usable_fraction)) n += node.free;
    return n;
}

std::vector<NodeShare> best_fit(std::vector<ClusterNode>& nodes, const GpuRequest& r, double usable_fraction) {
    if (r.gpus <= 0 || free_gpus_with(nodes, r.min_memory_gib, usable_fraction) < r.gpus) return {};
    std::vector<NodeShare> out;
    int left = r.gpus;
    while (left > 0) {
        std::vector<ClusterNode*> fit;
        for (auto& n : nodes)
            if (eligible(n, r.min_memory_gib, usable_fraction)) fit.push_back(&n);
        // Fewest free GPUs first (an exact fit is the first that suffices), then the smallest GPUs,
        // then the name, so the choice is deterministic.
        std::sort(fit.begin(), fit.end(), [](const ClusterNode* a, const ClusterNode* b) {
            return std::tie(a->free, a->memory_gib, a->name) < std::tie(b->free, b->memory_gib, b->name);
        });
        auto single = std::find_if(fit.begin(), fit.end(), [&](const ClusterNode* n) { return n->free >= left; });
        if (single != fit.end()) {
            (*single)->free -= left;
            out.push_back({(*single)->name, (*single)->gpu, left});
            break;
        }
        // No node suffices: the one with the most free GPUs (the smallest GPUs among equals).
        ClusterNode* most = fit.back();
        for (ClusterNode* n : fit)
            if (n->free == most->free && n->memory_gib < most->memory_gib) most = n;
        out.push_back({most->name, most->gpu, most->free});
        left -= most->free;
        most->free = 0;
    }
    return out;
}

}  // namespace hetsched::alloc
