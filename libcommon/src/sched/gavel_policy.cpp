#include <hetsched/sched/gavel_policy.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <tuple>

#include <glpk.h>

#include <hetsched/cli/error.hpp>
#include <hetsched/sched/tie_break.hpp>
#include <hetsched/sched/type_fill.hpp>

namespace hetsched::sched {
namespace {

/// θ as the allocation sees it: the job's throughput, or 1 on every usable type when agnostic. A type
/// with fewer GPUs up than the job's gang gives it nothing: the gang never runs there, so time the LP
/// gave it on that type would be throughput counted and never delivered.
double seen_throughput(const ClusterState& s, const Job& j, int t, int up, bool aware) {
    if (!s.can_run(j, t) || up < j.num_gpus) return 0;
    return aware ? j.throughput[static_cast<size_t>(t)] : 1.0;
}

/// Time job `j` has had on type `t` since the last reset, seeded with half a round (Gavel's 180 s).
double time_since_reset(const ClusterState& s, const Job& j, size_t t) {
    const double base = j.book.gavel_base_s.empty() ? 0 : j.book.gavel_base_s[t];
    return s.round_length_s / 2 + j.book.time_per_type_s[t] - base;
}

/// A reset: each allocated job's time since the last reset becomes deficit, then the clock restarts.
void reset_time(ClusterState& s) {
    const double since = s.gavel_reset_s < 0 ? 0 : s.time_s - s.gavel_reset_s;
    for (auto& j : s.jobs) {
        JobBook& b = j.book;
        if (b.gavel_deficit_s.empty()) b.gavel_deficit_s.assign(s.types.size(), 0);
        if (!b.gavel_share.empty())
            for (size_t t = 0; t < s.types.size(); ++t)
                b.gavel_deficit_s[t] += b.gavel_share[t] * since - (time_since_reset(s, j, t) - s.round_length_s / 2);
        b.gavel_base_s = b.time_per_type_s;
    }
}

/// Whether some unfinished job has a share in the last allocation: one a round may keep.
bool holds_allocation(const ClusterState& s) {
    return std::any_of(s.jobs.begin(), s.jobs.end(),
                       [](const Job& j) { return j.remaining() > 0 && !j.book.gavel_share.empty(); });
}

/// The types fastest first for the jobs at hand, as Gavel's fixed list (v100, p100, k80): by the jobs'
/// throughput on the type relative to their best, summed; types alike for the jobs in the state's
/// order. The order a round visits the types in (aware) and builds the allocation LP in, so that
/// neither the round nor the LP's pick among equally fair allocations depends on the order the state
/// lists the types in, but for types alike.
std::vector<int> fastest_first(const ClusterState& s) {
    const size_t m = s.types.size();
    std::vector<double> speed(m, 0);
    for (const auto& j : s.jobs) {
        const double best = j.fastest_throughput();
        if (best > 0)
            for (size_t t = 0; t < m; ++t) speed[t] += j.throughput[t] / best;
    }
    std::vector<int> types(m);
    std::iota(types.begin(), types.end(), 0);
    std::stable_sort(types.begin(), types.end(),
                     [&](int a, int b) { return speed[static_cast<size_t>(a)] > speed[static_cast<size_t>(b)]; });
    return types;
}

}  // namespace

std::vector<std::vector<double>> gavel_allocation(const ClusterState& s, bool aware, const RoundOptions& o,
                                                  SolveStats* stats) {
    const size_t m = s.types.size();
    const std::vector<int> cap = s.capacity();
    const double total = std::accumulate(cap.begin(), cap.end(), 0.0);
    if (total <= 0) return std::vector<std::vector<double>>(s.jobs.size());  // no GPU up: nothing to share

    // Jobs with the same coefficients and GPUs are one class: averaging any optimum over a class keeps
    // it optimal, so the LP over classes (a class of n jobs takes n·sf GPUs per unit of X) has the same
    // max-min value and gives each member the class's X. Jobs from a trace share a few job types, so
    // 2048 jobs are typically a hundred classes.
    const std::vector<int> order = fastest_first(s);  // the LP's types, by position: order[i]
    std::map<std::vector<double>, size_t> class_of;  // (c per type in that order, sf) → class
    std::vector<std::vector<double>> coef;           // per class: c per type in that order, then sf
    std::vector<double> members;
    std::vector<long> job_class(s.jobs.size(), -1);
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        const Job& j = s.jobs[k];
        if (j.remaining() <= 0) continue;
        double share = 0;  // Σ_t θ_t N_t / N: the job's throughput on an even slice of the cluster (summed in order)
        for (int t : order) share += seen_throughput(s, j, t, cap[static_cast<size_t>(t)], aware) * cap[static_cast<size_t>(t)] / total;
        if (share <= 0) continue;  // nothing it can use is up: no allocation this time
        std::vector<double> key(m + 1);
        for (size_t i = 0; i < m; ++i) {
            const auto t = static_cast<size_t>(order[i]);
            key[i] = seen_throughput(s, j, order[i], cap[t], aware) * j.num_gpus / (j.priority_weight * share);
        }
        key[m] = j.num_gpus;
        const auto [it, added] = class_of.emplace(key, coef.size());
        if (added) {
            coef.push_back(key);
            members.push_back(0);
        }
        members[it->second] += 1;
        job_class[k] = static_cast<long>(it->second);
    }

