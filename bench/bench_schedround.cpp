// Benchmark: FFT's round at FFT's scale (§6.4.1: 4000 jobs on about 1000 GPUs of 8 types) and at the
// sizes replay meets most (200, 500, 1000 active jobs), solved by the structured path and by the plain
// program in GLPK's MIP solver, in one process on the same states. Every instance must reach the same
// objective. Run: cmake --build build --target bench_schedround && build/bench/bench_schedround [SEEDS]
//
// States: 8 types x 128 GPUs on 8-GPU nodes; jobs of 1/2/4/8 GPUs (60/20/13/7%) drawn from Gavel's 26
// job families (per-family affinity to each type), Philly-like durations (log-uniform, 10 min to 3 days),
// ages up to two days, 30% of them behind their fair share (rho > 0); a quarter need more than 16 GiB,
// which excludes the two 16 GiB types. Each state is a second round: the first round's placements make
// the switching penalty live, then time advances and a tenth of the jobs are new.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include <hetsched/sched/fft_policy.hpp>
#include <hetsched/sched/round.hpp>

using namespace hetsched::sched;
using Clock = std::chrono::steady_clock;

namespace {

ClusterState build_state(int jobs, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    const char* names[8] = {"K80", "P100", "T4", "V100", "A10", "A100", "L40S", "H100"};
    const double speed[8] = {0.3, 0.7, 0.6, 1.0, 1.1, 2.2, 2.0, 3.5};
    const double memory[8] = {12, 16, 16, 32, 24, 80, 48, 80};
    ClusterState s;
    s.round_length_s = 300;
    s.time_s = 2 * 86400;
    for (int i = 0; i < 8; ++i) {
        s.types.push_back({names[i], memory[i]});
        for (int n = 0; n < 16; ++n) s.nodes.push_back({std::string(names[i]) + "-" + std::to_string(n), i, 8, false});
    }
    std::vector<std::vector<double>> affinity(26, std::vector<double>(8));
    for (auto& fam : affinity)
        for (double& a : fam) a = std::exp((u(rng) - 0.5) * 0.45);
    for (int k = 0; k < jobs; ++k) {
        Job j;
        j.id = "job" + std::to_string(k);
        const double r = u(rng);
        j.num_gpus = r < 0.6 ? 1 : r < 0.8 ? 2 : r < 0.93 ? 4 : 8;
        const auto& fam = affinity[static_cast<size_t>(u(rng) * 26)];
        const double base = 10 * std::exp(u(rng) * 3);  // steps/s on the reference type
        for (int i = 0; i < 8; ++i) j.throughput.push_back(base * speed[i] * fam[static_cast<size_t>(i)]);
        j.memory_gib = u(rng) < 0.25 ? 20 + u(rng) * 40 : 4 + u(rng) * 10;
        j.work = base * 600 * std::exp(u(rng) * std::log(432.0));  // 10 min .. 3 days on the reference
        j.submit_time_s = s.time_s * u(rng);
        j.done = j.work * u(rng) * 0.5;
        j.checkpoint_gib = std::exp(u(rng) * 5);
        j.book.time_per_type_s.assign(8, 0);
        j.book.rho = u(rng) < 0.3 ? u(rng) * 5 : 0;
        s.jobs.push_back(j);
    }
    // A first round places some of them; time moves on and a tenth are replaced by new arrivals.
    s = run_round(s, {}).state;
    s.time_s += s.round_length_s;
    for (size_t k = 0; k < s.jobs.size(); k += 10) {
        Job& j = s.jobs[k];
        j.id += "-new";
        j.submit_time_s = s.time_s - u(rng) * 300;
        j.done = 0;
        j.placement = {};
        j.book = {};
        j.book.time_per_type_s.assign(8, 0);
    }
    return s;
}

double time_round(const ClusterState& s, bool exact, double& objective) {
    RoundOptions o;
    o.exact = exact;
    o.time_limit_s = 600;
    const auto t0 = Clock::now();
    ClusterState copy = s;
    fft_open_round(copy);
    const TypeDecision d = fft_decide(copy, o);
    objective = d.stats.objective;
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    const int seeds = argc > 1 ? std::atoi(argv[1]) : 5;
    int mismatches = 0;
    std::printf("%6s %5s %12s %12s %8s %s\n", "jobs", "seed", "structured_s", "exact_s", "ratio", "objective");
    for (int jobs : {200, 500, 1000, 4000}) {
        double sum_s = 0, sum_e = 0;
        for (int seed = 1; seed <= seeds; ++seed) {
            const ClusterState s = build_state(jobs, static_cast<unsigned>(seed));
            double obj_s = 0, obj_e = 0;
            const double ts = time_round(s, false, obj_s), te = time_round(s, true, obj_e);
            const bool same = std::abs(obj_s - obj_e) <= 1e-6 * (1 + std::abs(obj_e));
            mismatches += !same;
            sum_s += ts;
            sum_e += te;
            std::printf("%6d %5d %12.4f %12.4f %8.1f %.6f%s\n", jobs, seed, ts, te, te / ts, obj_s,
                        same ? "" : "  MISMATCH with exact");
        }
        std::printf("%6d %5s %12.4f %12.4f %8.1f (mean)\n", jobs, "all", sum_s / seeds, sum_e / seeds, sum_e / sum_s);
    }
    std::printf("%d mismatches\n", mismatches);
    return mismatches == 0 ? 0 : 1;
}
