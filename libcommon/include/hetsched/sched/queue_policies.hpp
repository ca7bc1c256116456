#pragma once
/// The greedy baselines: each takes jobs in its own order and gives each the first type of its own
/// preference that has the GPUs free, skipping (not blocking on) a job that does not fit.
///  - fifo: first come, first served, non-preemptive (a running job keeps its type), types in a seeded
///    shuffle per round (heterogeneity-agnostic, as Gavel's agnostic policies order types);
///  - opportunistic: first come, first served, non-preemptive, the job's fastest type with room first;
///  - srtf: preemptive; shortest remaining time on the job's fastest type (of those with its GPUs up)
///    first, each on its fastest type with room (migration costs ignored, as the overhead-agnostic SRTF
///    of FFT Fig. 2a);
///  - has (Frenzy's HAS, Alg. 1): first come, first served, non-preemptive, the smallest GPU type whose
///    memory holds the job (the memory memest's model gives a job with a `model:`), then larger ones;
///    nodes are best-fitted by the round's placement, as planalloc's cluster mode does.
#include <hetsched/sched/policy.hpp>

namespace hetsched::sched {

TypeDecision fifo_decide(const ClusterState& s, const RoundOptions& o);
TypeDecision opportunistic_decide(const ClusterState& s, const RoundOptions& o);
TypeDecision srtf_decide(const ClusterState& s, const RoundOptions& o);
TypeDecision has_decide(const ClusterState& s, const RoundOptions& o);

}  // namespace hetsched::sched
