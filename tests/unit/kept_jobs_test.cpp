#include <catch2/catch.hpp>

#include <hetsched/sched/kept_jobs.hpp>
#include <hetsched/sched/round.hpp>

#include "sched_fixture.hpp"

using namespace hetsched::sched;
using test::cluster;
using test::job;
using test::running;

namespace {

/// Two GPUs on one node: `held` runs on one, submitted last with the most work; two short jobs
/// submitted first wait: a preempting policy may give the two GPUs to the waiting pair.
ClusterState held_and_two_waiting(bool preemptible) {
    ClusterState s = cluster({"A"}, 2);
    s.jobs = {job("e1", 10, {1}, 1, 0), job("e2", 10, {1}, 1, 1), running(job("held", 1000, {1}, 1, 100), 0)};
    s.jobs[2].preemptible = preemptible;
    s.time_s = 200;
    return s;
}

const Action* action_of(const RoundResult& r, const std::string& id) {
    for (const auto& a : r.actions)
        if (a.job_id == id) return &a;
    return nullptr;
}

}  // namespace

TEST_CASE("Every policy keeps a job that may not be preempted where it runs", "[kept]") {
    for (PolicyKind p : {PolicyKind::fft, PolicyKind::gavel, PolicyKind::gavel_agnostic, PolicyKind::tiresias,
                         PolicyKind::srtf, PolicyKind::fifo, PolicyKind::opportunistic, PolicyKind::allox,
                         PolicyKind::has, PolicyKind::sia, PolicyKind::iceshare}) {
        INFO(policy_name(p));
        RoundOptions o;
        o.policy = p;
        const ClusterState s = held_and_two_waiting(false);
        const RoundResult r = run_round(s, o);
        const Action* held = action_of(r, "held");
        REQUIRE(held);
        CHECK(held->kind == ActionKind::keep);
        CHECK(r.state.jobs[2].placement == s.jobs[2].placement);
        CHECK(r.decision.type.size() == 3);
        CHECK(r.decision.type[2] == 0);
        CHECK(r.decision.policy == policy_name(p));
        int busy = 0;  // the other GPU goes to one of the waiting jobs, never beyond the node's two
        for (const auto& j : r.state.jobs) busy += j.placement.gpus();
        CHECK(busy == 2);
    }
    // The same job when preemptible: shortest remaining time first stops it.
    RoundOptions srtf;
    srtf.policy = PolicyKind::srtf;
    const RoundResult r = run_round(held_and_two_waiting(true), srtf);
    REQUIRE(action_of(r, "held"));
    CHECK(action_of(r, "held")->kind == ActionKind::stop);
}

TEST_CASE("Which jobs a round keeps whatever its policy decides", "[kept]") {
    ClusterState s = held_and_two_waiting(false);
    CHECK(kept_jobs(s) == std::vector<char>{0, 0, 1});
    const ClusterState rest = without_kept(s, kept_jobs(s));
    REQUIRE(rest.jobs.size() == 2);
    CHECK(rest.jobs[0].id == "e1");
    CHECK(rest.nodes[0].gpus == 1);
    CHECK(rest.churned());  // no decision before: churned as the whole is

    ClusterState done = s;  // no work left: nothing to keep it for
    done.jobs[2].done = done.jobs[2].work;
    CHECK(kept_jobs(done) == std::vector<char>{0, 0, 0});
    ClusterState down = s;  // its node is down: it runs nowhere
    down.nodes[0].down = true;
    CHECK(kept_jobs(down) == std::vector<char>{0, 0, 0});
    ClusterState waiting = s;  // not running: nothing to keep
    waiting.jobs[2].placement = {};
    CHECK(kept_jobs(waiting) == std::vector<char>{0, 0, 0});
}

TEST_CASE("A job sharing a node's GPU with a kept sharer is kept with it", "[kept]") {
    // One GPU shared by x (not preemptible) and y; z, submitted first, waits.
    ClusterState s = cluster({"A"}, 1);
    s.jobs = {job("z", 10, {1}, 1, 0), job("x", 100, {1}, 1, 5), job("y", 100, {1}, 1, 6)};
    for (size_t k : {1, 2}) s.jobs[k].placement = {0, {{0, 1}}, true};
    s.jobs[1].preemptible = false;
    CHECK(kept_jobs(s) == std::vector<char>{0, 1, 1});
    CHECK(without_kept(s, kept_jobs(s)).nodes[0].gpus == 0);  // two sharers, one GPU
    for (PolicyKind p : {PolicyKind::fifo, PolicyKind::sia, PolicyKind::iceshare}) {  // sia's program has no sharing
        INFO(policy_name(p));
        RoundOptions o;
        o.policy = p;
        const RoundResult r = run_round(s, o);
        CHECK(!r.state.jobs[0].placement.running());
        CHECK(r.state.jobs[1].placement == s.jobs[1].placement);
        CHECK(r.state.jobs[2].placement == s.jobs[2].placement);
        CHECK(!r.decision.stats.method.empty());
    }
}

