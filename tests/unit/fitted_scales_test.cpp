// An elastic job's sizes from fitted models: which sizes each type predicts, and what is left out.
#include <catch2/catch.hpp>

#include <hetsched/fit/prediction.hpp>
#include <hetsched/fit/throughput_model.hpp>
#include <hetsched/sched/fitted_scales.hpp>

#include "fit_fixture.hpp"

using namespace hetsched;

namespace {

/// Fitted on up to 4 GPUs and per-GPU batches 8 to 32.
fit::GroupFit pollux(const std::string& app, const std::string& gpu) { return fit::test::pollux_fit(app, gpu, 8, 32, 4, 4); }

}  // namespace

TEST_CASE("fitted_scales: powers of two and the request, nothing the fit never saw but the request", "[scales]") {
    const std::vector<fit::GroupFit> fits{pollux("bert", "T4")};
    const std::vector<sched::GpuTypeInfo> types{{"t4", 16}, {"K80", 12}};  // names match letter case aside
    sched::ElasticRequest r{"bert", 8, 1, 8, 64, 0};
    bool extrapolated = false;
    const auto scales = sched::fitted_scales(fits, types, r, &extrapolated);
    REQUIRE(scales.size() == 4);  // 1, 2, 4, 8
    CHECK(scales[0].gpus == 1);
    CHECK(scales[3].gpus == 8);
    // 1 GPU: 64 per GPU is past the fit's 32, so two accumulation steps of 32.
    CHECK(scales[0].throughput[0] == Approx(fit::fitted_throughput(fits[0], 1, 4, 64)));
    CHECK(scales[0].throughput[1] == 0);  // no fit on K80
    // 8 GPUs lie past the 4 the fit saw: predicted only because the job asked for them, and said so.
    CHECK(scales[3].throughput[0] > 0);
    CHECK(extrapolated);
    // Asking for 2 GPUs with a batch of 16: 4 and 8 GPUs would leave each GPU less than the fit's
    // smallest batch (8), and 8 more GPUs than it saw: left out.
    r = {"bert", 2, 1, 8, 16, 0};
    const auto small = sched::fitted_scales(fits, types, r, &extrapolated);
    REQUIRE(small.size() == 2);
    CHECK(small[1].gpus == 2);
    CHECK_FALSE(extrapolated);
    CHECK(sched::fits_app(fits, "bert", types));
    CHECK_FALSE(sched::fits_app(fits, "gpt", types));
}

TEST_CASE("fitted_scales leaves out a pipeline deeper than the model's layers, unless it is the request", "[scales]") {
    // icefrog-pp runs g GPUs as a g-stage pipeline: a 6-layer model has no 8-stage one. The 8-GPU size
    // was listed with throughput 0 on every type.
    fit::GroupFit pp = fit::test::pollux_fit("gpt", "A100", 8, 32, 8, 8);
    pp.kind = fit::ModelKind::icefrog_pp;
    pp.params.clear();
    for (const auto& p : fit::param_info(pp.kind)) pp.params.push_back(p.neutral > 0 ? p.neutral : 0.01);
    pp.pinned.assign(pp.params.size(), "");
    pp.range.total_layers = 6;
    const std::vector<sched::GpuTypeInfo> types{{"A100", 40}};
    sched::ElasticRequest r{"gpt", 4, 1, 8, 64, 0};
    auto scales = sched::fitted_scales({pp}, types, r, nullptr);
    REQUIRE(scales.size() == 3);  // 1, 2, 4
    for (const auto& sc : scales) CHECK(sc.throughput[0] > 0);
    CHECK(scales.back().gpus == 4);
    // Asked for 8 itself, the size stays (at 0: the job cannot run it, and is told so elsewhere).
    r.requested = 8;
    scales = sched::fitted_scales({pp}, types, r, nullptr);
    REQUIRE(scales.size() == 4);
    CHECK(scales.back().throughput[0] == 0);
}
