#include <hetsched/sched/assignment_program.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/number_format.hpp>

namespace hetsched::sched {

long AssignmentProgram::variables() const {
    long n = 0;
    for (int j = 0; j < jobs(); ++j)
        for (int i = 0; i < types; ++i) n += allowed(j, i);
    return n;
}

Assignment evaluate(const AssignmentProgram& p, std::vector<int> type) {
    Assignment a;
    a.type = std::move(type);
    for (int j = 0; j < p.jobs(); ++j) {
        const int i = a.type[static_cast<size_t>(j)];
        if (i < 0) continue;
        a.objective += p.c(j, i);
        a.busy += p.demand[static_cast<size_t>(j)];
    }
    return a;
}

bool feasible(const AssignmentProgram& p, const Assignment& a) {
    std::vector<long> used(static_cast<size_t>(p.types), 0);
    long busy = 0;
    for (int j = 0; j < p.jobs(); ++j) {
        const int i = a.type[static_cast<size_t>(j)];
        if (i < 0) {
            if (p.runs_surely(j)) return false;
            continue;
        }
        if (i >= p.types || !p.allowed(j, i)) return false;
        used[static_cast<size_t>(i)] += p.demand[static_cast<size_t>(j)];
        busy += p.demand[static_cast<size_t>(j)];
    }
    for (int i = 0; i < p.types; ++i)
        if (used[static_cast<size_t>(i)] > p.capacity[static_cast<size_t>(i)]) return false;
    return busy >= p.min_busy;
}

namespace {

std::string seconds(double s) { return io::format_number(s, 3) + " s"; }

/// The time a solve had: --time-limit-s, or the share of it left to this solve (fft's round gets
/// what finding K left), at least 1 ms (GLPK counts whole milliseconds).
std::string within(double s) { return seconds(std::max(s, 1e-3)) + " (of --time-limit-s, all or what was left of it)"; }

/// The program as a 0-1 MIP: minimise cost with the K row, or (busy) maximise Σ d·x without it.
/// `col_job` and `col_type` receive what each column stands for.
Mip as_mip(const AssignmentProgram& p, bool busy, std::vector<int>& col_job, std::vector<int>& col_type) {
    const int n = p.jobs(), m = p.types;
    Mip mip;
    mip.maximise = busy;
    for (int j = 0; j < n; ++j) {
        mip.row_lo.push_back(p.runs_surely(j) ? 1 : -HUGE_VAL);
        mip.row_hi.push_back(1);
    }
    for (int i = 0; i < m; ++i) {
        mip.row_lo.push_back(-HUGE_VAL);
        mip.row_hi.push_back(p.capacity[static_cast<size_t>(i)]);
    }
    if (!busy) {
        mip.row_lo.push_back(static_cast<double>(p.min_busy));
        mip.row_hi.push_back(HUGE_VAL);
    }
    for (int j = 0; j < n; ++j) {
        const double d = p.demand[static_cast<size_t>(j)];
        for (int i = 0; i < m; ++i) {
            if (!p.allowed(j, i)) continue;
            mip.cost.push_back(busy ? d : p.c(j, i));
            mip.col.push_back({{j, 1.0}, {n + i, d}});
            if (!busy) mip.col.back().push_back({n + m, d});
            col_job.push_back(j);
            col_type.push_back(i);
        }
    }
    return mip;
}

/// The program solved by `solver`; `type` receives the schedule when one was found.
MipStatus solve_program(const AssignmentProgram& p, bool busy, double time_limit_s, MipSolver solver,
                        std::vector<int>& type) {
    std::vector<int> col_job, col_type;
    const Mip mip = as_mip(p, busy, col_job, col_type);
    // GLPK settles most rests in milliseconds but wanders on a few; CBC starts slower, never wanders.
    const MipResult r =
        solver == MipSolver::glpk ? solve_with_glpk(mip, time_limit_s) : solve_glpk_then_cbc(mip, time_limit_s);
    if (r.status != MipStatus::optimal) return r.status;
    type.assign(static_cast<size_t>(p.jobs()), -1);
    for (size_t k = 0; k < col_job.size(); ++k)
        if (r.x[k] > 0.5) type[static_cast<size_t>(col_job[k])] = col_type[k];
    return r.status;
}

/// The max-flow bound on busy GPUs: min over sets C of types of Σ_{i∈C} Y_i + Σ d_j over jobs that
/// may use a type outside C (the minimum cut of jobs → types → sink). Exact for up to 12 types;
/// beyond that, the looser min(Σ Y, Σ d) over usable types and jobs.
long busy_upper_bound(const AssignmentProgram& p) {
    const int m = p.types;
    if (m > 12) {
        long cap = 0, dem = 0;
        std::vector<char> used(static_cast<size_t>(m), 0);
        for (int j = 0; j < p.jobs(); ++j) {
            bool any = false;
            for (int i = 0; i < m; ++i)
                if (p.allowed(j, i)) {
                    any = true;
                    used[static_cast<size_t>(i)] = 1;
                }
            if (any) dem += p.demand[static_cast<size_t>(j)];
        }
        for (int i = 0; i < m; ++i)
            if (used[static_cast<size_t>(i)]) cap += p.capacity[static_cast<size_t>(i)];
        return std::min(cap, dem);
    }
    std::vector<long> by_mask(size_t{1} << m, 0);
    for (int j = 0; j < p.jobs(); ++j) {
        unsigned mask = 0;
        for (int i = 0; i < m; ++i)
            if (p.allowed(j, i)) mask |= 1u << i;
        by_mask[mask] += p.demand[static_cast<size_t>(j)];
    }
    std::vector<std::pair<unsigned, long>> present;  // the masks some job has
    for (unsigned mask = 1; mask < by_mask.size(); ++mask)
        if (by_mask[mask] > 0) present.emplace_back(mask, by_mask[mask]);
    long best = -1;
    for (unsigned c = 0; c < (1u << m); ++c) {
        long cut = 0;
        for (int i = 0; i < m; ++i)
            if (c & (1u << i)) cut += p.capacity[static_cast<size_t>(i)];
        for (const auto& [mask, d] : present)
            if ((mask & ~c) != 0) cut += d;
        if (best < 0 || cut < best) best = cut;
    }
    return best;
}

/// Largest jobs first (fewest usable types first among equals), each onto the usable type with the
/// most GPUs left that holds it.
std::vector<int> greedy_busy(const AssignmentProgram& p) {
    const int n = p.jobs();
    std::vector<int> order(static_cast<size_t>(n)), options(static_cast<size_t>(n), 0);
    std::iota(order.begin(), order.end(), 0);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < p.types; ++i) options[static_cast<size_t>(j)] += p.allowed(j, i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const auto ua = static_cast<size_t>(a), ub = static_cast<size_t>(b);
        if (p.demand[ua] != p.demand[ub]) return p.demand[ua] > p.demand[ub];
        return options[ua] < options[ub];
    });
    std::vector<int> left(p.capacity.begin(), p.capacity.end()), type(static_cast<size_t>(n), -1);
    for (int j : order) {
        const int d = p.demand[static_cast<size_t>(j)];
        int best = -1;
        for (int i = 0; i < p.types; ++i)
            if (p.allowed(j, i) && left[static_cast<size_t>(i)] >= d &&
                (best < 0 || left[static_cast<size_t>(i)] > left[static_cast<size_t>(best)]))
                best = i;
        if (best < 0) continue;
        type[static_cast<size_t>(j)] = best;
        left[static_cast<size_t>(best)] -= d;
    }
    return type;
}

}  // namespace

