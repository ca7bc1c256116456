// Benchmark: Gavel's max-min fairness LP (max_min_fairness_perf) at the scale its paper reports,
// 2048 jobs on 3 GPU types, 512 GPUs each; jobs of 1/2/4/8 GPUs (70/10/15/5%, Gavel's generator).
// Throughputs as Gavel's simulator has them: one row per (job type, GPU count) of 26 job types, drawn
// around its V100/P100/K80 ratios; and, as the worst case, a distinct row for every job. Prints the
// LP's time, aware and agnostic.
// Run: cmake --build build --target bench_gavel && build/bench/bench_gavel [JOBS]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include <hetsched/sched/gavel_policy.hpp>

using namespace hetsched::sched;
using Clock = std::chrono::steady_clock;

namespace {

void time_lp(const ClusterState& s, const char* what) {
    for (bool aware : {true, false}) {
        double best = HUGE_VAL;
        for (int rep = 0; rep < 3; ++rep) {
            const auto t0 = Clock::now();
            const auto x = gavel_allocation(s, aware, {});
            best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
        }
        std::printf("%-15s %zu jobs (%s), 3 types x 512 GPUs: LP %.4f s (best of 3)\n",
                    aware ? "gavel" : "gavel-agnostic", s.jobs.size(), what, best);
    }
}

}  // namespace

int main(int argc, char** argv) {
    const int jobs = argc > 1 ? std::atoi(argv[1]) : 2048;
    std::mt19937 rng(1);
    std::uniform_real_distribution<double> u(0, 1);
    ClusterState s;
    const char* names[3] = {"V100", "P100", "K80"};
    for (int t = 0; t < 3; ++t) {
        s.types.push_back({names[t], 0});
        for (int n = 0; n < 64; ++n) s.nodes.push_back({std::string(names[t]) + std::to_string(n), t, 8, false});
    }
    auto row = [&] {
        const double v100 = 1 + 100 * u(rng);
        return std::vector<double>{v100, v100 * (0.4 + 0.5 * u(rng)), v100 * (0.1 + 0.3 * u(rng))};
    };
    std::vector<std::vector<double>> table[4];  // per GPU count, per job type
    for (auto& by_type : table)
        for (int f = 0; f < 26; ++f) by_type.push_back(row());
    for (int k = 0; k < jobs; ++k) {
        Job j;
        j.id = "j" + std::to_string(k);
        const double r = u(rng);
        const int sf = r < 0.7 ? 0 : r < 0.8 ? 1 : r < 0.95 ? 2 : 3;
        j.num_gpus = 1 << sf;
        j.throughput = table[sf][static_cast<size_t>(u(rng) * 26)];
        j.work = 1e6;
        j.book.time_per_type_s.assign(3, 0);
        s.jobs.push_back(j);
    }
    time_lp(s, "Gavel's 26 job types");
    for (auto& j : s.jobs) j.throughput = row();
    time_lp(s, "every job distinct");
    return 0;
}
