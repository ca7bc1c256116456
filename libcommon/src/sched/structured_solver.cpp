// solve_structured: the exact optimum of an assignment program without handing a MIP solver all of it.
//
// With prices (λ, π) from the Lagrangian dual, L is a lower bound, and forcing job j onto option o
// raises the bound by at least rc(j, o) − min_o' rc(j, o'), since the Lagrangian separates by job. So
// an option whose raise exceeds the gap between an incumbent and L cannot appear in any schedule
// cheaper than the incumbent; dropping it keeps every strictly better schedule. A program whose LP
// relaxation is almost integral (here at most M+1 jobs are fractional) leaves few undecided jobs, and
// a MIP solver proves their optimum quickly; the answer is the better of that optimum and the incumbent.
#include <hetsched/sched/assignment_program.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
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

/// The program left when each job keeps only the options whose Lagrangian raise over its best is at
/// most `threshold`: jobs with one option left are fixed (their GPUs leave the capacities and K), the
/// others form `rest`, indexed back into the full program by `index`.
struct Restriction {
    AssignmentProgram rest;
    std::vector<int> fixed;  ///< per job of the full program: its fixed type, -1 (idle or in rest)
    std::vector<int> index;  ///< rest's jobs in the full program
    bool empty = false;      ///< the fixings alone over-fill a type: no schedule has these options
};

Restriction restrict_options(const AssignmentProgram& p, const Multipliers& m, double threshold) {
    Restriction r;
    r.rest.types = p.types;
    r.rest.capacity = p.capacity;
    r.rest.min_busy = p.min_busy;
    r.fixed.assign(static_cast<size_t>(p.jobs()), -1);
    std::vector<int> kept;
    for (int j = 0; j < p.jobs(); ++j) {
        double least = p.runs_surely(j) ? HUGE_VAL : 0;
        for (int i = 0; i < p.types; ++i)
            if (p.allowed(j, i)) least = std::min(least, reduced_cost(p, m, j, i));
        const bool idle_ok = !p.runs_surely(j) && -least <= threshold;
        kept.clear();
        for (int i = 0; i < p.types; ++i)
            if (p.allowed(j, i) && reduced_cost(p, m, j, i) - least <= threshold) kept.push_back(i);
        const int d = p.demand[static_cast<size_t>(j)];
        if (kept.empty() || (kept.size() == 1 && !idle_ok)) {
            const int i = kept.empty() ? -1 : kept.front();
            r.fixed[static_cast<size_t>(j)] = i;
            if (i >= 0) {
                r.rest.capacity[static_cast<size_t>(i)] -= d;
                r.rest.min_busy -= d;
                r.empty = r.empty || r.rest.capacity[static_cast<size_t>(i)] < 0;
            }
            continue;
        }
        r.index.push_back(j);
        r.rest.demand.push_back(d);
        r.rest.must_run.push_back(idle_ok ? 0 : 1);
        for (int i = 0; i < p.types; ++i)
            r.rest.cost.push_back(std::find(kept.begin(), kept.end(), i) != kept.end() ? p.c(j, i) : std::nan(""));
    }
    r.rest.min_busy = std::max(0L, r.rest.min_busy);
    return r;
}

/// Each job's raise to its second-best option (not running included): how close a call it is.
std::vector<double> second_raises(const AssignmentProgram& p, const Multipliers& m) {
    std::vector<double> out;
    out.reserve(static_cast<size_t>(p.jobs()));
    for (int j = 0; j < p.jobs(); ++j) {
        double first = p.runs_surely(j) ? HUGE_VAL : 0, next = HUGE_VAL;
        for (int i = 0; i < p.types; ++i) {
            if (!p.allowed(j, i)) continue;
            const double rc = reduced_cost(p, m, j, i);
            if (rc < first) {
                next = first;
                first = rc;
            } else if (rc < next) {
                next = rc;
            }
        }
        out.push_back(next - first);
    }
    return out;
}

