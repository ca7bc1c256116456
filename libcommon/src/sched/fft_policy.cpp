#include <hetsched/sched/fft_policy.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <string>

#include <hetsched/cli/error.hpp>
#include <hetsched/sched/state_document.hpp>
#include <hetsched/sched/tie_break.hpp>
#include <hetsched/sched/type_fill.hpp>

namespace hetsched::sched {
namespace {

/// Among equally cheap schedules, the one that moves fewer jobs: a change of type costs at least this
/// many rounds even when the checkpoint is free.
constexpr double kLeastChange = 1e-6;

}  // namespace

AssignmentProgram fft_program(const ClusterState& s, const RoundOptions& o,
                              std::vector<std::vector<CostTerms>>* explain) {
    const int m = static_cast<int>(s.types.size());
    const std::vector<int> cap = s.capacity();
    const double L = s.round_length_s;
    AssignmentProgram p;
    p.types = m;
    p.capacity = cap;
    p.cost.reserve(s.jobs.size() * static_cast<size_t>(m));
    if (explain) explain->assign(s.jobs.size(), {});
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        const Job& j = s.jobs[k];
        p.demand.push_back(j.num_gpus);
        const double fastest = best_throughput(s, j, cap);
        const double age_s = std::max(0.0, s.time_s - j.submit_time_s);
        for (int i = 0; i < m; ++i) {
            const double th = j.throughput[static_cast<size_t>(i)];
            if (!unfinished(j) || !s.can_run(j, i) || j.num_gpus > cap[static_cast<size_t>(i)]) {
                p.cost.push_back(std::nan(""));
                continue;
            }
            CostTerms t;
            t.type = i;
            t.age = age_s * th / j.work;
            t.demand = j.num_gpus * j.work / (th * L);
            // A job moves to another type, or restarts on its own when a node of its went down.
            if (j.placement.running() && (j.placement.type != i || !s.hosts_up(j)))
                t.change = std::max(kLeastChange, migration_seconds(j, o) / L);
            t.fairness = j.book.rho * th / fastest;
            p.cost.push_back(t.total());
            if (explain) (*explain)[k].push_back(t);
        }
    }
    return p;
}

namespace {

/// fair_finish_s with the up GPUs per type already counted (a round asks it of every job).
double fair_finish(const ClusterState& s, const Job& j, size_t active, const std::vector<int>& cap) {
    double rate = 0;
    for (size_t i = 0; i < s.types.size(); ++i) {
        if (cap[i] < j.num_gpus || !s.can_run(j, static_cast<int>(i))) continue;  // a gang cannot time-share fewer GPUs
        const double share = static_cast<double>(cap[i]) / (static_cast<double>(active) * j.num_gpus);
        rate = std::max(rate, j.throughput[i] * std::min(1.0, share));
    }
    return rate > 0 ? j.submit_time_s + j.work / rate : -1;
}

/// --exact: GLPK's optimum; past the time limit, when o.accept_unproven (replay), the previous
/// round's schedule: each running job keeps its type, nothing new starts, the round unproven with no
/// bound known. TryLater (75) when no job runs: there is nothing to keep.
Assignment exact_or_kept(const ClusterState& s, const AssignmentProgram& p, const RoundOptions& o, SolveStats& stats) {
    try {
        return solve_exact(p, o.time_limit_s, stats);
    } catch (const TryLater& e) {
        if (!o.accept_unproven) throw;
        std::vector<int> type(s.jobs.size(), -1);
        bool kept = false;
        for (size_t k = 0; k < s.jobs.size(); ++k) {
            const int t = s.jobs[k].placement.type;
            if (t < 0 || !p.allowed(static_cast<int>(k), t)) continue;
            type[k] = t;
            kept = true;
        }
        if (!kept) throw TryLater(std::string(e.what()) + ", and no job runs to keep its own");
        const Assignment a = evaluate(p, std::move(type));
        stats.proven = false;
        stats.objective = a.objective;
        stats.bound = -HUGE_VAL;
        return a;
    }
}

/// Jobs alike in every cost (the same submit time, GPUs, work, throughputs and ρ, running or not) are
/// interchangeable in the program: the earlier (submit time, id) is the one that runs, or runs on the
/// cheaper type. Only jobs that share a submit time can be alike (the age term tells others apart).
void earliest_first_among_equals(const ClusterState& s, const AssignmentProgram& p, std::vector<int>& type) {
    std::map<double, int> at;
    for (const auto& j : s.jobs) ++at[j.submit_time_s];
    std::vector<std::vector<double>> key(s.jobs.size());
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        if (at[s.jobs[k].submit_time_s] < 2 || !unfinished(s.jobs[k])) continue;
        key[k] = tie_key(s.jobs[k]);
        for (int i = 0; i < p.types; ++i)  // NaN (not allowed) as +inf, so that keys compare
            key[k].push_back(p.allowed(static_cast<int>(k), i) ? p.c(static_cast<int>(k), i) : HUGE_VAL);
    }
    earliest_first(s, key, type, [&](size_t member, int a, int b) {
        if ((a >= 0) != (b >= 0)) return a >= 0;  // running first
        return a >= 0 && p.c(static_cast<int>(member), a) < p.c(static_cast<int>(member), b);
    });
}

}  // namespace

