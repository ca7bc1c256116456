#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>

#include <hetsched/cli/error.hpp>
#include <hetsched/sched/fft_policy.hpp>
#include <hetsched/sched/round.hpp>
#include <hetsched/sched/type_fill.hpp>

#include "sched_fixture.hpp"

using namespace hetsched::sched;
using test::cluster;
using test::job;

namespace {

/// Thirty jobs of 1, 2 and 4 GPUs on three types of 4 GPUs, arriving 100 s apart: a round no 0-1
/// program GLPK proves in no time.
ClusterState thirty_jobs() {
    ClusterState s = cluster({"A", "B", "C"}, 4, 300);
    s.time_s = 5000;
    for (int k = 0; k < 30; ++k) {
        Job j = job("j" + std::to_string(k), 1000 + 137 * k, {1.0 + k % 3, 0.5 + (k % 5) * 0.3, k % 4 ? 0.7 : 0.0},
                    1 << (k % 3));
        j.submit_time_s = 100.0 * k;
        s.jobs.push_back(j);
    }
    return s;
}

/// Runs rounds until every job is done, advancing each running job at its type's throughput and
/// finishing it at the exact instant its work completes; returns each job's completion time.
std::map<std::string, double> run_to_completion(ClusterState s, const RoundOptions& o) {
    std::map<std::string, double> finish;
    for (int round = 0; round < 1000 && !s.jobs.empty(); ++round) {
        s = run_round(s, o).state;
        for (auto& j : s.jobs) {
            if (!j.placement.running()) continue;
            const double rate = j.throughput[static_cast<size_t>(j.placement.type)];
            const double needed = j.remaining() / rate;
            if (needed <= s.round_length_s + 1e-9) {
                j.done = j.work;
                finish[j.id] = s.time_s + needed;
            } else {
                j.done += rate * s.round_length_s;
            }
        }
        s.jobs.erase(std::remove_if(s.jobs.begin(), s.jobs.end(), [](const Job& j) { return j.remaining() <= 0; }),
                     s.jobs.end());
        s.time_s += s.round_length_s;
    }
    return finish;
}

}  // namespace

TEST_CASE("FFT Table 1: two 16-epoch jobs, 8 vs 1 epochs/min, total JCT 5.75 min, not 64/9", "[fft]") {
    ClusterState s = cluster({"GPU0", "GPU1"});
    s.jobs.push_back(job("I0", 16, {8.0 / 60, 1.0 / 60}));
    s.jobs.push_back(job("I1", 16, {8.0 / 60, 1.0 / 60}));
    RoundOptions o;
    o.migration_restart_s = 0;  // migration free, as in the example
    const auto finish = run_to_completion(s, o);
    REQUIRE(finish.size() == 2);
    // One job on GPU0 finishes at 2 min; the other runs 2 epochs on GPU1, then moves: 2 + 14/8 min.
    const double total_min = (finish.at("I0") + finish.at("I1")) / 60;
    CHECK(total_min == Approx(5.75));
    CHECK(total_min < 64.0 / 9);
    CHECK(std::min(finish.at("I0"), finish.at("I1")) == Approx(120));
}

TEST_CASE("FFT Fig. 2: a 2-minute migration is not taken when the speed-up does not pay for it", "[fft]") {
    // J4 has run 5 of its 14.4 minutes on the T4; the A10 has just been freed.
    auto at_five_minutes = [](double a10_speedup, double migration_s) {
        ClusterState s = cluster({"T4", "A10"});
        s.time_s = 300;
        Job j = job("J4", 14.4, {1.0 / 60, a10_speedup / 60});
        j.done = 5;
        j.placement = {0, {{0, 1}}};
        s.jobs.push_back(j);
        RoundOptions o;
        o.migration_restart_s = migration_s;
        const RoundResult r = run_round(s, o);
        REQUIRE(r.actions.size() == 1);
        return r.actions[0];
    };
    // A10 1.15x: FFT's demand term gains 14.4 (1 - 1/1.15) = 1.88 rounds, less than 2 rounds moving.
    CHECK(at_five_minutes(1.15, 120).kind == ActionKind::keep);
    CHECK(at_five_minutes(1.15, 0).kind == ActionKind::migrate);
    // A10 1.6x (the lower end of Fig. 1's speed-ups): 5.4 rounds gained pay for the 2-minute move.
    const Action fast = at_five_minutes(1.6, 120);
    CHECK(fast.kind == ActionKind::migrate);
    CHECK(fast.placement.type == 1);
}

