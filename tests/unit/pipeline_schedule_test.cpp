#include <catch2/catch.hpp>

#include <random>

#include <hetsched/place/blocking_schedule.hpp>
#include <hetsched/place/pipeline_schedule.hpp>

using namespace hetsched::place;

namespace {

double run(const std::vector<StageCosts>& stages, long m, std::vector<TimelineEvent>* timeline = nullptr) {
    Schedule s;
    simulate_1f1b(stages, m, s, timeline);
    return s.iteration_s;
}

}  // namespace

TEST_CASE("a homogeneous pipeline takes the textbook 1F1B time (m + p - 1)(f + b)", "[place]") {
    for (int p : {1, 2, 4, 7}) {
        for (long m : {1L, 2L, 3L, 8L, 33L}) {
            const std::vector<StageCosts> stages(static_cast<size_t>(p), StageCosts{1.0, 2.0, 0, 0});
            CAPTURE(p, m);
            CHECK(run(stages, m) == Approx(static_cast<double>(m + p - 1) * 3.0));
        }
    }
}

TEST_CASE("transfers delay the pipeline as worked out by hand", "[place]") {
    // Two stages, f = 1, b = 2, 0.5 s each way. Stage 0: F0 [0,1] F1 [1,2] B0 [5,7] B1 [8,10];
    // stage 1: F0 [1.5,2.5] B0 [2.5,4.5] F1 [4.5,5.5] B1 [5.5,7.5].
    std::vector<StageCosts> stages{{1, 2, 0.5, 1}, {1, 2, 0, 3}};
    Schedule s;
    simulate_1f1b(stages, 2, s);
    CHECK(s.backward_end[0] == Approx(10));
    CHECK(s.backward_end[1] == Approx(7.5));
    CHECK(s.pipeline_s == Approx(10));
    CHECK(s.iteration_s == Approx(11));  // stage 0's all-reduce: 10 + 1 (stage 1's ends at 10.5)
}

TEST_CASE("a slow link carries one micro-batch at a time", "[place]") {
    // f = 0.1, b = 0.2, 1 s per transfer. Activations cross [0.1,1.1] [1.1,2.1] [2.7,3.7]; gradients
    // [1.4,2.4] [2.4,3.4] [4.0,5.0]; stage 0's last backward [5.0,5.2].
    std::vector<StageCosts> stages{{0.1, 0.2, 1, 0}, {0.1, 0.2, 0, 0}};
    CHECK(run(stages, 3) == Approx(5.2));
}

TEST_CASE("all-reduces overlap earlier stages' backward as Espresso Eq. 9 says", "[place]") {
    // Equal stages drain back to front one backward apart, so T = T_0^comp + max_i (ar_i - i b).
    std::vector<StageCosts> stages{{1, 2, 0, 0.5}, {1, 2, 0, 3}, {1, 2, 0, 5.5}, {1, 2, 0, 9}};
    const double comp = (8 + 4 - 1) * 3.0;
    CHECK(run(stages, 8) == Approx(comp + std::max({0.5, 3 - 2.0, 5.5 - 4.0, 9 - 6.0})));
}

TEST_CASE("the timeline holds every operation once and never overlaps a stage's compute", "[place]") {
    std::vector<StageCosts> stages{{1, 2, 0.3, 1}, {0.5, 1.5, 0.2, 0}, {2, 3, 0, 2}};
    std::vector<TimelineEvent> timeline;
    const double t = run(stages, 5, &timeline);
    int compute = 0, sends = 0, reduces = 0;
    std::vector<double> busy_until(3, 0);
    for (const auto& e : timeline) {
        CHECK(e.end_s >= e.start_s);
        CHECK(e.end_s <= t + 1e-12);
        if (e.kind == EventKind::forward || e.kind == EventKind::backward) {
            ++compute;
            CHECK(e.start_s >= busy_until[static_cast<size_t>(e.stage)] - 1e-12);
            busy_until[static_cast<size_t>(e.stage)] = e.end_s;
        } else if (e.kind == EventKind::allreduce) {
            ++reduces;
        } else {
            ++sends;
        }
    }
    CHECK(compute == 2 * 5 * 3);
    CHECK(sends == 2 * 5 * 2);
    CHECK(reduces == 2);
}

TEST_CASE("the slowest stage sets the pace of a long pipeline", "[place]") {
    std::vector<StageCosts> stages{{1, 2, 0, 0}, {2, 4, 0, 0}, {1, 2, 0, 0}};
    const double m = 64;
    const double t = run(stages, 64);
    CHECK(t >= m * 6);
    CHECK(t <= m * 6 + 2 * 3 + 6);  // plus filling and draining around the slow stage
}

