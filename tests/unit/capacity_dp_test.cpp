// The dynamic program over the GPUs each type has left: exact against enumeration, and where it
// declines.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include <hetsched/sched/capacity_dp.hpp>

using namespace hetsched::sched;

namespace {

/// The least cost over every choice (each job idle or on an allowed type), or NaN when none is feasible.
double enumerate(const AssignmentProgram& p) {
    const int options = p.types + 1;
    long codes = 1;
    for (int j = 0; j < p.jobs(); ++j) codes *= options;
    double best = std::nan("");
    for (long code = 0; code < codes; ++code) {
        std::vector<int> type;
        long c = code;
        for (int j = 0; j < p.jobs(); ++j, c /= options) type.push_back(static_cast<int>(c % options) - 1);
        bool ok = true;
        for (int j = 0; j < p.jobs() && ok; ++j) ok = type[j] < 0 ? !p.runs_surely(j) : p.allowed(j, type[j]);
        if (!ok) continue;
        const Assignment a = evaluate(p, type);
        if (feasible(p, a) && !(a.objective >= best)) best = a.objective;
    }
    return best;
}


/// The dynamic program as a plain sweep over the states in order (each state's moves: idle, then the
/// types in order, a move kept only when strictly cheaper), the tie rule solve_by_capacity promises.
std::vector<int> sweep(const AssignmentProgram& p) {
    std::vector<long> cap(static_cast<size_t>(p.types), 0), stride(cap.size(), 1);
    for (int j = 0; j < p.jobs(); ++j)
        for (int t = 0; t < p.types; ++t)
            if (p.allowed(j, t)) cap[static_cast<size_t>(t)] += p.demand[static_cast<size_t>(j)];
    long n = 1;
    for (size_t t = 0; t < cap.size(); ++t) {
        cap[t] = std::min<long>(cap[t], p.capacity[t]);
        if (t > 0) stride[t] = stride[t - 1] * (cap[t - 1] + 1);
        n *= cap[t] + 1;
    }
    auto digit = [&](long s, size_t t) { return s / stride[t] % (cap[t] + 1); };
    std::vector<double> cost(static_cast<size_t>(n), HUGE_VAL);
    std::vector<std::vector<int>> made(static_cast<size_t>(p.jobs()), std::vector<int>(static_cast<size_t>(n), -2));
    cost[0] = 0;
    for (int j = 0; j < p.jobs(); ++j) {
        std::vector<double> next(static_cast<size_t>(n), HUGE_VAL);
        const long d = p.demand[static_cast<size_t>(j)];
        for (long s = 0; s < n; ++s) {
            const double c = cost[static_cast<size_t>(s)];
            if (c == HUGE_VAL) continue;
            if (!p.runs_surely(j) && c < next[static_cast<size_t>(s)])
                next[static_cast<size_t>(s)] = c, made[static_cast<size_t>(j)][static_cast<size_t>(s)] = -1;
            for (int t = 0; t < p.types; ++t) {
                const auto i = static_cast<size_t>(t);
                if (!p.allowed(j, t) || digit(s, i) + d > cap[i]) continue;
                const auto to = static_cast<size_t>(s + d * stride[i]);
                if (c + p.c(j, t) < next[to]) next[to] = c + p.c(j, t), made[static_cast<size_t>(j)][to] = t;
            }
        }
        cost.swap(next);
    }
    long best = -1;
    for (long s = 0; s < n; ++s) {
        long busy = 0;
        for (size_t t = 0; t < cap.size(); ++t) busy += digit(s, t);
        if (cost[static_cast<size_t>(s)] < HUGE_VAL && busy >= p.min_busy &&
            (best < 0 || cost[static_cast<size_t>(s)] < cost[static_cast<size_t>(best)]))
            best = s;
    }
    std::vector<int> type(static_cast<size_t>(p.jobs()), -1);
    for (int j = p.jobs(); best >= 0 && j-- > 0;) {
        type[static_cast<size_t>(j)] = made[static_cast<size_t>(j)][static_cast<size_t>(best)];
        if (type[static_cast<size_t>(j)] >= 0) best -= p.demand[static_cast<size_t>(j)] * stride[static_cast<size_t>(type[static_cast<size_t>(j)])];
    }
    return type;
}

}  // namespace

