#pragma once
/// Gavel (Narayanan et al., OSDI'20), as its public code runs it in simulation (max_min_fairness_perf
/// and max_min_fairness; scheduler.py's round mechanism):
///  - the allocation: time fractions X[j][t] maximising min_j Σ_t c_jt X_jt with c_jt = θ_jt·sf_j /
///    (w_j · Σ_t' θ_jt'·N_t'/N), subject to Σ_t X_jt ≤ 1 and Σ_j sf_j X_jt ≤ N_t (an LP, GLPK's simplex;
///    one stage, no throughput maximisation after it; jobs alike in every coefficient and GPU count
///    solved as one class, which loses nothing); the agnostic variant sets every θ to 1;
///  - recomputed only when jobs arrived or left since the last one, and at most every reset interval;
///    a reset turns each job's time received since the last reset into a deficit;
///  - each round, per type, jobs by priority X / (share of the type's time received since the reset,
///    seeded with half a round), then deficit, then X; types in the state's order (shuffled each round
///    for the agnostic variant); greedily given their type while GPUs are left; a job that arrived
///    after the last allocation may be picked but is not started (its GPUs idle), as in Gavel's code.
#include <vector>

#include <hetsched/sched/policy.hpp>

namespace hetsched::sched {

/// Gavel's allocation X (per job, per type; empty rows for finished jobs). `aware` false: every
/// usable type's throughput counts as 1. With `stats`, the LP's max-min value (objective and bound,
/// the LP being solved to optimality) and its columns (variables); 0 when no job has a usable type.
std::vector<std::vector<double>> gavel_allocation(const ClusterState& s, bool aware, const RoundOptions& o,
                                                  SolveStats* stats = nullptr);

/// The round's types by Gavel; updates the allocation, deficits and reset time in `s` when it resets.
/// Its stats are the LP's when it was solved this round, else marked reused. An LP past
/// o.time_limit_s is TryLater (75), unless o.accept_unproven and some unfinished job has a share in
/// the last allocation: then that allocation stands (reused, unproven, no bound known) and the next
/// round solves again.
TypeDecision gavel_decide(ClusterState& s, const RoundOptions& o, bool aware);

}  // namespace hetsched::sched