TEST_CASE("Gavel recomputes its allocation when a kept job leaves or is no longer kept", "[kept]") {
    // A (not preemptible) holds both GPUs; B arrives and gets no share of the GPUs A leaves (none).
    ClusterState s = cluster({"V100"}, 2);
    s.jobs = {running(job("A", 1600, {1}, 2, 0), 0), job("B", 500, {1}, 2, 500)};
    s.jobs[0].done = 1000;
    s.jobs[0].preemptible = false;
    s.time_s = 1000;
    RoundOptions o;
    o.policy = PolicyKind::gavel;
    RoundResult r = run_round(s, o);
    CHECK(!r.state.jobs[1].placement.running());
    ClusterState next = r.state;  // A finished and left; a reset is due
    next.jobs.erase(next.jobs.begin());
    next.time_s = 1000 + o.gavel_reset_s;
    r = run_round(next, o);
    CHECK(!r.decision.stats.reused);
    CHECK(r.state.jobs[0].placement.running());
    // The same with A still there but preemptible again: the kept set changed.
    ClusterState again = run_round(s, o).state;
    again.jobs[0].preemptible = true;
    again.time_s = 1000 + o.gavel_reset_s;
    CHECK(!run_round(again, o).decision.stats.reused);
    // Nothing changed: the allocation stands.
    ClusterState same = run_round(s, o).state;
    same.time_s = 1000 + o.gavel_reset_s;
    CHECK(run_round(same, o).decision.stats.reused);
}

TEST_CASE("A pinned job spread over nodes is not re-packed at churn", "[kept]") {
    // Two nodes of 2 GPUs; a job of 2 GPUs runs one on each. A new job arrives (churn): re-packing would
    // move the spread job onto one node, unless it is pinned (replay sees it still restoring).
    for (bool pinned : {false, true}) {
        ClusterState s = cluster({"A"}, 2);
        s.nodes.push_back({"A-node2", 0, 2, false});
        Job spread = job("spread", 100, {1}, 2, 0);
        spread.placement = {0, {{0, 1}, {1, 1}}};
        spread.pinned = pinned;
        s.jobs = {spread, job("new", 10, {1}, 1, 50)};
        s.time_s = 60;
        RoundOptions o;
        o.policy = PolicyKind::fifo;
        const RoundResult r = run_round(s, o);
        CHECK((r.state.jobs[0].placement == spread.placement) == pinned);
    }
}

TEST_CASE("Gavel lets a job no longer kept run on, its share lapsed at the allocation made without it", "[kept]") {
    // k (not preemptible) runs on one of A's two GPUs; w arrives. The allocation is made without k.
    ClusterState s = cluster({"A"}, 2);
    s.jobs = {running(job("k", 100000, {1}, 1, 0), 0), job("w", 100000, {1}, 1, 10)};
    s.jobs[0].preemptible = false;
    s.jobs[0].book.gavel_share = {1};  // from an older allocation
    s.time_s = 1000;
    RoundOptions o;
    o.policy = PolicyKind::gavel;
    RoundResult r = run_round(s, o);
    CHECK(r.state.jobs[0].book.gavel_share.empty());
    CHECK(r.state.jobs[0].book.gavel_deficit_s.empty());
    CHECK(r.state.jobs[0].book.gavel_base_s == r.state.jobs[0].book.time_per_type_s);
    CHECK(r.state.jobs[1].placement.running());
    // Preemptible again before the next reset: it has no share, but it runs, and keeps its GPU.
    ClusterState next = r.state;
    next.jobs[0].preemptible = true;
    next.time_s = 1300;
    r = run_round(next, o);
    CHECK(r.decision.stats.reused);
    CHECK(r.state.jobs[0].placement == next.jobs[0].placement);
    CHECK(r.state.jobs[1].placement.running());
}

TEST_CASE("A job that may not be preempted but whose type cannot hold it is left to the policy, sia too", "[kept]") {
    ClusterState s = cluster({"small", "big"}, 1, 60, {16, 80});
    s.jobs = {running(job("big", 100, {1, 1}), 0)};
    s.jobs[0].memory_gib = 40;
    s.jobs[0].preemptible = false;
    s.time_s = 100000;  // old enough that sia's restart factor lets it move
    CHECK(kept_jobs(s) == std::vector<char>{0});
    for (PolicyKind p : {PolicyKind::sia, PolicyKind::fft, PolicyKind::srtf}) {
        INFO(policy_name(p));
        RoundOptions o;
        o.policy = p;
        CHECK(run_round(s, o).state.jobs[0].placement.type == 1);  // moved to the type that holds it
    }
}
