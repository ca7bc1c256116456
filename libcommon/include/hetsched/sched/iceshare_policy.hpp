#pragma once
/// ICEFROG's IceShare (§IV-B, Eq. 16-18), on a cluster of GPU types: a configuration is a (type, size),
/// as in Sia, a size being one of an elastic job's scales (at most a node, or whole nodes beyond) or a
/// rigid job's num_gpus. A job's time to accuracy on c is T_acc(c) = age + remaining / E(c), E its
/// throughput there (ψ = 1: no layer statistics in a state), and IceShare(c) = min over its
/// configurations of T_acc / T_acc(c), 0 without GPUs. The round maximises the least w·IceShare over
/// the jobs (Eq. 18, w = priority_weight), by bisection over the values the options take (is there a
/// choice, one option per job worth at least v each, that the GPUs hold?); as a tie-break, and wherever
/// some job must go without GPUs (the least is then 0), it maximises the sum with the least held. Each
/// job takes at most one configuration; each type's GPUs on up nodes bound the sizes taken. Every
/// program is solved whole (no partitioning, so a gap only when the time limit stops it): by
/// iceshare_solve (no warm start: CBC's C interface misreads one). The shared column: a job that may run on one GPU and may share one of type t
/// (ClusterState::can_share: a `gpu_util_pct` and memory the rule allows) may also take half a GPU of
/// t at fit::kSharedSlowdown of its throughput there.
#include <hetsched/sched/mip.hpp>
#include <hetsched/sched/policy.hpp>

namespace hetsched::sched {

/// One configuration of a job: type, size, and its IceShare there.
struct IceShareOption {
    size_t job = 0;
    int type = 0;
    int gpus = 1;
    bool shared = false;  ///< half a GPU, shared with another such job
    double share = 0;     ///< IceShare (Eq. 17), in (0, 1]
    double held() const { return shared ? 0.5 : gpus; }
};

/// The configurations of every unfinished job, in job order.
std::vector<IceShareOption> iceshare_options(const ClusterState& s);

/// How iceshare solves its programs: the dynamic program over free GPUs where a program is an
/// assignment program of few enough states (every job one size, no shared column: rigid jobs on types
/// of tens of GPUs), else GLPK and then CBC (solve_glpk_then_cbc). Contended, jobs of whole nodes
/// against a few types make knapsacks whose relaxation sits well above the optimum: the Philly sample
/// on 3 x 32 GPUs took 644 s with 36 rounds unproven by branch and bound, 31-39 s with none this way.
MipResult iceshare_solve(const Mip& m, double time_limit_s);

/// The round's types and sizes by IceShare. TryLater (75) past o.time_limit_s unless
/// o.accept_unproven: then the best found, else the running jobs holding on where they run (TryLater
/// when none runs), marked unproven with the gap in total share to the solver's bound (inf when the
/// bisection for the least share stopped short, or nothing was found).
TypeDecision iceshare_decide(const ClusterState& s, const RoundOptions& o, const MipSolve& solve = iceshare_solve);

}  // namespace hetsched::sched
