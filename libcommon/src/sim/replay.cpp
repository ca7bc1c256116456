#include <hetsched/sim/replay.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <unordered_map>

#include <hetsched/cli/error.hpp>
#include <hetsched/fit/gpu_sharing.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/sched/round.hpp>

namespace hetsched::sim {
namespace {

/// Decisions in a row that run nothing while jobs wait and none is to arrive, before replay concludes
/// the waiting jobs can never start (gavel's held jobs wait at most its reset interval, far fewer).
constexpr long kStuckRounds = 10000;

/// Whether `submit_s` and the decision time `t` are one instant but for the rounding of the two
/// numbers (a few units in the last place: `t` is from + k x round length in doubles, and 3 x 0.3
/// comes to 0.8999999999999999, short of a trace's 0.9; 3 x 0.1 to 0.30000000000000004).
bool same_instant(double submit_s, double t) {
    return std::abs(submit_s - t) <= 4 * std::numeric_limits<double>::epsilon() * std::abs(t);
}

/// Whether a job submitted at `submit_s` joins the decision at `t`: submitted at or before it, or
/// at the same instant.
bool arrived(double submit_s, double t) { return submit_s <= t || same_instant(submit_s, t); }

/// What the engine remembers of a job beyond the state: where its result goes and migration time it
/// still owes (a move longer than an interval carries over).
struct Tracked {
    size_t result = 0;
    double owed_s = 0;
    double alone_s_per_work = 0;  ///< seconds a work unit takes at the trace job's fastest rate (0: never runs)
};

/// Seconds a work unit of `j` takes at its fastest rate, as the trace gives it (elastic policies resize
/// jobs later, to throughputs of their own); 0 for a job nothing can run.
double alone_s_per_work(const sched::Job& j) {
    const double fastest = j.fastest_throughput();
    return fastest > 0 ? 1 / fastest : 0.0;
}

/// The least GPU-seconds `j` can take: its work at the size and type that do the most of it per GPU,
/// halved where it may share a GPU (a shared GPU runs two jobs, each at most at its rate alone).
double least_gpu_s(const sched::Job& j) {
    double per_gpu = 0;  // work units a GPU-second
    for (double x : j.throughput) per_gpu = std::max(per_gpu, x / j.num_gpus);
    for (const auto& sc : j.scales)
        for (double x : sc.throughput) per_gpu = std::max(per_gpu, x / sc.gpus);
    if (per_gpu <= 0) return 0;
    return (j.util_pct > 0 ? 0.5 : 1) * j.remaining() / per_gpu;
}

/// The least rounds `jobs` need, from two bounds. Time: each job is present from its submission at
/// least until its work is done at its fastest type and size, and while any job is present a decision
/// comes every round_length_s at the latest (an idle cluster jumps to the next arrival, so only the
/// union of those spans counts). Capacity: the cluster's `gpus` serve at most gpus x round_length_s
/// GPU-seconds a round, and the jobs need their least GPU-seconds between them.
void check_round_count(const std::vector<ReplayJob>& jobs, int gpus, double round_length_s, long max_rounds) {
    double busy_s = 0, span_from = 0, span_to = -1, last_finish = 0, gpu_s = 0;
    const ReplayJob* last = nullptr;
    for (const auto& rj : jobs) {  // in submission order
        const sched::Job& j = rj.job;
        const double fastest = j.fastest_throughput();
        if (fastest <= 0) continue;  // never runs: the stuck check reports it
        gpu_s += least_gpu_s(j);
        const double finish = j.submit_time_s + j.work / fastest;
        if (!last || finish > last_finish) last_finish = finish, last = &rj;
        if (j.submit_time_s > span_to) {
            if (span_to > span_from) busy_s += span_to - span_from;
            span_from = j.submit_time_s, span_to = finish;
        } else {
            span_to = std::max(span_to, finish);
        }
    }
    if (span_to > span_from) busy_s += span_to - span_from;
    const double served_s = gpus > 0 ? gpu_s / gpus : 0;  // the cluster's busy time at the least
    const double least_s = std::max(busy_s, served_s);
    const double rounds = least_s / round_length_s;
    if (rounds <= static_cast<double>(max_rounds)) return;
    const std::string why =
        busy_s >= served_s
            ? "its jobs are present " + io::format_number(busy_s, 6) + " s at least; job '" + last->job.id +
                  "' cannot finish before " + io::format_number(last_finish, 6) + " s"
            : "its jobs need " + io::format_number(gpu_s, 6) + " GPU-seconds at least, " +
                  io::format_number(served_s, 6) + " s of the cluster's " + std::to_string(gpus) + (gpus == 1 ? " GPU" : " GPUs");
    throw Error(Exit::usage, "the trace needs at least " + io::format_number(rounds, 3) + " rounds of " +
                                 io::format_number(round_length_s, 6) + " s (" + why + "), more than the " +
                                 std::to_string(max_rounds) + " a replay decides: give a round length of at least " +
                                 io::format_number(std::ceil(least_s / static_cast<double>(max_rounds) * (1 - 1e-12)), 6) +
                                 " s (at most 1e7), or a shorter trace");
}

}  // namespace

ReplayResult replay(const std::vector<ReplayJob>& jobs, const ReplayCluster& cluster, const ReplayOptions& o,
                    const ReplayProgress& progress) {
    ReplayResult out;
    sched::ClusterState s;
    s.types = cluster.types;
    s.nodes = cluster.nodes;
    s.round_length_s = o.round_length_s;
    const std::vector<int> capacity = s.capacity();
    int total_gpus = 0;
    for (int c : capacity) total_gpus += c;
    check_round_count(jobs, total_gpus, o.round_length_s, o.max_rounds);

    // The trace's work in seconds at each job's fastest rate, and what of it is done: the share for
    // progress reports.
    double all_alone_s = 0, finished_alone_s = 0;
    for (const auto& rj : jobs) all_alone_s += rj.job.work * alone_s_per_work(rj.job);
    std::vector<std::vector<double>> throughput;  // per result, per type
    std::unordered_map<std::string, Tracked> tracked;
    size_t next = 0;
    long finished = 0, idle_rounds = 0;  // decisions in a row that ran nothing while jobs waited
    // The clock: decision k after `from` falls at from + k x round_length_s, computed, never summed
    // (0.1 added up 8 times falls short of 0.8, and a job arriving at 0.8 would miss that decision).
    // `from` moves to an arrival after an idle spell and to a finish with reschedule_on_events.
    double from = jobs.empty() ? 0 : jobs.front().job.submit_time_s;
    long k = 0;
    double t = from;
    while (next < jobs.size() || !s.jobs.empty()) {
        for (; next < jobs.size() && arrived(jobs[next].job.submit_time_s, t); ++next) {
            const sched::Job& j = jobs[next].job;
            // No job starts before it arrives, nor waits for rounding: at the same instant, its own.
            t = same_instant(j.submit_time_s, t) ? j.submit_time_s : std::max(t, j.submit_time_s);
            tracked[j.id] = {out.jobs.size(), 0, alone_s_per_work(j)};
            JobResult r;
            r.id = j.id;
            r.model = jobs[next].model;
            r.submit_time_s = j.submit_time_s;
            r.num_gpus = j.num_gpus;
            r.work = j.work;
            out.jobs.push_back(r);
            // The isolated JCT's rates: 0 on a type that cannot run the job (its memory too small).
            std::vector<double> rate = j.throughput;
            for (size_t ty = 0; ty < rate.size(); ++ty)
                if (!s.can_run(j, static_cast<int>(ty))) rate[ty] = 0;
            throughput.push_back(rate);
            s.jobs.push_back(j);
            s.jobs.back().book.time_per_type_s.assign(s.types.size(), 0);
        }
        if (s.jobs.empty()) {  // idle: jump to the next arrival
            t = from = jobs[next].job.submit_time_s;
            k = 0;
            continue;
        }
        s.time_s = t;
        for (auto& j : s.jobs) j.pinned = tracked[j.id].owed_s > 0;  // still restoring from its last move
        const auto t0 = std::chrono::steady_clock::now();
        sched::RoundResult round = sched::run_round(s, o.round);
        const double sched_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        s = std::move(round.state);

        // Migration owed by jobs that moved, or resumed after running before.
        std::unordered_map<std::string, size_t> index;
        for (size_t k = 0; k < s.jobs.size(); ++k) index[s.jobs[k].id] = k;
        for (const auto& a : round.actions) {
            Tracked& tr = tracked[a.job_id];
            const sched::Job& j = s.jobs[index.at(a.job_id)];
            const bool resumed = a.kind == sched::ActionKind::start && out.jobs[tr.result].start_time_s >= 0;
            if (a.kind == sched::ActionKind::migrate || resumed) tr.owed_s = sched::migration_seconds(j, o.round);
            if (a.kind == sched::ActionKind::stop) tr.owed_s = 0;
            if (a.kind == sched::ActionKind::start && out.jobs[tr.result].start_time_s < 0) out.jobs[tr.result].start_time_s = t;
        }

        // The next decision: a round later, or at the first finish when rescheduling on events.
        double end = from + static_cast<double>(k + 1) * o.round_length_s;
        if (o.reschedule_on_events)
            for (const auto& j : s.jobs)
                if (j.placement.running())
                    end = std::min(end, t + tracked[j.id].owed_s +
                                            j.remaining() / (j.throughput[static_cast<size_t>(j.placement.type)] *
                                                             (j.placement.shared ? fit::kSharedSlowdown : 1)));
        double last_finish = t;  // when the round's last finishing job finished
        RoundRecord rec;
        rec.time_s = t;
        rec.length_s = end - t;
        rec.busy.assign(s.types.size(), 0);
        rec.sched_s = sched_s;
        rec.proven = round.decision.stats.proven;
        if (!rec.proven) rec.gap = round.decision.stats.gap();
        for (auto& j : s.jobs) {
            Tracked& tr = tracked[j.id];
            JobResult& r = out.jobs[tr.result];
            if (!j.placement.running()) {
                ++rec.queued;
                continue;
            }
            ++rec.running;
            rec.busy[static_cast<size_t>(j.placement.type)] += j.placement.held_gpus();
            const double rate = j.throughput[static_cast<size_t>(j.placement.type)] * (j.placement.shared ? fit::kSharedSlowdown : 1);
            const double lost = std::min(tr.owed_s, end - t);
            tr.owed_s -= lost;
            const double finish = t + lost + j.remaining() / rate;
            const double held_until = std::min(finish, end);
            r.run_s += held_until - t;
            r.gpu_s += (held_until - t) * j.placement.held_gpus();
            rec.busy_gpu_s += (held_until - t) * j.placement.held_gpus();
            if (finish <= end + 1e-9 * std::max(1.0, end)) {
                finished_alone_s += j.work * tr.alone_s_per_work;
                j.done = j.work;
                r.finish_time_s = finish;
                last_finish = std::max(last_finish, finish);
                r.migrations = j.book.migrations;
                ++finished;
            } else {
                j.done = std::min(j.work, j.done + rate * (end - t - lost));
            }
        }
        out.rounds.push_back(rec);
        idle_rounds = rec.running > 0 || next < jobs.size() ? 0 : idle_rounds + 1;
        if (idle_rounds >= kStuckRounds)
            throw Error(Exit::data, std::to_string(s.jobs.size()) + " jobs wait with nothing running for " +
                                        std::to_string(kStuckRounds) + " rounds under " + policy_name(o.round.policy) +
                                        ": no decision will ever start them (first: '" + s.jobs.front().id + "')");
        s.jobs.erase(std::remove_if(s.jobs.begin(), s.jobs.end(), [](const sched::Job& j) { return j.remaining() <= 0; }),
                     s.jobs.end());
        // Every job done within the round and none waiting: the cluster is idle from the last finish,
        // and an arrival after it (before the round's end) ends that idle spell with a decision.
        if (s.jobs.empty() && next < jobs.size() && jobs[next].job.submit_time_s < end &&
            jobs[next].job.submit_time_s >= last_finish) {
            end = std::max(t, jobs[next].job.submit_time_s);
            out.rounds.back().length_s = end - t;
        }
        if (end < from + static_cast<double>(k + 1) * o.round_length_s) {  // an event before the round's end
            from = end;
            k = 0;
        } else {
            ++k;
        }
        t = end;
        if (static_cast<long>(out.rounds.size()) >= o.max_rounds && (next < jobs.size() || !s.jobs.empty()))
            throw Error(Exit::data, "stopped after " + std::to_string(o.max_rounds) + " rounds under " +
                                        policy_name(o.round.policy) + ", at " + io::format_number(t, 6) + " s, with " +
                                        std::to_string(s.jobs.size() + (jobs.size() - next)) +
                                        " jobs unfinished: migrations or waits the trace's work does not account for");
        if (progress) {
            double done_alone_s = finished_alone_s;
            for (const auto& j : s.jobs) done_alone_s += j.done * tracked[j.id].alone_s_per_work;
            const double share = all_alone_s > 0 ? std::min(1.0, done_alone_s / all_alone_s) : 1.0;
            progress(static_cast<long>(out.rounds.size()), t, finished, share);
        }
    }
    set_isolated(out.jobs, throughput, capacity);
    out.summary = summarize(policy_name(o.round.policy), out.jobs, out.rounds, total_gpus);
    return out;
}

}  // namespace hetsched::sim
