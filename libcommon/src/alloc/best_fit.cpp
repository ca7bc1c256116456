#include <hetsched/alloc/best_fit.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace hetsched::alloc {
namespace {

/// Free GPUs of `n` that `r` may take: whole node groups.
int usable_free(const ClusterNode& n, const GpuRequest& r) { return n.free / r.node_group * r.node_group; }

/// What a pipeline stage's GPUs must share: a type, or for nodes given by memory alone, that memory
/// (GPUs of 40 and 80 GiB are not one kind of GPU).
using Kind = std::pair<std::string, double>;
Kind kind_of(const std::string& gpu, double memory_gib) { return {gpu, gpu.empty() ? memory_gib : 0.0}; }
Kind kind_of(const ClusterNode& n) { return kind_of(n.gpu, n.memory_gib); }
/// Whether `n` is of kind `k`, without copying its type name (best-fit asks it of every node, per plan).
bool of_kind(const ClusterNode& n, const Kind& k) {
    return n.gpu == k.first && (!n.gpu.empty() || n.memory_gib == k.second);
}

/// Whether `r` may take GPUs of `n`: of its type when it names one, and of `kind` when given.
bool eligible(const ClusterNode& n, const GpuRequest& r, double usable_fraction, const Kind* kind = nullptr) {
    return usable_free(n, r) > 0 && n.memory_gib * usable_fraction >= r.need_gib(n.gpu) &&
           (r.gpu.empty() || n.gpu == r.gpu) && (!kind || of_kind(n, *kind));
}

int free_with(const std::vector<ClusterNode>& nodes, const GpuRequest& r, double usable_fraction, const Kind* kind) {
    int n = 0;
    for (const auto& node : nodes)
        if (eligible(node, r, usable_fraction, kind)) n += usable_free(node, r);
    return n;
}

/// Alg. 1's best fit over the eligible nodes (of `kind` when given), whole node groups from each.
std::vector<NodeShare> greedy_fit(const std::vector<ClusterNode>& nodes, const GpuRequest& r, double usable_fraction,
                                  const Kind* kind = nullptr) {
    if (r.gpus <= 0 || free_with(nodes, r, usable_fraction, kind) < r.gpus) return {};
    // Fewest free GPUs first (an exact fit is the first that suffices), then the smallest GPUs, then
    // the name, so the choice is deterministic. A node taken whole leaves the others' order as it was,
    // so one sort serves every step.
    std::vector<const ClusterNode*> fit;
    for (const auto& n : nodes)
        if (eligible(n, r, usable_fraction, kind)) fit.push_back(&n);
    std::sort(fit.begin(), fit.end(), [&](const ClusterNode* a, const ClusterNode* b) {
        return std::make_tuple(usable_free(*a, r), a->memory_gib, std::cref(a->name)) <
               std::make_tuple(usable_free(*b, r), b->memory_gib, std::cref(b->name));
    });
    std::vector<NodeShare> out;
    int left = r.gpus;
    while (left > 0) {
        auto single = std::find_if(fit.begin(), fit.end(), [&](const ClusterNode* n) { return usable_free(*n, r) >= left; });
        if (single != fit.end()) {
            out.push_back({(*single)->name, (*single)->gpu, left, (*single)->memory_gib});
            break;
        }
        // No node suffices: the one with the most free GPUs (the last), or the first among equally
        // free nodes with smaller GPUs than it.
        auto most = fit.end() - 1, first = most;
        while (first != fit.begin() && usable_free(**(first - 1), r) == usable_free(**most, r)) --first;
        if ((*first)->memory_gib < (*most)->memory_gib) most = first;
        out.push_back({(*most)->name, (*most)->gpu, usable_free(**most, r), (*most)->memory_gib});
        left -= usable_free(**most, r);
        fit.erase(most);
    }
    return out;
}

bool whole_type_groups(const std::vector<NodeShare>& shares, int type_group) {
    std::map<Kind, int> per_type;
    for (const auto& s : shares) per_type[kind_of(s.gpu, s.memory_gib)] += s.gpus;
    return std::all_of(per_type.begin(), per_type.end(), [&](const auto& t) { return t.second % type_group == 0; });
}

/// Eligible free GPUs of each kind (of the request's type, or every kind) that hold at least one
/// type group.
std::vector<std::pair<int, Kind>> type_room(const std::vector<ClusterNode>& nodes, const GpuRequest& r,
                                            double usable_fraction) {
    std::set<Kind> kinds;
    for (const auto& n : nodes)
        if (r.gpu.empty() || n.gpu == r.gpu) kinds.insert(kind_of(n));
    std::vector<std::pair<int, Kind>> room;
    for (const auto& k : kinds) {
        const int free = free_with(nodes, r, usable_fraction, &k);
        if (free >= r.type_group) room.emplace_back(free, k);
    }
    return room;
}

/// `groups` type groups of `r` on GPUs of kind `k`.
std::vector<NodeShare> fit_on_type(const std::vector<ClusterNode>& nodes, const GpuRequest& r, const Kind& k,
                                   int groups, double usable_fraction) {
    GpuRequest one = r;
    one.gpus = groups * r.type_group;
    return greedy_fit(nodes, one, usable_fraction, &k);
}

}  // namespace

int free_gpus_with(const std::vector<ClusterNode>& nodes, const GpuRequest& r, double usable_fraction) {
    return free_with(nodes, r, usable_fraction, nullptr);
}

std::vector<NodeShare> best_fit_shares(const std::vector<ClusterNode>& nodes, const GpuRequest& r,
                                       double usable_fraction) {
    std::vector<NodeShare> out = greedy_fit(nodes, r, usable_fraction);
    if (out.empty() || whole_type_groups(out, r.type_group)) return out;
    // A pipeline stage would span two kinds. The kinds by room, the fewest free GPUs first (the type
    // name, then the memory, breaks ties): the first that holds every stage is the best fit on one kind.
    std::vector<std::pair<int, Kind>> room = type_room(nodes, r, usable_fraction);
    std::sort(room.begin(), room.end());
    const int stages = r.gpus / r.type_group;
    for (const auto& [free, t] : room)
        if (free >= r.gpus) return fit_on_type(nodes, r, t, stages, usable_fraction);
    // No kind holds every stage: whole stages on several kinds, those with the most room first (the
    // fewest kinds), then the one with the least room that holds the rest.
    out.clear();
    int left = stages;
    while (left > 0 && !room.empty()) {
        auto chosen = std::find_if(room.begin(), room.end(), [&](const auto& t) { return t.first / r.type_group >= left; });
        if (chosen == room.end()) --chosen;
        const int groups = std::min(left, chosen->first / r.type_group);
        std::vector<NodeShare> shares = fit_on_type(nodes, r, chosen->second, groups, usable_fraction);
        if (shares.empty()) return {};
        out.insert(out.end(), shares.begin(), shares.end());
        left -= groups;
        room.erase(chosen);
    }
    if (left > 0) return {};
    return out;
}

int whole_type_groups_free(const std::vector<ClusterNode>& nodes, const GpuRequest& r, double usable_fraction) {
    int groups = 0;
    for (const auto& t : type_room(nodes, r, usable_fraction)) groups += t.first / r.type_group;
    return groups;
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
