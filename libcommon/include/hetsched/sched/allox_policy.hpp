#pragma once
/// AlloX (Le et al., EuroSys'20), as Gavel's port runs it: single-GPU jobs, non-preemptive. Each round
/// the pending jobs (the oldest 50, AlloX's simulator cap, or as many as GPUs are free if more) are
/// matched to slots (GPU type t, queue position k counted from the end of a free GPU's queue) at cost
/// k × remaining work / throughput on t, a min-cost assignment (its LP is integral; GLPK's simplex
/// solves it), with as many slots (t, k) as t has free GPUs and k up to 50. The job at the head of
/// each GPU's queue starts; the rest are matched again next round. Running jobs keep their GPUs.
/// Ties do not depend on the simplex: jobs of equal time on a type cost the same in either order, and
/// the earlier (submit time, then id) is put nearer the head; jobs alike on every type, the earlier
/// takes the place that starts now, then the faster type.
#include <hetsched/sched/policy.hpp>

namespace hetsched::sched {

/// Refuses a job AlloX cannot schedule: one that needs more than one GPU (DataError naming it, at
/// `where`), so that replay can check a whole trace before any policy runs, and schedround a state.
void check_allox_job(const Job& j, const SourcePos& where = {});

/// The round's types by AlloX. DataError (65) naming a job that needs more than one GPU (check_allox_job).
TypeDecision allox_decide(const ClusterState& s, const RoundOptions& o);

}  // namespace hetsched::sched
