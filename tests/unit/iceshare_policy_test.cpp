// IceShare (ICEFROG Eq. 16-18) on cases whose max-min optimum is worked by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>

#include <hetsched/cli/error.hpp>
#include <hetsched/sched/capacity_dp.hpp>
#include <hetsched/sched/host_placement.hpp>
#include <hetsched/sched/iceshare_policy.hpp>
#include <hetsched/sched/round.hpp>

#include "sched_fixture.hpp"

using namespace hetsched::sched;
using namespace hetsched::sched::test;

namespace {

Job elastic(const std::string& id, double work, std::vector<Scale> scales) {
    Job j = job(id, work, scales.front().throughput, scales.front().gpus);
    j.scales = std::move(scales);
    return j;
}

}  // namespace

TEST_CASE("IceShare on three jobs and four GPUs: the max-min optimum derived by hand", "[iceshare]") {
    // All new (age 0), so T_acc = remaining / throughput.
    // a: 3000 units at 10, 18, 30 /s on 1, 2, 4 GPUs: T_acc 300, 166.7, 100: IceShare 1/3, 0.6, 1.
    // b: 1000 units at 10, 20 /s on 1, 2 GPUs: T_acc 100, 50: IceShare 0.5, 1.
    // c: rigid, 500 units at 10 /s on 1 GPU: IceShare 1.
    // c must run (else the least is 0), leaving 3 GPUs: (a 1, b 2) least 1/3, (a 1, b 1) 1/3,
    // (a 2, b 1) least 0.5. So a on 2 GPUs, b and c on one each.
    ClusterState s = cluster({"A"}, 4);
    s.jobs = {elastic("a", 3000, {{1, {10}}, {2, {18}}, {4, {30}}}), elastic("b", 1000, {{1, {10}}, {2, {20}}}),
              job("c", 500, {10})};
    const auto opts = iceshare_options(s);
    REQUIRE(opts.size() == 6);
    CHECK(opts[0].share == Approx(1.0 / 3));
    CHECK(opts[1].share == Approx(0.6));
    CHECK(opts[2].share == Approx(1));
    CHECK(opts[3].share == Approx(0.5));
    RoundOptions o;
    const TypeDecision d = iceshare_decide(s, o);
    CHECK(d.type == std::vector<int>{0, 0, 0});
    CHECK(d.gpus == std::vector<int>{2, 1, 1});
    CHECK(d.stats.objective == Approx(0.6 + 0.5 + 1));
}

TEST_CASE("IceShare counts age: an old job's share moves little with its size", "[iceshare]") {
    // Aged 900 s: T_acc 900 + 3000/10 = 1200 on 1 GPU, 900 + 100 = 1000 on 4: IceShare 0.833 on 1.
    ClusterState s = cluster({"A"}, 4);
    s.time_s = 900;
    s.jobs = {elastic("a", 3000, {{1, {10}}, {2, {18}}, {4, {30}}})};
    const auto opts = iceshare_options(s);
    CHECK(opts[0].share == Approx(1000.0 / 1200));
}

TEST_CASE("IceShare with more jobs than GPUs: the least is 0, the most total share wins", "[iceshare]") {
    // Two GPUs, three rigid single-GPU jobs: one must wait. Each job's share is 1 where it runs, so any
    // two of them: the decision runs exactly two.
    ClusterState s = cluster({"A"}, 2);
    s.jobs = {job("x", 100, {1}), job("y", 100, {1}), job("z", 100, {1})};
    const TypeDecision d = iceshare_decide(s, {});
    CHECK(std::count(d.type.begin(), d.type.end(), 0) == 2);
    CHECK(d.stats.objective == Approx(2));
}

TEST_CASE("IceShare gives a size above a node only in whole nodes", "[iceshare]") {
    ClusterState s = cluster({"A"}, 4);
    s.nodes.push_back({"A-node-2", 0, 4, false});
    s.jobs = {elastic("a", 3000, {{1, {10}}, {6, {50}}, {8, {60}}})};
    const auto opts = iceshare_options(s);
    REQUIRE(opts.size() == 2);  // 6 GPUs would split a 4-GPU node
    CHECK(opts[1].gpus == 8);
}

namespace {

/// A single-GPU job of 4 GiB at `util` % utilisation.
Job sharer(const std::string& id, double util, double memory_gib = 4) {
    Job j = job(id, 100, {1});
    j.util_pct = util;
    j.memory_gib = memory_gib;
    return j;
}

}  // namespace

