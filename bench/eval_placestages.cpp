// Evaluation: how close cmr, whale and hph come to the optimal placement (exact for the estimator) on
// generated heterogeneous allocations: Espresso's four models and others, on the JuChi cloud (4 types,
// 2.5 Gbps) and on data-centre types from the default catalog, dp 1-4, 2-6 stages. Prints the
// distribution of each method's iteration time over the optimum's.
// Run: cmake --build build --target eval_placestages && build/bench/eval_placestages [cases [seed]]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/place/methods.hpp>
#include <hetsched/place/problem_builder.hpp>

using namespace hetsched;

namespace {

struct Tally {
    std::vector<double> ratios;
    int failed = 0;  ///< no placement found while one exists
    long evaluated = 0;  ///< estimates made over all cases
    double seconds = 0;  ///< placing time over all cases
};

double percentile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1))];
}

void report(const char* name, const Tally& t) {
    if (t.ratios.empty()) return;
    double sum = 0;
    int within = 0;
    for (double r : t.ratios) sum += r, within += r <= 1.05;
    std::printf("%-8s cases %4zu  mean %+6.2f%%  p50 %+6.2f%%  p90 %+6.2f%%  max %+7.2f%%  within 5%%: %5.1f%%  no placement: %d  estimates/case: %.0f  us/case: %.0f\n",
                name, t.ratios.size(), (sum / static_cast<double>(t.ratios.size()) - 1) * 100,
                (percentile(t.ratios, 0.5) - 1) * 100, (percentile(t.ratios, 0.9) - 1) * 100,
                (percentile(t.ratios, 1.0) - 1) * 100, 100.0 * within / static_cast<double>(t.ratios.size()), t.failed,
                static_cast<double>(t.evaluated) / static_cast<double>(t.ratios.size()),
                t.seconds * 1e6 / static_cast<double>(t.ratios.size()));
}

}  // namespace

int main(int argc, char** argv) {
    const int cases = argc > 1 ? std::atoi(argv[1]) : 400;
    std::mt19937 rng(argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 42u);
    const std::vector<std::string> models{"espresso-llama-1.3b", "espresso-llama-3b", "espresso-llama-7b",
                                          "espresso-vit-3.4b",   "gpt3-1.3b",         "gpt3-2.7b",
                                          "llama-2-7b",          "gpt2-xl",           "llama-3.1-8b"};
    const auto juchi = catalog::named_catalog("juchi");
    auto dc = catalog::named_catalog("default");
    const std::vector<std::string> dc_types{"V100-SXM2-32GB", "A100-40GB-SXM", "A100-80GB-SXM", "L4", "A10", "T4",
                                            "H100-SXM", "L40S"};
    Tally cmr, whale, hph;
    int tried = 0, infeasible = 0, too_large = 0;
    for (int n = 0; n < cases; ++n) {
        ++tried;
        const bool use_juchi = n % 2 == 0;
        const auto& cat = use_juchi ? juchi : dc;
        std::vector<std::string> names;
        if (use_juchi)
            for (const auto& g : juchi.gpus) names.push_back(g.name);
        else
            names = dc_types;
        model::JobSpec job;
        job.model = catalog::find_model(models[rng() % models.size()]);
        job.training.seq_len = job.model.name == "espresso-vit-3.4b" ? 256 : 2048;
        model::cover_sequence(job);  // GPT-2's 1024 rows grown to the sequence
        const int dp = 1 << (rng() % 3);
        job.training.global_batch = dp * (8 << (rng() % 3));  // 8-32 micro-batches of 1
        job.training.distributed_optimizer = rng() % 2;
        job.training.precision = "fp16";  // every type here has it (V100 and T4 have no bf16)
        place::Allocation a;
        a.dp = dp;
        const int k = 2 + static_cast<int>(rng() % 5);
        const int kinds = 2 + static_cast<int>(rng() % 3);
        std::shuffle(names.begin(), names.end(), rng);
        for (int s = 0; s < k; ++s) a.stages.push_back(names[rng() % static_cast<size_t>(kinds)]);
        try {
            const place::Problem p = place::make_problem(job, a, cat, {});
            place::PlaceOptions o;
            o.search_limit = 3000000;
            const double best = place::place_stages(p, place::Method::optimal, o).iteration_s;
            auto score = [&](place::Method m, Tally& t) {
                try {
                    const auto t0 = std::chrono::steady_clock::now();
                    const auto got = place::place_stages(p, m, o);
                    t.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                    t.ratios.push_back(got.iteration_s / best);
                    t.evaluated += got.evaluated;
                    if (std::getenv("EVAL_DEBUG") && m == place::Method::cmr && got.iteration_s > 1.05 * best) {
                        const auto opt = place::place_stages(p, place::Method::optimal, o);
                        std::printf("cmr +%.1f%% %s m %ld dp %d gb %ld do %d:", (got.iteration_s / best - 1) * 100, job.model.name.c_str(), p.micro_batches, dp, job.training.global_batch, (int)job.training.distributed_optimizer);
                        for (size_t s = 0; s < got.placement.order.size(); ++s) std::printf(" %s/%ld", p.types[got.placement.order[s]].name.c_str(), got.placement.layers[s]);
                        std::printf("\n   opt:");
                        for (size_t s = 0; s < opt.placement.order.size(); ++s) std::printf(" %s/%ld", p.types[opt.placement.order[s]].name.c_str(), opt.placement.layers[s]);
                        std::printf("\n");
                    }
                } catch (const Infeasible& e) {
                    if (std::getenv("EVAL_DEBUG") && !t.failed) {
                        std::printf("%s failed: %s dp %d gb %ld:", place::method_name(m).c_str(), job.model.name.c_str(), dp, job.training.global_batch);
                        for (auto& s : a.stages) std::printf(" %s", s.c_str());
                        std::printf("\n  %s\n", e.what());
                        for (auto& ty : p.types) { std::printf("  %-16s", ty.name.c_str()); for (long l : ty.max_layers) std::printf(" %ld", l); std::printf("\n"); }
                    }
                    ++t.failed;
                }
            };
            score(place::Method::cmr, cmr);
            score(place::Method::whale, whale);
            score(place::Method::hph, hph);
        } catch (const Infeasible&) {
            ++infeasible;
        } catch (const UsageError&) {
            ++too_large;
        }
    }
    std::printf("%d generated cases: %d cannot hold the model, %d past the exact search's limit\n", tried, infeasible,
                too_large);
    std::printf("iteration time over the optimum's:\n");
    report("cmr", cmr);
    report("whale", whale);
    report("hph", hph);
    return 0;
}
