#include <hetsched/alloc/best_fit.hpp>

#include <algorithm>
#include <tuple>

namespace hetsched::alloc {
namespace {

bool eligible(const ClusterNode& n, const GpuRequest& r, double usable_fraction) {
    return n.free > 0 && n.memory_gib * usable_fraction >= r.min_memory_gib && (r.gpu.empty() || n.gpu == r.gpu);
}

}  // namespace

int free_gpus_with(const std::vector<ClusterNode>& nodes, const GpuRequest& r, double usable_fraction) {
    int n = 0;
    for (const auto& node : nodes)
        if (eligible(node, r, usable_fraction)) n += node.free;
    return n;
}

std::vector<NodeShare> best_fit_shares(const std::vector<ClusterNode>& nodes, const GpuRequest& r,
                                       double usable_fraction) {
    if (r.gpus <= 0 || free_gpus_with(nodes, r, usable_fraction) < r.gpus) return {};
    // Fewest free GPUs first (an exact fit is the first that suffices), then the smallest GPUs, then
    // the name, so the choice is deterministic. A node taken whole leaves the others' order as it was,
    // so one sort serves every step.
    std::vector<const ClusterNode*> fit;
    for (const auto& n : nodes)
        if (eligible(n, r, usable_fraction)) fit.push_back(&n);
    std::sort(fit.begin(), fit.end(), [](const ClusterNode* a, const ClusterNode* b) {
        return std::tie(a->free, a->memory_gib, a->name) < std::tie(b->free, b->memory_gib, b->name);
    });
    std::vector<NodeShare> out;
    int left = r.gpus;
    while (left > 0) {
        auto single = std::find_if(fit.begin(), fit.end(), [&](const ClusterNode* n) { return n->free >= left; });
        if (single != fit.end()) {
            out.push_back({(*single)->name, (*single)->gpu, left, (*single)->memory_gib});
            break;
        }
        // No node suffices: the one with the most free GPUs (the last), or the first among equally
        // free nodes with smaller GPUs than it.
        auto most = fit.end() - 1, first = most;
        while (first != fit.begin() && (*(first - 1))->free == (*most)->free) --first;
        if ((*first)->memory_gib < (*most)->memory_gib) most = first;
        out.push_back({(*most)->name, (*most)->gpu, (*most)->free, (*most)->memory_gib});
        left -= (*most)->free;
        fit.erase(most);
    }
    return out;
}

std::vector<NodeShare> best_fit(std::vector<ClusterNode>& nodes, const GpuRequest& r, double usable_fraction) {
    std::vector<NodeShare> out = best_fit_shares(nodes, r, usable_fraction);
    for (const auto& s : out)
        for (auto& n : nodes)
            if (n.name == s.node) {
                n.free -= s.gpus;
                break;
            }
    return out;
}

}  // namespace hetsched::alloc
