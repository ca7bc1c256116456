// Sia's per-round program, with the costs worked by hand: (r·G)^p per configuration, G the goodput
// over the job's least, λ_n for a job left without GPUs, minimised for p < 0.
#include <catch2/catch.hpp>

#include <cmath>

#include <hetsched/sched/round.hpp>
#include <hetsched/sched/sia_policy.hpp>

#include "sched_fixture.hpp"

using namespace hetsched::sched;
using namespace hetsched::sched::test;

namespace {

/// An elastic job on one type: 1 GPU at 10 units/s, 2 GPUs at `two`.
Job elastic(const std::string& id, double two) {
    Job j = job(id, 1e6, {10}, 1);
    j.scales = {{1, {10}}, {2, {two}}};
    return j;
}

}  // namespace

TEST_CASE("Sia on two elastic jobs and two GPUs: one job on both when its speed-up pays for the other's wait",
          "[sia]") {
    // x at 2 GPUs: G = 18 / 10 = 1.8, cost 1.8^-0.5 = 0.745, plus λ_n = 1.1 for y left out: 1.845.
    // Both at 1 GPU: 1 + 1 = 2. y at 2 GPUs: 1.6^-0.5 + 1.1 = 1.891. So x takes both.
    ClusterState s = cluster({"A"}, 2);
    s.jobs = {elastic("x", 18), elastic("y", 16)};
    RoundOptions o;
    o.policy = PolicyKind::sia;
    TypeDecision d = sia_decide(s, o);
    CHECK(d.type == std::vector<int>{0, -1});
    CHECK(d.gpus[0] == 2);
    CHECK(d.stats.objective == Approx(std::pow(1.8, -0.5) - 1.1));  // the constant λ_n · jobs dropped
    // x at 12 on 2 GPUs: 1.2^-0.5 + 1.1 = 2.013 > 2: each job runs on one GPU.
    s.jobs = {elastic("x", 12), elastic("y", 11)};
    d = sia_decide(s, o);
    CHECK(d.type == std::vector<int>{0, 0});
    CHECK(d.gpus == std::vector<int>{1, 1});
}

TEST_CASE("Sia's values: rigid jobs count their GPUs on the slowest type, moves pay the restart factor",
          "[sia]") {
    ClusterState s = cluster({"fast", "slow"}, 4);
    s.time_s = 600;
    Job rigid = running(job("r", 1e6, {3, 1}, 2), 1);  // on slow, 600 s old, never moved
    s.jobs = {rigid};
    RoundOptions o;
    o.migration_restart_s = 30;  // no checkpoint: P = 30 s
    const SiaProgram p = sia_program(s, o);
    REQUIRE(p.options.size() == 2);
    // fast: G = 2 GPUs x 3 / 1 = 6, and a move: r = (600 - 0) / (600 + 30); slow (held): G = 2, r = 1.
    const double r = 600.0 / 630;
    CHECK(p.options[0].type == 0);
    CHECK(p.options[0].value == Approx(std::pow(r * 6, -0.5)));
    CHECK(p.options[1].value == Approx(std::pow(2.0, -0.5)));
    // Each past move takes P off the age: after 20 moves r = max(600 - 600, 0) / 630 = 0, capped at 3000.
    s.jobs[0].book.migrations = 20;
    CHECK(sia_program(s, o).options[0].value == Approx(3000));
}

TEST_CASE("A round resizes an elastic job and places it afresh", "[sia]") {
    ClusterState s = cluster({"A"}, 2);
    s.jobs = {running(elastic("x", 18), 0)};
    RoundOptions o;
    o.policy = PolicyKind::sia;
    const RoundResult r = run_round(s, o);
    REQUIRE(r.actions.size() == 1);
    CHECK(r.actions[0].kind == ActionKind::migrate);  // 1 GPU -> 2: a restart
    CHECK(r.state.jobs[0].num_gpus == 2);
    CHECK(r.state.jobs[0].throughput == std::vector<double>{18});
    CHECK(r.state.jobs[0].placement.gpus() == 2);
}

TEST_CASE("Sia keeps a pinned job where it runs", "[sia]") {
    // As in the first case x would take both GPUs; pinned (not preemptible, or still restoring) it keeps
    // its one, and y takes the other.
    ClusterState s = cluster({"A"}, 2);
    s.jobs = {running(elastic("x", 18), 0), elastic("y", 16)};
    s.jobs[0].pinned = true;
    RoundOptions o;
    const TypeDecision d = sia_decide(s, o);
    CHECK(d.type == std::vector<int>{0, 0});
    CHECK(d.gpus == std::vector<int>{1, 1});
}

TEST_CASE("Sia with p > 0 maximises, and λ_n still costs a job left out", "[sia]") {
    ClusterState s = cluster({"A"}, 1);
    s.jobs = {job("r", 100, {1})};
    RoundOptions o;
    o.sia_p = 1;  // value 1^1 = 1; leaving it out would cost 1.1
    CHECK(sia_decide(s, o).type == std::vector<int>{0});
}
