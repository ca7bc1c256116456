#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include <hetsched/fit/cross_validation.hpp>
#include <hetsched/fit/fitter.hpp>
#include <hetsched/fit/model_document.hpp>

using namespace hetsched;
using fit::ModelKind;

namespace {

fit::Sample config(int nodes, int gpus, double batch, int frozen = 0, int layers = 0) {
    fit::Sample s;
    s.app = "app";
    s.gpu = "T4";
    s.num_nodes = nodes;
    s.num_gpus = gpus;
    s.max_per_node = (gpus + nodes - 1) / nodes;
    s.per_gpu_batch = batch;
    s.frozen_layers = frozen;
    s.total_layers = layers;
    if (layers > 0) s.unfrozen_flops = s.unfrozen_params = static_cast<double>(layers - frozen) / layers;
    return s;
}

/// Samples of `truth` over nodes x GPUs per node x batches (x frozen layers), with log-normal noise of
/// `noise` (seeded).
std::vector<fit::Sample> synthetic(ModelKind kind, const std::vector<double>& truth, double noise,
                                   const std::vector<int>& frozen = {0}, int layers = 0) {
    std::mt19937_64 rng(42);
    std::normal_distribution<double> z(0, noise);
    std::vector<fit::Sample> out;
    for (int nodes : {1, 2, 3, 4})
        for (int per : {1, 2, 4, 8})
            for (double b : {8.0, 16.0, 32.0, 64.0, 128.0, 256.0})
                for (int f : frozen) {
                    fit::Sample s = config(nodes, nodes * per, b, f, layers);
                    s.step_time_s = fit::predict(kind, truth, s).step * std::exp(z(rng));
                    out.push_back(s);
                }
    return out;
}

double rel(double got, double want) { return std::abs(got - want) / want; }

}  // namespace

TEST_CASE("Pollux parameters come back from samples with 3% noise", "[fit]") {
    // alpha_c, beta_c, alpha_r, beta_r, alpha_n, beta_n, gamma
    const std::vector<double> truth = {0.02, 0.0005, 0.05, 0.01, 0.2, 0.02, 1.5};
    const auto samples = synthetic(ModelKind::pollux, truth, 0.03);
    const auto g = fit::fit_group(ModelKind::pollux, samples);
    for (size_t i = 0; i < truth.size(); ++i) {
        INFO(fit::param_info(ModelKind::pollux)[i].name << " = " << g.params[i] << ", truth " << truth[i]);
        CHECK(g.pinned[i].empty());
        CHECK(rel(g.params[i], truth[i]) < 0.08);
    }
    CHECK(g.quality.mean_ape_pct < 3.0);
}

TEST_CASE("ICEFROG-DDP layer parameters come back from frozen-layer samples with 3% noise", "[fit]") {
    const ModelKind k = ModelKind::icefrog_ddp;
    std::vector<double> truth(fit::param_info(k).size());
    for (size_t i = 0; i < truth.size(); ++i) truth[i] = fit::param_info(k)[i].neutral;
    auto set = [&](const char* n, double v) { truth[static_cast<size_t>(fit::param_index(k, n))] = v; };
    set("alpha_c", 0.02), set("beta_c", 0.0005), set("alpha_r", 0.05), set("beta_r", 0.01);
    set("alpha_n", 0.2), set("beta_n", 0.02), set("gamma", 1.5);
    set("alpha_flop", 0.005), set("gamma_flop", 0.6), set("alpha_sync", 0.01);
    const auto samples = synthetic(k, truth, 0.03, {0, 4, 8, 12}, 16);
    const auto g = fit::fit_group(k, samples, {false});
    // With the factor curves on, the predictions stay as good.
    CHECK(fit::fit_group(k, samples).quality.mean_ape_pct < 3.0);
    // The network terms come back within a few percent; the compute terms trade off against the small
    // layer terms (alpha_flop, alpha_sync), so those are checked through the step times they give.
    for (const char* n : {"alpha_r", "beta_r", "alpha_n", "beta_n"}) {
        const size_t i = static_cast<size_t>(fit::param_index(k, n));
        INFO(n << " = " << g.params[i] << ", truth " << truth[i]);
        CHECK(g.pinned[i].empty());
        CHECK(rel(g.params[i], truth[i]) < 0.05);
    }
    double worst = 0, mean = 0;
    for (const auto& s : samples) {
        const double e = rel(fit::predict(k, g.params, s).step, fit::predict(k, truth, s).step);
        worst = std::max(worst, e);
        mean += e / static_cast<double>(samples.size());
    }
    CHECK(mean < 0.01);
    CHECK(worst < 0.08);
    // Whatever the split of the small terms, the step times come back within the noise.
    CHECK(g.quality.mean_ape_pct < 3.0);
    CHECK(g.pinned[static_cast<size_t>(fit::param_index(k, "fwd_share"))] != "");
}

TEST_CASE("parameters the samples cannot identify are pinned, with the reason", "[fit]") {
    std::vector<fit::Sample> ss;
    for (int gpus : {1, 2})
        for (double b : {8.0, 16.0, 32.0}) {
            fit::Sample s = config(1, gpus, b);
            s.step_time_s = 0.01 + 0.001 * b + (gpus > 1 ? 0.02 : 0);
            ss.push_back(s);
        }
    const auto pins = fit::identify(ModelKind::pollux, ss);
    auto reason = [&](const char* n) { return pins.reason[static_cast<size_t>(fit::param_index(ModelKind::pollux, n))]; };
    CHECK(reason("alpha_c").empty());
    CHECK(reason("alpha_r").empty());
    CHECK(reason("alpha_n") == "no samples across nodes");
    CHECK(reason("beta_r") == "no samples with more than 2 replicas within a node");
    CHECK_NOTHROW(fit::fit_group(ModelKind::pollux, ss));
}

