// ICEFROG's GPU-sharing rule (Sec. III-D, Eq. 8): linear utilisation and memory models in (m, theta),
// two rules (utilisation sums to at most 100%, memory x 1.1 within the GPU) and lambda = 0.9 when
// shared. Expected values are worked by hand.
#include <catch2/catch.hpp>

#include <hetsched/fit/gpu_sharing.hpp>

using namespace hetsched;

namespace {

/// util = 10 + 0.5 m (%), memory = 2 + 0.05 m (GiB), independent of theta.
std::vector<fit::UsageModel> models() {
    fit::UsageModel m;
    m.app = "a";
    m.gpu = "V100";
    m.samples = 3;
    m.util.coef = {10, 0.5, 0, 0};
    m.memory.coef = {2, 0.05, 0, 0};
    m.min_batch = 16, m.max_batch = 64;
    return {m};
}

fit::SharingJob job(double batch) {
    fit::SharingJob j;
    j.app = "a";
    j.per_gpu_batch = batch;
    return j;
}

}  // namespace

TEST_CASE("sharing: both rules hold, lambda is 0.9", "[fit][sharing]") {
    // m = 32: util 10 + 16 = 26%, memory 2 + 1.6 = 3.6 GiB -> x1.1 = 3.96.
    // m = 64: util 10 + 32 = 42%, memory 2 + 3.2 = 5.2 GiB -> x1.1 = 5.72.
    // Sum: 68% <= 100%, 9.68 GiB <= 16 GiB: may share.
    const auto v = fit::judge_sharing(models(), "V100", {job(32), job(64)}, 16);
    CHECK(v.util_pct == Approx(68));
    CHECK(v.memory_gib == Approx(9.68));
    CHECK(v.share);
    CHECK(fit::kSharedSlowdown == 0.9);
    CHECK(fit::kMemoryMargin == 1.1);
}

TEST_CASE("sharing: memory x1.1 above the GPU's, or utilisation above 100%, says no", "[fit][sharing]") {
    // Same pair on a 9 GiB GPU: 9.68 > 9.
    const auto mem = fit::judge_sharing(models(), "V100", {job(32), job(64)}, 9);
    CHECK_FALSE(mem.share);
    CHECK_THAT(mem.reason, Catch::Contains("memory x1.1 9.68 GiB exceeds 9 GiB"));
    // Three jobs: 26 + 42 + 42 = 110% > 100%; memory 3.96 + 5.72 + 5.72 = 15.4 GiB <= 16.
    const auto util = fit::judge_sharing(models(), "V100", {job(32), job(64), job(64)}, 16);
    CHECK_FALSE(util.share);
    CHECK(util.util_pct == Approx(110));
    CHECK(util.reason == "utilisation 110% exceeds 100%");
    CHECK_THROWS_AS(fit::judge_sharing(models(), "T4", {job(32), job(64)}, 16), UsageError);
}

TEST_CASE("usage models: least squares recovers an exact linear profile", "[fit][sharing]") {
    // util = 10 + 0.5 m + 20 theta, memory = 1 + 0.1 m + 4 theta, at m in {8, 16, 32} and theta in {1, 0.5}:
    // (8, 1): 34, 5.8; (16, 1): 38, 6.6; (32, 1): 46, 8.2; (16, 0.5): 28, 4.6; (32, 0.5): 36, 6.2.
    const auto samples = fit::read_usage(
        {"u.csv", "app,gpu,per_gpu_batch,frozen_layers,total_layers,gpu_util_pct,memory_gib\n"
                  "a,V100,8,0,4,34,5.8\na,V100,16,0,4,38,6.6\na,V100,32,0,4,46,8.2\n"
                  "a,V100,16,2,4,28,4.6\na,V100,32,2,4,36,6.2\n"});
    const auto ms = fit::fit_usage(samples);
    REQUIRE(ms.size() == 1);
    CHECK(ms[0].util.coef[0] == Approx(10));
    CHECK(ms[0].util.coef[1] == Approx(0.5));
    CHECK(ms[0].util.coef[2] == Approx(20));
    CHECK(ms[0].memory.coef[1] == Approx(0.1));
    CHECK(ms[0].memory.coef[2] == Approx(4));
    CHECK(ms[0].util.r2 == Approx(1));
}

TEST_CASE("usage models: a term the samples never vary answers only at its one value", "[fit][sharing]") {
    // Three samples at batch 8 alone: util 20, 30, 25 -> intercept 25, no batch slope fitted.
    const auto ms = fit::fit_usage(fit::read_usage(
        {"u.csv", "app,gpu,per_gpu_batch,gpu_util_pct,memory_gib\na,V100,8,20,2\na,V100,8,30,3\na,V100,8,25,2.5\n"}));
    REQUIRE(ms.size() == 1);
    CHECK(ms[0].only_batch == 8);
    CHECK(ms[0].only_share == 1);
    const auto v = fit::judge_sharing(ms, "V100", {job(8), job(8)}, 100);
    CHECK(v.util_pct == Approx(50));
    CHECK_THROWS_WITH(fit::judge_sharing(ms, "V100", {job(64), job(8)}, 100),
                      Catch::Contains("at per_gpu_batch 8 only, so its usage at 64 is unknown"));
    fit::SharingJob frozen = job(8);
    frozen.total_layers = 4, frozen.frozen_layers = 2;
    CHECK_THROWS_WITH(fit::judge_sharing(ms, "V100", {frozen, job(8)}, 100), Catch::Contains("100% of its layers"));
}

TEST_CASE("usage profiles: numbers outside their range are refused at the cell", "[fit][sharing]") {
    const auto err = [](const std::string& text) {
        try {
            fit::read_usage({"u.csv", text});
        } catch (const Error& e) {
            return describe(e);
        }
        return std::string("no error");
    };
    const std::string head = "app,gpu,per_gpu_batch,gpu_util_pct,memory_gib\n";
    CHECK(err(head + "a,V100,8,30,1e308\n") == "u.csv:2:13: expected a positive number up to 1048576 in column 'memory_gib', got '1e308'");
    CHECK(err(head + "a,V100,-8,30,2\n") == "u.csv:2:8: expected a positive number up to 1048576 in column 'per_gpu_batch', got '-8'");
    CHECK(err(head + "a,V100,8,101,2\n") == "u.csv:2:10: expected a number from 0 to 100 in column 'gpu_util_pct', got '101'");
    CHECK(err("app,gpu,per_gpu_batch,frozen_layers,gpu_util_pct,memory_gib\na,V100,8,1,30,2\n") ==
          "u.csv:1:23: frozen_layers needs total_layers to say what share still trains");
}

TEST_CASE("sharing: a job at a batch the profile did not span is answered and named", "[fit][sharing]") {
    CHECK(fit::judge_sharing(models(), "V100", {job(16), job(64)}, 16).beyond.empty());
    const auto v = fit::judge_sharing(models(), "V100", {job(128), job(8)}, 16);
    REQUIRE(v.beyond.size() == 2);
    CHECK(v.beyond[0] == "a at per-GPU batch 128 (profiled 16-64)");
    CHECK(v.util_pct == Approx(10 + 64 + 10 + 4));  // the linear models, extrapolated
}