TEST_CASE("IceShare's shared column: only where the sharing rule allows it", "[iceshare]") {
    ClusterState s = cluster({"A"}, 1, 60, {16});
    s.jobs = {sharer("ok", 40), sharer("busy", 60), sharer("big", 40, 8), running(job("two", 100, {1}, 1), 0)};
    s.jobs[3].num_gpus = 1;
    const auto opts = iceshare_options(s);
    // ok: alone and shared. busy: over 50% alone. big: 1.1 x 8 GiB > half of 16. two: no utilisation known.
    long shared = 0;
    for (const auto& o : opts) shared += o.shared;
    CHECK(shared == 1);
    CHECK(opts[1].shared);
    CHECK(opts[1].job == 0);
    CHECK(opts[1].share == Approx(0.9));  // 0.9 of the throughput, nothing else changes: T_acc / 0.9
}

TEST_CASE("IceShare puts two jobs on one GPU when sharing serves more of them", "[iceshare]") {
    // One GPU, three jobs that may share. Alone: one job at share 1, the rest 0 (sum 1). Shared: two at
    // 0.9 each (sum 1.8). The least is 0 either way (a job must wait), so the total decides: share.
    ClusterState s = cluster({"A"}, 1, 60, {16});
    s.jobs = {sharer("x", 40), sharer("y", 30), sharer("z", 20)};
    const TypeDecision d = iceshare_decide(s, {});
    CHECK(std::count(d.type.begin(), d.type.end(), 0) == 2);
    CHECK(std::count(d.shared.begin(), d.shared.end(), 1) == 2);
    CHECK(d.stats.objective == Approx(1.8));
    RoundOptions o;
    o.policy = PolicyKind::iceshare;
    const RoundResult r = run_round(s, o);
    long on_gpu = 0;
    for (const auto& j : r.state.jobs)
        if (j.placement.running()) {
            CHECK(j.placement.shared);
            CHECK(j.placement.shares == std::vector<NodeShare>{{0, 1}});
            ++on_gpu;
        }
    CHECK(on_gpu == 2);
}

TEST_CASE("IceShare's least counts every job, whatever its weight", "[iceshare]") {
    // Two GPUs, two jobs; B weighs half, so its best is 0.5: the least is 0.5 with both running (a
    // threshold of 1 would leave B out of the count and idle a GPU).
    ClusterState s = cluster({"A"}, 2);
    s.jobs = {job("a", 100, {1}), job("b", 100, {1})};
    s.jobs[1].priority_weight = 0.5;
    const TypeDecision d = iceshare_decide(s, {});
    CHECK(d.type == std::vector<int>{0, 0});
}

TEST_CASE("Lone sharers on two nodes pair up, leaving whole GPUs for the rest", "[iceshare]") {
    // Nodes a and b of 2 GPUs; x shares alone on a, y alone on b (their partners finished); z needs 3
    // whole GPUs. The program counts 0.5 + 0.5 + 3 = 4: y joins x on a, z takes b and one GPU of a.
    ClusterState s = cluster({"A"}, 2, 60, {16});
    s.nodes.push_back({"A-node-b", 0, 2, false});
    Job x = sharer("x", 40), y = sharer("y", 40);
    x.placement = {0, {{0, 1}}, true};
    y.placement = {0, {{1, 1}}, true};
    s.jobs = {x, y, job("z", 100, {1}, 3)};
    const auto out = place_on_hosts(s, {0, 0, 0}, {}, {1, 1, 0});
    CHECK(out[0].shares == out[1].shares);
    CHECK(out[2].gpus() == 3);
}

TEST_CASE("The actions name half a GPU for a sharer", "[iceshare]") {
    ClusterState s = cluster({"A"}, 1, 60, {16});
    s.jobs = {sharer("x", 40), sharer("y", 30)};
    RoundOptions o;
    o.policy = PolicyKind::iceshare;
    const RoundResult r = run_round(s, o);
    CHECK(actions_csv(r.state, r.actions) == "job_id,action,gpu,nodes\nx,start,A,A-node:0.5\ny,start,A,A-node:0.5\n");
}

namespace {

/// A solve stopped by its time limit, made reproducible: CBC's answer to the feasibility programs of
/// the bisection (`stop_bisection`: the first one stopped, nothing found), and to the last, the most
/// total share, its optimum with the bound `bound_at(optimum)` (nothing found when `found` is false).
MipSolve stopped(std::function<double(double)> bound_at, bool found = true, bool stop_bisection = false) {
    return [=](const Mip& m, double time_limit_s) {
        MipResult r = solve_with_cbc(m, time_limit_s);
        if (!m.maximise && !stop_bisection) return r;  // a feasibility program of the bisection
        double objective = 0;
        for (size_t c = 0; c < r.x.size(); ++c) objective += m.cost[c] * r.x[c];
        r.status = MipStatus::time_limit;
        r.bound = bound_at(objective);
        if (!found || !m.maximise) r.x.clear();
        return r;
    };
}

}  // namespace

