#include <catch2/catch.hpp>

#include <algorithm>

#include <hetsched/sched/policy.hpp>
#include <hetsched/sched/queue_policies.hpp>
#include <hetsched/sched/round.hpp>

#include "sched_fixture.hpp"

using namespace hetsched::sched;
using test::cluster;
using test::job;
using test::running;

TEST_CASE("srtf gives the fastest type to the shortest remaining job, preempting", "[baselines]") {
    ClusterState s = cluster({"fast", "slow"});
    s.jobs = {running(job("long", 1000, {2, 1}), 0), job("short", 10, {2, 1}, 1, 50)};
    const TypeDecision d = srtf_decide(s, {});
    CHECK(d.type == std::vector<int>{1, 0});
}

TEST_CASE("opportunistic: first come, first served, fastest free type, no preemption", "[baselines]") {
    ClusterState s = cluster({"slow", "fast"});
    s.jobs = {running(job("late-but-running", 1000, {1, 2}, 1, 100), 1), job("early", 10, {1, 2}, 1, 0),
              job("later", 10, {1, 2}, 1, 200)};
    const TypeDecision d = opportunistic_decide(s, {});
    CHECK(d.type == std::vector<int>{1, 0, -1});  // the running job keeps the fast GPU; 'early' takes what is left
}

TEST_CASE("fifo: first come, first served, skipping a job that does not fit", "[baselines]") {
    ClusterState s = cluster({"A"}, 4);
    s.jobs = {job("first", 10, {1}, 2, 0), job("big", 10, {1}, 4, 1), job("small", 10, {1}, 2, 2)};
    const TypeDecision d = fifo_decide(s, {});
    CHECK(d.type == std::vector<int>{0, -1, 0});
}

TEST_CASE("has: the smallest GPU type whose memory holds the job", "[baselines]") {
    ClusterState s = cluster({"A100-80", "T4", "A10"}, 2, 60, {80, 16, 24});
    s.jobs = {job("needs-20", 10, {3, 1, 2}), job("needs-10", 10, {3, 1, 2}), job("needs-60", 10, {3, 1, 2})};
    s.jobs[0].memory_gib = 20;
    s.jobs[1].memory_gib = 10;
    s.jobs[2].memory_gib = 60;
    const TypeDecision d = has_decide(s, {});
    CHECK(d.type == std::vector<int>{2, 1, 0});
    // Types alike in memory, or of unknown memory: the job's faster first, whatever the listed order.
    for (const auto& [names, rates] : {std::pair{std::vector<std::string>{"K80", "V100"}, std::vector<double>{1, 2}},
                                       {{"V100", "K80"}, {2, 1}}}) {
        ClusterState u = cluster(names, 1);
        u.jobs = {job("lone", 10, rates)};
        CHECK(u.types[static_cast<size_t>(has_decide(u, {}).type[0])].name == "V100");
    }
}

TEST_CASE("Every baseline leaves down nodes and memory-infeasible types alone", "[baselines]") {
    ClusterState s = cluster({"small", "big"}, 2, 60, {16, 80});
    s.nodes[1].down = true;
    s.jobs = {job("needs-40", 10, {2, 1}), job("fits", 10, {2, 1})};
    s.jobs[0].memory_gib = 40;
    for (auto p : {PolicyKind::fft, PolicyKind::gavel, PolicyKind::gavel_agnostic, PolicyKind::tiresias,
                   PolicyKind::srtf, PolicyKind::fifo, PolicyKind::opportunistic, PolicyKind::allox, PolicyKind::has}) {
        RoundOptions o;
        o.policy = p;
        const RoundResult r = run_round(s, o);
        INFO(policy_name(p));
        CHECK_FALSE(r.state.jobs[0].placement.running());
        CHECK(r.state.jobs[1].placement.type == 0);
    }
}

TEST_CASE("A job whose node went down never takes the GPUs of a job still running on its type", "[baselines]") {
    // One V100 and two K80 nodes; 'a' ran on the K80 node that went down, 'b' (K80 only) runs on the
    // other. The non-preemptive policies kept a's type first: a took b's node and b was stopped, with
    // the V100 idle. Now b keeps its node and a moves to the V100.
    ClusterState s = cluster({"V100", "K80"}, 1);
    s.nodes.push_back({"K80-node-2", 1, 1, false});
    s.nodes[1].down = true;
    s.jobs = {running(job("a", 1000, {10, 5}, 1, 0), 1), job("b", 1000, {0, 5}, 1, 10)};
    s.jobs[1].placement = {1, {{2, 1}}};
    for (auto p : {PolicyKind::fifo, PolicyKind::opportunistic, PolicyKind::has, PolicyKind::allox, PolicyKind::fft,
                   PolicyKind::srtf, PolicyKind::gavel, PolicyKind::tiresias}) {
        RoundOptions o;
        o.policy = p;
        const RoundResult r = run_round(s, o);
        INFO(policy_name(p));
        CHECK(r.state.jobs[1].placement == s.jobs[1].placement);
        if (p != PolicyKind::tiresias) CHECK(r.state.jobs[0].placement.type == 0);  // tiresias: a's drawn type only
    }
}

