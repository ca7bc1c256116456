// Benchmark: enumerate every plan for a 70B model over the default catalog, and compare with the cost
// of a single layout estimate measured in the same process. Run: cmake --build build --target bench_memest
// && build/bench/bench_memest
#include <chrono>
#include <cstdio>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/model/plans.hpp>

using namespace hetsched;
using Clock = std::chrono::steady_clock;

int main() {
    const auto& m = catalog::find_model("llama-3.1-70b");
    model::Training t;
    t.seq_len = 4096;
    t.global_batch = 512;
    t.distributed_optimizer = true;
    const auto cat = catalog::named_catalog("default");

    const int single_reps = 20000;
    auto t0 = Clock::now();
    double sink = 0;
    for (int i = 0; i < single_reps; ++i)
        sink += model::estimate_memory(m, t, {8, 4, 4, 1, 1, 1 + i % 2, {}}, model::Measure::device).peak_bytes();
    const double single_s = std::chrono::duration<double>(Clock::now() - t0).count() / single_reps;

    const int reps = 5;
    size_t plans = 0;
    t0 = Clock::now();
    for (int i = 0; i < reps; ++i) plans = model::enumerate_plans(m, t, cat, {}).size();
    const double enum_s = std::chrono::duration<double>(Clock::now() - t0).count() / reps;

    std::printf("llama-3.1-70b, seq 4096, global batch 512, %zu GPU types\n", cat.gpus.size());
    std::printf("one layout estimate: %.2f us\n", single_s * 1e6);
    std::printf("enumerate all plans: %.2f ms (%zu fit), = %.0f single estimates\n", enum_s * 1e3, plans,
                enum_s / single_s);
    return sink > 0 ? 0 : 1;
}
