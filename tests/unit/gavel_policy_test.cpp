#include <catch2/catch.hpp>

#include <cmath>

#include <hetsched/cli/error.hpp>
#include <hetsched/sched/gavel_policy.hpp>
#include <hetsched/sched/round.hpp>

#include "sched_fixture.hpp"

using namespace hetsched::sched;
using test::cluster;
using test::job;

namespace {

/// min_j Σ_t c_jt X_jt, the value Gavel's LP maximises, with c as its code normalises it.
double worst_normalised(const ClusterState& s, const std::vector<std::vector<double>>& x, bool aware) {
    double worst = HUGE_VAL;
    const std::vector<int> cap = s.capacity();
    double total = 0;
    for (int c : cap) total += c;
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        const Job& j = s.jobs[k];
        auto th = [&](size_t t) { return j.throughput[t] <= 0 ? 0.0 : aware ? j.throughput[t] : 1.0; };
        double share = 0, value = 0;
        for (size_t t = 0; t < cap.size(); ++t) share += th(t) * cap[t] / total;
        for (size_t t = 0; t < cap.size(); ++t) value += th(t) * j.num_gpus / share * x[k][t];
        worst = std::min(worst, value);
    }
    return worst;
}

}  // namespace

TEST_CASE("Gavel's LP on two jobs and two types, solved on paper", "[gavel]") {
    // One V100 and one K80. A runs 2 and 1 steps/s on them, B 1 and 1. Even slices: A 1.5, B 1, so
    // c_A = (4/3, 2/3), c_B = (1, 1). B can never exceed 1 (its time fractions sum to at most 1), and
    // z = 1 is reached (A on the V100 for 3/4 of the time, B on the K80 all the time): the optimum is 1,
    // and B must get all its time.
    ClusterState s = cluster({"V100", "K80"});
    s.jobs = {job("A", 100, {2, 1}), job("B", 100, {1, 1})};
    const auto x = gavel_allocation(s, true, {});
    CHECK(worst_normalised(s, x, true) == Approx(1));
    CHECK(x[1][0] + x[1][1] == Approx(1));
    for (size_t t = 0; t < 2; ++t) CHECK(x[0][t] + x[1][t] <= 1 + 1e-9);
}

TEST_CASE("Gavel's LP weighs a multi-GPU job by its GPUs and a priority weight by its inverse", "[gavel]") {
    // One type of 4 GPUs; a 2-GPU job and a 1-GPU job with equal throughputs: c = sf θ / (w θ) = 2 and 1.
    // The 1-GPU job's value is at most 1 (x ≤ 1), and 4 GPUs let both run all the time: z = 1, x1 = 1.
    ClusterState s = cluster({"A"}, 4);
    s.jobs = {job("two", 100, {1}, 2), job("one", 100, {1})};
    auto x = gavel_allocation(s, true, {});
    CHECK(worst_normalised(s, x, true) == Approx(1));
    CHECK(x[1][0] == Approx(1));
    // With 2 GPUs the pair cannot both run all the time: 2 x2 + x1 ≤ 2 and 2 x2 = x1 give x1 = 1, x2 = 1/2.
    s.nodes[0].gpus = 2;
    x = gavel_allocation(s, true, {});
    CHECK(x[0][0] == Approx(0.5));
    CHECK(x[1][0] == Approx(1));
    // A weight of 2 on the 1-GPU job halves its coefficient to 1/2: z ≤ x1 / 2 ≤ 1/2, reached only with
    // x1 = 1 and 2 x2 ≥ 1/2 (x2 up to 1/2 fits the 2 GPUs).
    s.jobs[1].priority_weight = 2;
    x = gavel_allocation(s, true, {});
    CHECK(x[1][0] == Approx(1));
    CHECK(2 * x[0][0] >= 0.5 - 1e-9);
}

TEST_CASE("Gavel's LP gives a gang no time on a type with fewer GPUs up than the gang", "[gavel]") {
    // Four V100s and one K80. The 2-GPU job runs 1 step/s on V100s and would run 10 on K80s, but one K80
    // cannot hold its gang: its even slice is 1 x 4/5 (the K80 counts nothing), c = (2 x 1 / 0.8, 0),
    // and all its time is on the V100s. Crediting the K80 gave it X = 1/2 there, a share no round can
    // deliver, and rated its even slice at 2.8 steps/s.
    ClusterState s = cluster({"V100", "K80"});
    s.nodes[0].gpus = 4;
    s.jobs = {job("gang", 100, {1, 10}, 2)};
    const auto x = gavel_allocation(s, true, {});
    CHECK(x[0][0] == Approx(1));
    CHECK(x[0][1] == 0);
    // A gang no type can hold gets no allocation at all.
    s.jobs = {job("wide", 100, {1, 10}, 8)};
    CHECK(gavel_allocation(s, true, {})[0].empty());
}

