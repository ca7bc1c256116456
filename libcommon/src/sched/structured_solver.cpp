// solve_structured: the exact optimum of an assignment program without handing GLPK all of it.
//
// With prices (λ, π) from the Lagrangian dual, L is a lower bound, and forcing job j onto option o
// raises the bound by at least rc(j, o) − min_o' rc(j, o'), since the Lagrangian separates by job. So
// an option whose raise exceeds the gap between an incumbent and L cannot appear in any schedule
// cheaper than the incumbent; dropping it keeps every strictly better schedule. A program whose LP
// relaxation is almost integral (here at most M+1 jobs are fractional) leaves few undecided jobs, and
// GLPK proves their optimum quickly; the answer is the better of that optimum and the incumbent.
#include <hetsched/sched/assignment_program.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <tuple>

#include <hetsched/cli/error.hpp>
#include <hetsched/sched/lagrangian_bound.hpp>

namespace hetsched::sched {
namespace {

/// A schedule from prices: options by ascending reduced cost, those that pay (rc < 0) first, then
/// the cheapest others until K GPUs are busy. Each job takes its first option that fits.
Assignment price_greedy(const AssignmentProgram& p, const Multipliers& m) {
    std::vector<std::tuple<double, int, int>> options;
    for (int j = 0; j < p.jobs(); ++j)
        for (int i = 0; i < p.types; ++i)
            if (p.allowed(j, i)) options.emplace_back(reduced_cost(p, m, j, i), j, i);
    std::sort(options.begin(), options.end());
    std::vector<int> type(static_cast<size_t>(p.jobs()), -1);
    std::vector<long> left(p.capacity.begin(), p.capacity.end());
    long busy = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (const auto& [rc, j, i] : options) {
            if (pass == 0 && rc >= 0) break;
            if (pass == 1 && busy >= p.min_busy) break;
            const long d = p.demand[static_cast<size_t>(j)];
            if (type[static_cast<size_t>(j)] >= 0 || left[static_cast<size_t>(i)] < d) continue;
            type[static_cast<size_t>(j)] = i;
            left[static_cast<size_t>(i)] -= d;
            busy += d;
        }
    }
    return evaluate(p, std::move(type));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

Assignment solve_structured(const AssignmentProgram& p, const Assignment& start, double time_limit_s,
                            SolveStats& stats) {
    const auto t0 = std::chrono::steady_clock::now();
    stats.method = "structured";
    stats.variables = p.variables();
    Assignment best = evaluate(p, start.type);

    const Multipliers m = maximise_lagrangian(p, best.objective);
    stats.lagrangian_bound = m.bound;
    stats.bound_iterations = m.iterations;
    if (Assignment g = price_greedy(p, m); feasible(p, g) && g.objective < best.objective) best = std::move(g);

    // Options whose Lagrangian raise exceeds the gap go; a margin keeps rounding from dropping one
    // that belongs.
    const double gap = best.objective - m.bound;
    const double margin = 1e-7 * (1 + std::abs(best.objective) + std::abs(m.bound));
    AssignmentProgram rest;
    rest.types = p.types;
    rest.capacity = p.capacity;
    rest.min_busy = p.min_busy;
    std::vector<int> fixed(static_cast<size_t>(p.jobs()), -1), index;  // index: rest's jobs in p
    bool hopeless = false;  // the fixings leave no room: nothing beats the incumbent
    for (int j = 0; j < p.jobs() && gap > margin; ++j) {
        double least = p.runs_surely(j) ? HUGE_VAL : 0;
        for (int i = 0; i < p.types; ++i)
            if (p.allowed(j, i)) least = std::min(least, reduced_cost(p, m, j, i));
        const bool idle_ok = !p.runs_surely(j) && -least <= gap + margin;
        std::vector<int> kept;
        for (int i = 0; i < p.types; ++i)
            if (p.allowed(j, i) && reduced_cost(p, m, j, i) - least <= gap + margin) kept.push_back(i);
        const long d = p.demand[static_cast<size_t>(j)];
        if (kept.empty() || (kept.size() == 1 && !idle_ok)) {
            const int i = kept.empty() ? -1 : kept.front();
            fixed[static_cast<size_t>(j)] = i;
            if (i >= 0) {
                rest.capacity[static_cast<size_t>(i)] -= static_cast<int>(d);
                rest.min_busy -= d;
                hopeless = hopeless || rest.capacity[static_cast<size_t>(i)] < 0;
            }
            continue;
        }
        index.push_back(j);
        rest.demand.push_back(static_cast<int>(d));
        rest.must_run.push_back(idle_ok ? 0 : 1);
        for (int i = 0; i < p.types; ++i)
            rest.cost.push_back(std::find(kept.begin(), kept.end(), i) != kept.end() ? p.c(j, i) : std::nan(""));
    }
    stats.reduced_variables = rest.variables();

    if (gap > margin && !hopeless) {
        rest.min_busy = std::max(0L, rest.min_busy);
        const double left_s = time_limit_s - seconds_since(t0);
        if (left_s <= 0) throw TryLater("the round was not solved within --time-limit-s");
        if (std::optional<Assignment> r = solve_in_glpk(rest, left_s)) {
            std::vector<int> type = fixed;
            for (size_t k = 0; k < index.size(); ++k) type[static_cast<size_t>(index[k])] = r->type[k];
            Assignment a = evaluate(p, std::move(type));
            if (feasible(p, a) && a.objective < best.objective) best = std::move(a);
        }
    }
    stats.objective = best.objective;
    stats.bound = gap > margin ? best.objective : m.bound;  // solved, or the incumbent within rounding of L
    return best;
}

}  // namespace hetsched::sched
