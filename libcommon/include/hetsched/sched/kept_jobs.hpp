#pragma once
/// Jobs a round keeps where they run whatever its policy would decide: those the state marks
/// `preemptible: false`, running with work left on nodes that are up, of a type that can run them
/// (one whose memory the state says does not hold the job is warned of, and left to the policy).
/// The policy decides the other jobs on the GPUs the kept ones leave, as if those GPUs were not
/// there. A placement does not say which of a node's GPUs two sharers share, so a job sharing a node's
/// GPUs with a kept sharer is kept with it. A kept job's policy books (FFT's rho and tau, Tiresias'
/// queue, Gavel's share) stay as they were while it is kept; its service is credited as every running
/// job's. (Sia's program also pins the jobs replay sees still restoring from a move, Sia's own rule.)
#include <vector>

#include <hetsched/sched/cluster_state.hpp>
#include <hetsched/sched/policy.hpp>

namespace hetsched::sched {

/// Per job of `s`, whether the round keeps it.
std::vector<char> kept_jobs(const ClusterState& s);

/// `s` without the kept jobs, each node holding the GPUs they leave free (a GPU for every two kept
/// sharers), and Gavel's record of the job set its allocation stands for in the rest's terms.
ClusterState without_kept(const ClusterState& s, const std::vector<char>& kept);

/// Puts the decision and placements the round made for `rest` (the jobs `without_kept` left, in their
/// order) back into the order of `s`'s jobs, each kept job decided to the placement it holds, and
/// moves `rest`'s jobs (their books) and Gavel's state-wide books back into `s`: the job set Gavel's
/// allocation stands for counts the kept jobs apart from those it was computed over.
void merge_kept(ClusterState& s, const std::vector<char>& kept, ClusterState&& rest, TypeDecision& d,
                std::vector<Placement>& placed);

}  // namespace hetsched::sched