TEST_CASE("IceShare stopped by its time limit reports CBC's bound on the total share, or none", "[iceshare]") {
    // The hand-worked case above: optimum 0.6 + 0.5 + 1 at least 0.5 each.
    ClusterState s = cluster({"A"}, 4);
    s.jobs = {running(elastic("a", 3000, {{1, {10}}, {2, {18}}, {4, {30}}}), 0), elastic("b", 1000, {{1, {10}}, {2, {20}}}),
              job("c", 500, {10})};
    RoundOptions o;
    CHECK_THROWS_AS(iceshare_decide(s, o, stopped([](double v) { return v; })), hetsched::TryLater);  // schedround
    o.accept_unproven = true;
    TypeDecision d = iceshare_decide(s, o, stopped([](double v) { return v + 0.25; }));
    CHECK_FALSE(d.stats.proven);
    CHECK(d.stats.objective == Approx(2.1));
    CHECK(d.stats.gap() == Approx(0.25));  // maximised: the bound is above
    CHECK(std::isinf(iceshare_decide(s, o, stopped([](double) { return HUGE_VAL; })).stats.gap()));
    // The bisection stopped short: the least share is not proven, nor any bound on the total.
    d = iceshare_decide(s, o, stopped([](double v) { return v; }, true, true));
    CHECK_FALSE(d.stats.proven);
    CHECK(std::isinf(d.stats.gap()));
    // Nothing found: a keeps its GPU, nothing new starts; with nothing running, nothing to keep.
    d = iceshare_decide(s, o, stopped([](double v) { return v; }, false));
    CHECK(d.type == std::vector<int>{0, -1, -1});
    CHECK(std::isinf(d.stats.gap()));
    s.jobs[0].placement = {};
    CHECK_THROWS_AS(iceshare_decide(s, o, stopped([](double v) { return v; }, false)), hetsched::TryLater);
}

TEST_CASE("IceShare gives the tie between alike jobs to the earlier one", "[iceshare]") {
    ClusterState s = cluster({"A"}, 2);
    s.jobs = {job("z", 100, {1}), job("y", 100, {1}), job("x", 100, {1})};
    CHECK(iceshare_decide(s, {}).type == std::vector<int>{-1, 0, 0});
}

TEST_CASE("IceShare's contended rounds: the dynamic program finds the enumerated most total share", "[iceshare]") {
    // Rigid jobs of 1, 2 or 4 GPUs on three types of 4 GPUs each, more GPUs asked than there are: the
    // least is 0 and stage 2 is an assignment program, which the dynamic program over free GPUs takes
    // (iceshare_solve's; the MIP solve behind it is never called). Its total share must equal the best
    // of every choice (4^9).
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> speed(1, 10);
    const int sizes[] = {1, 2, 4};
    const MipSolve refuse = [](const Mip&, double) -> MipResult { throw std::logic_error("the MIP path was taken"); };
    for (int trial = 0; trial < 20; ++trial) {
        ClusterState s = cluster({"A", "B", "C"}, 4);
        s.time_s = 1000;
        for (int k = 0; k < 9; ++k)
            s.jobs.push_back(job("j" + std::to_string(k), 1000 * speed(rng), {speed(rng), speed(rng), speed(rng)},
                                 sizes[k % 3], 100.0 * k));
        const auto opts = iceshare_options(s);
        const TypeDecision d = iceshare_decide(s, {}, [&](const Mip& m, double t) { return solve_by_capacity_or(m, t, refuse); });
        double best = 0;
        for (int code = 0; code < 262144; ++code) {  // 4^9: each job idle or on one of three types
            int used[3] = {0, 0, 0};
            double total = 0;
            int c = code;
            for (size_t k = 0; k < s.jobs.size(); ++k, c /= 4) {
                const int t = c % 4 - 1;
                if (t < 0) continue;
                used[t] += s.jobs[k].num_gpus;
                for (const auto& o : opts)
                    if (o.job == k && o.type == t) total += o.share;
            }
            if (used[0] <= 4 && used[1] <= 4 && used[2] <= 4) best = std::max(best, total);
        }
        CHECK(d.stats.proven);
        CHECK(d.stats.objective == Approx(best).epsilon(1e-9));
        double total = 0;
        for (size_t k = 0; k < s.jobs.size(); ++k)
            for (const auto& o : opts)
                if (o.job == k && o.type == d.type[k]) total += o.share;
        CHECK(total == Approx(best).epsilon(1e-9));
    }
}
