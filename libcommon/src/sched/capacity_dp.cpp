#include <hetsched/sched/capacity_dp.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

namespace hetsched::sched {
namespace {

/// Each type's GPUs as the states count them: its capacity, or what the jobs allowed on it could use
/// together when that is less (no schedule uses more); -1 for a type over-subscribed already.
std::vector<long> counted_capacity(const AssignmentProgram& p) {
    std::vector<long> use(static_cast<size_t>(p.types), 0);
    for (int j = 0; j < p.jobs(); ++j)
        for (int t = 0; t < p.types; ++t)
            if (p.allowed(j, t)) use[static_cast<size_t>(t)] += p.demand[static_cast<size_t>(j)];
    for (int t = 0; t < p.types; ++t) {
        const long cap = p.capacity[static_cast<size_t>(t)];
        use[static_cast<size_t>(t)] = cap < 0 ? -1 : std::min(use[static_cast<size_t>(t)], cap);
    }
    return use;
}

/// The number of states (used GPUs of each type, 0 to its counted capacity), or -1 past `limit`.
long state_count(const std::vector<long>& cap, long limit) {
    long states = 1;
    for (long c : cap) {
        if (c < 0) return 1;  // infeasible: no state to search
        if (states > limit / (c + 1)) return -1;
        states *= c + 1;
    }
    return states;
}

/// The states solve_by_capacity searches for `p`, whose types count `cap` GPUs, or -1 where it declines:
/// more types than a byte tells apart, more states than kCapacityDpStates, more cells (a byte each)
/// than `cells`, or more steps (each cell tries not running and every type) than 4 x `cells`.
long searched_states(const AssignmentProgram& p, const std::vector<long>& cap, long cells) {
    if (p.types > 100) return -1;
    const long states = state_count(cap, std::min(cells, kCapacityDpStates));
    const long jobs = std::max(1, p.jobs());
    return states > 0 && states <= cells / jobs && states <= 4 * cells / (jobs * (p.types + 1)) ? states : -1;
}

/// Steps `used` to the next state's counts, type 0 the fastest digit.
void advance(std::vector<long>& used, const std::vector<long>& cap) {
    for (size_t t = 0; t < used.size() && ++used[t] > cap[t]; ++t) used[t] = 0;
}

/// The search itself, over `states` states (searched_states) of the counts `cap`.
std::optional<Assignment> search(const AssignmentProgram& p, const std::vector<long>& cap, long states) {
    if (std::any_of(cap.begin(), cap.end(), [](long c) { return c < 0; })) return std::nullopt;
    const auto types = static_cast<size_t>(p.types);
    // A state is the GPUs used of each type, in mixed radix: type t's count times stride[t].
    std::vector<long> stride(types, 1);
    for (size_t t = 1; t < types; ++t) stride[t] = stride[t - 1] * (cap[t - 1] + 1);

    const auto n = static_cast<size_t>(states), jobs = static_cast<size_t>(p.jobs());
    std::vector<double> cost(n, HUGE_VAL), next(n);
    std::vector<std::int8_t> choice(jobs * n, -2);  // per job and state reached: its type, -1 idle
    cost[0] = 0;
    for (size_t j = 0; j < jobs; ++j) {
        std::fill(next.begin(), next.end(), HUGE_VAL);
        std::int8_t* made = choice.data() + j * n;
        const long d = p.demand[j];
        // Ties go to the move from the lowest-numbered state, as a sweep over the states in order would
        // leave them: a job placed on a higher type comes from a lower state, so the types are tried
        // from the highest down and idling (from the state itself) last; with d = 0 every move starts at
        // the state itself: idling first, then the types in order.
        auto idle = [&] {
            if (p.runs_surely(static_cast<int>(j))) return;
            for (size_t s = 0; s < n; ++s)
                if (cost[s] < next[s]) next[s] = cost[s], made[s] = -1;
        };
        if (d == 0) idle();
        for (size_t k = 0; k < types; ++k) {
            const size_t t = d == 0 ? k : types - 1 - k;
            if (!p.allowed(static_cast<int>(j), static_cast<int>(t)) || d > cap[t]) continue;
            const double c = p.c(static_cast<int>(j), static_cast<int>(t));
            const auto tt = static_cast<std::int8_t>(t);
            // The states whose count of type t leaves room for d more: within each cycle of that digit
            // (stride[t] x (cap[t] + 1) states), the first (cap[t] - d + 1) x stride[t].
            const auto offset = static_cast<size_t>(d * stride[t]);
            const auto cycle = static_cast<size_t>(stride[t] * (cap[t] + 1));
            const auto room = static_cast<size_t>(stride[t] * (cap[t] - d + 1));
            for (size_t b = 0; b < n; b += cycle) {
                const double* from = cost.data() + b;
                double* to = next.data() + b + offset;
                std::int8_t* why = made + b + offset;
                for (size_t s = 0; s < room; ++s) {
                    const double v = from[s] + c;
                    if (v < to[s]) to[s] = v, why[s] = tt;
                }
            }
        }
        if (d != 0) idle();
        cost.swap(next);
    }
    // The cheapest end with at least min_busy GPUs busy.
    long best = -1;
    std::vector<long> used(types, 0);
    for (size_t s = 0; s < n; ++s) {
        long busy = 0;
        for (long u : used) busy += u;
        if (cost[s] < HUGE_VAL && busy >= p.min_busy && (best < 0 || cost[s] < cost[static_cast<size_t>(best)]))
            best = static_cast<long>(s);
        advance(used, cap);
    }
    if (best < 0) return std::nullopt;
    std::vector<int> type(jobs, -1);
    auto s = static_cast<size_t>(best);
    for (size_t j = jobs; j-- > 0;) {
        const int t = choice[j * n + s];
        type[j] = t;
        if (t >= 0) s -= static_cast<size_t>(p.demand[j] * stride[static_cast<size_t>(t)]);
    }
    return evaluate(p, std::move(type));
}

}  // namespace

bool capacity_dp_fits(const AssignmentProgram& p, long cells) {
    return searched_states(p, counted_capacity(p), cells) > 0;
}

std::optional<Assignment> solve_by_capacity(const AssignmentProgram& p, long cells) {
    const std::vector<long> cap = counted_capacity(p);
    const long states = searched_states(p, cap, cells);
    if (states < 0) return std::nullopt;
    return search(p, cap, states);
}

std::optional<AssignmentProgram> assignment_form(const Mip& m, std::vector<int>& col_job, std::vector<int>& col_type) {
    // A row is a job's or a type's (kind -1 unknown, 0 a job, 1 a type); each kind numbered in row order.
    const size_t rows = m.row_lo.size();
    if (m.row_hi.size() != rows || m.col.size() != m.cost.size()) return std::nullopt;
    std::vector<int> kind(rows, -1), index(rows, -1);
    AssignmentProgram p;
    col_job.clear();
    col_type.clear();
    std::vector<std::pair<int, int>> cols;  // (job row, type row) per column
    std::vector<int> gpus;
    for (const auto& entries : m.col) {
        if (entries.size() != 2 || entries[0].second != 1) return std::nullopt;
        const int job = entries[0].first, type = entries[1].first;
        const double g = entries[1].second;
        auto in_range = [rows](int row) { return row >= 0 && static_cast<size_t>(row) < rows; };
        if (!in_range(job) || !in_range(type) || job == type || g < 1 || g != std::floor(g) || g > 1e6)
            return std::nullopt;
        for (const auto& [row, want] : {std::pair{job, 0}, std::pair{type, 1}}) {
            if (kind[static_cast<size_t>(row)] >= 0 && kind[static_cast<size_t>(row)] != want) return std::nullopt;
            kind[static_cast<size_t>(row)] = want;
        }
        cols.emplace_back(job, type);
        gpus.push_back(static_cast<int>(g));
    }
    for (size_t r = 0; r < rows; ++r) {
        const double lo = m.row_lo[r], hi = m.row_hi[r];
        if (kind[r] < 0) {  // a row without columns: a job bound to run, or a type below 0, is infeasible
            if (lo > 0 || hi < 0) return std::nullopt;
            continue;
        }
        if (kind[r] == 0) {
            if (hi != 1 || !(std::isinf(lo) || lo <= 0 || lo == 1)) return std::nullopt;
            index[r] = p.jobs();
            p.demand.push_back(0);
            p.must_run.push_back(lo == 1 ? 1 : 0);
        } else {
            if (!std::isinf(lo) && lo > 0) return std::nullopt;
            if (std::isinf(hi) || hi != std::floor(hi) || hi > 1e9) return std::nullopt;  // infinite: no bound
            index[r] = p.types++;
            p.capacity.push_back(static_cast<int>(std::max(hi, -1.0)));
        }
    }
    p.cost.assign(static_cast<size_t>(p.jobs()) * static_cast<size_t>(p.types), std::nan(""));
    for (size_t c = 0; c < cols.size(); ++c) {
        const int j = index[static_cast<size_t>(cols[c].first)], t = index[static_cast<size_t>(cols[c].second)];
        int& d = p.demand[static_cast<size_t>(j)];
        double& cost = p.cost[static_cast<size_t>(j) * static_cast<size_t>(p.types) + static_cast<size_t>(t)];
        if ((d != 0 && d != gpus[c]) || !std::isnan(cost) || !std::isfinite(m.cost[c])) return std::nullopt;
        d = gpus[c];
        cost = m.maximise ? -m.cost[c] : m.cost[c];
        col_job.push_back(j);
        col_type.push_back(t);
    }
    return p;
}

MipResult solve_by_capacity_or(const Mip& m, double time_limit_s, const MipSolve& otherwise) {
    std::vector<int> col_job, col_type;
    const std::optional<AssignmentProgram> p = assignment_form(m, col_job, col_type);
    const std::vector<long> cap = p ? counted_capacity(*p) : std::vector<long>{};
    const long states = p ? searched_states(*p, cap, kCapacityDpCells) : -1;
    if (states < 0) return otherwise(m, time_limit_s);
    const auto t0 = std::chrono::steady_clock::now();
    MipResult r;  // infeasible unless solved
    if (const std::optional<Assignment> a = search(*p, cap, states)) {
        r.status = MipStatus::optimal;
        for (size_t c = 0; c < col_job.size(); ++c)
            r.x.push_back(a->type[static_cast<size_t>(col_job[c])] == col_type[c] ? 1 : 0);
        r.bound = m.maximise ? -a->objective : a->objective;
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

}  // namespace hetsched::sched
