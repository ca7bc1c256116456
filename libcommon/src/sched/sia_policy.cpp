#include <hetsched/sched/sia_policy.hpp>

#include <algorithm>
#include <cmath>

#include <hetsched/cli/error.hpp>
#include <hetsched/sched/capacity_dp.hpp>
#include <hetsched/sched/tie_break.hpp>

namespace hetsched::sched {
namespace {

constexpr double kValueCap = 3000;  ///< Sia's clip on (r·G)^p

/// Sia's restart factor: what a move would cost a job that has already moved `restarts` times.
double restart_factor(const Job& j, double now_s, const RoundOptions& o) {
    const double age = std::max(0.0, now_s - j.submit_time_s), penalty = migration_seconds(j, o);
    if (age < penalty) return 1;
    return std::max(age - static_cast<double>(j.book.migrations) * penalty, 0.0) / (age + penalty);
}

/// Nothing found within the time limit: the running jobs hold on where they run and nothing new
/// starts, the objective being that schedule's. TryLater (75) when no job runs: nothing to keep.
TypeDecision keep_running(const ClusterState& s, const SiaProgram& p, TypeDecision d) {
    bool kept = false, priced = true;
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        const Job& j = s.jobs[k];
        if (j.remaining() <= 0 || !j.placement.running()) continue;
        kept = true;
        d.type[k] = j.placement.type;
        const auto held = std::find_if(p.options.begin(), p.options.end(), [&](const SiaOption& x) {
            return x.job == k && x.type == j.placement.type && x.gpus == j.num_gpus;
        });
        if (held == p.options.end()) priced = false;  // not an option now: the schedule's value is unknown
        else d.stats.objective += p.mip.cost[static_cast<size_t>(held - p.options.begin())];
    }
    if (!kept) throw TryLater("Sia's program found no schedule within --time-limit-s, and no job runs to keep its own");
    if (!priced) d.stats.bound = d.stats.maximise ? HUGE_VAL : -HUGE_VAL;
    return d;
}

}  // namespace

MipResult sia_solve(const Mip& m, double time_limit_s) { return solve_by_capacity_or(m, time_limit_s, solve_with_cbc); }

SiaProgram sia_program(const ClusterState& s, const RoundOptions& o) {
    const int m = static_cast<int>(s.types.size());
    const std::vector<int> cap = s.capacity();
    SiaProgram p;
    p.mip.maximise = o.sia_p > 0;
    int row = 0;
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        const Job& j = s.jobs[k];
        if (j.remaining() <= 0) continue;
        // (type, GPUs, goodput) the job may take; a rigid job's sizes are its num_gpus alone.
        struct Config { int type, gpus; double goodput; };
        std::vector<Config> configs;
        const std::vector<Scale> rigid{{j.num_gpus, j.throughput}};
        for (const Scale& sc : j.elastic() ? j.scales : rigid)
            for (int t = 0; t < m; ++t)
                if (sc.gpus <= cap[static_cast<size_t>(t)] && s.can_run(j, sc.throughput, t))
                    configs.push_back({t, sc.gpus, sc.throughput[static_cast<size_t>(t)]});
        double least = HUGE_VAL;  // over every configuration, a pinned job's too
        for (const auto& c : configs) least = std::min(least, c.goodput);
        // Pinned where it runs, if its hosts are up (the reader has checked they hold it).
        const bool pinned = j.pinned && s.hosts_up(j);
        if (pinned)  // its held configuration only, taken
            configs.erase(std::remove_if(configs.begin(), configs.end(),
                                         [&](const Config& c) { return c.type != j.placement.type || c.gpus != j.num_gpus; }),
                          configs.end());
        if (configs.empty()) continue;
        // Sia rescales only a job that held a configuration last round: one waiting, new or preempted,
        // starts at full value wherever it goes (its restart is the one it waits for anyway).
        const double r = j.placement.running() ? restart_factor(j, s.time_s, o) : 1.0;
        for (const auto& c : configs) {
            // Elastic: relative to the job's least configuration. Rigid: so that its slowest type counts
            // num_gpus, as Sia scales a rigid job's throughputs.
            const double g = j.elastic() ? c.goodput / least : j.num_gpus * c.goodput / least;
            // Held where it runs, on nodes all up (on a node gone down it restarts whatever it is given).
            const bool held = j.placement.running() && s.hosts_up(j) && j.placement.type == c.type && j.num_gpus == c.gpus;
            const double value = std::min(kValueCap, std::pow((held ? 1 : r) * g, o.sia_p));
            p.options.push_back({k, c.type, c.gpus, value});
            // λ_n per job left out, a cost either way: min Σ v + λ_n (jobs − Σ x) or max Σ v − λ_n (jobs − Σ x),
            // the constant λ_n · jobs dropped.
            p.mip.cost.push_back(p.mip.maximise ? value + o.sia_lambda_n : value - o.sia_lambda_n);
            p.mip.col.push_back({{row, 1.0}});
        }
        p.mip.row_lo.push_back(pinned ? 1 : -HUGE_VAL);
        p.mip.row_hi.push_back(1);
        ++row;
    }
    for (int t = 0; t < m; ++t) {
        p.mip.row_lo.push_back(-HUGE_VAL);
        p.mip.row_hi.push_back(cap[static_cast<size_t>(t)]);
    }
    for (size_t c = 0; c < p.options.size(); ++c)
        p.mip.col[c].push_back({row + p.options[c].type, static_cast<double>(p.options[c].gpus)});
    return p;
}

