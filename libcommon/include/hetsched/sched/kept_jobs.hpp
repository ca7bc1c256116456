#pragma once
/// Jobs a round keeps where they run whatever its policy would decide: those the state marks
/// `preemptible: false`, running with work left on nodes that are up, of a type that can run them
/// (one whose memory the state says does not hold the job is warned of, and left to the policy). Sia's program keeps them
/// itself (with the jobs replay sees still restoring, Sia's own rule); every other policy decides the
/// other jobs on the GPUs the kept ones leave, as if those GPUs were not there. A placement does not
/// say which of a node's GPUs two sharers share, so a job sharing a node's GPUs with a kept sharer is
/// kept with it. A kept job's policy books (FFT's rho and tau, Tiresias' queue, Gavel's share) stay
/// as they were while it is kept; its service is credited as every running job's.
#include <vector>

#include <hetsched/sched/cluster_state.hpp>
#include <hetsched/sched/policy.hpp>

namespace hetsched::sched {

/// Per job of `s`, whether the round keeps it (all false under sia).
std::vector<char> kept_jobs(const ClusterState& s, PolicyKind policy);

/// `s` without the kept jobs, each node holding the GPUs they leave free (a kept sharer's GPU taken
/// whole for every two of them).
ClusterState without_kept(const ClusterState& s, const std::vector<char>& kept);

/// Puts the decision and placements the round made for `rest` (the jobs `without_kept` left, in their
/// order) back into the order of `s`'s jobs, each kept job decided to the placement it holds, and
/// moves `rest`'s jobs (their books) and Gavel's state-wide books back into `s`.
void merge_kept(ClusterState& s, const std::vector<char>& kept, ClusterState&& rest, TypeDecision& d,
                std::vector<Placement>& placed);

}  // namespace hetsched::sched
