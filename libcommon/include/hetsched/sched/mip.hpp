#pragma once
/// A small 0-1 program in column form, and the MIP solvers that take it: GLPK's branch and cut as it
/// comes (the --exact path, the program handed over with no help); COIN-OR CBC, whose cuts and
/// heuristics prove the knapsack-like programs GLPK's branching can wander on for seconds, but whose
/// start-up costs milliseconds a solve (sia's programs); and the two in turn, GLPK for budgets of
/// nodes and then CBC (the structured path's rests, iceshare's programs).
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace hetsched::sched {

/// min (or max) c·x over binary x subject to row_lo ≤ A x ≤ row_hi.
struct Mip {
    bool maximise = false;
    std::vector<double> row_lo, row_hi;                   ///< per row; ±HUGE_VAL for no bound
    std::vector<double> cost;                             ///< per column
    std::vector<std::vector<std::pair<int, double>>> col; ///< per column: (row, coefficient)
};

/// How a MIP solve ended; `x` holds the solution when optimal, and CBC's best found, if any, when the
/// time limit came first.
enum class MipStatus { optimal, infeasible, time_limit };
struct MipResult {
    MipStatus status = MipStatus::infeasible;
    std::vector<double> x;
    /// The best bound the solver proved on the optimum (a lower bound when minimising, an upper one when
    /// maximising): the optimum itself when optimal; when CBC's time limit came first, its best possible
    /// objective, or -inf (minimising) / +inf (maximising) when it knew none (always, when GLPK's limit
    /// came first). Undefined when infeasible.
    double bound = 0;
    /// GLPK: stopped by its node budget (status time_limit), not by its clock.
    bool node_limit = false;
    /// Seconds the solver itself ran (CBC's from when it had its lock): what a time budget spent over
    /// several programs counts.
    double seconds = 0;
};

/// GLPK's branch and cut with its presolver; with `cuts`, also its mixed-integer rounding and Gomory
/// cuts, branching by pseudocosts. Error (70) on a GLPK failure.
/// `node_limit` > 0: stops (status time_limit, MipResult::node_limit) after that many branch-and-bound
/// nodes, a limit that, unlike time, gives the same answer on a loaded machine. Stopped either way, it
/// reports no bound (±inf) and no solution.
MipResult solve_with_glpk(const Mip& m, double time_limit_s, long node_limit = 0, bool cuts = false);
/// CBC's branch and cut with its default cuts and heuristics, silent. Error (70) on a CBC failure.
MipResult solve_with_cbc(const Mip& m, double time_limit_s);

/// How far solve_glpk_then_cbc lets GLPK search a program without cuts, in branch-and-bound nodes: most
/// of a round's programs settle within this many, sooner than cut generation would pay for itself.
constexpr long kGlpkPlainNodes = 100;
/// How far GLPK then searches the program again, from its start (presolve and root LP again), with cuts
/// before it goes to CBC, whose start-up alone (its parameter tables, built at every solve) costs
/// milliseconds, more than GLPK takes to settle most of a round's programs. The budget bounds nodes,
/// not time: a node with cuts and pseudocosts costs more than a plain one.
constexpr long kGlpkCutNodes = 1000;
/// GLPK for up to kGlpkPlainNodes nodes, then with cuts for up to kGlpkCutNodes, then, unsettled, CBC
/// with the time left: `seconds` counts all three.
MipResult solve_glpk_then_cbc(const Mip& m, double time_limit_s);

/// A MIP solve as a policy calls it: solve_with_cbc (sia) or solve_glpk_then_cbc (iceshare), or in a
/// test a stand-in that says what a solve stopped by its time limit would (a solver's own limit is not
/// reproducible).
using MipSolve = std::function<MipResult(const Mip& m, double time_limit_s)>;

}  // namespace hetsched::sched
