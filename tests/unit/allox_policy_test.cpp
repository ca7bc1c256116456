#include <catch2/catch.hpp>

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

TEST_CASE("AlloX does not preempt and refuses multi-GPU jobs", "[allox]") {
    ClusterState s = cluster({"fast", "slow"});
    s.jobs = {running(job("long", 1000, {3, 1}, 1, 5), 0), job("short", 1, {3, 1}, 1, 0)};
    CHECK(allox_decide(s, {}).type == std::vector<int>{0, 1});
    s.jobs.push_back(job("pair", 10, {3, 1}, 2));
    CHECK_THROWS_AS(allox_decide(s, {}), hetsched::DataError);
}
