#include <catch2/catch.hpp>

#include <hetsched/sched/round.hpp>
#include <hetsched/sched/tiresias_policy.hpp>

#include "sched_fixture.hpp"

using namespace hetsched::sched;
using test::cluster;
using test::job;
using test::running;

TEST_CASE("Tiresias demotes a job past its queue's limit and lets a new one preempt it", "[tiresias]") {
    ClusterState s = cluster({"A"}, 2);
    s.time_s = 4000;
    Job old = running(job("old", 1e6, {1}, 2), 0);
    old.book.attained_gpu_s = 3300;  // past the first limit, 3250 GPU-seconds
    old.book.first_start_s = 2350;
    s.jobs = {old, job("new", 1e6, {1}, 2, 3990)};
    RoundOptions o;
    const TypeDecision d = tiresias_decide(s, o);
    CHECK(s.jobs[0].book.tiresias_queue == 1);
    CHECK(s.jobs[0].book.tiresias_entered_s == 4000);
    CHECK(s.jobs[1].book.tiresias_queue == 0);
    CHECK(d.type == std::vector<int>{-1, 0});
    // A job demoted now goes to the back of its new queue, behind one waiting there since earlier
    // (dlas-gpu appends it): the waiting job runs.
    s.jobs[1].book.attained_gpu_s = 3300;
    s.jobs[1].book.tiresias_queue = 1;
    s.jobs[1].book.tiresias_entered_s = 3000;
    ClusterState now = s;
    CHECK(tiresias_decide(now, o).type == std::vector<int>{-1, 0});
    // A round later, still running, it stays ahead of that waiting job (dlas-gpu moves the jobs left
    // waiting behind those running after each pass).
    ClusterState later = s;
    later.time_s = 4300;
    CHECK(tiresias_decide(later, o).type == std::vector<int>{0, -1});
}

TEST_CASE("Tiresias promotes a starving job back to the top queue", "[tiresias]") {
    ClusterState s = cluster({"A"}, 1);
    s.time_s = 10000;
    Job starved = job("starved", 1e6, {1}, 1, 0);
    starved.book.attained_gpu_s = 4000;  // ran 4000 s (queue 1), then waited 6000 s since its first start
    starved.book.first_start_s = 0;
    Job other = running(job("other", 1e6, {1}, 1, 500), 0);  // also in queue 1, running
    other.book.attained_gpu_s = 5000;
    other.book.first_start_s = 500;
    s.jobs = {starved, other};
    RoundOptions o;
    o.tiresias_starvation = 2;  // promote after waiting twice the time run: 6000 < 8000, not yet
    ClusterState a = s;
    CHECK(tiresias_decide(a, o).type == std::vector<int>{-1, 0});
    CHECK(a.jobs[0].book.tiresias_queue == 1);
    o.tiresias_starvation = 1.5;  // 6000 ≥ 6000: promoted, service counted afresh, ahead of queue 1
    ClusterState b = s;
    CHECK(tiresias_decide(b, o).type == std::vector<int>{0, -1});
    CHECK(b.jobs[0].book.tiresias_queue == 0);
    CHECK(b.jobs[0].book.tiresias_base_gpu_s == 4000);
}

TEST_CASE("Tiresias draws each job one type with the seed and keeps it", "[tiresias]") {
    ClusterState s = cluster({"A", "B", "C"}, 8);
    int seen[3] = {0, 0, 0};
    for (int k = 0; k < 300; ++k) {
        const Job j = job("job" + std::to_string(k), 10, {1, 1, 1});
        const int t = tiresias_type(s, j, 7);
        REQUIRE(t >= 0);
        CHECK(t == tiresias_type(s, j, 7));
        ++seen[t];
    }
    for (int n : seen) CHECK(n > 60);  // about a third each
    const Job only_b = job("x", 10, {0, 1, 0});
    CHECK(tiresias_type(s, only_b, 7) == 1);
    // A job another policy placed keeps the type it runs on, whatever the draw would give.
    Job placed = job("job0", 10, {1, 1, 1});
    const int drawn = tiresias_type(s, placed, 7);
    placed.placement.type = (drawn + 1) % 3;
    CHECK(tiresias_type(s, placed, 7) == (drawn + 1) % 3);
}

TEST_CASE("Tiresias refuses a job in a queue its limits do not make, rather than starve it", "[tiresias]") {
    ClusterState s = cluster({"A"}, 1);
    Job j = job("lost", 10, {1});
    j.book.tiresias_queue = 7;
    j.book.tiresias_entered_s = 0;
    s.jobs = {j};
    RoundOptions o;
    CHECK_THROWS_WITH(tiresias_decide(s, o), "job 'lost' sits in Tiresias queue 7, but --tiresias-queues-s makes 3 "
                                             "queues (0 to 2): read a state with the queue limits it was written with");
    s.jobs[0].book.tiresias_queue = 2;  // the last queue of three
    CHECK(tiresias_decide(s, o).type == std::vector<int>{0});
}
