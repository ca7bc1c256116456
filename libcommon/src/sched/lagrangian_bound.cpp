#include <hetsched/sched/lagrangian_bound.hpp>

#include <algorithm>
#include <cmath>

#include <glpk.h>

namespace hetsched::sched {

double lagrangian_value(const AssignmentProgram& p, const std::vector<double>& lambda, double pi,
                        std::vector<int>* choice) {
    const int n = p.jobs(), m = p.types;
    double value = pi * static_cast<double>(p.min_busy);
    for (int i = 0; i < m; ++i) value -= lambda[static_cast<size_t>(i)] * p.capacity[static_cast<size_t>(i)];
    if (choice) choice->assign(static_cast<size_t>(n), -1);
    for (int j = 0; j < n; ++j) {
        const double d = p.demand[static_cast<size_t>(j)];
        const double* row = &p.cost[static_cast<size_t>(j) * m];
        double best = p.runs_surely(j) ? HUGE_VAL : 0;
        int arg = -1;
        for (int i = 0; i < m; ++i) {
            if (std::isnan(row[i])) continue;
            const double rc = row[i] + (lambda[static_cast<size_t>(i)] - pi) * d;
            if (rc < best) {
                best = rc;
                arg = i;
            }
        }
        if (arg < 0 && p.runs_surely(j)) best = 0;  // a job with no usable type: infeasible, bound unaffected
        value += best;
        if (choice) (*choice)[static_cast<size_t>(j)] = arg;
    }
    return value;
}

namespace {

/// A supergradient of L at the prices whose per-job choices are `choice`.
std::vector<double> supergradient(const AssignmentProgram& p, const std::vector<int>& choice) {
    std::vector<double> g(static_cast<size_t>(p.types) + 1, 0);
    for (int i = 0; i < p.types; ++i) g[static_cast<size_t>(i)] = -p.capacity[static_cast<size_t>(i)];
    double busy = 0;
    for (int j = 0; j < p.jobs(); ++j) {
        const int i = choice[static_cast<size_t>(j)];
        if (i < 0) continue;
        g[static_cast<size_t>(i)] += p.demand[static_cast<size_t>(j)];
        busy += p.demand[static_cast<size_t>(j)];
    }
    g.back() = static_cast<double>(p.min_busy) - busy;
    return g;
}

}  // namespace

Multipliers maximise_lagrangian(const AssignmentProgram& p, double upper, long max_iterations, double tol) {
    const int m = p.types;
    Multipliers best;
    best.lambda.assign(static_cast<size_t>(m), 0);
    std::vector<int> choice;
    best.bound = lagrangian_value(p, best.lambda, 0, &choice);
    if (p.jobs() == 0 || best.bound >= upper) return best;

    // Prices beyond the largest cost per GPU change no job's choice; the box keeps the LPs bounded.
    double box = 1;
    for (int j = 0; j < p.jobs(); ++j)
        for (int i = 0; i < m; ++i)
            if (p.allowed(j, i)) box = std::max(box, std::abs(p.c(j, i)) / p.demand[static_cast<size_t>(j)]);
    box *= 4;

    GlpkProblem master = make_glpk_problem();
    glp_prob* g = master.get();
    glp_set_obj_dir(g, GLP_MAX);
    glp_add_cols(g, m + 2);  // λ_1..λ_m, π, η
    for (int c = 1; c <= m + 1; ++c) glp_set_col_bnds(g, c, GLP_DB, 0, box);
    glp_set_col_bnds(g, m + 2, GLP_UP, 0, upper);
    glp_set_obj_coef(g, m + 2, 1);
    glp_smcp sm;
    glp_init_smcp(&sm);
    sm.msg_lev = GLP_MSG_OFF;
    sm.meth = GLP_DUALP;

    std::vector<double> v(static_cast<size_t>(m) + 1, 0);
    std::vector<int> idx(static_cast<size_t>(m) + 3);
    std::vector<double> val(static_cast<size_t>(m) + 3);
    double value = best.bound;
    for (long it = 1; it <= max_iterations; ++it) {
        // The cut η ≤ L(v) + g·(w − v), written as η − g·w ≤ L(v) − g·v.
        const std::vector<double> grad = supergradient(p, choice);
        double rhs = value;
        for (int c = 0; c <= m; ++c) {
            idx[static_cast<size_t>(c) + 1] = c + 1;
            val[static_cast<size_t>(c) + 1] = -grad[static_cast<size_t>(c)];
            rhs -= grad[static_cast<size_t>(c)] * v[static_cast<size_t>(c)];
        }
        idx[static_cast<size_t>(m) + 2] = m + 2;
        val[static_cast<size_t>(m) + 2] = 1;
        const int row = glp_add_rows(g, 1);
        glp_set_row_bnds(g, row, GLP_UP, 0, rhs);
        glp_set_mat_row(g, row, m + 2, idx.data(), val.data());
        if (glp_simplex(g, &sm) != 0 || glp_get_status(g) != GLP_OPT) break;
        best.iterations = it;
        const double ceiling = glp_get_obj_val(g);
        if (ceiling - best.bound <= tol * (1 + std::abs(best.bound))) break;
        for (int c = 0; c <= m; ++c) v[static_cast<size_t>(c)] = glp_get_col_prim(g, c + 1);
        const std::vector<double> lambda(v.begin(), v.end() - 1);
        value = lagrangian_value(p, lambda, v.back(), &choice);
        if (value > best.bound) {
            best.bound = value;
            best.lambda = lambda;
            best.pi = v.back();
        }
    }
    return best;
}

}  // namespace hetsched::sched
