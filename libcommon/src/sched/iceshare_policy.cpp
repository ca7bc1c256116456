#include <hetsched/sched/iceshare_policy.hpp>

#include <algorithm>
#include <cmath>

#include <hetsched/cli/error.hpp>
#include <hetsched/fit/gpu_sharing.hpp>
#include <hetsched/sched/capacity_dp.hpp>
#include <hetsched/sched/tie_break.hpp>

namespace hetsched::sched {
namespace {

/// The largest node of each type that is up.
std::vector<int> largest_node(const ClusterState& s) {
    std::vector<int> out(s.types.size(), 0);
    for (const auto& n : s.nodes)
        if (!n.down) out[static_cast<size_t>(n.type)] = std::max(out[static_cast<size_t>(n.type)], n.gpus);
    return out;
}

/// Each job's one configuration among `opts` whose share is at least `floor` (exactly one each when
/// `floor` > 0, at most one otherwise), each type's GPUs bounding the sizes taken: the most total
/// share (`feasibility`: the fewest GPUs, to learn quickly whether any choice fits). Columns follow
/// `kept`, the options it keeps.
Mip program(const ClusterState& s, const std::vector<IceShareOption>& opts, double floor, bool feasibility,
            std::vector<size_t>& kept) {
    const std::vector<int> cap = s.capacity();
    Mip m;
    m.maximise = !feasibility;
    std::vector<int> job_row(s.jobs.size(), -1);
    int rows = 0;
    kept.clear();
    for (size_t c = 0; c < opts.size(); ++c) {
        const IceShareOption& o = opts[c];
        if (s.jobs[o.job].priority_weight * o.share < floor) continue;
        if (job_row[o.job] < 0) job_row[o.job] = rows++;
        kept.push_back(c);
    }
    m.row_lo.assign(static_cast<size_t>(rows), floor > 0 ? 1 : -HUGE_VAL);
    m.row_hi.assign(static_cast<size_t>(rows), 1);
    for (int c : cap) m.row_lo.push_back(-HUGE_VAL), m.row_hi.push_back(c);
    for (size_t c : kept) {
        const IceShareOption& o = opts[c];
        m.cost.push_back(feasibility ? o.gpus : s.jobs[o.job].priority_weight * o.share);
        m.col.push_back({{job_row[o.job], 1.0}, {rows + o.type, o.held()}});
    }
    return m;
}

}  // namespace

MipResult iceshare_solve(const Mip& m, double time_limit_s) {
    return solve_by_capacity_or(m, time_limit_s, solve_glpk_then_cbc);
}

std::vector<IceShareOption> iceshare_options(const ClusterState& s) {
    const int m = static_cast<int>(s.types.size());
    const std::vector<int> cap = s.capacity(), node = largest_node(s);
    std::vector<IceShareOption> out;
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        const Job& j = s.jobs[k];
        if (j.remaining() <= 0) continue;
        const double age = std::max(0.0, s.time_s - j.submit_time_s);
        const std::vector<Scale> rigid{{j.num_gpus, j.throughput}};
        const size_t first = out.size();
        double best = HUGE_VAL;  // least T_acc
        std::vector<double> tacc;
        for (const Scale& sc : j.elastic() ? j.scales : rigid)
            for (int t = 0; t < m; ++t) {
                const auto i = static_cast<size_t>(t);
                const bool whole = !j.elastic() || sc.gpus <= node[i] || (node[i] > 0 && sc.gpus % node[i] == 0);
                if (sc.gpus > cap[i] || !whole || !s.can_run(j, sc.throughput, t)) continue;
                out.push_back({k, t, sc.gpus, false, 0});
                tacc.push_back(age + j.remaining() / sc.throughput[i]);
                best = std::min(best, tacc.back());
                if (sc.gpus == 1 && s.can_share(j, t)) {  // the shared column
                    out.push_back({k, t, 1, true, 0});
                    tacc.push_back(age + j.remaining() / (fit::kSharedSlowdown * sc.throughput[i]));
                }
            }
        for (size_t c = first; c < out.size(); ++c) out[c].share = best / tacc[c - first];
    }
    return out;
}

