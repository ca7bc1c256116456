#pragma once
/// FFT's round (§4.2, Eq. 1–7): each unfinished job gets at most one GPU type by minimising
///   Σ_j Σ_i ((t − a_j)·θ_ji/W_j + d_j·W_j/θ_ji + s_ji − ρ_j·θ_ji/θ_j,max)·x_ji
/// subject to one type per job, per-type capacity and at least K(t) GPUs busy, then updates the
/// fairness compensation ρ_j (Eq. 5) and, when jobs arrived or left, the fair-share finish time τ_j.
/// Time is counted in rounds and work in rounds of the job on its fastest type, so that no term
/// depends on the unit a job's work is counted in (schedround(1) gives the derivation).
#include <hetsched/sched/policy.hpp>

namespace hetsched::sched {

/// The program FFT solves this round over `s`'s unfinished jobs (K not yet set); with `explain`,
/// each job's terms per usable type.
AssignmentProgram fft_program(const ClusterState& s, const RoundOptions& o,
                              std::vector<std::vector<CostTerms>>* explain = nullptr);

/// τ_j: when job j would have finished had it held, since it arrived, a 1/|A| share of every type's
/// GPUs without preemption: a + W / max_i θ_ji·min(1, Y_i / (|A|·d_j)) over the types it may use with
/// at least d_j GPUs up (a gang cannot time-share fewer); < 0 when no type can run it now.
/// Counted from arrival, not from now, so that a starving job's fair finish does not recede with it.
double fair_finish_s(const ClusterState& s, const Job& j, size_t active);

/// Eq. 5 for one job after the round decided at `t`: ρ ← max(0, ρ + μ·(W/(θ_max·(τ − a)) − θ_x/θ_max)),
/// μ = (t − a)/(τ − a), with θ_x the job's throughput that round (`type`; 0 when it did not run) and
/// θ_max its best over the types it may use with at least d_j GPUs up (best_throughput); `up` is
/// ClusterState::capacity.
double next_rho(const ClusterState& s, const Job& j, int type, const std::vector<int>& up, double t);

/// FFT's books as a round opens, on the whole cluster (run_round calls it before it sets apart the
/// non-preemptible jobs it keeps, so theirs move too): Eq. 5 for the round that ended, each unfinished
/// job's ρ from the type it ran on (counted as up, though down now) and the decision time
/// last_decision_s, nothing when no time has passed since (a decision again at the same instant, a
/// retried cron run, uses the same ρ and decides the same way); then, where jobs arrived or left (or
/// a job has none), τ over every active job and GPU.
void fft_open_round(ClusterState& s);

/// The round's types by FFT, on the books fft_open_round set. Past o.time_limit_s: TryLater (75),
/// unless o.accept_unproven: then the structured path keeps the best schedule it found (gap to its
/// Lagrangian bound) and --exact the previous round's (each running job on its type, no bound known),
/// TryLater when no job runs.
TypeDecision fft_decide(ClusterState& s, const RoundOptions& o);

}  // namespace hetsched::sched
