#pragma once
/// What every scheduling policy takes and gives: the cluster state (whose bookkeeping it may update)
/// and the round's options in; each job's GPU type for this round out, with how the decision was
/// solved. Host placement, actions and the shared bookkeeping are the round's, not the policy's.
#include <string>
#include <vector>

#include <hetsched/sched/assignment_program.hpp>
#include <hetsched/sched/cluster_state.hpp>

namespace hetsched::sched {

/// Which policy decides the round.
enum class PolicyKind { fft, gavel, gavel_agnostic, tiresias, srtf, fifo, opportunistic, allox, has, sia, iceshare };
PolicyKind parse_policy(const std::string& name);  ///< UsageError with close names otherwise
/// "fft,gavel,...": each parsed, none twice; UsageError otherwise.
std::vector<PolicyKind> parse_policy_list(const std::string& names);
std::string policy_name(PolicyKind p);
std::vector<std::string> policy_names();
/// Whether the policy may stop a running job to run another (all but the first-come, first-served
/// ones: fifo, opportunistic, has, allox).
bool preempts(PolicyKind p);

/// Options of a round, for every policy (each reads its own).
struct RoundOptions {
    PolicyKind policy = PolicyKind::fft;
    double migration_gb_s = 1.25;      ///< checkpoint transfer speed, GB/s (10 Gb/s, FFT's testbed LAN)
    double migration_restart_s = 30;   ///< stop, restart and re-join time of a migrated job, seconds
    bool exact = false;                ///< hand the plain program to GLPK's MIP solver
    double time_limit_s = 60;          ///< for the solver; past it the round fails with TryLater (75) ...
    /// ... or keeps the best schedule found, or when it found none the previous round's, marked unproven
    /// (replay); TryLater still when there is nothing to keep (no job holds GPUs or a share)
    bool accept_unproven = false;
    bool explain = false;              ///< keep each job's cost terms
    SolverLog solver_log;              ///< GLPK's messages (-v); dropped when empty
    double gavel_reset_s = 1920;       ///< Gavel: least time between two allocations
    /// Tiresias: upper attained-service limit of each queue but the last, GPU-seconds (3 queues).
    std::vector<double> tiresias_queues_s{3250, 7200};
    double tiresias_starvation = 0;    ///< Tiresias: promote when waiting ≥ this × run time (0: off)
    unsigned long seed = 1;            ///< seeded choices (type orders, Tiresias' type per job)
    double sia_p = -0.5;               ///< Sia: power of the normalised goodput (its simulator's run script)
    double sia_lambda_n = 1.1;         ///< Sia: cost of leaving a job without GPUs (whatever the sign of p)
};

/// FFT's cost of one job on one type, by term (all in rounds; see schedround(1)).
struct CostTerms {
    int type = 0;
    double age = 0;       ///< (t − a)·θ/W
    double demand = 0;    ///< d·W/θ, GPU-rounds (W the job's total work, as FFT writes it)
    double change = 0;    ///< s: migration time when the type changes
    double fairness = 0;  ///< ρ·θ/θ_max
    double total() const { return age + demand + change - fairness; }
};

/// A policy's answer for the round.
struct TypeDecision {
    std::string policy;     ///< the policy's name
    std::vector<int> type;  ///< per job, -1 = does not run this round
    std::vector<int> gpus;  ///< per job, its size this round (elastic policies); empty: each keeps num_gpus
    std::vector<char> shared;  ///< per job, whether it shares a GPU this round (iceshare); empty: none
    SolveStats stats;
    long min_busy = 0;      ///< K
    std::vector<std::vector<CostTerms>> explain;  ///< per job, per usable type (with --explain)
};

/// Seconds a job loses when it moves: checkpoint / bandwidth + restart.
double migration_seconds(const Job& j, const RoundOptions& o);

}  // namespace hetsched::sched
