#pragma once
/// Tiresias (Gu et al., NSDI'19), the discretised two-dimensional least-attained-service policy of its
/// public simulator (dlas-gpu), in rounds instead of events, adapted to mixed GPU types as FFT's
/// evaluation does (§6.1.4):
///  - attained service = GPUs × seconds run; a job sits in queue q while its service is below the q-th
///    threshold (--tiresias-queues-s, default 3250,7200 GPU-seconds: three queues, as the simulator's
///    jobs.py); it moves down when it crosses one, to the back of the lower queue;
///  - starvation promotion (off by default, as in the simulator's dlas-gpu): a waiting job in a lower
///    queue that has run, and has waited at least --tiresias-starvation times the time it ran since its
///    last promotion, goes back to the back of the top queue with its service counted from zero;
///  - each round every GPU is handed out afresh: queues from the top; in a queue running jobs first, then
///    the others by when they entered it, then those that entered it at this decision (appended); a job runs if its GPU type has its GPUs free, else it is
///    skipped (later jobs may take what is left) and a running job not chosen is preempted;
///  - each job is given one GPU type on arrival, drawn with the seed from the types that can run it,
///    and never leaves it (a job running when Tiresias first decides keeps its type); the round's
///    placement consolidates it onto the fewest hosts.
#include <hetsched/cli/error.hpp>
#include <hetsched/sched/policy.hpp>

namespace hetsched::sched {

/// The type Tiresias gives job `j`: the one it runs on, else a seeded draw (a hash of the seed and the
/// job id) among the types that can run it and have its GPUs up (installed, when none has them up).
int tiresias_type(const ClusterState& s, const Job& j, unsigned long seed);

/// Refuses (DataError at `pos`) a job whose queue lies beyond the queues `o.tiresias_queues_s` makes:
/// a state must be read with the thresholds it was written with, and such a job would never run.
void check_tiresias_queue(const Job& j, const RoundOptions& o, const SourcePos& pos = {});

/// The round's types by Tiresias; refuses a job beyond the queues (check_tiresias_queue); updates each job's queue, entry time and promotions in `s`.
TypeDecision tiresias_decide(ClusterState& s, const RoundOptions& o);

}  // namespace hetsched::sched