Assignment max_busy_assignment(const AssignmentProgram& p, double time_limit_s, bool* proven) {
    Assignment greedy = evaluate(p, greedy_busy(p));
    if (greedy.busy >= busy_upper_bound(p)) return greedy;
    std::vector<int> type;
    const MipStatus st = solve_program(p, true, time_limit_s, MipSolver::glpk_then_cbc, type);
    if (st == MipStatus::time_limit && proven) {
        *proven = false;
        return greedy;
    }
    if (st == MipStatus::time_limit)
        throw TryLater("the work-conserving bound K was not found within " + within(time_limit_s));
    if (st != MipStatus::optimal) throw Error(Exit::internal, "the packing program for K has no solution");
    return evaluate(p, std::move(type));
}

std::optional<Assignment> solve_as_mip(const AssignmentProgram& p, double time_limit_s, MipSolver solver) {
    std::vector<int> type;
    const MipStatus st = solve_program(p, false, time_limit_s, solver, type);
    if (st == MipStatus::time_limit)
        throw TryLater(std::string(solver == MipSolver::glpk ? "GLPK" : "GLPK, then CBC,") +
                       " found no proven optimum within " + within(time_limit_s));
    if (st != MipStatus::optimal) return std::nullopt;
    return evaluate(p, std::move(type));
}

Assignment solve_exact(const AssignmentProgram& p, double time_limit_s, SolveStats& stats) {
    stats.method = "exact";
    stats.variables = p.variables();
    stats.reduced_variables = stats.variables;
    std::optional<Assignment> a = solve_as_mip(p, time_limit_s, MipSolver::glpk);
    if (!a) throw Error(Exit::internal, "the round's program has no solution");
    stats.objective = stats.bound = a->objective;
    return *a;
}

}  // namespace hetsched::sched
