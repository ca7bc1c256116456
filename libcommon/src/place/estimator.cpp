#include <hetsched/place/estimator.hpp>

#include <algorithm>

namespace hetsched::place {
namespace {

void fill_costs(const Problem& p, const Placement& pl, std::vector<StageCosts>& costs) {
    const size_t k = pl.order.size();
    costs.resize(k);
    long first = 0;
    thread_local std::vector<long> seen;  // stages of each type so far, in pipeline order
    seen.assign(p.types.size(), 0);
    for (size_t s = 0; s < k; ++s) {
        const size_t t = pl.order[s];
        const long c = pl.layers[s];
        const int pos = static_cast<int>(s);
        costs[s].forward = p.forward_s(t, pos, first, c);
        costs[s].backward = p.backward_s(t, pos, first, c);
        costs[s].to_next = s + 1 < k ? p.transfer_s(t, pl.order[s + 1], seen[t]) : 0;
        ++seen[t];
        const double params = p.stage_params(pos, c);  // searches evaluate this per placement: once
        costs[s].allreduce = params * p.types[t].allreduce_s_per_param;
        costs[s].optimizer = params * p.types[t].optimizer_s_per_param;
        costs[s].tied = k > 1 && (s == 0 || s + 1 == k) ? p.tied_sync_s : 0;
        costs[s].tied_before_allreduce = p.tied_before_allreduce;
        first += c;
    }
}

}  // namespace

std::vector<StageCosts> stage_costs(const Problem& p, const Placement& pl) {
    std::vector<StageCosts> costs;
    fill_costs(p, pl, costs);
    return costs;
}

Estimate estimate(const Problem& p, const Placement& pl, std::vector<TimelineEvent>* timeline) {
    const std::vector<StageCosts> costs = stage_costs(p, pl);
    Estimate e;
    simulate(p.schedule, costs, p.micro_batches, e.schedule, timeline);
    for (size_t s = 0; s < costs.size(); ++s) {
        const StageCosts& c = costs[s];
        e.stages.push_back({c.forward, c.backward, c.to_next, s > 0 ? costs[s - 1].to_next : 0, c.allreduce, c.optimizer,
                            c.tied});  // (fill_costs gives it to the first and last stage only)
        const StageCosts& slow = costs[e.slowest_stage];
        if (c.forward + c.backward > slow.forward + slow.backward) e.slowest_stage = s;
        if (e.schedule.stage_end[s] > e.schedule.stage_end[e.critical_stage]) e.critical_stage = s;
    }
    e.ends_after_pipeline = e.schedule.iteration_s > e.schedule.pipeline_s;
    const size_t c = e.critical_stage;
    e.tied_outlasts = e.stages[c].tied > e.stages[c].allreduce;
    const double before = e.schedule.backward_end[c], after = e.schedule.stage_end[c] - before;
    const double step = std::min(e.stages[c].optimizer, after), sync = after - step;
    if (std::max(sync, step) > before)
        e.bound = step >= sync        ? Estimate::Bound::optimizer
                  : e.tied_outlasts ? Estimate::Bound::embedding_allreduce
                                    : Estimate::Bound::allreduce;
    return e;
}

double iteration_time(const Problem& p, const Placement& pl, std::vector<StageCosts>& costs, Schedule& schedule) {
    fill_costs(p, pl, costs);
    simulate(p.schedule, costs, p.micro_batches, schedule);
    return schedule.iteration_s;
}

double iteration_time_below(const Problem& p, const Placement& pl, double bar, std::vector<StageCosts>& costs,
                            Schedule& schedule) {
    fill_costs(p, pl, costs);
    const double bound = schedule_lower_bound(costs, p.micro_batches, p.schedule);
    if (bound >= bar) return bound;
    simulate(p.schedule, costs, p.micro_batches, schedule);
    return schedule.iteration_s;
}

}  // namespace hetsched::place