TEST_CASE("A job the state gives running with no first start started as long ago as its bookkeeping says", "[baselines]") {
    // Adopted at 1000 s having run 300 s on A and 100 s on B: it started at 600 s, not at the round.
    // With no record of time, its progress says how long it ran at least.
    ClusterState s = cluster({"A", "B"});
    s.time_s = 1000;
    s.jobs = {running(job("adopted", 1e6, {1, 1}, 1, 50), 0), running(job("fresh", 1e6, {1, 1}, 1, 990), 1)};
    s.jobs[0].book.time_per_type_s = {300, 100};
    RoundOptions o;
    o.policy = PolicyKind::fifo;
    const RoundResult r = run_round(s, o);
    CHECK(r.state.jobs[0].book.first_start_s == 600);
    CHECK(r.state.jobs[1].book.first_start_s == 1000);  // no record of running: now, the latest it can have started
    s.jobs[0].book.time_per_type_s = {3000, 0};          // more than since its submission: its submission
    CHECK(run_round(s, o).state.jobs[0].book.first_start_s == 50);
    s.jobs[0].book.time_per_type_s = {0, 0};
    s.jobs[0].done = 200;  // 200 units at 1 a second on either type: it ran 200 s at least
    CHECK(run_round(s, o).state.jobs[0].book.first_start_s == 800);
    // An elastic job may have run at a larger size: 8000 units at 8 GPUs' 80 a second took 100 s.
    s.jobs[0].done = 8000;
    s.jobs[0].throughput = {10, 10};
    s.jobs[0].scales = {{1, {10, 10}}, {8, {80, 80}}};
    CHECK(run_round(s, o).state.jobs[0].book.first_start_s == 900);
}

TEST_CASE("srtf rates a job by the types that can hold its GPUs", "[baselines]") {
    // Both need 4 GPUs: only K80 (4) holds them, V100 has 2. A's 4000 units take 1000 s there (10 s at
    // V100's 400/s, a speed it can never have), B's 3000 take 500 s: B, the shorter, goes first.
    ClusterState s = cluster({"K80", "V100"}, 4);
    s.nodes[1].gpus = 2;
    s.jobs = {job("A", 4000, {4, 400}, 4), job("B", 3000, {6, 4}, 4)};
    CHECK(srtf_decide(s, {}).type == std::vector<int>{-1, 0});
}

TEST_CASE("Every policy takes jobs that tie in order of submission, then id, whatever the state's order", "[baselines]") {
    const std::vector<PolicyKind> all = {PolicyKind::fft, PolicyKind::gavel, PolicyKind::gavel_agnostic,
                                         PolicyKind::tiresias, PolicyKind::srtf, PolicyKind::fifo,
                                         PolicyKind::opportunistic, PolicyKind::allox, PolicyKind::has,
                                         PolicyKind::sia, PolicyKind::iceshare};
    const std::vector<std::vector<std::string>> orders = {{"x", "y", "z"}, {"z", "y", "x"}, {"y", "z", "x"}};
    auto runs = [](const RoundResult& r) {
        std::vector<std::string> ids;
        for (const auto& j : r.state.jobs)
            if (j.placement.running()) ids.push_back(j.id);
        std::sort(ids.begin(), ids.end());
        return ids;
    };
    for (const auto p : all)
        for (const auto& order : orders) {
            INFO(policy_name(p) << " on jobs listed " << order[0] << order[1] << order[2]);
            RoundOptions o;
            o.policy = p;
            ClusterState one = cluster({"A"});  // one GPU: x runs
            one.time_s = 10;
            for (const auto& id : order) one.jobs.push_back(job(id, 1000, {1}, 1, 5));
            CHECK(runs(run_round(one, o)) == std::vector<std::string>{"x"});
            // An earlier submission goes first, whatever its id (fft's costs tell their ages apart: no tie).
            if (p == PolicyKind::fft) continue;
            one.jobs.push_back(job("a-late", 1000, {1}, 1, 10));
            one.jobs.push_back(job("w-early", 1000, {1}, 1, 0));
            CHECK(runs(run_round(one, o)) == std::vector<std::string>{"w-early"});
        }
    // A fast and a slow GPU: the programs' policies and AlloX run x and y, not z.
    for (const auto p : {PolicyKind::fft, PolicyKind::sia, PolicyKind::iceshare, PolicyKind::allox, PolicyKind::opportunistic})
        for (const auto& order : orders) {
            INFO(policy_name(p) << " on jobs listed " << order[0] << order[1] << order[2]);
            RoundOptions o;
            o.policy = p;
            ClusterState two = cluster({"fast", "slow"});
            for (const auto& id : order) two.jobs.push_back(job(id, 1000, {2, 1}));
            CHECK(runs(run_round(two, o)) == std::vector<std::string>{"x", "y"});
        }
}

TEST_CASE("the first-come, first-served policies never preempt, the others may", "[baselines]") {
    for (auto p : {PolicyKind::fifo, PolicyKind::opportunistic, PolicyKind::has, PolicyKind::allox}) CHECK_FALSE(preempts(p));
    for (auto p : {PolicyKind::fft, PolicyKind::gavel, PolicyKind::gavel_agnostic, PolicyKind::tiresias, PolicyKind::srtf,
                   PolicyKind::sia, PolicyKind::iceshare})
        CHECK(preempts(p));
}
