#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include <hetsched/sched/assignment_program.hpp>
#include <hetsched/sched/lagrangian_bound.hpp>

using namespace hetsched::sched;

namespace {

/// A random program: costs of both signs, some forbidden pairs, demands 1/2/4/8.
AssignmentProgram random_program(std::mt19937& rng, int jobs, int types, int per_type) {
    std::uniform_real_distribution<double> u(0, 1);
    AssignmentProgram p;
    p.types = types;
    p.capacity.assign(static_cast<size_t>(types), per_type);
    for (int j = 0; j < jobs; ++j) {
        const double r = u(rng);
        p.demand.push_back(r < 0.5 ? 1 : r < 0.75 ? 2 : r < 0.9 ? 4 : 8);
        const double size = std::exp(u(rng) * 4);
        for (int i = 0; i < types; ++i)
            p.cost.push_back(u(rng) < 0.2 ? std::nan("") : size * (1 + i * 0.3) * (0.5 + u(rng)) - 3 * u(rng) * u(rng));
    }
    return p;
}

/// Calls `visit` with every schedule of a tiny program (each job on an allowed type or idle).
void for_each_schedule(const AssignmentProgram& p, const std::function<void(const std::vector<int>&)>& visit) {
    std::vector<int> type(static_cast<size_t>(p.jobs()), -1);
    std::function<void(int)> go = [&](int j) {
        if (j == p.jobs()) return visit(type);
        for (int i = -1; i < p.types; ++i) {
            if (i >= 0 && !p.allowed(j, i)) continue;
            type[static_cast<size_t>(j)] = i;
            go(j + 1);
        }
    };
    go(0);
}

/// The cheapest feasible schedule's cost, by enumeration.
double brute_force(const AssignmentProgram& p) {
    double best = HUGE_VAL;
    for_each_schedule(p, [&](const std::vector<int>& type) {
        const Assignment a = evaluate(p, type);
        if (feasible(p, a)) best = std::min(best, a.objective);
    });
    return best;
}

/// The most GPUs any schedule within the capacities keeps busy, by enumeration.
long brute_force_busy(AssignmentProgram p) {
    p.min_busy = 0;
    long best = 0;
    for_each_schedule(p, [&](const std::vector<int>& type) {
        const Assignment a = evaluate(p, type);
        if (feasible(p, a)) best = std::max(best, a.busy);
    });
    return best;
}

}  // namespace

TEST_CASE("K is the most GPUs the jobs can keep busy, found exactly", "[assignment]") {
    std::mt19937 rng(7);
    for (int trial = 0; trial < 60; ++trial) {
        AssignmentProgram p = random_program(rng, 1 + trial % 7, 1 + trial % 3, 1 + trial % 9);
        const Assignment a = max_busy_assignment(p, 10);
        CHECK(a.busy == brute_force_busy(p));
        p.min_busy = a.busy;
        CHECK(feasible(p, a));
    }
}

TEST_CASE("K when the greedy packing falls short needs the packing program", "[assignment]") {
    // Type capacity 6; jobs of 4, 3, 3: largest first takes 4 and wastes 2, while 3 + 3 fills it.
    AssignmentProgram p;
    p.types = 1;
    p.capacity = {6};
    p.demand = {4, 3, 3};
    p.cost = {1, 1, 1};
    CHECK(max_busy_assignment(p, 10).busy == 6);
}

TEST_CASE("The structured solver and GLPK on the plain program find the same optimum", "[assignment]") {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 80; ++trial) {
        const int jobs = 5 + trial * 3, types = 1 + trial % 5;
        AssignmentProgram p = random_program(rng, jobs, types, 2 + trial % 13);
        const Assignment start = max_busy_assignment(p, 10);
        p.min_busy = start.busy;
        SolveStats exact_stats, structured_stats;
        const Assignment e = solve_exact(p, 30, exact_stats);
        const Assignment s = solve_structured(p, start, 30, structured_stats);
        INFO("trial " << trial << ": " << jobs << " jobs, " << types << " types");
        CHECK(feasible(p, s));
        CHECK(s.objective == Approx(e.objective).epsilon(1e-9).margin(1e-9));
        CHECK(structured_stats.bound <= s.objective + 1e-9);
        CHECK(structured_stats.lagrangian_bound <= e.objective + 1e-6);
        if (jobs <= 8 && types <= 3) CHECK(e.objective == Approx(brute_force(p)));
    }
}