TEST_CASE("the capacity dynamic program finds the enumerated optimum", "[sched]") {
    // Seven jobs of 0-4 GPUs on one to three types of -1 to 9 GPUs, costs of either sign, some types
    // barred, some jobs bound to run, a floor on busy GPUs: up to 4^7 choices each.
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> gpus(0, 4), cap(-1, 6), coin(0, 5), types(1, 3);
    std::uniform_real_distribution<double> cost(-3, 2);
    int feasible_cases = 0;
    for (int trial = 0; trial < 120; ++trial) {
        AssignmentProgram p;
        p.types = types(rng);
        for (int t = 0; t < p.types; ++t) p.capacity.push_back(coin(rng) == 0 ? cap(rng) : cap(rng) + 3);
        for (int j = 0; j < 7; ++j) {
            p.demand.push_back(coin(rng) == 0 ? gpus(rng) : gpus(rng) / 2 + 1);
            p.must_run.push_back(coin(rng) == 0 ? 1 : 0);
            for (int t = 0; t < p.types; ++t) p.cost.push_back(coin(rng) == 0 ? std::nan("") : cost(rng));
        }
        p.min_busy = trial % 3 == 0 ? 8 : 0;
        REQUIRE(capacity_dp_fits(p));
        const double best = enumerate(p);
        const std::optional<Assignment> a = solve_by_capacity(p);
        if (std::isnan(best)) {
            CHECK_FALSE(a);
            continue;
        }
        ++feasible_cases;
        REQUIRE(a);
        CHECK(feasible(p, *a));
        CHECK(a->objective == Approx(best).epsilon(1e-12));
    }
    CHECK(feasible_cases > 40);
}

TEST_CASE("the capacity dynamic program breaks ties as a sweep over the states in order", "[sched]") {
    // Whole-number costs of -2 to 0 and equal jobs: most programs have several optima, and which one
    // comes back decides a schedule. Jobs of 0-2 GPUs (0 included: every move starts at the state).
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> gpus(0, 3), cap(0, 7), coin(0, 5), types(1, 3), cost(-2, 0);
    int solved = 0;
    for (int trial = 0; trial < 200; ++trial) {
        AssignmentProgram p;
        p.types = types(rng);
        for (int t = 0; t < p.types; ++t) p.capacity.push_back(cap(rng));
        for (int j = 0; j < 8; ++j) {
            p.demand.push_back(coin(rng) == 0 ? 0 : gpus(rng) / 2 + 1);
            p.must_run.push_back(coin(rng) == 0 ? 1 : 0);
            for (int t = 0; t < p.types; ++t) p.cost.push_back(coin(rng) == 0 ? std::nan("") : cost(rng));
        }
        p.min_busy = trial % 4 == 0 ? 5 : 0;
        const std::optional<Assignment> a = solve_by_capacity(p);
        const std::vector<int> want = sweep(p);
        if (!a) {
            CHECK(std::all_of(want.begin(), want.end(), [](int t) { return t == -1; }));
            continue;
        }
        ++solved;
        CHECK(a->type == want);
    }
    CHECK(solved > 100);
}

TEST_CASE("the capacity dynamic program beats the relaxation's favourite on a knapsack", "[sched]") {
    // One type of 32 GPUs. Jobs of 8 GPUs worth 2.1 each (five of them), one of 32 worth 7.5: the
    // relaxation prefers the 8s (0.2625 a GPU against 0.234) and fills 32 with four of them, 8.4.
    AssignmentProgram p;
    p.types = 1;
    p.capacity.push_back(32);
    for (int j = 0; j < 5; ++j) p.demand.push_back(8), p.cost.push_back(-2.1);
    p.demand.push_back(32), p.cost.push_back(-7.5);
    const std::optional<Assignment> a = solve_by_capacity(p);
    REQUIRE(a);
    CHECK(a->objective == Approx(-8.4));
    CHECK(std::count(a->type.begin(), a->type.end(), 0) == 4);
    CHECK(a->type.back() == -1);
    // Worth 8.5, the 32-GPU job wins alone.
    p.cost.back() = -8.5;
    CHECK(solve_by_capacity(p)->type == std::vector<int>{-1, -1, -1, -1, -1, 0});
}

