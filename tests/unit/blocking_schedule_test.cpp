#include <catch2/catch.hpp>

#include <hetsched/place/blocking_schedule.hpp>

using namespace hetsched::place;

TEST_CASE("blocking transfers hold both stages, as worked out by hand", "[place]") {
    // Two stages, f = 1, b = 2, 0.5 s each way, 2 micro-batches. DeepSpeed's commands:
    //   stage 0: F0 SA0 F1 RG0 SA1 B0 RG1 B1;  stage 1: RA0 F0 B0 SG0 RA1 F1 B1 SG1.
    // Stage 0: F0 [0,1], SA0 [1,1.5], F1 [1.5,2.5], waits; stage 1: F0 [1.5,2.5], B0 [2.5,4.5];
    // SG0 [4.5,5], SA1 [5,5.5]; stage 0 B0 [5.5,7.5]; stage 1 F1 [5.5,6.5], B1 [6.5,8.5];
    // SG1 [8.5,9]; stage 0 B1 [9,11]. The overlapped schedule takes 10.
    std::vector<StageCosts> stages{{1, 2, 0.5, 1}, {1, 2, 0, 3, 0.5}};
    Schedule s;
    simulate_blocking(stages, 2, s);
    CHECK(s.backward_end[0] == Approx(11));
    CHECK(s.backward_end[1] == Approx(9));  // its last backward, then the gradient it sends back
    CHECK(s.pipeline_s == Approx(11));
    CHECK(s.iteration_s == Approx(12.5));  // stage 1: 9 + 3 + 0.5 (stage 0: 11 + 1)
    simulate_1f1b(stages, 2, s);
    CHECK(s.pipeline_s == Approx(10));
}

TEST_CASE("without transfers, equal stages take the textbook (m + p - 1)(f + b)", "[place]") {
    for (int p : {1, 2, 3, 4, 7}) {
        for (long m : {1L, 2L, 3L, 8L, 33L}) {
            const std::vector<StageCosts> stages(static_cast<size_t>(p), StageCosts{1.0, 2.0, 0, 0});
            Schedule s;
            simulate_blocking(stages, m, s);
            CAPTURE(p, m);
            CHECK(s.iteration_s == Approx(static_cast<double>(m + p - 1) * 3.0));
        }
    }
}

TEST_CASE("a blocking stage is busy with one thing at a time, its transfers included", "[place]") {
    std::vector<StageCosts> stages{{1, 2, 0.3, 1, 0.2}, {0.5, 1.5, 0.2, 0}, {2, 3, 0, 2, 0.1}};
    std::vector<TimelineEvent> timeline;
    Schedule s;
    simulate_blocking(stages, 5, s, &timeline);
    int compute = 0, sends = 0, tails = 0;
    std::vector<double> busy_until(3, 0);
    for (const auto& e : timeline) {
        CHECK(e.end_s <= s.iteration_s + 1e-12);
        if (e.kind == EventKind::allreduce || e.kind == EventKind::optimizer_step) {
            ++tails;
            continue;
        }
        // A transfer occupies the sender and the receiver.
        std::vector<int> who{e.stage};
        if (e.kind == EventKind::send_activation) who.push_back(e.stage + 1);
        if (e.kind == EventKind::send_gradient) who.push_back(e.stage - 1);
        for (int st : who) {
            CHECK(e.start_s >= busy_until[static_cast<size_t>(st)] - 1e-12);
            busy_until[static_cast<size_t>(st)] = e.end_s;
        }
        if (e.kind == EventKind::forward || e.kind == EventKind::backward) ++compute;
        else ++sends;
    }
    CHECK(compute == 2 * 5 * 3);
    CHECK(sends == 2 * 5 * 2);
    CHECK(tails == 4);  // stage 0's and 2's all-reduce and optimizer step
}
