// Benchmark: the elastic policies' per-round programs at the scale issue 15 sets, 960 GPUs (3 types x
// 320, 8-GPU nodes) and 2400 elastic jobs of 1-8 GPUs (sizes 1, 2, 4, 8, speed-up sublinear in the
// size, types around Gavel's V100/P100/K80 ratios), half of them running where the last round put them.
// Prints each policy's decision time (best of 3) and how many jobs it runs.
// Run: cmake --build build --target bench_elastic && build/bench/bench_elastic [JOBS]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <hetsched/sched/iceshare_policy.hpp>
#include <hetsched/sched/sia_policy.hpp>

using namespace hetsched::sched;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
    const int jobs = argc > 1 ? std::atoi(argv[1]) : 2400;
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> u(0, 1);
    ClusterState s;
    s.time_s = 36000;
    const char* names[3] = {"V100", "P100", "K80"};
    for (int t = 0; t < 3; ++t) {
        s.types.push_back({names[t], 0});
        for (int n = 0; n < 40; ++n) s.nodes.push_back({std::string(names[t]) + std::to_string(n), t, 8, false});
    }
    std::vector<int> used(3, 0);
    for (int k = 0; k < jobs; ++k) {
        Job j;
        j.id = "j" + std::to_string(k);
        j.submit_time_s = 36000 * u(rng);
        const double v100 = 1 + 100 * u(rng), p100 = v100 * (0.4 + 0.5 * u(rng)), k80 = v100 * (0.1 + 0.3 * u(rng));
        const double scaling = 0.6 + 0.35 * u(rng);  // throughput x size^scaling
        for (int g = 1; g <= 8; g *= 2) {
            const double f = std::pow(g, scaling);
            j.scales.push_back({g, {v100 * f, p100 * f, k80 * f}});
        }
        const size_t size = static_cast<size_t>(u(rng) * 4);
        j.num_gpus = j.scales[size].gpus;
        j.throughput = j.scales[size].throughput;
        j.work = 3600 * v100 * (1 + 20 * u(rng));
        j.book.time_per_type_s.assign(3, 0);
        const int t = static_cast<int>(u(rng) * 3);
        if (k % 2 == 0 && used[static_cast<size_t>(t)] + j.num_gpus <= 320) {  // running since the last round
            j.placement = {t, {}};
            used[static_cast<size_t>(t)] += j.num_gpus;
        }
        s.jobs.push_back(j);
    }
    RoundOptions o;
    o.time_limit_s = 60;
    for (const char* policy : {"sia", "iceshare"}) {
        double best = HUGE_VAL;
        long running = 0, variables = 0;
        for (int rep = 0; rep < 3; ++rep) {
            const auto t0 = Clock::now();
            const TypeDecision d = std::string(policy) == "sia" ? sia_decide(s, o) : iceshare_decide(s, o);
            best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
            running = std::count_if(d.type.begin(), d.type.end(), [](int t) { return t >= 0; });
            variables = d.stats.variables;
        }
        std::printf("%-9s %d jobs, 960 GPUs: %.3f s a round (best of 3), %ld binaries, %ld jobs run\n", policy, jobs,
                    best, variables, running);
    }
}
