// Benchmark: planalloc's search at scale. Every priced type of the default catalog with a quota of
// 256 each, 7B- and 70B-class models (4,096 tokens, batch 512, 1,000 iterations), SLOs from loose
// (no SLO) to 0.3 of the loose plan's time. Prints each search's time, whether it proved its plan
// optimal for the placer, the gap and the plans placed; with one thread and with `threads` (default 2).
// Run: cmake --build build --target bench_planalloc_scale &&
//      build/bench/bench_planalloc_scale [time-limit-s [threads [model]]]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <hetsched/alloc/cost_search.hpp>
#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/catalog/model_preset.hpp>

#include "search_space.hpp"

using namespace hetsched;

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    const double limit = argc > 1 ? std::atof(argv[1]) : 60;
    const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
    const auto cat = catalog::named_catalog("default");
    double worst = 0, one_total = 0, many_total = 0;
    int unproven = 0;
    const std::vector<std::string> models{"llama-2-7b", "llama-2-13b", "llama-2-70b"};
    if (argc > 3 && std::find(models.begin(), models.end(), argv[3]) == models.end()) {
        std::fprintf(stderr, "bench_planalloc_scale: unknown model '%s' (expected llama-2-7b, llama-2-13b or llama-2-70b)\n", argv[3]);
        return 64;
    }
    for (const std::string& name : models) {
        if (argc > 3 && name != argv[3]) continue;
        model::JobSpec job;
        job.model = catalog::find_model(name);
        job.training.seq_len = 4096;
        job.training.global_batch = 512;
        job.training.precision = "fp16";  // every priced type has it (V100, T4 and P100 have no bf16)
        alloc::SearchSpace space = bench::search_space(job, cat, 1000);
        for (const auto& g : cat.gpus)
            if (g.price_per_hour > 0) space.types.push_back({g.name, g.price_per_hour, 256});
        alloc::SearchOptions o;
        o.time_limit_s = limit;
        double loose = 0;
        for (double f : {0.0, 1.0, 0.6, 0.45, 0.3}) {
            space.slo_s = f * loose;
            o.threads = 1;
            const auto one = alloc::search_plans(space, o);
            o.threads = threads;
            const auto r = alloc::search_plans(space, o);
            one_total += one.stats.seconds;
            many_total += r.stats.seconds;
            if (f == 0 && !r.plans.empty()) loose = r.plans.front().total_s * (1 + 1e-9);
            worst = std::max(worst, r.stats.seconds);
            unproven += !r.stats.complete;
            const bool none = r.plans.empty();
            std::printf("%-12s slo %-6s %9.0f s  %7.3f s (1 thread %7.3f s)  %-8s gap %-7s cost %9.2f  gpus %4d  %6ld nodes "
                        "%5ld plans\n",
                        name.c_str(), f == 0 ? "none" : (std::to_string(f).substr(0, 4) + "x").c_str(), space.slo_s,
                        r.stats.seconds, one.stats.seconds,
                        r.stats.complete ? "proven" : "stopped",
                        none ? "-" : std::to_string(r.plans.front().cost / r.stats.lower_bound - 1).substr(0, 6).c_str(),
                        none ? 0.0 : r.plans.front().cost, none ? 0 : r.plans.front().gpus(), r.stats.nodes_expanded,
                        r.stats.plans_evaluated);
        }
    }
    std::printf("slowest search %.3f s with %d threads; %d not proven within %.0f s; all searches %.1f s, one "
                "thread %.1f s (%.2fx)\n",
                worst, threads, unproven, limit, many_total, one_total, one_total / many_total);
    return 0;
}