TEST_CASE("Gavel's rounds realise X by priority X / share received, and hold a job without allocation",
          "[gavel]") {
    // A: 4 and 1 steps/s on V100 and K80, B: 2 and 1. c_A = (1.6, 0.4), c_B = (4/3, 2/3); both run all
    // the time and a = X_A,V100 = 1 - X_B,V100 gives 0.4 + 1.2a = 4/3 - 2a/3: a = 1/2, z = 1, unique.
    ClusterState s = cluster({"V100", "K80"}, 1, 360);
    s.jobs = {job("A", 1e6, {4, 1}), job("B", 1e6, {2, 1})};
    RoundOptions o;
    o.policy = PolicyKind::gavel;
    RoundResult r = run_round(s, o);
    REQUIRE(r.state.jobs[0].book.gavel_share.size() == 2);
    CHECK(r.state.jobs[0].book.gavel_share[0] == Approx(0.5));
    // Round 1: equal priorities (X 1/2 over a seeded half-round share each), arrival order: A on the V100.
    CHECK(r.state.jobs[0].placement.type == 0);
    CHECK(r.state.jobs[1].placement.type == 1);
    // Round 2: A has had 3/4 of the V100's time (180 + 360 of 720): priority 2/3 against B's 2.
    ClusterState next = r.state;
    next.time_s = 360;
    r = run_round(next, o);
    CHECK(r.state.jobs[1].placement.type == 0);
    CHECK(r.state.jobs[0].placement.type == 1);
    // A job arriving before the next reset (1920 s after the last) has no allocation: it may be picked
    // for the K80 left over, but it is not started, as in Gavel's code.
    next = r.state;
    next.time_s = 720;
    next.nodes.push_back({"V100-node-2", 0, 1, false});
    next.jobs.push_back(job("C", 1e6, {4, 1}, 1, 400));
    r = run_round(next, o);
    CHECK_FALSE(r.state.jobs[2].placement.running());
    CHECK(r.state.gavel_reset_s == 0);
    // Once the interval has passed, the allocation is recomputed with C in it, and C runs.
    next = r.state;
    next.time_s = 1920;
    r = run_round(next, o);
    CHECK(r.state.gavel_reset_s == 1920);
    CHECK(r.state.jobs[2].placement.running());
}

TEST_CASE("Gavel visits types fastest first for the jobs at hand, whatever the state's order", "[gavel]") {
    // A lone job, twice as fast on the V100, with the K80 listed first: X puts it on the V100, and a
    // job may take leftover GPUs of a type where its X is 0, so the visiting order decides. In the
    // state's order it ran on the K80.
    ClusterState s = cluster({"K80", "V100"}, 1, 360);
    s.jobs = {job("A", 1e6, {1, 2})};
    RoundOptions o;
    o.policy = PolicyKind::gavel;
    CHECK(run_round(s, o).state.jobs[0].placement.type == 1);
    // The order is by throughput relative to each job's best, summed over the jobs: two jobs faster on
    // the K80 (Gavel's recommendation models are) and one on the V100 put the K80 first.
    s.nodes.push_back({"K80-2", 0, 1, false});
    s.nodes.push_back({"V100-2", 1, 1, false});
    s.jobs = {job("R1", 1e6, {3, 1}), job("R2", 1e6, {3, 1}), job("V", 1e6, {1, 2})};
    const RoundResult r = run_round(s, o);
    CHECK(r.state.jobs[2].placement.type == 1);
}

TEST_CASE("Gavel-agnostic sees every type alike", "[gavel]") {
    ClusterState s = cluster({"V100", "K80"});
    s.jobs = {job("A", 100, {4, 1}), job("B", 100, {1.2, 1})};
    const auto x = gavel_allocation(s, false, {});
    CHECK(worst_normalised(s, x, false) == Approx(1));  // each job runs all the time, on either type
    CHECK(x[0][0] + x[0][1] == Approx(1));
    CHECK(x[1][0] + x[1][1] == Approx(1));
}

TEST_CASE("Gavel's solve stats are its LP's when solved, and say reused between resets", "[gavel]") {
    // The two jobs of the paper example above: the LP's max-min value is 1.
    ClusterState s = cluster({"V100", "K80"});
    s.jobs = {job("A", 100, {2, 1}), job("B", 100, {1, 1})};
    RoundOptions o;
    const TypeDecision first = gavel_decide(s, o, true);
    CHECK(first.stats.method == "lp");
    CHECK_FALSE(first.stats.reused);
    CHECK(first.stats.objective == Approx(1));
    CHECK(first.stats.bound == Approx(1));
    CHECK(first.stats.variables == 5);  // z and one X per job and type
    s.time_s += 300;  // the same jobs, before the reset interval: the allocation stands
    const TypeDecision second = gavel_decide(s, o, true);
    CHECK(second.stats.reused);
    CHECK(second.stats.objective == 0);
    CHECK(second.stats.variables == 0);
}

TEST_CASE("Gavel's LP out of time keeps the last allocation in replay, and is TryLater with none to keep", "[gavel]") {
    ClusterState s = cluster({"V100", "K80"});
    s.jobs = {job("A", 1e6, {2, 1}), job("B", 1e6, {1, 1})};
    RoundOptions o;
    gavel_decide(s, o, true);  // the allocation of A and B
    const std::vector<double> a_share = s.jobs[0].book.gavel_share;
    s.jobs.push_back(job("C", 1e6, {1, 1}, 1, 100));  // an arrival, past the reset interval
    s.time_s = 2000;
    o.time_limit_s = 1e-9;
    ClusterState schedround = s;
    CHECK_THROWS_AS(gavel_decide(schedround, o, true), hetsched::TryLater);
    o.accept_unproven = true;
    const TypeDecision d = gavel_decide(s, o, true);
    CHECK_FALSE(d.stats.proven);
    CHECK(d.stats.reused);
    CHECK(std::isinf(d.stats.gap()));
    CHECK(s.jobs[0].book.gavel_share == a_share);  // the allocation stands
    CHECK(s.jobs[2].book.gavel_share.empty());
    CHECK(s.gavel_reset_s == 0);                   // not reset: the next round solves again
    CHECK(d.type[2] == -1);                        // C has no share: not started
    // No job holds a share: nothing to keep.
    ClusterState fresh = cluster({"V100", "K80"});
    fresh.jobs = {job("A", 1e6, {2, 1})};
    CHECK_THROWS_AS(gavel_decide(fresh, o, true), hetsched::TryLater);
}