TEST_CASE("the schedule's lower bound never exceeds either simulation, and the blocking one never deadlocks "
          "nor beats the overlapped one", "[place]") {
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int trial = 0; trial < 2000; ++trial) {
        const size_t k = 1 + rng() % 9;
        const long m = 1 + static_cast<long>(rng() % 24);
        std::vector<StageCosts> stages(k);
        for (auto& c : stages) {
            c.forward = u(rng);
            c.backward = u(rng) * 2;
            c.to_next = rng() % 3 == 0 ? 0 : u(rng) * 0.5;
            c.allreduce = rng() % 2 == 0 ? 0 : u(rng) * 3;
            c.optimizer = u(rng) * 0.2;
        }
        stages.back().to_next = 0;
        Schedule s, blocking;
        simulate_1f1b(stages, m, s);
        INFO("trial " << trial << ", " << k << " stages, " << m << " micro-batches");
        const double overlapped_bound = schedule_lower_bound(stages, m, ScheduleKind::overlapped);
        CHECK(overlapped_bound <= s.iteration_s * (1 + 1e-12));
        REQUIRE_NOTHROW(simulate_blocking(stages, m, blocking));
        CHECK(blocking.iteration_s >= s.iteration_s * (1 - 1e-12));
        const double blocking_bound = schedule_lower_bound(stages, m, ScheduleKind::blocking);
        CHECK(blocking_bound <= blocking.iteration_s * (1 + 1e-12));
        CHECK(blocking_bound >= overlapped_bound);
    }
    const std::vector<StageCosts> equal(4, StageCosts{1, 2, 0, 0});
    CHECK(schedule_lower_bound(equal, 8, ScheduleKind::overlapped) == Approx((8 + 4 - 1) * 3.0));
    CHECK(schedule_lower_bound(equal, 8, ScheduleKind::blocking) == Approx((8 + 4 - 1) * 3.0));
}

TEST_CASE("the blocking bound counts the transfers that hold a stage", "[place]") {
    // Two stages, f = 1, b = 2, a 0.5 s link, m = 4. Micro-batch 0 reaches stage 1 at 1 + 0.5; stage 1
    // then runs 4 forwards and 4 backwards (12 s) and is held by the link's 7 other transfers (3.5 s),
    // the last of them its last gradient back; stage 0's last backward follows: 1.5 + 12 + 3.5 + 2 = 19.
    const std::vector<StageCosts> stages{{1, 2, 0.5}, {1, 2, 0}};
    Schedule s;
    simulate_blocking(stages, 4, s);
    CHECK(s.iteration_s == Approx(19));
    CHECK(schedule_lower_bound(stages, 4, ScheduleKind::blocking) == Approx(19));
    // Overlapped, the transfers run beside compute, but stage 0 still waits for each gradient: after its
    // first forward (it runs one more forward, 1 s) the first comes back after 0.5 + 1 + 2 + 0.5 = 4 s,
    // and after its last forward (it runs one backward, 2 s) the last comes back 4 s later: 12 s of work
    // and 5 s of waits, 17 s, as the schedule runs (it used to be bounded by 16).
    Schedule o;
    simulate_1f1b(stages, 4, o);
    CHECK(o.iteration_s == Approx(17));
    CHECK(schedule_lower_bound(stages, 4, ScheduleKind::overlapped) == Approx(17));
}

TEST_CASE("the first and last stage sync the tied embedding once both are ready", "[place]") {
    // The hand-worked two-stage pipeline above: stage 0's last backward ends at 10, stage 1's at 7.5;
    // all-reduces of 1 and 3 s, optimizer steps of 0.5 s, a tied sync of 2 s.
    std::vector<StageCosts> stages{{1, 2, 0.5, 1, 0.5, 2}, {1, 2, 0, 3, 0.5, 2}};
    std::vector<TimelineEvent> timeline;
    Schedule s;
    // Megatron-LM: each stage all-reduces first (ready at 11 and 10.5), then both sync from 11 to 13.
    simulate_1f1b(stages, 2, s, &timeline);
    CHECK(s.stage_end[0] == Approx(13.5));
    CHECK(s.stage_end[1] == Approx(13.5));
    CHECK(s.iteration_s == Approx(13.5));
    long syncs = 0;
    for (const auto& e : timeline)
        if (e.kind == EventKind::embedding_allreduce) {
            ++syncs;
            CHECK(e.start_s == Approx(11));
            CHECK(e.end_s == Approx(13));
        }
    CHECK(syncs == 2);
    // DeepSpeed: the sync comes first, from 10 (both done with backward) to 12; then the all-reduces.
    for (auto& c : stages) c.tied_before_allreduce = true;
    simulate_1f1b(stages, 2, s);
    CHECK(s.stage_end[0] == Approx(12 + 1 + 0.5));
    CHECK(s.stage_end[1] == Approx(12 + 3 + 0.5));
    CHECK(s.iteration_s == Approx(15.5));
    // A middle stage never waits for it.
    stages.insert(stages.begin() + 1, StageCosts{1, 2, 0.5, 1, 0.5, 0});
    simulate_1f1b(stages, 2, s);
    CHECK(s.stage_end[1] == Approx(s.backward_end[1] + 1.5));
    // The lower bound still holds.
    CHECK(schedule_lower_bound(stages, 2, ScheduleKind::overlapped) <= s.iteration_s);
}