    std::vector<std::vector<double>> x(s.jobs.size());
    GlpkProblem prob = make_glpk_problem();
    glp_prob* g = prob.get();
    glp_set_obj_dir(g, GLP_MAX);
    const int z = glp_add_cols(g, 1);
    glp_set_col_bnds(g, z, GLP_LO, 0, 0);
    glp_set_obj_coef(g, z, 1);
    const int type_rows = glp_add_rows(g, static_cast<int>(m));
    for (size_t i = 0; i < m; ++i) glp_set_row_bnds(g, type_rows + static_cast<int>(i), GLP_UP, 0, cap[static_cast<size_t>(order[i])]);
    std::vector<int> ia{0}, ja{0};
    std::vector<double> ar{0};
    std::vector<std::pair<size_t, size_t>> cols;  // (class, state's type) of each x column, from column 2
    for (size_t c = 0; c < coef.size(); ++c) {
        const int fair = glp_add_rows(g, 2);  // fair: z − Σ c x ≤ 0; fair + 1: Σ x ≤ 1
        glp_set_row_bnds(g, fair, GLP_UP, 0, 0);
        glp_set_row_bnds(g, fair + 1, GLP_UP, 0, 1);
        ia.push_back(fair), ja.push_back(z), ar.push_back(1);
        for (size_t i = 0; i < m; ++i) {
            if (coef[c][i] <= 0) continue;
            const int col = glp_add_cols(g, 1);
            glp_set_col_bnds(g, col, GLP_LO, 0, 0);
            cols.emplace_back(c, static_cast<size_t>(order[i]));
            for (const auto& [row, v] : {std::pair<int, double>{fair, -coef[c][i]}, {fair + 1, 1.0},
                                         {type_rows + static_cast<int>(i), members[c] * coef[c][m]}}) {
                ia.push_back(row), ja.push_back(col), ar.push_back(v);
            }
        }
    }
    if (cols.empty()) return x;
    glp_load_matrix(g, static_cast<int>(ia.size()) - 1, ia.data(), ja.data(), ar.data());
    glp_smcp sm;
    glp_init_smcp(&sm);
    sm.msg_lev = GLP_MSG_ERR;
    sm.presolve = GLP_ON;
    sm.tm_lim = o.time_limit_s >= 2e6 ? 2000000000 : static_cast<int>(o.time_limit_s * 1000);
    const int rc = glp_simplex(g, &sm);
    if (rc == GLP_ETMLIM) throw TryLater("Gavel's allocation LP was not solved within --time-limit-s");
    if (rc != 0 || glp_get_status(g) != GLP_OPT)
        throw Error(Exit::internal, "GLPK could not solve Gavel's allocation LP (code " + std::to_string(rc) + ")");
    if (stats) {
        stats->objective = stats->bound = glp_get_obj_val(g);
        stats->variables = glp_get_num_cols(g);
    }
    std::vector<std::vector<double>> by_class(coef.size(), std::vector<double>(m, 0));
    for (size_t c = 0; c < cols.size(); ++c)  // rounded to 1e-9: the simplex's last digits decide no tie
        by_class[cols[c].first][cols[c].second] =
            std::round(std::clamp(glp_get_col_prim(g, static_cast<int>(c) + 2), 0.0, 1.0) * 1e9) / 1e9;
    for (size_t k = 0; k < s.jobs.size(); ++k)
        if (job_class[k] >= 0) x[k] = by_class[static_cast<size_t>(job_class[k])];
    return x;
}