TypeDecision iceshare_decide(const ClusterState& s, const RoundOptions& o, const MipSolve& solve) {
    const std::vector<IceShareOption> opts = iceshare_options(s);
    TypeDecision d;
    d.type.assign(s.jobs.size(), -1);
    d.gpus.resize(s.jobs.size());
    d.shared.assign(s.jobs.size(), 0);
    for (size_t k = 0; k < s.jobs.size(); ++k) d.gpus[k] = s.jobs[k].num_gpus;
    d.stats.method = "iceshare";
    d.stats.variables = static_cast<long>(opts.size());
    d.stats.maximise = true;
    if (opts.empty()) return d;

    // Stage 1, Eq. 18: the largest least w·IceShare, by bisection over the values the options take, up
    // to the least of the jobs' best: at threshold v every job must take an option worth at least v,
    // which some choice fits or not. It is 0 when some job has no option or the jobs' smallest sizes
    // alone overfill the GPUs. The programs share the time limit: the bisection's steps stop at half of
    // it and each gets what the ones before it left, counted in the solver's own seconds (not the wait for CBC's lock, which another policy's
    // thread may hold in replay), so that a round ends near its limit, not a multiple of it.
    double spent = 0;
    auto solve_within = [&](const Mip& m) {
        MipResult r = solve(m, std::max(o.time_limit_s - spent, 1e-3));
        spent += r.seconds;
        return r;
    };
    auto unsolved = [&](const MipResult& r) {
        if (r.status != MipStatus::time_limit) return false;
        if (!o.accept_unproven) throw TryLater("IceShare's program was not solved within --time-limit-s");
        d.stats.proven = false;
        return true;
    };
    std::vector<double> least(s.jobs.size(), 0);
    for (const auto& op : opts) least[op.job] = least[op.job] == 0 ? op.held() : std::min(least[op.job], op.held());
    double need = 0, have = 0;
    bool every_job = true;
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        need += least[k];
        every_job = every_job && (s.jobs[k].remaining() <= 0 || least[k] > 0);
    }
    for (int c : s.capacity()) have += c;
    double floor = 0;
    bool floor_proven = true;  // the least w·IceShare is the program's: its bisection ran to the end
    std::vector<size_t> kept;
    if (need <= have && every_job) {
        std::vector<double> values, best(s.jobs.size(), 0);
        for (const auto& op : opts) best[op.job] = std::max(best[op.job], s.jobs[op.job].priority_weight * op.share);
        double cap = HUGE_VAL;
        for (size_t k = 0; k < s.jobs.size(); ++k)
            if (s.jobs[k].remaining() > 0) cap = std::min(cap, best[k]);
        for (const auto& op : opts)
            if (s.jobs[op.job].priority_weight * op.share <= cap) values.push_back(s.jobs[op.job].priority_weight * op.share);
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        size_t lo = 0, hi = values.size();  // values[lo - 1] fits (none yet when lo = 0); values[hi] does not
        while (lo < hi) {
            const size_t mid = (lo + hi) / 2;
            ++d.stats.bound_iterations;
            // Half the limit spent (the rest is the last program's), or the step out of time: keep the
            // least proven so far.
            MipResult out_of_time;
            out_of_time.status = MipStatus::time_limit;
            const MipResult r =
                spent >= o.time_limit_s / 2 ? out_of_time : solve_within(program(s, opts, values[mid], true, kept));
            if (unsolved(r)) {
                floor_proven = false;
                break;
            }
            if (r.status == MipStatus::optimal) lo = mid + 1;
            else hi = mid;
        }
        if (lo > 0) floor = values[lo - 1];
    }
    // Stage 2: the most total share, every job at the least found or above.
    const MipResult r = solve_within(program(s, opts, floor, false, kept));
    if (r.status == MipStatus::infeasible) throw Error(Exit::internal, "IceShare's program has no solution (it always has one)");
    const bool stopped = unsolved(r);
    // The gap is in the total share, the program's second objective: the solver's bound on it when the
    // least share was proven; none when the bisection stopped short (a larger least might cost total
    // share).
    d.stats.bound = !floor_proven ? HUGE_VAL : stopped ? r.bound : 0;
    if (stopped && r.x.empty()) {  // nothing found: the running jobs hold on where they run
        bool any = false;
        for (size_t k = 0; k < s.jobs.size(); ++k)
            if (s.jobs[k].remaining() > 0 && s.jobs[k].placement.running()) {
                any = true;
                d.type[k] = s.jobs[k].placement.type;
                d.shared[k] = s.jobs[k].placement.shared;
            }
        if (!any) throw TryLater("IceShare's program found no schedule within --time-limit-s, and no job runs to keep its own");
        d.stats.bound = HUGE_VAL;  // the value of the schedule kept is not the program's to bound
        return d;
    }
    // Each job's column as its rank among its own (-1: none), handed out earliest first among jobs the
    // program cannot tell apart (the same weight, GPUs and options).
    std::vector<std::vector<size_t>> cols(s.jobs.size());
    std::vector<int> chosen(s.jobs.size(), -1);
    std::vector<std::vector<double>> key(s.jobs.size());
    for (size_t i = 0; i < kept.size(); ++i) {
        const IceShareOption& op = opts[kept[i]];
        if (key[op.job].empty()) key[op.job] = tie_key(s.jobs[op.job]);
        key[op.job].insert(key[op.job].end(), {static_cast<double>(op.type), static_cast<double>(op.gpus),
                                               op.shared ? 1.0 : 0.0, op.share});
        if (r.x[i] >= 0.5) {
            chosen[op.job] = static_cast<int>(cols[op.job].size());
            d.stats.objective += s.jobs[op.job].priority_weight * op.share;
        }
        cols[op.job].push_back(i);
    }
    earliest_first(s, key, chosen, [&](size_t member, int a, int b) {
        if ((a >= 0) != (b >= 0)) return a >= 0;  // a configuration rather than none
        return a >= 0 && opts[kept[cols[member][static_cast<size_t>(a)]]].share > opts[kept[cols[member][static_cast<size_t>(b)]]].share;
    });
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        if (chosen[k] < 0) continue;
        const IceShareOption& op = opts[kept[cols[k][static_cast<size_t>(chosen[k])]]];
        d.type[k] = op.type;
        d.gpus[k] = op.gpus;
        d.shared[k] = op.shared;
    }
    if (d.stats.proven) d.stats.bound = d.stats.objective;
    return d;
}

}  // namespace hetsched::sched