TEST_CASE("The Lagrangian bound never exceeds the optimum and reaches the LP bound's neighbourhood",
          "[assignment]") {
    std::mt19937 rng(3);
    for (int trial = 0; trial < 20; ++trial) {
        AssignmentProgram p = random_program(rng, 40, 3, 10);
        const Assignment start = max_busy_assignment(p, 10);
        p.min_busy = start.busy;
        SolveStats st;
        const double opt = solve_exact(p, 30, st).objective;
        const Multipliers m = maximise_lagrangian(p, evaluate(p, start.type).objective);
        CHECK(m.bound <= opt + 1e-9);
        CHECK(lagrangian_value(p, m.lambda, m.pi) == Approx(m.bound));
    }
}

TEST_CASE("A program where nothing may run has the empty schedule", "[assignment]") {
    AssignmentProgram p;
    p.types = 2;
    p.capacity = {4, 4};
    p.demand = {8, 1};
    p.cost = {1, 2, std::nan(""), std::nan("")};  // the 8-GPU job fits nowhere; the other may use nothing
    const Assignment start = max_busy_assignment(p, 10);
    CHECK(start.busy == 0);
    SolveStats st;
    const Assignment s = solve_structured(p, start, 10, st);
    CHECK(s.type == std::vector<int>{-1, -1});
    CHECK(solve_exact(p, 10, st).type == std::vector<int>{-1, -1});
}

TEST_CASE("CBC and GLPK agree on the program's optimum", "[assignment]") {
    std::mt19937 rng(5);
    for (int trial = 0; trial < 15; ++trial) {
        AssignmentProgram p = random_program(rng, 10 + trial * 4, 1 + trial % 4, 3 + trial % 7);
        p.min_busy = max_busy_assignment(p, 10).busy;
        Mip mip;  // the program as solve_as_mip states it, by hand: job rows, type rows, the K row
        const int n = p.jobs(), m = p.types;
        for (int j = 0; j < n; ++j) mip.row_lo.push_back(-HUGE_VAL), mip.row_hi.push_back(1);
        for (int i = 0; i < m; ++i) mip.row_lo.push_back(-HUGE_VAL), mip.row_hi.push_back(p.capacity[static_cast<size_t>(i)]);
        mip.row_lo.push_back(static_cast<double>(p.min_busy)), mip.row_hi.push_back(HUGE_VAL);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < m; ++i)
                if (p.allowed(j, i)) {
                    const double d = p.demand[static_cast<size_t>(j)];
                    mip.cost.push_back(p.c(j, i));
                    mip.col.push_back({{j, 1.0}, {n + i, d}, {n + m, d}});
                }
        // A node budget, unlike a time limit, ends GLPK's search at the same point on every run.
        const MipResult b1 = solve_with_glpk(mip, 30, 3), b2 = solve_with_glpk(mip, 30, 3);
        CHECK(b1.status == b2.status);
        CHECK(b1.x == b2.x);
        const MipResult g = solve_with_glpk(mip, 30), c = solve_with_cbc(mip, 30);
        REQUIRE(g.status == MipStatus::optimal);
        REQUIRE(c.status == MipStatus::optimal);
        double vg = 0, vc = 0;
        for (size_t k = 0; k < mip.cost.size(); ++k) vg += mip.cost[k] * g.x[k], vc += mip.cost[k] * c.x[k];
        CHECK(vc == Approx(vg).epsilon(1e-9).margin(1e-9));
    }
}

TEST_CASE("A solved round's gap is 0 within rounding, and a real gap stays", "[assignment]") {
    SolveStats st;
    st.objective = 20.06;
    st.bound = 20.06 - 7.105e-15;  // the bound summed in another order
    CHECK(st.gap() == 0);
    st.bound = 20.06 + 3.5e-15;
    CHECK(st.gap() == 0);
    st.bound = 19;
    CHECK(st.gap() == Approx(1.06));
    st.maximise = true;
    st.bound = HUGE_VAL;
    CHECK(st.gap() == HUGE_VAL);
}

