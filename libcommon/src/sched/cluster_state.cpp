#include <hetsched/sched/cluster_state.hpp>

#include <algorithm>

#include <hetsched/fit/gpu_sharing.hpp>

namespace hetsched::sched {

void check_node_name(const std::string& name, const SourcePos& pos) {
    if (name.empty()) throw DataError("expected a non-empty node name", pos);
    const auto bad = name.find_first_of(";:");
    if (bad != std::string::npos)
        throw DataError("node name '" + escape_control(name) + "' holds '" + name[bad] +
                            "', which the actions' nodes column (name:gpus joined by ';') uses: rename the node",
                        pos);
}

std::vector<int> ClusterState::capacity() const {
    std::vector<int> cap(types.size(), 0);
    for (const auto& n : nodes)
        if (!n.down) cap[static_cast<size_t>(n.type)] += n.gpus;
    return cap;
}

std::vector<int> ClusterState::installed() const {
    std::vector<int> cap(types.size(), 0);
    for (const auto& n : nodes) cap[static_cast<size_t>(n.type)] += n.gpus;
    return cap;
}

bool ClusterState::can_run(const Job& j, const std::vector<double>& throughput, int t) const {
    const auto i = static_cast<size_t>(t);
    if (throughput[i] <= 0) return false;
    const double mem = types[i].memory_gib, need = j.memory_on(t);
    return need <= 0 || mem <= 0 || need <= mem;
}

bool ClusterState::can_share(const Job& j, int t) const {
    const double mem = types[static_cast<size_t>(t)].memory_gib;
    const double need = j.memory_on(t);
    return can_run(j, t) && j.util_pct > 0 && j.util_pct <= 50 && need > 0 && mem > 0 &&
           fit::kMemoryMargin * need <= mem / 2;
}

bool ClusterState::hosts_up(const Job& j) const {
    return j.placement.running() && std::all_of(j.placement.shares.begin(), j.placement.shares.end(), [&](const NodeShare& sh) {
               return !nodes[static_cast<size_t>(sh.node)].down;
           });
}

bool ClusterState::churned() const { return active_set == 0 || active_set != active_set_digest(jobs); }

std::uint64_t id_hash(const std::string& id, std::uint64_t seed) {
    std::uint64_t h = 1469598103934665603ull ^ (seed * 0x9e3779b97f4a7c15ull);
    for (unsigned char c : id) h = (h ^ c) * 1099511628211ull;
    return h;
}

std::uint64_t mixed_hash(const std::string& text, std::uint64_t seed) {
    std::uint64_t z = id_hash(text, seed) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

std::uint64_t active_set_digest(const std::vector<Job>& jobs) {
    // The sum of each id's hash: independent of order, and a change of one id changes it.
    std::uint64_t sum = 0;
    for (const auto& j : jobs) sum += id_hash(j.id);
    return sum == 0 ? 1 : sum;
}

}  // namespace hetsched::sched