/// The best schedule of the full program that uses only the restriction's options, if any.
std::optional<Assignment> solve_restriction(const AssignmentProgram& p, const Restriction& r, double time_limit_s) {
    if (r.empty) return std::nullopt;
    if (time_limit_s <= 0) throw TryLater("the round was not solved within --time-limit-s");
    const std::optional<Assignment> sub = solve_as_mip(r.rest, time_limit_s, MipSolver::glpk_then_cbc);
    if (!sub) return std::nullopt;
    std::vector<int> type = r.fixed;
    for (size_t k = 0; k < r.index.size(); ++k) type[static_cast<size_t>(r.index[k])] = sub->type[k];
    Assignment a = evaluate(p, std::move(type));
    if (!feasible(p, a)) return std::nullopt;
    return a;
}

}  // namespace

Assignment solve_structured(const AssignmentProgram& p, const Assignment& start, double time_limit_s,
                            SolveStats& stats, bool accept_unproven) {
    const auto t0 = std::chrono::steady_clock::now();
    auto left_s = [&] { return time_limit_s - seconds_since(t0); };
    stats.method = "structured";
    stats.variables = p.variables();
    Assignment best = evaluate(p, start.type);
    auto consider = [&best](std::optional<Assignment> a) {
        if (a && a->objective < best.objective) best = std::move(*a);
    };
    // A restriction's MIP, or, past the time limit when allowed, nothing and the round left unproven.
    auto attempt = [&](const Restriction& r) -> std::optional<Assignment> {
        try {
            return solve_restriction(p, r, left_s());
        } catch (const TryLater&) {
            if (!accept_unproven) throw;
            stats.proven = false;
            return std::nullopt;
        }
    };

    const Multipliers m = maximise_lagrangian(p, best.objective);
    stats.lagrangian_bound = m.bound;
    stats.bound_iterations = m.iterations;
    if (Assignment g = price_greedy(p, m); feasible(p, g)) consider(std::move(g));

    // The proof (below) keeps the options whose Lagrangian raise is within the incumbent's gap; a
    // margin keeps rounding from dropping one that belongs.
    auto margin_now = [&] { return 1e-7 * (1 + std::abs(best.objective) + std::abs(m.bound)); };
    // An incumbent near the optimum: at (near-)optimal prices the jobs whose best option is clearly
    // better than their next sit where the LP puts them; only the closest calls go to the MIP, 16 jobs'
    // worth first, then four times as many until the fixed rest leaves it a schedule. That incumbent
    // only shrinks the proof's program: where the one at hand already leaves the proof about as few jobs
    // as the second try would take (64), the round goes straight to the proof, which finds an optimum
    // all the same (not always the same one among equals).
    // A small proof's restriction is kept for it: with no search, the incumbent, and so the proof's
    // restriction, stay as they are.
    std::optional<Restriction> small_proof;
    if (const double gap_now = best.objective - m.bound; gap_now > margin_now()) {
        small_proof = restrict_options(p, m, gap_now + margin_now());
        if (small_proof->rest.jobs() > 64) small_proof.reset();
    }
    if (!small_proof) {
        std::vector<double> second = second_raises(p, m);
        std::sort(second.begin(), second.end());
        for (size_t core = 16; stats.proven && best.objective - m.bound > 1e-7 * (1 + std::abs(m.bound)); core *= 4) {
            const double tie = second[std::min(core, second.size()) - 1];
            std::optional<Assignment> a = attempt(restrict_options(p, m, tie));
            const bool found = a.has_value();
            consider(std::move(a));
            if (found || core >= second.size()) break;
        }
    }

    // The proof: options whose Lagrangian raise exceeds the gap cannot be in a schedule cheaper than
    // the incumbent.
    const double gap = best.objective - m.bound;
    const double margin = margin_now();
    if (gap > margin && stats.proven) {
        const Restriction r = small_proof ? std::move(*small_proof) : restrict_options(p, m, gap + margin);
        stats.reduced_variables = r.rest.variables();
        consider(attempt(r));
    }
    stats.objective = best.objective;
    // Solved, or the incumbent within rounding of L; unproven: only L is known.
    stats.bound = gap > margin && stats.proven ? best.objective : m.bound;
    return best;
}

}  // namespace hetsched::sched
