#include <hetsched/sched/kept_jobs.hpp>

namespace hetsched::sched {
namespace {

constexpr std::uint64_t kKeptSeed = 0x6b657074;  // "kept"

/// v (one value per job of the rest) spread over all the jobs, `fill(k)` at each kept job; a vector a
/// decision may leave empty (`optional`) stays empty.
template <class T, class Fill>
void spread(std::vector<T>& v, const std::vector<char>& kept, Fill fill, bool optional = true) {
    if (optional && v.empty()) return;
    std::vector<T> out;
    out.reserve(kept.size());
    size_t next = 0;
    for (size_t k = 0; k < kept.size(); ++k) out.push_back(kept[k] ? fill(k) : std::move(v[next++]));
    v = std::move(out);
}

/// The job set Gavel's allocation stands for: the jobs it was computed over, and the kept ones apart
/// (hashed with another seed); with none kept, the digest of all the jobs, as gavel records it.
std::uint64_t gavel_key(const ClusterState& s, const std::vector<char>& kept) {
    std::uint64_t key = 0, rest = 0;
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        if (kept[k]) key += id_hash(s.jobs[k].id, kKeptSeed);
        else rest += id_hash(s.jobs[k].id);
    }
    return key + (rest == 0 ? 1 : rest);
}

}  // namespace

std::vector<char> kept_jobs(const ClusterState& s) {
    std::vector<char> kept(s.jobs.size(), 0);
    std::vector<char> kept_sharer(s.nodes.size(), 0);  // nodes where a kept job shares a GPU
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        const Job& j = s.jobs[k];
        kept[k] = !j.preemptible && j.remaining() > 0 && s.hosts_up(j) && s.can_run(j, j.placement.type);
        if (kept[k] && j.placement.shared) kept_sharer[static_cast<size_t>(j.placement.shares.front().node)] = 1;
    }
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        const Placement& p = s.jobs[k].placement;
        if (p.shared && s.jobs[k].remaining() > 0 && s.hosts_up(s.jobs[k]) && kept_sharer[static_cast<size_t>(p.shares.front().node)])
            kept[k] = 1;
    }
    return kept;
}

ClusterState without_kept(const ClusterState& s, const std::vector<char>& kept) {
    ClusterState rest = s;  // every field, the jobs then chosen
    rest.jobs.clear();
    std::vector<int> sharers(s.nodes.size(), 0);
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        const Job& j = s.jobs[k];
        if (!kept[k]) {
            rest.jobs.push_back(j);
            continue;
        }
        if (j.placement.shared) ++sharers[static_cast<size_t>(j.placement.shares.front().node)];
        else
            for (const NodeShare& sh : j.placement.shares) rest.nodes[static_cast<size_t>(sh.node)].gpus -= sh.gpus;
    }
    for (size_t n = 0; n < sharers.size(); ++n) rest.nodes[n].gpus -= (sharers[n] + 1) / 2;
    // Jobs arriving or leaving since the last decision is what the policies and the host placement
    // call churn: the rest churned when the whole did, not because the kept jobs are left out.
    const std::uint64_t digest = active_set_digest(rest.jobs);
    rest.active_set = s.churned() ? 0 : digest;
    // Gavel recomputes its allocation when the job set changed (and a reset is due): for the rest, when
    // the jobs it was computed for or the jobs kept out of it changed, so that a kept job leaving, or
    // one no longer kept, is a change.
    rest.gavel_active_set = s.gavel_active_set == gavel_key(s, kept) ? digest : digest + 1;
    return rest;
}

void merge_kept(ClusterState& s, const std::vector<char>& kept, ClusterState&& rest, TypeDecision& d,
                std::vector<Placement>& placed) {
    const auto& jobs = s.jobs;
    spread(d.type, kept, [&](size_t k) { return jobs[k].placement.type; }, false);
    spread(d.gpus, kept, [&](size_t k) { return jobs[k].num_gpus; });
    spread(d.shared, kept, [&](size_t k) { return static_cast<char>(jobs[k].placement.shared); });
    spread(d.explain, kept, [](size_t) { return std::vector<CostTerms>{}; });
    spread(placed, kept, [&](size_t k) { return jobs[k].placement; }, false);
    // The rest's allocation is for its current jobs (recomputed, or unchanged): record them with the
    // kept ones; else the change stays pending for a round when a reset is due.
    if (rest.gavel_active_set == active_set_digest(rest.jobs)) s.gavel_active_set = gavel_key(s, kept);
    if (d.stats.method == "lp" && !d.stats.reused)  // a new Gavel allocation, without the kept jobs: their books restart
        for (size_t k = 0; k < kept.size(); ++k)
            if (kept[k]) {
                JobBook& b = s.jobs[k].book;
                b.gavel_share.clear();
                b.gavel_deficit_s.clear();
                b.gavel_base_s = b.time_per_type_s;  // their time counts from this reset, as the others'
            }
    s.gavel_reset_s = rest.gavel_reset_s;
    size_t next = 0;
    for (size_t k = 0; k < kept.size(); ++k)
        if (!kept[k]) s.jobs[k] = std::move(rest.jobs[next++]);
}

}  // namespace hetsched::sched