TEST_CASE("FFT cost terms are in rounds and do not depend on the unit work is counted in", "[fft]") {
    ClusterState s = cluster({"A", "B"}, 4, 300);
    s.time_s = 3000;
    Job j = job("j", 1000, {2.0, 0.5}, 2);
    j.submit_time_s = 1200;
    j.book.rho = 0.3;
    j.placement = {1, {{1, 2}}};
    j.checkpoint_gib = 10;
    s.jobs.push_back(j);
    RoundOptions o;
    o.migration_gb_s = 1.25;
    o.migration_restart_s = 30;
    std::vector<std::vector<CostTerms>> terms;
    const AssignmentProgram p = fft_program(s, o, &terms);
    const CostTerms& a = terms[0][0];
    CHECK(a.age == Approx(1800 * 2.0 / 1000));               // (t - a) θ / W
    CHECK(a.demand == Approx(2 * 1000 / (2.0 * 300)));       // d W / θ, in rounds
    CHECK(a.change == Approx((10 * 1.073741824 / 1.25 + 30) / 300));
    CHECK(a.fairness == Approx(0.3 * 2.0 / 2.0));
    CHECK(terms[0][1].change == 0);
    CHECK(p.c(0, 0) == Approx(a.total()));
    // The same job counted in units 1000 times smaller costs the same.
    s.jobs[0].work *= 1000;
    s.jobs[0].throughput = {2000, 500};
    std::vector<std::vector<CostTerms>> scaled;
    fft_program(s, o, &scaled);
    CHECK(scaled[0][0].total() == Approx(a.total()));
}

TEST_CASE("FFT's rho grows while a job falls behind its fair share and is spent when it runs", "[fft]") {
    ClusterState s = cluster({"A"}, 1, 60);
    s.time_s = 600;
    Job j = job("j", 100, {1.0 / 60});
    j.book.tau_s = 200 * 60;  // fair finish at 200 min: 0.5 of the GPU
    s.jobs.push_back(j);
    // μ = 10/200; fair progress 100 / (1 · 200) = 0.5 fastest-type rounds per round.
    CHECK(next_rho(s, s.jobs[0], -1, s.capacity(), s.time_s) == Approx(0.05 * 0.5));
    s.jobs[0].book.rho = 1;
    CHECK(next_rho(s, s.jobs[0], 0, s.capacity(), s.time_s) == Approx(1 + 0.05 * (0.5 - 1)));
    s.jobs[0].book.rho = 0;
    CHECK(next_rho(s, s.jobs[0], 0, s.capacity(), s.time_s) == 0);  // never negative
}

TEST_CASE("FFT's tau is the finish time under a 1/|A| share of every type since arrival, without preemption", "[fft]") {
    ClusterState s = cluster({"A", "B"}, 4);
    s.time_s = 5000;
    Job j = job("j", 1000, {2.0, 1.0}, 2, 100);
    j.done = 400;  // progress does not move the fair finish: it counts from arrival
    // Four jobs: a quarter of A is 1 GPU of the 2 needed (rate 2 · 0.5), of B the same (1 · 0.5).
    CHECK(fair_finish_s(s, j, 4) == Approx(100 + 1000 / 1.0));
    // Alone, the job has A whole.
    CHECK(fair_finish_s(s, j, 1) == Approx(100 + 1000 / 2.0));
}

TEST_CASE("FFT keeps every GPU busy that the jobs can use, even when running costs more", "[fft]") {
    ClusterState s = cluster({"A", "B"}, 2);
    s.jobs.push_back(job("big", 1e6, {1.0, 1.0}, 2));
    s.jobs.push_back(job("small", 10, {1.0, 1.0}, 1));
    s.jobs.push_back(job("only-a", 10, {1.0, 0.0}, 2));
    s.nodes[1].down = true;  // B's GPUs are away: two of A's are all there is
    const RoundResult r = run_round(s, {});
    CHECK(r.decision.min_busy == 2);
    long busy = 0;
    for (size_t k = 0; k < r.state.jobs.size(); ++k)
        if (r.state.jobs[k].placement.running()) {
            busy += r.state.jobs[k].num_gpus;
            CHECK(r.state.jobs[k].placement.type == 0);
        }
    CHECK(busy == 2);
}

TEST_CASE("The exact and structured paths give the same round", "[fft]") {
    ClusterState s = thirty_jobs();
    RoundOptions exact;
    exact.exact = true;
    const RoundResult a = run_round(s, {}), b = run_round(s, exact);
    CHECK(a.decision.stats.objective == Approx(b.decision.stats.objective));
    CHECK(a.decision.stats.gap() == 0);
}

