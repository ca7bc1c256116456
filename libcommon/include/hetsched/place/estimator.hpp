#pragma once
/// The iteration-time estimator every placer shares: a placement's per-stage costs, run through the
/// 1F1B simulation with each stage's gradient all-reduce after its last backward.
#include <vector>

#include <hetsched/place/pipeline_schedule.hpp>
#include <hetsched/place/problem.hpp>

namespace hetsched::place {

/// What one stage of a placement costs.
struct StageTimes {
    double forward = 0, backward = 0;               ///< per micro-batch
    double send_activation = 0, send_gradient = 0;  ///< per micro-batch, to the next / previous stage
    double allreduce = 0;
    double optimizer = 0;  ///< the optimizer step after the all-reduce
    double tied = 0;       ///< the tied embedding's all-reduce (first and last stage of a tied model)
};

struct Estimate {
    std::vector<StageTimes> stages;
    Schedule schedule;
    size_t slowest_stage = 0;   ///< largest forward + backward: the pipeline's steady-state pace
    size_t critical_stage = 0;  ///< finishes last (its all-reduce included)
    bool ends_after_pipeline = false;  ///< the critical stage's all-reduce and optimizer step end after every backward
    bool tied_outlasts = false;  ///< the critical stage's tied-embedding all-reduce outlasts its data-parallel one
    /// The largest part of the critical stage's path: its compute up to its last backward (the slowest
    /// stage's pace), then its all-reduce (the tied embedding's where that outlasts its own), then its
    /// optimizer step.
    enum class Bound { compute, allreduce, embedding_allreduce, optimizer } bound = Bound::compute;
};

/// The stage costs of a placement.
std::vector<StageCosts> stage_costs(const Problem& p, const Placement& pl);

/// The full estimate, with the schedule's events in `timeline` when given.
Estimate estimate(const Problem& p, const Placement& pl, std::vector<TimelineEvent>* timeline = nullptr);

/// Just the iteration time, for search loops: reuses `costs` and `schedule` between calls.
double iteration_time(const Problem& p, const Placement& pl, std::vector<StageCosts>& costs, Schedule& schedule);

/// For search loops that keep only what beats `bar`: the iteration time when it is below `bar`, else
/// some value at or above `bar` (the schedule's lower bound, when that already reaches `bar`, so the
/// simulation is skipped).
double iteration_time_below(const Problem& p, const Placement& pl, double bar, std::vector<StageCosts>& costs,
                            Schedule& schedule);

}  // namespace hetsched::place
