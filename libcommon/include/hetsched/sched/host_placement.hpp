#pragma once
/// FFT's hierarchical placement (§4.3, Fig. 6), within each GPU type the round chose:
///  1. a job that keeps its type keeps its hosts (no migration), unless one of them is down;
///  2. at churn (jobs arrived or left), multi-GPU data/tensor-parallel jobs spread over several hosts
///     are re-packed onto fewer when the GPUs now allow it, the cheapest to migrate first (not a
///     pinned job, one replay sees still restoring from its last move; one that may not be preempted
///     is kept out of the round's placement altogether, sched/kept_jobs.hpp);
///  3. the other jobs of the type are best-fitted (alloc's Frenzy best-fit: an exact or smallest
///     sufficient node, else the largest free nodes), data/tensor-parallel jobs before pipeline-only
///     ones, larger jobs first.
/// A job never spans two types, and down nodes hold nothing. Jobs that share (`shared`, two to a GPU)
/// keep their node when they keep sharing on the type, but lone sharers on two nodes of a type pair
/// up; new ones first join a node's lone sharer, then take a GPU for two, after the whole-GPU jobs.
#include <vector>

#include <hetsched/sched/cluster_state.hpp>
#include <hetsched/sched/policy.hpp>

namespace hetsched::sched {

/// Each job's placement for the round whose types are `type` (-1: not running) and sharing `shared`
/// (empty: none). The types must respect every type's capacity on up nodes, a sharer counting half a
/// GPU (Error 70 otherwise: a policy bug).
std::vector<Placement> place_on_hosts(const ClusterState& s, const std::vector<int>& type, const RoundOptions& o,
                                      const std::vector<char>& shared = {});

}  // namespace hetsched::sched
