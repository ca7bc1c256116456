#include <hetsched/sched/queue_policies.hpp>

#include <algorithm>
#include <tuple>

#include <hetsched/sched/tie_break.hpp>
#include <hetsched/sched/type_fill.hpp>

namespace hetsched::sched {
namespace {

/// Non-preemptive first come, first served: running jobs whose nodes are all up keep their type;
/// then, in order of arrival, the others take the first type of `prefer(job)` with room, a job that
/// a node going down displaced trying its own type first. (Keeping a displaced job's type before
/// the others could take the GPUs of a job still running there, and stop it.)
template <class Prefer>
TypeDecision first_come(const ClusterState& s, const char* method, Prefer prefer) {
    TypeFill fill(s);
    const std::vector<size_t> order = arrival_order(s);
    for (size_t k : order)
        if (s.hosts_up(s.jobs[k]) && fill.fits(k, s.jobs[k].placement.type)) fill.take(k, s.jobs[k].placement.type);
    for (size_t k : order) {
        if (fill.types()[k] >= 0) continue;
        const Job& j = s.jobs[k];
        if (!j.placement.running() || !fill.fits(k, j.placement.type)) fill.take_first(k, prefer(j));
        else fill.take(k, j.placement.type);
    }
    return fill.decision(method);
}

}  // namespace

TypeDecision fifo_decide(const ClusterState& s, const RoundOptions& o) {
    const std::vector<int> types = seeded_type_order(s, o.seed + static_cast<std::uint64_t>(s.round));
    return first_come(s, "fifo", [&](const Job&) { return types; });
}

TypeDecision opportunistic_decide(const ClusterState& s, const RoundOptions&) {
    return first_come(s, "opportunistic", [&](const Job& j) { return fastest_types(s, j); });
}

TypeDecision has_decide(const ClusterState& s, const RoundOptions&) {
    return first_come(s, "best-fit", [&](const Job& j) {
        std::vector<int> types;
        for (int t = 0; t < static_cast<int>(s.types.size()); ++t)
            if (s.can_run(j, t)) types.push_back(t);
        // The least memory first; of types alike in memory (or all unknown), the job's faster first, so
        // that the order the state lists them in does not choose.
        std::stable_sort(types.begin(), types.end(), [&](int a, int b) {
            const auto ua = static_cast<size_t>(a), ub = static_cast<size_t>(b);
            return std::tie(s.types[ua].memory_gib, j.throughput[ub]) < std::tie(s.types[ub].memory_gib, j.throughput[ua]);
        });
        return types;
    });
}

TypeDecision srtf_decide(const ClusterState& s, const RoundOptions&) {
    std::vector<size_t> order = arrival_order(s);
    std::vector<double> left(s.jobs.size(), 0);
    const std::vector<int> up = s.capacity();  // only types with the job's GPUs up rate it
    for (size_t k : order) left[k] = s.jobs[k].remaining() / best_throughput(s, s.jobs[k], up);
    // Equal remaining times: a job running on nodes all up before one that must move anyway.
    const auto held = [&](size_t k) { return s.jobs[k].placement.running() && s.hosts_up(s.jobs[k]); };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return left[a] != left[b] ? left[a] < left[b] : held(a) && !held(b); });
    TypeFill fill(s);
    for (size_t k : order) fill.take_first(k, fastest_types(s, s.jobs[k]));
    return fill.decision("srtf");
}

}  // namespace hetsched::sched