TypeDecision sia_decide(const ClusterState& s, const RoundOptions& o, const MipSolve& solve) {
    const SiaProgram p = sia_program(s, o);
    TypeDecision d;
    d.type.assign(s.jobs.size(), -1);
    d.gpus.resize(s.jobs.size());
    for (size_t k = 0; k < s.jobs.size(); ++k) d.gpus[k] = s.jobs[k].num_gpus;
    d.stats.method = "sia";
    d.stats.variables = static_cast<long>(p.options.size());
    d.stats.maximise = p.mip.maximise;
    const MipResult r = solve(p.mip, o.time_limit_s);
    if (r.status == MipStatus::infeasible) throw Error(Exit::internal, "Sia's program has no solution (it always has one)");
    if (r.status == MipStatus::time_limit) {
        if (!o.accept_unproven) throw TryLater("Sia's program was not solved within --time-limit-s");
        d.stats.proven = false;
        d.stats.bound = r.bound;  // CBC's, so that the gap is the real one
        if (r.x.empty()) return keep_running(s, p, d);
    }
    // Each job's option as its rank among its own (-1: none), then handed out earliest first among
    // jobs the program cannot tell apart.
    std::vector<size_t> first(s.jobs.size(), 0);
    std::vector<int> chosen(s.jobs.size(), -1);
    std::vector<std::vector<double>> key(s.jobs.size());
    for (size_t c = 0; c < p.options.size(); ++c) {
        const SiaOption& opt = p.options[c];
        if (key[opt.job].empty()) {
            first[opt.job] = c;
            key[opt.job] = tie_key(s.jobs[opt.job]);
        }
        key[opt.job].insert(key[opt.job].end(), {static_cast<double>(opt.type), static_cast<double>(opt.gpus), p.mip.cost[c]});
        if (r.x[c] < 0.5) continue;
        chosen[opt.job] = static_cast<int>(c - first[opt.job]);
        d.stats.objective += p.mip.cost[c];
    }
    earliest_first(s, key, chosen, [&](size_t member, int a, int b) {
        if ((a >= 0) != (b >= 0)) return a >= 0;  // a configuration rather than none
        if (a < 0) return false;
        const double ca = p.mip.cost[first[member] + static_cast<size_t>(a)], cb = p.mip.cost[first[member] + static_cast<size_t>(b)];
        return p.mip.maximise ? ca > cb : ca < cb;
    });
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        if (chosen[k] < 0) continue;
        const SiaOption& opt = p.options[first[k] + static_cast<size_t>(chosen[k])];
        d.type[k] = opt.type;
        d.gpus[k] = opt.gpus;
    }
    if (r.status == MipStatus::optimal) d.stats.bound = d.stats.objective;
    return d;
}

}  // namespace hetsched::sched
