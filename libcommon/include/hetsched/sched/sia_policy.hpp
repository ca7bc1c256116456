#pragma once
/// Sia (Jayaram Subramanya et al., SOSP'23), as its public simulator's policy runs it: one 0-1 program a
/// round over (job, configuration), a configuration being a GPU type and a size. An elastic job
/// (Job::scales) may take any of its scales on any type that runs it there; a rigid one only its
/// num_gpus. Each job's goodputs are normalised by its least (elastic: the smallest over all its
/// configurations; rigid: per type, so that the slowest type counts num_gpus), multiplied by the
/// restart factor r on every configuration but the one it holds (r = max(age − restarts·P, 0) / (age + P),
/// 1 while age < P, P the job's migration time, restarts its moves so far), and raised to the power p.
/// With p < 0 the program minimises Σ (r·G)^p + λ_n · (jobs left without GPUs); with p > 0 it maximises
/// Σ (r·G)^p − λ_n · (jobs left out): λ_n is a cost either way (Sia's code adds it, and wants it
/// negative when p > 0). Values are capped at 3000, as Sia's are. Each job takes at most one
/// configuration and each type's GPUs on up nodes bound the sizes it holds; a pinned job that runs on
/// hosts that are up keeps its configuration (Sia pins jobs still restoring a checkpoint). Goodput here is the
/// throughput (no statistical-efficiency model: fitthroughput's effective progress with ψ = 1).
#include <hetsched/sched/mip.hpp>
#include <hetsched/sched/policy.hpp>

namespace hetsched::sched {

/// One configuration a job may take: a type and a size (its num_gpus for a rigid job).
struct SiaOption {
    size_t job = 0;
    int type = 0;
    int gpus = 1;
    double value = 0;  ///< (r·G)^p, capped
};

/// The round's program: its options (columns, in order) and the Mip (rows: one per job with an
/// option, then one per type). Unfinished jobs only.
struct SiaProgram {
    std::vector<SiaOption> options;
    Mip mip;
};
SiaProgram sia_program(const ClusterState& s, const RoundOptions& o);

/// How sia solves its program: the dynamic program over free GPUs where it is an assignment program of
/// few enough states (rigid jobs, or one size each, on types of tens of GPUs), else CBC, as Sia does.
MipResult sia_solve(const Mip& m, double time_limit_s);

/// The round's types and sizes by Sia's program, solved by sia_solve within o.time_limit_s.
/// (GLPK first, as iceshare's programs are, was 5x faster on an uncontended cluster but, replaying the
/// Philly sample on 3 x 32 GPUs, left 16 rounds unproven instead of 6 and took 501 s instead of 189.)
/// TryLater (75) when the limit comes first unless o.accept_unproven: then the best found, or the
/// running jobs holding on where they run (TryLater when none runs), marked unproven, with CBC's best
/// bound as the bound (infinite when it knows none).
TypeDecision sia_decide(const ClusterState& s, const RoundOptions& o, const MipSolve& solve = sia_solve);

}  // namespace hetsched::sched