TEST_CASE("the capacity dynamic program declines past its cells and counts only usable GPUs", "[sched]") {
    AssignmentProgram p;
    p.types = 3;
    p.capacity.assign(3, 128);
    for (int j = 0; j < 100; ++j) p.demand.push_back(8), p.cost.push_back(-1), p.cost.push_back(-1), p.cost.push_back(-1);
    // 129^3 states x 100 jobs: past 32 Mi cells.
    CHECK_FALSE(capacity_dp_fits(p));
    CHECK_FALSE(solve_by_capacity(p));
    // Three jobs can use at most 24 GPUs of a type: 25^3 states.
    p.demand.resize(3);
    p.cost.resize(9);
    CHECK(capacity_dp_fits(p));
    CHECK(capacity_dp_fits(p, 25L * 25 * 25 * 3));
    CHECK_FALSE(capacity_dp_fits(p, 25L * 25 * 25 * 3 - 1));
    CHECK(solve_by_capacity(p)->objective == Approx(-3));
    // Bound to run beyond the capacity: fits, and has no solution.
    AssignmentProgram q;
    q.types = 1;
    q.capacity.push_back(8);
    for (int d : {16, 8}) q.demand.push_back(d), q.cost.push_back(-1), q.must_run.push_back(d > 8 ? 1 : 0);
    CHECK(capacity_dp_fits(q));
    CHECK_FALSE(solve_by_capacity(q));
}

TEST_CASE("a MIP of job rows and type capacities is read as an assignment program, and solved so", "[sched]") {
    // Two jobs: a (2 GPUs) on type 0 or 1, b (1 GPU) on type 1, bound to run; types of 2 and 1 GPUs.
    // Rows: a, b, then the types. Maximised: costs negate.
    Mip m;
    m.maximise = true;
    m.row_lo = {-HUGE_VAL, 1, -HUGE_VAL, -HUGE_VAL};
    m.row_hi = {1, 1, 2, 1};
    m.cost = {3, 4, 1};
    m.col = {{{0, 1.0}, {2, 2.0}}, {{0, 1.0}, {3, 2.0}}, {{1, 1.0}, {3, 1.0}}};
    std::vector<int> job, type;
    const std::optional<AssignmentProgram> p = assignment_form(m, job, type);
    REQUIRE(p);
    CHECK(p->types == 2);
    CHECK(p->capacity == std::vector<int>{2, 1});
    CHECK(p->demand == std::vector<int>{2, 1});
    CHECK(p->must_run == std::vector<char>{0, 1});
    CHECK(p->c(0, 0) == -3);
    CHECK(p->c(0, 1) == -4);
    CHECK_FALSE(p->allowed(1, 0));
    CHECK(job == std::vector<int>{0, 0, 1});
    CHECK(type == std::vector<int>{0, 1, 1});
    // b must take type 1's one GPU, so a goes to type 0: 3 + 1.
    const MipSolve refuse = [](const Mip&, double) -> MipResult { throw std::logic_error("not by the dynamic program"); };
    MipResult r = solve_by_capacity_or(m, 1, refuse);
    CHECK(r.status == MipStatus::optimal);
    CHECK(r.x == std::vector<double>{1, 0, 1});
    CHECK(r.bound == Approx(4));
    // Not that form, so the MIP solve takes it: half a GPU (a shared column), or 1.5; a job at two
    // sizes; two columns of a job on one type; a row both a job's and a type's; a job's row allowing
    // two columns, or half of one; a type's row asking for GPUs, or without a bound; an infinite cost;
    // a row that does not exist.
    Mip half = m;
    half.col[2][1].second = 0.5;
    CHECK_FALSE(assignment_form(half, job, type));
    CHECK_THROWS_AS(solve_by_capacity_or(half, 1, refuse), std::logic_error);
    std::vector<Mip> other(10, m);
    other[0].col[2][1].second = 1.5;
    other[1].col[1][1].second = 1;
    other[2].col[1][1].first = 2;
    other[3].col[2][0].first = 2;
    other[4].row_hi[0] = 2;
    other[5].row_lo[0] = 0.5;
    other[6].row_lo[2] = 1;
    other[7].row_hi[3] = HUGE_VAL;
    other[8].cost[0] = HUGE_VAL;
    other[9].col[0][1].first = 7;
    for (size_t k = 0; k < other.size(); ++k) {
        INFO("case " << k);
        CHECK_FALSE(assignment_form(other[k], job, type));
    }
    // b bound to run where nothing fits: infeasible.
    Mip none = m;
    none.row_hi[3] = 0;
    CHECK(solve_by_capacity_or(none, 1, refuse).status == MipStatus::infeasible);
}
