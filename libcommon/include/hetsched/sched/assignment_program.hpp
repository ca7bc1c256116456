#pragma once
/// The per-round program of FFT (Eq. 1, 6, 7), in the form any type-level policy can state: binary
/// x[j][i] = job j runs on GPU type i this round; each job on at most one type; each type's GPUs not
/// over-subscribed; at least K GPUs busy (work conservation); minimise the sum of the chosen costs.
/// Two exact solvers: the plain program handed to GLPK's MIP solver, and a structured one (Lagrangian
/// bound over the M+1 coupling rows, variable fixing against an incumbent, GLPK then CBC on what is left).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <hetsched/sched/glpk.hpp>
#include <hetsched/sched/mip.hpp>

namespace hetsched::sched {

/// The program. Costs are row-major (job × type); NaN marks a type the job may not use.
struct AssignmentProgram {
    int types = 0;
    std::vector<int> capacity;    ///< Y_i: GPUs of each type
    std::vector<int> demand;      ///< d_j: GPUs each job needs
    std::vector<double> cost;     ///< cost[j * types + i]
    std::vector<char> must_run;   ///< per job, optional: 1 = Σ_i x[j][i] = 1 (a reduced program's fixings)
    long min_busy = 0;            ///< K: the work-conserving lower bound on Σ d·x

    int jobs() const { return static_cast<int>(demand.size()); }
    double c(int j, int i) const { return cost[static_cast<size_t>(j) * types + i]; }
    bool allowed(int j, int i) const { return !std::isnan(c(j, i)); }
    bool runs_surely(int j) const { return !must_run.empty() && must_run[static_cast<size_t>(j)]; }
    /// Binary variables of the program as stated (allowed job-type pairs).
    long variables() const;
};

/// A schedule: each job's type, or -1 when it does not run.
struct Assignment {
    std::vector<int> type;
    double objective = 0;  ///< Σ chosen costs
    long busy = 0;         ///< Σ d over running jobs
};

/// Cost and busy GPUs of `type` under `p` (checks nothing).
Assignment evaluate(const AssignmentProgram& p, std::vector<int> type);
/// Whether `a` satisfies every constraint of `p`.
bool feasible(const AssignmentProgram& p, const Assignment& a);

/// K(t) exactly: the most GPUs the jobs can keep busy under the per-type capacities (a packing
/// problem). Returns an assignment reaching it (costs ignored). A greedy packing is accepted when it
/// meets the max-flow bound; otherwise a MIP (GLPK, then CBC) decides. Past `time_limit_s`: TryLater
/// (75), or, given `proven`, the greedy packing with *proven set to false.
Assignment max_busy_assignment(const AssignmentProgram& p, double time_limit_s, bool* proven = nullptr);

/// How a solve went, for the `solve:` section.
struct SolveStats {
    std::string method;          ///< "structured" or "exact"
    double objective = 0;
    /// Proven bound on the optimum (== objective when solved): a lower bound, or an upper one when the
    /// program maximises; -inf / +inf when none is known (a round that kept an earlier schedule).
    double bound = 0;
    bool maximise = false;       ///< the program maximises (sia with p > 0, iceshare, gavel's LP)
    double lagrangian_bound = 0; ///< the Lagrangian (LP) bound the structured path fixed against
    long variables = 0;          ///< binary variables of the program as stated
    long reduced_variables = 0;  ///< variables left to the MIP after fixing (structured)
    long bound_iterations = 0;   ///< cutting-plane iterations for the Lagrangian bound (structured)
    bool proven = true;          ///< false: the time limit came first and the best schedule found stands
    /// gavel ("lp"): no program was solved this round, the allocation of an earlier one stands (objective,
    /// bound and variables are then 0).
    bool reused = false;

    /// How far the schedule kept may be from the optimum, in the objective's units: ≥ 0, inf when no
    /// bound is known; 0 within rounding (a bound summed in another order than the objective differs
    /// from it in the last digits, and read 7e-15 on a solved round).
    double gap() const {
        const double g = maximise ? bound - objective : objective - bound;
        return std::fabs(g) <= 1e-9 * std::max(1.0, std::fabs(objective)) ? 0 : g;
    }
};

/// Which MIP solver takes a program whole: GLPK alone (the --exact path), or GLPK for a moment and
/// then CBC (the structured path's rests and K).
enum class MipSolver { glpk, glpk_then_cbc };

/// The program as it stands, as a 0-1 MIP in `solver`: the optimum, or nothing when the program is
/// infeasible. TryLater (75) past `time_limit_s`.
std::optional<Assignment> solve_as_mip(const AssignmentProgram& p, double time_limit_s, MipSolver solver);

/// The optimum by the plain program in GLPK's MIP solver. TryLater (75) past `time_limit_s`.
Assignment solve_exact(const AssignmentProgram& p, double time_limit_s, SolveStats& stats);

/// The same optimum by exploiting the structure: Lagrangian multipliers for the M+1 coupling rows by
/// a cutting-plane method, an incumbent from them, every x[j][i] whose Lagrangian cost exceeds the
/// incumbent fixed to 0, and a MIP (GLPK, then CBC if GLPK wanders) on the jobs still undecided. `start` is any feasible schedule
/// (max_busy_assignment's). Past `time_limit_s`: TryLater, or with `accept_unproven` the best schedule
/// found, its Lagrangian bound and stats.proven false.
Assignment solve_structured(const AssignmentProgram& p, const Assignment& start, double time_limit_s,
                            SolveStats& stats, bool accept_unproven = false);

}  // namespace hetsched::sched
