// Benchmark: one cmr placement of a 100-layer model on 8 heterogeneous stages (what planalloc calls for
// every complete plan), against one run of the estimator in the same process. Also times hph and
// optimal on the same input. Run: cmake --build build --target bench_placestages &&
// build/bench/bench_placestages
#include <chrono>
#include <cstdio>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/place/estimator.hpp>
#include <hetsched/place/methods.hpp>
#include <hetsched/place/problem_builder.hpp>

using namespace hetsched;
using Clock = std::chrono::steady_clock;

namespace {

template <class F>
double per_call_s(int reps, F&& f) {
    const auto t0 = Clock::now();
    for (int i = 0; i < reps; ++i) f();
    return std::chrono::duration<double>(Clock::now() - t0).count() / reps;
}

}  // namespace

int main() {
    model::JobSpec job;
    job.model = catalog::find_model("gpt3-2.7b");
    job.model.name = "gpt3-100-layers";
    job.model.layers = 100;
    job.training.seq_len = 2048;
    job.training.global_batch = 64;
    job.micro_batch = 1;
    job.training.distributed_optimizer = true;
    const auto cat = catalog::named_catalog("juchi");
    place::Allocation a;
    a.dp = 2;
    a.stages = {"RTX-A6000", "RTX-A6000", "A30", "A30", "RTX-3090", "RTX-3090", "RTX-A4000", "RTX-A4000"};
    const place::Problem p = place::make_problem(job, a, cat, {});

    double sink = 0;
    place::PlaceResult cmr;
    const double cmr_s = per_call_s(2000, [&] { cmr = place::place_cmr(p, nullptr); sink += cmr.iteration_s; });
    std::vector<place::StageCosts> costs;
    place::Schedule schedule;
    const double est_s = per_call_s(20000, [&] { sink += place::iteration_time(p, cmr.placement, costs, schedule); });
    const double build_s = per_call_s(200, [&] { sink += place::make_problem(job, a, cat, {}).layers; });
    place::PlaceResult hph, opt;
    const double hph_s = per_call_s(3, [&] { hph = place::place_stages(p, place::Method::hph, {}); });
    const double opt_s = per_call_s(1, [&] { opt = place::place_stages(p, place::Method::optimal, {}); });

    std::printf("%s (%ld layers), 8 stages of 4 types, dp 2, %ld micro-batches\n", job.model.name.c_str(),
                p.layers, p.micro_batches);
    std::printf("one estimator run:        %8.2f us\n", est_s * 1e6);
    std::printf("building the problem:     %8.2f us\n", build_s * 1e6);
    std::printf("cmr placement:            %8.2f us  (%ld estimates, = %.1f estimator runs)  T = %.4f s\n",
                cmr_s * 1e6, cmr.evaluated, cmr_s / est_s, cmr.iteration_s);
    std::printf("hph placement:            %8.2f ms  (%ld nodes)  T = %.4f s\n", hph_s * 1e3, hph.nodes,
                hph.iteration_s);
    std::printf("optimal placement:        %8.2f ms  (%ld nodes)  T = %.4f s (cmr / optimal = %.4f)\n", opt_s * 1e3,
                opt.nodes, opt.iteration_s, cmr.iteration_s / opt.iteration_s);
    return sink > 0 ? 0 : 1;
}
