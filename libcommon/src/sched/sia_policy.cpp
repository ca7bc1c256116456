#include <hetsched/sched/sia_policy.hpp>

#include <algorithm>
#include <cmath>

#include <hetsched/cli/error.hpp>

namespace hetsched::sched {
namespace {

constexpr double kValueCap = 3000;  ///< Sia's clip on (r·G)^p

/// Sia's restart factor: what a move would cost a job that has already moved `restarts` times.
double restart_factor(const Job& j, double now_s, const RoundOptions& o) {
    const double age = std::max(0.0, now_s - j.submit_time_s), penalty = migration_seconds(j, o);
    if (age < penalty) return 1;
    return std::max(age - static_cast<double>(j.book.migrations) * penalty, 0.0) / (age + penalty);
}

}  // namespace

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
        // Pinned where it runs, if its hosts are up (the reader has checked they hold it).
        const bool pinned = j.pinned && j.placement.running() &&
                            std::all_of(j.placement.shares.begin(), j.placement.shares.end(),
                                        [&](const NodeShare& sh) { return !s.nodes[static_cast<size_t>(sh.node)].down; });
        if (pinned)  // its held configuration only, taken
            configs.erase(std::remove_if(configs.begin(), configs.end(),
                                         [&](const Config& c) { return c.type != j.placement.type || c.gpus != j.num_gpus; }),
                          configs.end());
        if (configs.empty()) continue;
        double least = HUGE_VAL;
        for (const auto& c : configs) least = std::min(least, c.goodput);
        const double r = restart_factor(j, s.time_s, o);
        for (const auto& c : configs) {
            // Elastic: relative to the job's least configuration. Rigid: so that its slowest type counts
            // num_gpus, as Sia scales a rigid job's throughputs.
            const double g = j.elastic() ? c.goodput / least : j.num_gpus * c.goodput / least;
            const bool held = j.placement.running() && j.placement.type == c.type && j.num_gpus == c.gpus;
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

TypeDecision sia_decide(const ClusterState& s, const RoundOptions& o) {
    const SiaProgram p = sia_program(s, o);
    TypeDecision d;
    d.type.assign(s.jobs.size(), -1);
    d.gpus.resize(s.jobs.size());
    for (size_t k = 0; k < s.jobs.size(); ++k) d.gpus[k] = s.jobs[k].num_gpus;
    d.stats.method = "sia";
    d.stats.variables = static_cast<long>(p.options.size());
    const MipResult r = solve_with_cbc(p.mip, o.time_limit_s);
    if (r.status == MipStatus::infeasible) throw Error(Exit::internal, "Sia's program has no solution (it always has one)");
    if (r.status == MipStatus::time_limit) {
        if (!o.accept_unproven) throw TryLater("Sia's program was not solved within --time-limit-s");
        d.stats.proven = false;
        if (r.x.empty()) {  // nothing found: the jobs hold on where they run; nothing new starts
            for (size_t k = 0; k < s.jobs.size(); ++k)
                if (s.jobs[k].remaining() > 0) d.type[k] = s.jobs[k].placement.type;
            return d;
        }
    }
    for (size_t c = 0; c < p.options.size(); ++c) {
        if (r.x[c] < 0.5) continue;
        const SiaOption& opt = p.options[c];
        d.type[opt.job] = opt.type;
        d.gpus[opt.job] = opt.gpus;
        d.stats.objective += p.mip.cost[c];
    }
    d.stats.bound = d.stats.objective;
    return d;
}

}  // namespace hetsched::sched
