#include <hetsched/sched/tiresias_policy.hpp>

#include <algorithm>
#include <tuple>

#include <hetsched/sched/type_fill.hpp>

namespace hetsched::sched {
namespace {

/// The queue a job with `service` GPU-seconds belongs in.
int queue_for(double service, const std::vector<double>& limits) {
    return static_cast<int>(std::upper_bound(limits.begin(), limits.end(), service) - limits.begin());
}

/// Demotion on crossing a threshold, promotion on starvation, queue entry for new jobs.
void update_queues(ClusterState& s, const RoundOptions& o) {
    for (auto& j : s.jobs) {
        JobBook& b = j.book;
        if (b.tiresias_entered_s < 0) b.tiresias_entered_s = j.submit_time_s;
        // The wait counts from the job's first start, and after a promotion from its next start (dlas-gpu
        // counts pending time only while the job has run since: a promoted job's executed time is 0
        // until it runs again). A promoted job running now started at the decision before this one.
        if (b.tiresias_since_s < 0) {
            if (b.tiresias_base_gpu_s <= 0 && b.first_start_s >= 0) b.tiresias_since_s = b.first_start_s;
            else if (b.tiresias_base_gpu_s > 0 && j.placement.running() && s.last_decision_s >= 0)
                b.tiresias_since_s = s.last_decision_s;
        }
        const double service = b.attained_gpu_s - b.tiresias_base_gpu_s;
        const int q = queue_for(service, o.tiresias_queues_s);
        if (q > b.tiresias_queue) {
            b.tiresias_queue = q;
            b.tiresias_entered_s = s.time_s;
        }
        if (o.tiresias_starvation <= 0 || b.tiresias_queue == 0 || j.placement.running() || b.tiresias_since_s < 0)
            continue;
        const double ran = service / j.num_gpus;
        const double waited = s.time_s - b.tiresias_since_s - ran;
        if (waited >= o.tiresias_starvation * ran) {
            b.tiresias_queue = 0;
            b.tiresias_entered_s = s.time_s;
            b.tiresias_base_gpu_s = b.attained_gpu_s;
            b.tiresias_since_s = -1;  // from its next start
        }
    }
}

}  // namespace

namespace {

/// tiresias_type with the GPUs per type, up and installed, already counted (asked of every job a round).
int draw_type(const ClusterState& s, const Job& j, unsigned long seed, const std::vector<int>& up,
              const std::vector<int>& installed) {
    // A job running keeps its type: its own draw, or, in a state another policy placed, where it runs.
    if (j.placement.running() && s.can_run(j, j.placement.type)) return j.placement.type;
    // Among the types whose GPUs hold the job, those with enough up now when there are any, else those
    // with enough installed (the draw stays the same while nodes come and go).
    std::vector<int> usable;
    for (const auto& counts : {up, installed}) {
        for (int t = 0; t < static_cast<int>(s.types.size()); ++t)
            if (s.can_run(j, t) && counts[static_cast<size_t>(t)] >= j.num_gpus) usable.push_back(t);
        if (!usable.empty()) break;
    }
    if (usable.empty()) return -1;
    // The usable type whose hash with the job's id is least (rendezvous hashing): the same type however
    // the state lists the types, and a job's draw moves only when the type it drew leaves the usable ones.
    int drawn = -1;
    std::uint64_t least = 0;
    for (int t : usable)  // each type's hash once: a replay draws for every waiting job every round
        if (const std::uint64_t w = mixed_hash(j.id + '\n' + s.types[static_cast<size_t>(t)].name, seed); drawn < 0 || w < least)
            drawn = t, least = w;
    return drawn;
}

}  // namespace

void check_tiresias_queue(const Job& j, const RoundOptions& o, const SourcePos& pos) {
    const int queues = static_cast<int>(o.tiresias_queues_s.size()) + 1;
    if (j.book.tiresias_queue < queues) return;
    throw DataError("job '" + escape_control(j.id) + "' sits in Tiresias queue " + std::to_string(j.book.tiresias_queue) +
                        ", but --tiresias-queues-s makes " + std::to_string(queues) + " queues (0 to " +
                        std::to_string(queues - 1) + "): read a state with the queue limits it was written with",
                    pos);
}

int tiresias_type(const ClusterState& s, const Job& j, unsigned long seed) {
    return draw_type(s, j, seed, s.capacity(), s.installed());
}

TypeDecision tiresias_decide(ClusterState& s, const RoundOptions& o) {
    for (const auto& j : s.jobs) check_tiresias_queue(j, o);
    update_queues(s, o);
    std::vector<size_t> order = arrival_order(s);
    // Within a queue, as dlas-gpu keeps its lists: the jobs that were in it at the last decision, those
    // still running (on nodes that are all up) before the others, then the jobs that entered it now
    // (demoted, promoted or arrived: appended at the back, a demoted job behind those waiting).
    const auto key = [&](size_t k) {
        const JobBook& b = s.jobs[k].book;
        return std::make_tuple(b.tiresias_queue, b.tiresias_entered_s >= s.time_s, !s.hosts_up(s.jobs[k]),
                               b.tiresias_entered_s);
    };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
    TypeFill fill(s);
    const std::vector<int> up = s.capacity(), installed = s.installed();
    for (size_t k : order) {
        const int t = draw_type(s, s.jobs[k], o.seed, up, installed);
        if (t >= 0 && fill.fits(k, t)) fill.take(k, t);
    }
    return fill.decision("2d-las");
}

}  // namespace hetsched::sched