TEST_CASE("GLPK plain, then with cuts, then CBC: each settles what the one before cannot", "[assignment]") {
    // Jeroslow's program: min y over binaries with 2 (x_1 + ... + x_n) + y = n, n odd. Every LP
    // relaxation on the way sets y = 0 with one x at a half, so branching alone needs exponentially
    // many nodes; a mixed-integer rounding cut of the row (divided by 2) is y >= 1 at once.
    auto jeroslow = [](int n) {
        Mip m;
        m.row_lo = m.row_hi = {static_cast<double>(n)};
        for (int c = 0; c < n; ++c) m.cost.push_back(0), m.col.push_back({{0, 2.0}});
        m.cost.push_back(1), m.col.push_back({{0, 1.0}});
        return m;
    };
    // n = 12 (even, y = 0): GLPK settles it within the plain budget, and that answer comes back.
    const Mip easy = jeroslow(12);
    const MipResult plain = solve_with_glpk(easy, 30, kGlpkPlainNodes);
    REQUIRE(plain.status == MipStatus::optimal);
    const MipResult e = solve_glpk_then_cbc(easy, 30);
    REQUIRE(e.status == MipStatus::optimal);
    CHECK(e.bound == Approx(0).margin(1e-9));
    CHECK(e.x == plain.x);
    // n = 13: past both budgets without cuts; with them, settled, and that is the answer returned.
    const Mip hard = jeroslow(13);
    REQUIRE(solve_with_glpk(hard, 30, kGlpkPlainNodes).status == MipStatus::time_limit);
    REQUIRE(solve_with_glpk(hard, 30, kGlpkCutNodes).status == MipStatus::time_limit);
    const MipResult cut = solve_with_glpk(hard, 30, kGlpkCutNodes, true);
    REQUIRE(cut.status == MipStatus::optimal);
    CHECK(cut.bound == Approx(1));
    const MipResult r = solve_glpk_then_cbc(hard, 30);
    REQUIRE(r.status == MipStatus::optimal);
    CHECK(r.bound == Approx(1));
    CHECK(r.x == cut.x);
    CHECK(r.seconds > 0);

    // A market split (Cornuejols and Dawande) with no exact split: two rows sum_j a_ij x_j + slack =
    // floor(sum_j a_ij / 2) over 18 binaries, each slack in binary digits both ways (up to 127), least
    // total slack. GLPK passes both budgets, cuts or not; CBC proves the optimum that enumerating all
    // 2^18 choices finds.
    constexpr int kItems = 18;
    std::vector<std::vector<int>> a(2, std::vector<int>(kItems));
    std::vector<long> half(2);
    for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < kItems; ++j) a[i][j] = (j * j * (7 + 6 * i) + 13 * j + 5 * i) % 401;
        half[i] = std::accumulate(a[i].begin(), a[i].end(), 0L) / 2;
    }
    Mip split;
    for (int j = 0; j < kItems; ++j)
        split.cost.push_back(0), split.col.push_back({{0, static_cast<double>(a[0][j])}, {1, static_cast<double>(a[1][j])}});
    for (int i = 0; i < 2; ++i) {
        split.row_lo.push_back(static_cast<double>(half[i])), split.row_hi.push_back(static_cast<double>(half[i]));
        for (int k = 0; k < 7; ++k)
            for (double sign : {1.0, -1.0}) split.cost.push_back(1 << k), split.col.push_back({{i, sign * (1 << k)}});
    }
    long least = std::numeric_limits<long>::max();
    for (unsigned pick = 0; pick < (1u << kItems); ++pick) {
        long off = 0;
        for (int i = 0; i < 2; ++i) {
            long sum = 0;
            for (int j = 0; j < kItems; ++j) sum += (pick >> j & 1) ? a[i][j] : 0;
            off += std::labs(sum - half[i]);
        }
        least = std::min(least, off);
    }
    REQUIRE(least > 0);
    REQUIRE(least <= 127);
    REQUIRE(solve_with_glpk(split, 30, kGlpkCutNodes, true).status == MipStatus::time_limit);
    const MipResult c = solve_glpk_then_cbc(split, 30);
    REQUIRE(c.status == MipStatus::optimal);
    CHECK(c.bound == Approx(static_cast<double>(least)));
    double total = 0;
    for (size_t k = 0; k < split.cost.size(); ++k) total += split.cost[k] * c.x[k];
    CHECK(total == Approx(static_cast<double>(least)));
    // Out of time within GLPK's budgets: no bound known.
    const MipResult t = solve_glpk_then_cbc(split, 1e-9);
    CHECK(t.status == MipStatus::time_limit);
    CHECK(t.bound == -HUGE_VAL);
}
