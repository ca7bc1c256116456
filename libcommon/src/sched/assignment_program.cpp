#include <hetsched/sched/assignment_program.hpp>

#include <algorithm>
#include <numeric>

#include <glpk.h>

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

/// The program in GLPK: minimise cost with the K row, or (busy) maximise Σ d·x without it.
/// Returns the status; `type` receives the solution when one was found.
MipStatus glpk_solve(const AssignmentProgram& p, bool busy, double time_limit_s, std::vector<int>& type) {
    const int n = p.jobs(), m = p.types;
    GlpkProblem prob = make_glpk_problem();
    glp_prob* g = prob.get();
    glp_set_obj_dir(g, busy ? GLP_MAX : GLP_MIN);
    glp_add_rows(g, n + m + (busy ? 0 : 1));
    for (int j = 0; j < n; ++j)
        glp_set_row_bnds(g, j + 1, p.runs_surely(j) ? GLP_FX : GLP_UP, p.runs_surely(j) ? 1 : 0, 1);
    for (int i = 0; i < m; ++i) glp_set_row_bnds(g, n + i + 1, GLP_UP, 0, p.capacity[static_cast<size_t>(i)]);
    if (!busy) glp_set_row_bnds(g, n + m + 1, GLP_LO, static_cast<double>(p.min_busy), 0);
    std::vector<int> ia{0}, ja{0}, col_job, col_type;
    std::vector<double> ar{0};
    for (int j = 0; j < n; ++j) {
        const double d = p.demand[static_cast<size_t>(j)];
        for (int i = 0; i < m; ++i) {
            if (!p.allowed(j, i)) continue;
            const int col = glp_add_cols(g, 1);
            glp_set_col_kind(g, col, GLP_BV);
            glp_set_obj_coef(g, col, busy ? d : p.c(j, i));
            col_job.push_back(j);
            col_type.push_back(i);
            const int rows[3] = {j + 1, n + i + 1, n + m + 1};
            const double vals[3] = {1, d, d};
            for (int k = 0; k < (busy ? 2 : 3); ++k) {
                ia.push_back(rows[k]);
                ja.push_back(col);
                ar.push_back(vals[k]);
            }
        }
    }
    if (col_job.empty()) {  // nothing may run: the empty schedule, feasible only without demands
        type.assign(static_cast<size_t>(n), -1);
        const bool ok = (busy || p.min_busy <= 0) &&
                        std::none_of(p.must_run.begin(), p.must_run.end(), [](char c) { return c; });
        return ok ? MipStatus::optimal : MipStatus::infeasible;
    }
    glp_load_matrix(g, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
    const MipStatus st = solve_mip(g, time_limit_s);
    if (st != MipStatus::optimal) return st;
    type.assign(static_cast<size_t>(n), -1);
    for (size_t k = 0; k < col_job.size(); ++k)
        if (glp_mip_col_val(g, static_cast<int>(k) + 1) > 0.5) type[static_cast<size_t>(col_job[k])] = col_type[k];
    return st;
}

/// The max-flow bound on busy GPUs: min over sets C of types of Σ_{i∈C} Y_i + Σ d_j over jobs that
/// may use a type outside C (the minimum cut of jobs → types → sink). Exact for up to 16 types;
/// beyond that, the looser min(Σ Y, Σ d) over usable types and jobs.
long busy_upper_bound(const AssignmentProgram& p) {
    const int m = p.types;
    if (m > 16) {
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
    long best = -1;
    for (unsigned c = 0; c < (1u << m); ++c) {
        long cut = 0;
        for (int i = 0; i < m; ++i)
            if (c & (1u << i)) cut += p.capacity[static_cast<size_t>(i)];
        for (unsigned mask = 1; mask < by_mask.size(); ++mask)
            if ((mask & ~c) != 0) cut += by_mask[mask];
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

Assignment max_busy_assignment(const AssignmentProgram& p, double time_limit_s) {
    Assignment greedy = evaluate(p, greedy_busy(p));
    if (greedy.busy >= busy_upper_bound(p)) return greedy;
    std::vector<int> type;
    const MipStatus st = glpk_solve(p, true, time_limit_s, type);
    if (st == MipStatus::time_limit)
        throw TryLater("the work-conserving bound K was not found within --time-limit-s " + seconds(time_limit_s));
    if (st != MipStatus::optimal) throw Error(Exit::internal, "the packing program for K has no solution");
    return evaluate(p, std::move(type));
}

std::optional<Assignment> solve_in_glpk(const AssignmentProgram& p, double time_limit_s) {
    std::vector<int> type;
    const MipStatus st = glpk_solve(p, false, time_limit_s, type);
    if (st == MipStatus::time_limit)
        throw TryLater("GLPK found no proven optimum within --time-limit-s " + seconds(time_limit_s));
    if (st != MipStatus::optimal) return std::nullopt;
    return evaluate(p, std::move(type));
}

Assignment solve_exact(const AssignmentProgram& p, double time_limit_s, SolveStats& stats) {
    stats.method = "exact";
    stats.variables = p.variables();
    stats.reduced_variables = stats.variables;
    std::optional<Assignment> a = solve_in_glpk(p, time_limit_s);
    if (!a) throw Error(Exit::internal, "the round's program has no solution");
    stats.objective = stats.bound = a->objective;
    return *a;
}

}  // namespace hetsched::sched