double fair_finish_s(const ClusterState& s, const Job& j, size_t active) {
    return fair_finish(s, j, active, s.capacity());
}

double next_rho(const ClusterState& s, const Job& j, int type, const std::vector<int>& up, double t) {
    const double lifetime = j.book.tau_s - j.submit_time_s;  // τ − a
    const double fastest = best_throughput(s, j, up);
    if (j.book.tau_s < 0 || lifetime <= 0 || fastest <= 0) return j.book.rho;
    const double mu = std::max(0.0, t - j.submit_time_s) / lifetime;
    const double fair = j.work / (fastest * lifetime);  // fastest-type rounds per round under the fair share
    const double got = type >= 0 ? j.throughput[static_cast<size_t>(type)] / fastest : 0;
    // A job running at its fair share gets nothing: a difference at the last digits is rounding.
    const double owed = std::fabs(fair - got) <= 1e-12 * std::max(fair, got) ? 0 : fair - got;
    return std::clamp(j.book.rho + mu * owed, 0.0, state_limits::rho);  // as a state may hold it
}

void fft_open_round(ClusterState& s) {
    const std::vector<int> cap = s.capacity();
    // Eq. 5 for the round that ended: decided at last_decision_s, each job on the type it ran on, with
    // the τ it had (before this round's churn sets new ones). None at the same instant.
    if (s.last_decision_s >= 0 && s.time_s > s.last_decision_s) {
        std::vector<int> then = cap;
        for (auto& j : s.jobs) {
            if (!unfinished(j)) continue;
            // The type it ran on was up then, whatever is down now.
            const int type = j.placement.type;
            const int up = type >= 0 ? then[static_cast<size_t>(type)] : 0;
            if (type >= 0) then[static_cast<size_t>(type)] = std::max(up, j.num_gpus);
            j.book.rho = next_rho(s, j, type, then, s.last_decision_s);
            if (type >= 0) then[static_cast<size_t>(type)] = up;
        }
    }
    // Fair finish times are set when jobs arrive or leave, over every active job and GPU. A job that
    // had none then (no type up could hold its gang) gets one at the first round something can: until
    // then its rho cannot move.
    const size_t active = static_cast<size_t>(std::count_if(s.jobs.begin(), s.jobs.end(), unfinished));
    const bool churned = s.churned();
    for (auto& j : s.jobs)
        if (unfinished(j) && (churned || j.book.tau_s < 0)) j.book.tau_s = fair_finish(s, j, active, cap);
}

TypeDecision fft_decide(ClusterState& s, const RoundOptions& o) {
    TypeDecision d;
    AssignmentProgram p = fft_program(s, o, o.explain ? &d.explain : nullptr);
    bool k_proven = true;
    // K and the round share the time limit: the round gets what finding K left.
    const auto t0 = std::chrono::steady_clock::now();
    const Assignment start = max_busy_assignment(p, o.time_limit_s, o.accept_unproven ? &k_proven : nullptr);
    RoundOptions rest = o;
    rest.time_limit_s = std::max(1e-3, o.time_limit_s - std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    p.min_busy = d.min_busy = start.busy;
    const Assignment a = o.exact ? exact_or_kept(s, p, rest, d.stats)
                                 : solve_structured(p, start, rest.time_limit_s, d.stats, o.accept_unproven);
    d.stats.proven = d.stats.proven && k_proven;
    d.type = a.type;
    earliest_first_among_equals(s, p, d.type);
    return d;
}

}  // namespace hetsched::sched
