#include <catch2/catch.hpp>

#include <algorithm>

#include <hetsched/cli/error.hpp>
#include <hetsched/sched/allox_policy.hpp>

#include "sched_fixture.hpp"

using namespace hetsched::sched;
using test::cluster;
using test::job;
using test::running;

TEST_CASE("AlloX's matching may queue two jobs on the fast GPU and leave the slow one idle", "[allox]") {
    // X: 10 units, Y: 30; fast 3/s, slow 1/s. Slots cost k × time: X then Y on the fast GPU costs
    // 2 × 10/3 + 30/3 = 16.7, less than X on the slow and Y on the fast (10 + 10 = 20).
    ClusterState s = cluster({"fast", "slow"});
    s.jobs = {job("X", 10, {3, 1}), job("Y", 30, {3, 1})};
    CHECK(allox_decide(s, {}).type == std::vector<int>{0, -1});
}

TEST_CASE("AlloX starts a job on the idle slow GPU where queueing it on the fast one costs the same", "[allox]") {
    // Two jobs of 2000 units, fast 2/s, slow 1/s: one on each GPU (1000 + 2000) and both on the fast
    // one (1000 + 2 x 1000) both sum to 3000. Queued, the second would lose its place next round (only
    // free GPUs are slots) and finish later than either plan: the tie goes to starting both now.
    ClusterState s = cluster({"fast", "slow"});
    s.jobs = {job("a", 2000, {2, 1}), job("b", 2000, {2, 1})};
    const TypeDecision d = allox_decide(s, {});
    CHECK(d.type == std::vector<int>{0, 1});
    CHECK(d.stats.objective == Approx(3000));
}

TEST_CASE("AlloX's shortest queues hold among many matchings of equal cost", "[allox]") {
    // Three types of 2 GPUs; five jobs. Queueing j3 behind another (1750 in all) and starting all five
    // (j0, j1 on t0; j3, j4 on t1; j2 on t2: also 1750) tie: every job starts.
    ClusterState s = cluster({"t0", "t1", "t2"}, 2);
    s.jobs = {job("j0", 1000, {4, 2, 1}), job("j1", 2000, {4, 2, 2}), job("j2", 1000, {1, 4, 2}),
              job("j3", 1000, {4, 4, 1}), job("j4", 1000, {1, 4, 1})};
    const TypeDecision d = allox_decide(s, {});
    CHECK(std::count(d.type.begin(), d.type.end(), -1) == 0);
    CHECK(d.stats.objective == Approx(1750));
}

TEST_CASE("AlloX does not preempt and refuses multi-GPU jobs", "[allox]") {
    ClusterState s = cluster({"fast", "slow"});
    s.jobs = {running(job("long", 1000, {3, 1}, 1, 5), 0), job("short", 1, {3, 1}, 1, 0)};
    CHECK(allox_decide(s, {}).type == std::vector<int>{0, 1});
    s.jobs.push_back(job("pair", 10, {3, 1}, 2));
    CHECK_THROWS_AS(allox_decide(s, {}), hetsched::DataError);
}

TEST_CASE("AlloX starts the earliest of alike jobs, whatever the simplex or the state's order", "[allox]") {
    // One GPU: three alike jobs queue on it; the earliest (submit time, then id) is at its head.
    ClusterState s = cluster({"fast"});
    s.jobs = {job("z", 10, {1}), job("y", 10, {1}), job("x", 10, {1})};
    CHECK(allox_decide(s, {}).type == std::vector<int>{-1, -1, 0});
    s.jobs.push_back(job("w", 10, {1}, 1, -1));  // submitted before them
    CHECK(allox_decide(s, {}).type == std::vector<int>{-1, -1, -1, 0});
    // A fast and a slow GPU: two of three alike jobs queue on the fast one, one runs on the slow; the
    // two earliest start now, the earlier of them on the fast GPU.
    ClusterState two = cluster({"fast", "slow"});
    two.jobs = {job("z", 10, {2, 1}), job("y", 10, {2, 1}), job("x", 10, {2, 1})};
    CHECK(allox_decide(two, {}).type == std::vector<int>{-1, 1, 0});
}