TEST_CASE("one batch size: alpha_c is pinned to half the mean step", "[fit]") {
    std::vector<fit::Sample> ss = {config(1, 1, 32), config(1, 1, 32)};
    ss[0].step_time_s = 0.1, ss[1].step_time_s = 0.3;
    const auto pins = fit::identify(ModelKind::pollux, ss);
    CHECK(pins.reason[0] != "");
    CHECK(pins.value[0] == Approx(0.1));
}

TEST_CASE("too few configurations for the free parameters: an error naming them", "[fit]") {
    std::vector<fit::Sample> ss = {config(1, 1, 8), config(1, 1, 16), config(1, 4, 16)};
    for (auto& s : ss) s.step_time_s = 0.1;
    try {
        fit::fit_group(ModelKind::pollux, ss);
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK_THAT(e.what(), Catch::Contains("3 distinct configurations cannot identify the 5 free parameters"));
        CHECK_THAT(e.what(), Catch::Contains("profile at least 6 distinct configurations"));
        CHECK_THAT(e.what(), Catch::Contains("alpha_r, beta_r, gamma"));
    }
}

TEST_CASE("one rule for every sample count: free parameters plus one configuration", "[fit]") {
    // A single sample leaves only beta_c free (one batch: alpha_c pinned; one GPU: no network): 1 + 1 needed.
    std::vector<fit::Sample> one = {config(1, 1, 8)};
    one[0].step_time_s = 0.1;
    CHECK_THROWS_WITH(fit::fit_group(ModelKind::pollux, one),
                      Catch::Contains("1 distinct configuration cannot identify the 1 free parameter of pollux "
                                      "(beta_c)") &&
                          Catch::Contains("profile at least 2 distinct configurations"));
    // Two batch sizes on one GPU: alpha_c and beta_c free, 3 needed; three batch sizes fit.
    std::vector<fit::Sample> two = {config(1, 1, 8), config(1, 1, 16)};
    two[0].step_time_s = 0.028, two[1].step_time_s = 0.036;
    CHECK_THROWS_WITH(fit::fit_group(ModelKind::pollux, two), Catch::Contains("profile at least 3 distinct"));
    two.push_back(config(1, 1, 32));
    two.back().step_time_s = 0.052;
    const auto g = fit::fit_group(ModelKind::pollux, two);
    CHECK(g.params[0] == Approx(0.02).epsilon(0.01));
    CHECK(g.params[1] == Approx(0.001).epsilon(0.01));
    CHECK(std::isfinite(g.quality.r2));
}

TEST_CASE("cross-validation scores every sample on a fit that did not see it", "[fit]") {
    const std::vector<double> truth = {0.02, 0.0005, 0.05, 0.01, 0.2, 0.02, 1.5};
    const auto samples = synthetic(ModelKind::pollux, truth, 0.03);
    const auto v = fit::cross_validate(ModelKind::pollux, samples, 5, 7);
    CHECK(v.held_out.samples == samples.size());
    CHECK(v.failed_folds == 0);
    CHECK(v.held_out.mean_ape_pct > 1.0);   // the noise is not fitted away...
    CHECK(v.held_out.mean_ape_pct < 3.5);   // ...and the model generalises
    CHECK_THROWS_AS(fit::cross_validate(ModelKind::pollux, samples, 1, 7), UsageError);
    CHECK_THROWS_AS(fit::cross_validate(ModelKind::pollux, samples, static_cast<int>(samples.size()) + 1, 7), UsageError);
}

TEST_CASE("a model document reads back to the same predictions", "[fit]") {
    const ModelKind k = ModelKind::icefrog_ddp;
    std::vector<double> truth(fit::param_info(k).size());
    for (size_t i = 0; i < truth.size(); ++i) truth[i] = fit::param_info(k)[i].neutral;
    truth[0] = 0.05, truth[1] = 0.004;
    truth[static_cast<size_t>(fit::param_index(k, "alpha_r"))] = 0.03;
    truth[static_cast<size_t>(fit::param_index(k, "alpha_n"))] = 0.1;
    const auto samples = synthetic(k, truth, 0.05);
    const fit::GroupFit g = fit::fit_group(k, samples);
    const std::string text = fit::write_model_document(k, {{g, std::nullopt}});
    const auto back = fit::read_model_document({"m.yaml", text});
    REQUIRE(back.size() == 1);
    for (const auto& s : samples) CHECK(fit::step_time(back[0], s) == Approx(fit::step_time(g, s)).epsilon(1e-4));
    CHECK_THROWS_AS(fit::find_fit(back, "other", "T4", {}), DataError);
}

TEST_CASE("model documents with unknown or out-of-bounds parameters are refused", "[fit]") {
    const std::string head = "kind: throughput-model\nversion: 1\nmodel: pollux\nfits:\n  - app: a\n    gpu: T4\n";
    const std::string ok = "    params: {alpha_c: 0.1, beta_c: 0.01, alpha_r: 0.01, beta_r: 0.001, alpha_n: 0.1, beta_n: 0.01, ";
    CHECK_NOTHROW(fit::read_model_document({"m.yaml", head + ok + "gamma: 2}\n"}));
    CHECK_THROWS_WITH(fit::read_model_document({"m.yaml", head + ok + "gamma: 20}\n"}),
                      Catch::Contains("expected a number from 1 to 10 for 'gamma', got '20'"));
    CHECK_THROWS_WITH(fit::read_model_document({"m.yaml", head + ok + "gamma: 2, delta: 1}\n"}),
                      Catch::Contains("unknown parameter 'delta'"));
    CHECK_THROWS_WITH(fit::read_model_document({"m.yaml", "kind: job\nversion: 1\n"}),
                      Catch::Contains("throughput-model"));
}
