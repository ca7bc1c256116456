#include <hetsched/sched/allox_policy.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <tuple>

#include <glpk.h>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/sched/tie_break.hpp>
#include <hetsched/sched/type_fill.hpp>

namespace hetsched::sched {
namespace {

constexpr size_t kCandidates = 50;  ///< AlloX's simulator (IRFsim) considers at most 50 jobs at a time
constexpr int kPositions = 50;

/// Where the matching puts a job: a type's queue, its position from the end, and whether it is at the
/// head of its queue (starts this round).
struct Slot {
    int type = -1;
    int position = 0;
    bool head = false;
};

/// Among the matchings of least summed completion time, one with the shortest queues: a job queued
/// behind another on a fast type keeps no place next round (only free GPUs are slots), so at a tie
/// starting it now on a slower GPU beats waiting to find the fast one taken. The optimal matchings are
/// those that keep to the solved LP's complementary slackness: a column of nonzero reduced cost stays
/// at its bound (0, or 1 where matching it pays more than its slot's dual), and every row of nonzero
/// dual as full as it is. Over them the least sum of places from the end is again
/// an assignment LP (integral), solved from the first one's basis. A cost perturbation would not do:
/// GLPK scales the objective and ignores reduced costs below 1e-7 of it.
void shortest_queues(glp_prob* g, const std::vector<std::tuple<int, int, int>>& cols) {
    double largest = 0;
    for (int c = 1; c <= glp_get_num_cols(g); ++c) largest = std::max(largest, std::fabs(glp_get_obj_coef(g, c)));
    const double tight = 1e-9 * std::max(1.0, largest);
    for (int r = 1; r <= glp_get_num_rows(g); ++r)
        if (std::fabs(glp_get_row_dual(g, r)) > tight) {
            const double at = std::round(glp_get_row_prim(g, r));  // a count of jobs: whole, as the LP's vertex is
            glp_set_row_bnds(g, r, GLP_FX, at, at);
        }
    for (int c = 1; c <= glp_get_num_cols(g); ++c) {
        if (std::fabs(glp_get_col_dual(g, c)) > tight) {  // at the bound it sits at, 0 or 1
            const double at = std::round(glp_get_col_prim(g, c));
            glp_set_col_bnds(g, c, GLP_FX, at, at);
        }
        glp_set_obj_coef(g, c, std::get<2>(cols[static_cast<size_t>(c - 1)]));
    }
    glp_smcp sm;
    glp_init_smcp(&sm);
    sm.msg_lev = GLP_MSG_ERR;
    if (glp_simplex(g, &sm) != 0 || glp_get_status(g) != GLP_OPT)
        throw Error(Exit::internal, "GLPK could not shorten AlloX's queues");
}

}  // namespace

void check_allox_job(const Job& j, const SourcePos& where) {
    if (j.num_gpus > 1)
        throw DataError("policy 'allox' schedules single-GPU jobs only (one job per device, as AlloX "
                        "formulates it): job '" + j.id + "' needs " + io::counted(j.num_gpus, "GPU"),
                        where);
}

TypeDecision allox_decide(const ClusterState& s, const RoundOptions&) {
    for (const auto& j : s.jobs)
        if (j.remaining() > 0) check_allox_job(j);
    TypeFill fill(s);
    std::vector<size_t> pending;
    for (size_t k : arrival_order(s)) {
        const Job& j = s.jobs[k];
        // A job whose node went down joins the matching (keeping its type first could stop a job
        // still running there).
        if (s.hosts_up(j) && fill.fits(k, j.placement.type)) fill.take(k, j.placement.type);
        else pending.push_back(k);
    }
    const int m = static_cast<int>(s.types.size());
    int free_total = 0;
    for (int t = 0; t < m; ++t) free_total += fill.free(t);
    pending.resize(std::min(pending.size(), std::max(kCandidates, static_cast<size_t>(free_total))));
    if (pending.empty() || free_total == 0) return fill.decision("matching");

    const int n = static_cast<int>(pending.size()), positions = std::min(n, kPositions);
    auto time_on = [&](size_t k, int t) { return s.jobs[k].remaining() / s.jobs[k].throughput[static_cast<size_t>(t)]; };
    GlpkProblem prob = make_glpk_problem();
    glp_prob* g = prob.get();
    glp_set_obj_dir(g, GLP_MIN);
    glp_add_rows(g, n + m * positions);  // a row per job (= 1), per slot (t, k) (≤ free GPUs of t)
    for (int r = 0; r < n; ++r) glp_set_row_bnds(g, r + 1, GLP_UP, 0, 1);
    for (int t = 0; t < m; ++t)
        for (int k = 0; k < positions; ++k) glp_set_row_bnds(g, n + t * positions + k + 1, GLP_UP, 0, fill.free(t));
    std::vector<int> ia{0}, ja{0};
    std::vector<double> ar{0};
    std::vector<std::tuple<int, int, int>> cols;  // (job, type, position)
    double longest = 0;
    for (size_t k : pending)
        for (int t = 0; t < m; ++t)
            if (fill.fits(k, t)) longest = std::max(longest, s.jobs[k].remaining() / s.jobs[k].throughput[static_cast<size_t>(t)]);
    // Matching a job is worth more than any slot costs: as many jobs as the slots hold, then the cheapest.
    const double reward = (positions + 1) * longest + 1;
    for (int r = 0; r < n; ++r) {
        const Job& j = s.jobs[pending[static_cast<size_t>(r)]];
        for (int t = 0; t < m; ++t) {
            if (!fill.fits(pending[static_cast<size_t>(r)], t)) continue;
            const double p = j.remaining() / j.throughput[static_cast<size_t>(t)];
            for (int k = 0; k < positions; ++k) {
                const int col = glp_add_cols(g, 1);
                glp_set_col_bnds(g, col, GLP_DB, 0, 1);
                glp_set_obj_coef(g, col, (k + 1) * p - reward);
                cols.emplace_back(r, t, k);
                for (const auto& [row, v] : {std::pair<int, double>{r + 1, 1.0}, {n + t * positions + k + 1, 1.0}})
                    ia.push_back(row), ja.push_back(col), ar.push_back(v);
            }
        }
    }
    if (cols.empty()) return fill.decision("matching");
    glp_load_matrix(g, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
    glp_smcp sm;
    glp_init_smcp(&sm);
    sm.msg_lev = GLP_MSG_ERR;
    sm.presolve = GLP_ON;
    if (glp_simplex(g, &sm) != 0 || glp_get_status(g) != GLP_OPT)
        throw Error(Exit::internal, "GLPK could not solve AlloX's matching");
    shortest_queues(g, cols);
    // Per type, the jobs at position k, in order of arrival; queues of length k start their k-th job.
    // Jobs of equal time on a type are interchangeable in the matching (the same cost either way), so
    // whatever the simplex chose, the earlier of them (submit time, then id: pending's order) takes the
    // position further from the end, and starts first.
    std::vector<std::map<double, std::pair<std::vector<int>, std::vector<int>>>> equal(static_cast<size_t>(m));  // time → (jobs, positions)
    for (size_t c = 0; c < cols.size(); ++c)
        if (glp_get_col_prim(g, static_cast<int>(c) + 1) > 0.5) {
            const auto [r, t, k] = cols[c];
            auto& group = equal[static_cast<size_t>(t)][time_on(pending[static_cast<size_t>(r)], t)];
            group.first.push_back(r);
            group.second.push_back(k);
        }
    std::vector<Slot> slot(s.jobs.size());
    for (int t = 0; t < m; ++t) {
        std::vector<std::vector<int>> at(static_cast<size_t>(positions) + 1);
        for (auto& [time, group] : equal[static_cast<size_t>(t)]) {
            auto& [jobs, ks] = group;
            std::sort(jobs.begin(), jobs.end());
            std::sort(ks.begin(), ks.end(), std::greater<int>());
            for (size_t i = 0; i < jobs.size(); ++i) at[static_cast<size_t>(ks[i])].push_back(jobs[i]);
        }
        for (int k = 0; k < positions; ++k) {
            auto& here = at[static_cast<size_t>(k)];
            std::sort(here.begin(), here.end());
            const size_t heads = here.size() - std::min(here.size(), at[static_cast<size_t>(k) + 1].size());
            for (size_t i = 0; i < here.size(); ++i) slot[pending[static_cast<size_t>(here[i])]] = {t, k, i < heads};
        }
    }
    // Jobs alike on every type are interchangeable across types too: the earlier takes the place that
    // starts now, then the faster type, then the place further from the end.
    std::vector<std::vector<double>> key(s.jobs.size());
    for (size_t k : pending) {
        key[k] = tie_key(s.jobs[k]);
        for (int t = 0; t < m; ++t) key[k].push_back(fill.fits(k, t) ? time_on(k, t) : HUGE_VAL);
    }
    earliest_first(s, key, slot, [&](size_t member, const Slot& a, const Slot& b) {
        if (a.type < 0 || b.type < 0) return a.type >= 0 && b.type < 0;
        return std::make_tuple(!a.head, time_on(member, a.type), -a.position, a.type) <
               std::make_tuple(!b.head, time_on(member, b.type), -b.position, b.type);
    });
    for (size_t k : pending)
        if (slot[k].head) fill.take(k, slot[k].type);
    // The matching's own objective: the matched jobs' summed completion times, (position + 1) x time
    // on the type (the reward that makes matching pay is a constant per job, left out); the LP of an
    // assignment has integral optima, so its bound is the objective.
    TypeDecision d = fill.decision("matching");
    for (size_t k : pending)
        if (slot[k].type >= 0) d.stats.objective += (slot[k].position + 1) * time_on(k, slot[k].type);
    d.stats.bound = d.stats.objective;
    d.stats.variables = static_cast<long>(cols.size());
    return d;
}

}  // namespace hetsched::sched
