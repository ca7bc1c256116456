#include <hetsched/sched/tie_break.hpp>

#include <tuple>

namespace hetsched::sched {

bool earlier(const Job& a, const Job& b) { return std::tie(a.submit_time_s, a.id) < std::tie(b.submit_time_s, b.id); }

std::vector<double> tie_key(const Job& j) {
    return {static_cast<double>(j.num_gpus), j.priority_weight, j.pinned && j.placement.running() ? 1.0 : 0.0};
}

std::vector<int> seeded_type_order(const ClusterState& s, std::uint64_t seed) {
    std::vector<std::pair<std::uint64_t, int>> keyed;
    for (size_t t = 0; t < s.types.size(); ++t) keyed.emplace_back(mixed_hash(s.types[t].name, seed), static_cast<int>(t));
    std::sort(keyed.begin(), keyed.end());  // names are unique: a tie of hashes falls to the index alone
    std::vector<int> order;
    for (const auto& [_, t] : keyed) order.push_back(t);
    return order;
}

}  // namespace hetsched::sched