TEST_CASE("FFT's theta_max, tau and rho count only the types with the job's GPUs up", "[fft]") {
    // 2 V100 and 4 K80; the job needs 4 GPUs: only K80 holds it, at 4 units/s (V100's 400 it can never
    // have). Alone, its fair finish is 4000 / 4 = 1000 s; running alone on K80 it gets all it is due.
    ClusterState s = cluster({"V100", "K80"}, 2, 300);
    s.nodes[1].gpus = 4;
    s.jobs.push_back(job("a", 4000, {400, 4}, 4));
    CHECK(best_throughput(s, s.jobs[0], s.capacity()) == 4);
    CHECK(fair_finish_s(s, s.jobs[0], 1) == Approx(1000));
    RoundResult r = run_round(s, {});
    CHECK(r.state.jobs[0].placement.type == 1);
    CHECK(r.state.jobs[0].book.tau_s == Approx(1000));
    r.state.time_s = 300;
    r = run_round(r.state, {});
    CHECK(r.state.jobs[0].book.rho == 0);
    // The fairness term is relative to K80 too: rho x theta / theta_max = rho on K80.
    r.state.jobs[0].book.rho = 0.5;
    std::vector<std::vector<CostTerms>> terms;
    fft_program(r.state, {}, &terms);
    REQUIRE(terms[0].size() == 1);
    CHECK(terms[0][0].fairness == Approx(0.5));
}

TEST_CASE("FFT gives a job the fair finish time it lacked once a type that holds its gang is back up", "[fft]") {
    // The 4-GPU job arrives while the K80 node is down: no type up holds it, so it has no fair finish
    // time. The node comes back with no arrival or departure; the job's tau is then set from its
    // arrival (4000 / 4 = 1000 s), not left unset until the next churn with rho frozen meanwhile.
    ClusterState s = cluster({"V100", "K80"}, 2, 300);
    s.nodes[1].gpus = 4;
    s.nodes[1].down = true;
    s.jobs.push_back(job("a", 4000, {400, 4}, 4));
    RoundResult r = run_round(s, {});
    CHECK(r.state.jobs[0].book.tau_s < 0);
    r.state.time_s = 300;
    r.state.nodes[1].down = false;
    r = run_round(r.state, {});
    CHECK(r.state.jobs[0].book.tau_s == Approx(1000));
    CHECK(r.state.jobs[0].placement.type == 1);
}

namespace {

/// The first round of job `a` (preemptible or not) on two nodes of 2 GPUs, V100 and K80, 300 s rounds,
/// the V100 node down or up.
RoundResult first_round(Job a, bool preemptible, bool v100_down) {
    ClusterState s = cluster({"V100", "K80"}, 2, 300);
    s.nodes[0].down = v100_down;
    a.preemptible = preemptible;
    s.jobs.push_back(a);
    return run_round(s, {});
}

}  // namespace

TEST_CASE("FFT's rho moves for a non-preemptible job kept on its GPUs", "[fft]") {
    // The job starts on the K80s while the V100 node is down and, non-preemptible, keeps them when it
    // comes back: each round it ran behind its fair share (tau from the V100s' 400), so its rho grows,
    // by Eq. 5 for the type it ran on, though the policy does not decide it.
    RoundResult r = first_round(job("a", 40000, {400, 40}, 2), false, true);
    REQUIRE(r.state.jobs[0].placement.type == 1);
    r.state.time_s = 300;
    r.state.jobs[0].done = 40 * 300;
    r.state.nodes[0].down = false;
    r = run_round(r.state, {});
    CHECK(r.state.jobs[0].placement.type == 1);  // kept
    // Its fair finish as the V100s would give it (tau is set on churn; none since): the round decided
    // at 300 s on the K80s then owes it 40000 / (400 x 100) - 40 / 400 = 0.9 of a round, times 300 / 100.
    r.state.jobs[0].book.tau_s = 100;
    r.state.time_s = 600;
    r.state.jobs[0].done = 40 * 600;
    const ClusterState before = r.state;
    r = run_round(r.state, {});
    CHECK(r.state.jobs[0].placement.type == 1);
    CHECK(r.state.jobs[0].book.rho == Approx(2.7));
    CHECK(r.state.jobs[0].book.rho == Approx(next_rho(before, before.jobs[0], 1, before.capacity(), 300)));
}

