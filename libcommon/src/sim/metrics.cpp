#include <hetsched/sim/metrics.hpp>

#include <algorithm>
#include <cmath>

namespace hetsched::sim {
namespace {

/// How far above 1 an FTF may be and still count as fair (rounding in the finish times).
constexpr double kFairSlack = 1e-6;

/// The q-quantile of sorted values (linear interpolation between neighbours).
double quantile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return 0;
    const double pos = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

}  // namespace

void set_isolated(std::vector<JobResult>& jobs, const std::vector<std::vector<double>>& throughput,
                  const std::vector<int>& capacity) {
    // The number of active jobs over time: +1 at each submission, -1 at each finish; its integral A(t)
    // at every event, so a job's average is (A(finish) - A(submit)) / JCT.
    std::vector<std::pair<double, int>> events;
    for (const auto& j : jobs) {
        events.emplace_back(j.submit_time_s, +1);
        events.emplace_back(j.finish_time_s, -1);
    }
    std::sort(events.begin(), events.end());
    std::vector<double> at(events.size()), integral(events.size());
    double area = 0, last = events.empty() ? 0 : events.front().first;
    long active = 0;
    for (size_t e = 0; e < events.size(); ++e) {
        area += static_cast<double>(active) * (events[e].first - last);
        last = events[e].first;
        active += events[e].second;
        at[e] = last;
        integral[e] = area;
    }
    auto area_at = [&](double t) {  // A(t), t an event time
        const size_t e = static_cast<size_t>(std::lower_bound(at.begin(), at.end(), t) - at.begin());
        return integral[std::min(e, integral.size() - 1)];
    };
    for (size_t k = 0; k < jobs.size(); ++k) {
        JobResult& j = jobs[k];
        const double life = j.jct_s();
        const double n = life > 0 ? std::max(1.0, (area_at(j.finish_time_s) - area_at(j.submit_time_s)) / life) : 1.0;
        double rate = 0;
        for (size_t t = 0; t < capacity.size(); ++t)  // a gang of d GPUs cannot time-share fewer than d
            if (capacity[t] >= j.num_gpus)
                rate = std::max(rate, throughput[k][t] * std::min(1.0, capacity[t] / (n * j.num_gpus)));
        j.isolated_s = rate > 0 ? j.work / rate : HUGE_VAL;
    }
}

Summary summarize(const std::string& policy, const std::vector<JobResult>& jobs, const std::vector<RoundRecord>& rounds,
                  int total_gpus) {
    Summary s;
    s.policy = policy;
    s.jobs = static_cast<long>(jobs.size());
    s.rounds = static_cast<long>(rounds.size());
    if (jobs.empty()) return s;
    std::vector<double> jct;
    double first = HUGE_VAL, last = 0, ftf_sum = 0, queue_sum = 0;
    long unfair = 0;
    for (const auto& j : jobs) {
        jct.push_back(j.jct_s());
        first = std::min(first, j.submit_time_s);
        last = std::max(last, j.finish_time_s);
        ftf_sum += j.ftf();
        s.max_ftf = std::max(s.max_ftf, j.ftf());
        // Finish times are sums of rounds' shares, so a job that ran alone from its arrival has an FTF
        // of 1 only to rounding: unfair is above 1 by more than the 6 digits the FTF is printed with.
        unfair += j.ftf() > 1 + kFairSlack;
        queue_sum += j.queue_s();
        s.max_starvation_s = std::max(s.max_starvation_s, j.starvation_s());
        s.migrations += j.migrations;
    }
    std::sort(jct.begin(), jct.end());
    const double n = static_cast<double>(jobs.size());
    for (double v : jct) s.avg_jct_s += v / n;
    s.p50_jct_s = quantile(jct, 0.5);
    s.p95_jct_s = quantile(jct, 0.95);
    s.p99_jct_s = quantile(jct, 0.99);
    s.makespan_s = last - first;
    s.mean_ftf = ftf_sum / n;
    s.unfair_fraction = static_cast<double>(unfair) / n;
    s.avg_queue_s = queue_sum / n;
    double busy = 0;
    for (const auto& r : rounds) {
        busy += r.busy_gpu_s;
        s.unproven_rounds += !r.proven;
        s.max_gap = std::max(s.max_gap, r.gap);
        s.sched_time_mean_s += r.sched_s / static_cast<double>(rounds.size());
        s.sched_time_max_s = std::max(s.sched_time_max_s, r.sched_s);
    }
    s.utilization = s.makespan_s > 0 && total_gpus > 0 ? busy / (s.makespan_s * total_gpus) : 0;
    return s;
}

}  // namespace hetsched::sim