TypeDecision gavel_decide(ClusterState& s, const RoundOptions& o, bool aware) {
    const size_t m = s.types.size();
    const std::uint64_t set = active_set_digest(s.jobs);
    const bool due = s.gavel_reset_s < 0 || s.time_s - s.gavel_reset_s >= o.gavel_reset_s;
    SolveStats lp;
    lp.maximise = true;
    lp.reused = !due || set == s.gavel_active_set;
    if (!lp.reused) {
        std::vector<std::vector<double>> x;
        try {
            x = gavel_allocation(s, aware, o, &lp);
        } catch (const TryLater& e) {
            // Past the time limit (replay): the last allocation stands, as between resets, and the
            // next round tries again; with no allocation to keep the round cannot go on.
            if (!o.accept_unproven) throw;
            if (!holds_allocation(s))
                throw TryLater(std::string(e.what()) + ", and no job has a share of an earlier allocation to keep");
            lp.reused = true;
            lp.proven = false;
            lp.bound = HUGE_VAL;  // no bound known: the gap is infinite
        }
        if (!lp.reused) {
            reset_time(s);  // after the LP, which reads no bookkeeping: a failed one leaves it as it was
            for (size_t k = 0; k < s.jobs.size(); ++k) s.jobs[k].book.gavel_share = std::move(x[k]);
            s.gavel_reset_s = s.time_s;
            s.gavel_active_set = set;
        }
    }

    // Priorities per type: X over the share of the type's time (since the reset) the job received.
    std::vector<double> type_time(m, 0);
    for (const auto& j : s.jobs)
        for (size_t t = 0; t < m; ++t) type_time[t] += time_since_reset(s, j, t) - (j.book.gavel_share.empty() ? s.round_length_s / 2 : 0);
    struct Entry {
        size_t job;
        int type;
        double priority, deficit, share;
        size_t arrival;
    };
    const std::vector<size_t> arrivals = arrival_order(s);
    // Aware, fastest first: a job with no X can still take a type's leftover GPUs, so the order decides
    // where such a job runs (in the state's order a lone job on K80,V100 ran on the K80).
    const std::vector<int> types = aware ? fastest_first(s) : seeded_type_order(s, o.seed + static_cast<std::uint64_t>(s.round));
    TypeFill fill(s);
    std::vector<char> held(s.jobs.size(), 0);  // picked without an allocation: not started
    for (int t : types) {
        std::vector<Entry> entries;
        for (size_t a = 0; a < arrivals.size(); ++a) {
            const Job& j = s.jobs[arrivals[a]];
            if (!s.can_run(j, t)) continue;
            const auto ut = static_cast<size_t>(t);
            const double x = j.book.gavel_share.empty() ? 0 : j.book.gavel_share[ut];
            const double frac = type_time[ut] > 0 ? time_since_reset(s, j, ut) / type_time[ut] : 0;
            const double priority = x <= 0 ? 0 : frac > 0 ? x / frac : x * 1e9;
            const double deficit = j.book.gavel_deficit_s.empty() ? 0 : j.book.gavel_deficit_s[ut];
            entries.push_back({arrivals[a], t, priority, deficit, x, a});
        }
        // At equal priority, deficit and share, a job a node of which went down goes after the others:
        // it restarts wherever it goes, and taking a running job's GPUs would move that one too.
        const auto displaced = [&](const Entry& e) { return s.jobs[e.job].placement.running() && !s.hosts_up(s.jobs[e.job]); };
        std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
            const bool da = !displaced(a), db = !displaced(b);
            return std::tie(b.priority, b.deficit, b.share, db) < std::tie(a.priority, a.deficit, a.share, da);
        });
        for (const Entry& e : entries) {
            if (!fill.fits(e.job, e.type)) continue;
            fill.take(e.job, e.type);
            // A job without X is not started until the next allocation; one running without X (kept
            // where it ran until now, sched/kept_jobs.hpp) keeps what it is given.
            held[e.job] = s.jobs[e.job].book.gavel_share.empty() && !s.jobs[e.job].placement.running();
        }
    }
    TypeDecision d = fill.decision("lp");
    lp.method = d.stats.method;
    d.stats = lp;
    for (size_t k = 0; k < held.size(); ++k)
        if (held[k]) {
            d.type[k] = -1;
            d.min_busy -= s.jobs[k].num_gpus;
        }
    return d;
}

}  // namespace hetsched::sched