TEST_CASE("FFT's fair finish times count a kept non-preemptible job and its GPUs as any other", "[fft]") {
    // a runs on the V100s; b arrives: tau is set again for both over the whole cluster, whether a is
    // kept (non-preemptible) or decided with the others.
    std::vector<double> taus[2];
    for (bool preemptible : {true, false}) {
        RoundResult r = first_round(job("a", 4000, {4, 1}, 2), preemptible, false);
        REQUIRE(r.state.jobs[0].placement.type == 0);
        r.state.time_s = 300;
        r.state.jobs[0].done = 4 * 300;
        Job b = job("b", 4000, {4, 1}, 2);
        b.submit_time_s = 300;
        r.state.jobs.push_back(b);
        r = run_round(r.state, {});
        for (const auto& j : r.state.jobs) taus[preemptible ? 0 : 1].push_back(j.book.tau_s);
    }
    CHECK(taus[1] == taus[0]);
    CHECK(taus[1][0] > 1000);  // two jobs share the GPUs now: a's fair finish recedes from 1000 s
}

TEST_CASE("The exact path out of time in replay keeps the previous round's types, and with none running is TryLater", "[fft]") {
    // Thirty jobs of 1, 2 and 4 GPUs on three types: no 0-1 program GLPK proves in no time.
    ClusterState s = thirty_jobs();
    RoundOptions o;
    o.exact = true;
    const RoundResult first = run_round(s, o);  // solved: the previous round's schedule
    o.time_limit_s = 1e-9;
    CHECK_THROWS_AS(run_round(first.state, o), hetsched::TryLater);  // schedround: try later
    o.accept_unproven = true;
    ClusterState next = first.state;
    next.time_s += 300;
    const RoundResult kept = run_round(next, o);
    CHECK_FALSE(kept.decision.stats.proven);
    CHECK(std::isinf(kept.decision.stats.gap()));
    for (size_t k = 0; k < s.jobs.size(); ++k) {
        INFO(next.jobs[k].id);
        CHECK(kept.state.jobs[k].placement.type == next.jobs[k].placement.type);
    }
    CHECK_THROWS_AS(run_round(s, o), hetsched::TryLater);  // nothing runs: nothing to keep
}

TEST_CASE("FFT gives the tie between alike jobs to the earlier one, on either path", "[fft]") {
    for (bool exact : {false, true}) {
        ClusterState s = cluster({"A"}, 1);
        s.jobs = {job("z", 100, {1}), job("y", 100, {1}), job("x", 100, {1})};
        RoundOptions o;
        o.exact = exact;
        const TypeDecision d = fft_decide(s, o);
        INFO((exact ? "exact" : "structured"));
        CHECK(d.type == std::vector<int>{-1, -1, 0});
    }
}

TEST_CASE("FFT's rho moves once a round, as the next one opens: a round again at the same instant decides the same", "[fft]") {
    ClusterState s = thirty_jobs();
    RoundResult first = run_round(s, {});
    first.state.time_s += 300;  // the next round
    const RoundResult next = run_round(first.state, {});
    // rho moved for the round that ended (decided at 5000): some job fell behind its fair share.
    double moved = 0;
    for (size_t k = 0; k < next.state.jobs.size(); ++k)
        moved += std::fabs(next.state.jobs[k].book.rho - first.state.jobs[k].book.rho);
    CHECK(moved > 0);
    // The same round again (a retried cron run, a clock not advanced): no rho moves, nothing changes.
    const RoundResult again = run_round(next.state, {});
    for (size_t k = 0; k < again.state.jobs.size(); ++k) {
        INFO(again.state.jobs[k].id);
        CHECK(again.state.jobs[k].book.rho == next.state.jobs[k].book.rho);
        CHECK(again.state.jobs[k].placement == next.state.jobs[k].placement);
    }
}

TEST_CASE("FFT's rho for a round that ended counts the type the job ran on as up, though it is down now", "[fft]") {
    // x ran on A (2 a second, B's 1) from 300 s to 600 s; A is down at 600. Its fair rate: 3000 /
    // (2 x 1000 s) = 1.5 of A's rounds; it got A's, 1: rho += 0.3 x 0.5 (mu = 300 / 1000). Scored
    // against B alone it would have got 2 of B's 3 and been owed 1.
    ClusterState s = cluster({"A", "B"}, 1, 300);
    Job x = test::running(job("x", 3000, {2, 1}), 0);
    x.book.rho = 1;
    x.book.tau_s = 1000;
    s.jobs.push_back(x);
    s.last_decision_s = 300;
    s.time_s = 600;
    s.nodes[0].down = true;
    const RoundResult r = run_round(s, {});
    CHECK(r.state.jobs[0].book.rho == Approx(1 + 0.3 * 0.5));
}
