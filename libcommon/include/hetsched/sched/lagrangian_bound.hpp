#pragma once
/// The Lagrangian dual of an assignment program over its M+1 coupling rows (per-type capacity and the
/// work-conserving row). With prices λ_i ≥ 0 on each type's GPUs and π ≥ 0 on busy GPUs, every job
/// decides alone: the type of least reduced cost c[j][i] + (λ_i − π)·d_j, or nothing when all are
/// positive. For any prices, L(λ, π) = Σ_j min(0, min_i reduced cost) − Σ λ_i Y_i + π K is a lower bound
/// on the optimum; its maximum equals the LP relaxation's. Kelley's cutting-plane method finds it
/// with one small GLPK LP in M+2 variables, however many jobs there are.
#include <vector>

#include <hetsched/sched/assignment_program.hpp>

namespace hetsched::sched {

/// Prices for the coupling rows and the bound they prove.
struct Multipliers {
    std::vector<double> lambda;  ///< per type
    double pi = 0;
    double bound = 0;            ///< L(λ, π)
    long iterations = 0;
};

/// L at the given prices; `choice` (optional) receives each job's least-reduced-cost type or -1.
double lagrangian_value(const AssignmentProgram& p, const std::vector<double>& lambda, double pi,
                        std::vector<int>* choice = nullptr);

/// Reduced cost of job j on type i at the prices (i == -1: not running, 0).
inline double reduced_cost(const AssignmentProgram& p, const Multipliers& m, int j, int i) {
    if (i < 0) return 0;
    return p.c(j, i) + (m.lambda[static_cast<size_t>(i)] - m.pi) * p.demand[static_cast<size_t>(j)];
}

/// Prices maximising L, to relative tolerance `tol`, within `max_iterations` cuts; `upper` is any
/// feasible schedule's cost (it bounds the maximum and keeps the first cutting-plane LPs bounded).
Multipliers maximise_lagrangian(const AssignmentProgram& p, double upper, long max_iterations = 400,
                                double tol = 1e-9);

}  // namespace hetsched::sched
