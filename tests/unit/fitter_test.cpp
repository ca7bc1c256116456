#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include <hetsched/fit/cross_validation.hpp>
#include <hetsched/fit/fitter.hpp>
#include <hetsched/fit/model_document.hpp>
#include <hetsched/io/text_input.hpp>

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

/// A parameter vector of `kind`: every parameter neutral but those named.
std::vector<double> params_of(ModelKind kind, const std::vector<std::pair<const char*, double>>& set) {
    std::vector<double> p;
    for (const auto& info : fit::param_info(kind)) p.push_back(info.neutral);
    for (const auto& [name, v] : set) p[static_cast<size_t>(fit::param_index(kind, name))] = v;
    return p;
}

double param(const fit::GroupFit& g, const char* name) {
    return g.params[static_cast<size_t>(fit::param_index(g.kind, name))];
}

/// Exact step times of `truth` on 1, 2 and 4 nodes of 1, 2 and 4 GPUs each (nodes_max 1: one node),
/// per-GPU batches 4 to 64: the audit's noise-free sets.
std::vector<fit::Sample> exact(ModelKind kind, const std::vector<double>& truth, int nodes_max = 4) {
    std::vector<fit::Sample> out;
    for (int nodes = 1; nodes <= nodes_max; nodes *= 2)
        for (int per : {1, 2, 4})
            for (double b : {4.0, 8.0, 16.0, 32.0, 64.0}) {
                fit::Sample s = config(nodes, nodes * per, b);
                s.step_time_s = fit::predict(kind, truth, s).step;
                out.push_back(s);
            }
    return out;
}

/// Pollux's loss as adaptdl's goodput.py states it (the fitter's own is internal): RMSE of log step
/// time, RMSE of log compute time (step - sync), and the two regularisers.
double pollux_loss(const std::vector<double>& p, const std::vector<fit::Sample>& ss) {
    double step2 = 0, compute2 = 0;
    for (const auto& s : ss) {
        const fit::StepParts t = fit::predict(ModelKind::pollux, p, s);
        step2 += std::pow(std::log(t.step / s.step_time_s), 2);
        compute2 += std::pow(std::log(t.compute / (s.step_time_s - s.sync_time_s)), 2);
    }
    const double n = static_cast<double>(ss.size());
    return std::sqrt(step2 / n) + std::sqrt(compute2 / n) + 1e-3 * std::pow(p[6] - 1, 2) +
           1e-2 * (std::pow(p[5] / p[4], 2) + std::pow(p[3] / p[2], 2));
}

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
    CHECK(reason("alpha_n") == "no samples across nodes: 1.1 x alpha_r (adaptdl's prior)");
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
        // One replica count within a node (4): beta_r pinned, alpha_r takes the network time.
        CHECK_THAT(e.what(), Catch::Contains("3 distinct configurations cannot identify the 4 free parameters"));
        CHECK_THAT(e.what(), Catch::Contains("profile at least 5 distinct configurations"));
        CHECK_THAT(e.what(), Catch::Contains("(alpha_c, beta_c, alpha_r, gamma)"));
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

TEST_CASE("cross-validation folds do not depend on the order of the rows", "[fit]") {
    const std::vector<double> truth = {0.02, 0.0005, 0.05, 0.01, 0.2, 0.02, 1.5};
    const auto samples = synthetic(ModelKind::pollux, truth, 0.03);
    auto reversed = samples;
    std::reverse(reversed.begin(), reversed.end());
    const auto a = fit::cross_validate(ModelKind::pollux, samples, 5, 7);
    const auto b = fit::cross_validate(ModelKind::pollux, reversed, 5, 7);
    CHECK(a.held_out.r2 == b.held_out.r2);
    CHECK(a.held_out.mean_ape_pct == b.held_out.mean_ape_pct);
    CHECK(a.held_out.max_ape_pct == b.held_out.max_ape_pct);
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

TEST_CASE("ICEFROG recovers exact data's parameters, strong overlap included", "[fit]") {
    // The audit's gen4.py: icefrog-ddp with gamma 4 (backward and sync mostly overlapped), no noise.
    // The gamma regulariser, weighed against a mean of squares instead of a root, pulled gamma to 1.9
    // with 9% misses.
    const ModelKind k = ModelKind::icefrog_ddp;
    const auto truth = params_of(k, {{"alpha_c", 0.01}, {"beta_c", 0.002}, {"alpha_r", 0.005}, {"beta_r", 0.001},
                                     {"alpha_n", 0.02}, {"beta_n", 0.003}, {"gamma", 4}});
    const auto samples = exact(k, truth);
    for (bool curves : {false, true}) {
        const auto g = fit::fit_group(k, samples, {curves});
        INFO("curves " << curves << ": gamma " << param(g, "gamma") << ", max APE " << g.quality.max_ape_pct);
        CHECK(param(g, "gamma") == Approx(4).epsilon(0.01));
        CHECK(g.quality.max_ape_pct < 0.05);
        // The network terms hide partly behind the backward pass at gamma 4, so they come back a little
        // less exactly than the compute terms.
        if (!curves)
            for (const char* n : {"alpha_c", "beta_c", "alpha_r", "beta_r", "alpha_n", "beta_n"}) {
                INFO(n << " = " << param(g, n));
                CHECK(rel(param(g, n), truth[static_cast<size_t>(fit::param_index(k, n))]) < 0.05);
            }
    }
}

TEST_CASE("measured compute times (sync, forward, backward) do not stop an exact fit short", "[fit]") {
    // The audit's sets: Pollux with sync_time_s stopped at a 12% miss (these rows; 8% on the audit's) where the same
    // rows without it fitted back exactly; ICEFROG-DDP with forward and backward times (a quarter
    // forward) at 44%. Both losses add a root-mean-square error of the compute times, which is 0 at the
    // right compute terms, a kink BOBYQA stalled on; the network terms now go first, compute held.
    const auto pollux = params_of(ModelKind::pollux, {{"alpha_c", 0.02}, {"beta_c", 0.001}, {"alpha_r", 0.01},
                                                      {"beta_r", 0.002}, {"alpha_n", 0.05}, {"beta_n", 0.01},
                                                      {"gamma", 2}});
    auto ss = exact(ModelKind::pollux, pollux);
    for (auto& s : ss) s.sync_time_s = s.step_time_s - fit::predict(ModelKind::pollux, pollux, s).compute;
    const auto g = fit::fit_group(ModelKind::pollux, ss);
    INFO("pollux: max APE " << g.quality.max_ape_pct);
    CHECK(g.quality.max_ape_pct < 0.05);
    for (const char* n : {"alpha_c", "beta_c", "alpha_r", "beta_r", "alpha_n", "beta_n", "gamma"}) {
        INFO(n << " = " << param(g, n));
        CHECK(rel(param(g, n), pollux[static_cast<size_t>(fit::param_index(ModelKind::pollux, n))]) < 0.01);
    }
    const ModelKind k = ModelKind::icefrog_ddp;
    const auto ice = params_of(k, {{"alpha_c", 0.02}, {"beta_c", 0.001}, {"fwd_share", 0.25}, {"alpha_r", 0.01},
                                   {"beta_r", 0.002}, {"alpha_n", 0.05}, {"beta_n", 0.01}, {"gamma", 2}});
    auto fb = exact(k, ice);
    for (auto& s : fb) {
        const double c = 0.02 + 0.001 * s.per_gpu_batch;
        s.fwd_time_s = 0.25 * c, s.bwd_time_s = 0.75 * c;
    }
    const auto h = fit::fit_group(k, fb, {false});
    INFO("icefrog-ddp: max APE " << h.quality.max_ape_pct);
    CHECK(h.quality.max_ape_pct < 0.05);
    for (const char* n : {"alpha_c", "beta_c", "fwd_share", "alpha_r", "beta_r", "gamma"}) {
        INFO(n << " = " << param(h, n));
        CHECK(rel(param(h, n), ice[static_cast<size_t>(fit::param_index(k, n))]) < 0.01);
    }
}

TEST_CASE("ICEFROG with forward and backward times comes back exactly at overlaps near 1", "[fit]") {
    // The audit's set: 1, 2, 4 and 8 GPUs on a node, 8 and 16 on two, batches 8-64, fwd/bwd measured.
    // BOBYQA alone stopped 4-11% off at gamma 1.2-1.4 (the loss's crease where its two root-mean-square
    // terms meet, and a single run after the factor curves); the fit polishes with a simplex in turn.
    const ModelKind k = ModelKind::icefrog_ddp;
    for (double gamma : {1.2, 1.3, 1.4}) {
        const auto truth = params_of(k, {{"alpha_c", 0.04}, {"beta_c", 0.003}, {"fwd_share", 0.3}, {"alpha_r", 0.02},
                                         {"beta_r", 0.003}, {"alpha_n", 0.05}, {"beta_n", 0.006}, {"gamma", gamma}});
        std::vector<fit::Sample> ss;
        for (const auto& [nodes, gpus] : std::vector<std::pair<int, int>>{{1, 1}, {1, 2}, {1, 4}, {1, 8}, {2, 8}, {2, 16}})
            for (double b : {8.0, 16.0, 32.0, 64.0}) {
                fit::Sample s = config(nodes, gpus, b);
                s.step_time_s = fit::predict(k, truth, s).step;
                const double c = 0.04 + 0.003 * b;
                s.fwd_time_s = 0.3 * c, s.bwd_time_s = 0.7 * c;
                ss.push_back(s);
            }
        const auto g = fit::fit_group(k, ss);
        INFO("gamma " << gamma << ": fitted " << param(g, "gamma") << ", max APE " << g.quality.max_ape_pct);
        CHECK(g.quality.max_ape_pct < 1);
        CHECK(param(g, "gamma") == Approx(gamma).epsilon(0.05));
    }
}

TEST_CASE("no sample across nodes: the cross-node terms take adaptdl's prior, 1.1 x within a node", "[fit]") {
    // Pollux's form, one node of up to 4 GPUs: alpha_n and beta_n cannot be fitted; left at 1e-9 s they
    // made 8 GPUs on 2 nodes step as fast as one GPU.
    const auto truth = params_of(ModelKind::pollux, {{"alpha_c", 0.01}, {"beta_c", 0.002}, {"alpha_r", 0.005},
                                                     {"beta_r", 0.001}, {"alpha_n", 0.02}, {"beta_n", 0.003},
                                                     {"gamma", 1}});
    for (ModelKind k : {ModelKind::pollux, ModelKind::icefrog_ddp, ModelKind::icefrog_sdp}) {
        INFO(fit::model_name(k));
        auto ss = exact(ModelKind::pollux, truth, 1);
        const auto g = fit::fit_group(k, ss);
        CHECK(param(g, "alpha_n") == Approx(1.1 * param(g, "alpha_r")));
        CHECK(param(g, "beta_n") == Approx(1.1 * param(g, "beta_r")));
        if (k != ModelKind::icefrog_sdp)  // SDP's all-gather (alpha_pr) shares the within-node time
            CHECK(param(g, "alpha_r") == Approx(0.005).epsilon(0.05));
        CHECK(g.pinned[static_cast<size_t>(fit::param_index(k, "alpha_n"))] ==
              "no samples across nodes: 1.1 x alpha_r (adaptdl's prior)");
        if (k == ModelKind::icefrog_sdp) CHECK(param(g, "alpha_pn") == Approx(1.1 * param(g, "alpha_pr")));
        // Across nodes, a step is slower than within one node and than one GPU alone.
        const double one = fit::step_time(g, config(1, 1, 16)), node = fit::step_time(g, config(1, 4, 16));
        const double two_nodes = fit::step_time(g, config(2, 8, 16));
        CHECK(two_nodes > node);
        CHECK(node > one);
    }
    // With samples across nodes the fitted values stand.
    const auto g = fit::fit_group(ModelKind::pollux, exact(ModelKind::pollux, truth));
    CHECK(param(g, "alpha_n") == Approx(0.02).epsilon(0.02));
}

TEST_CASE("the fit does not depend on the order of the rows, and reaches Pollux's optimum", "[fit]") {
    // The audit's case: BERT on the DGX, its rows as given and reversed. The loss sums over samples,
    // and in another order BOBYQA stopped elsewhere: beta_r 0.00524 one way, 0.000273 the other
    // (adaptdl's loss 0.063746 and 0.066430).
    std::vector<fit::Sample> ss;
    for (const char* f : {"placements-dgx.csv", "scalability-dgx.csv"}) {
        const auto p = fit::read_profile(io::read_input(std::string(HETSCHED_TEST_DATA) + "/fit/bert/" + f), {});
        ss.insert(ss.end(), p.samples.begin(), p.samples.end());
    }
    const auto forward = fit::fit_group(ModelKind::pollux, ss);
    std::reverse(ss.begin(), ss.end());
    const auto reversed = fit::fit_group(ModelKind::pollux, ss);
    std::shuffle(ss.begin(), ss.end(), std::mt19937_64(7));
    const auto shuffled = fit::fit_group(ModelKind::pollux, ss);
    CHECK(forward.params == reversed.params);
    CHECK(forward.params == shuffled.params);
    CHECK(pollux_loss(forward.params, ss) <= 0.063746);  // no worse than the better order reached before
    // The ICEFROG fits likewise, factor curves included.
    CHECK(fit::fit_group(ModelKind::icefrog_ddp, ss).params ==
          fit::fit_group(ModelKind::icefrog_ddp, std::vector<fit::Sample>(ss.rbegin(), ss.rend())).params);
}

TEST_CASE("a model kind refuses samples its form cannot price, naming the kinds that can", "[fit]") {
    std::vector<fit::Sample> ss;
    for (int stages : {1, 2, 4})
        for (double b : {8.0, 16.0, 32.0}) {
            fit::Sample s = config(1, stages, b);
            s.stages = stages;
            s.step_time_s = 0.02 + 0.001 * b + 0.002 * stages;
            s.where = {"p.csv", 2 + static_cast<int>(ss.size()), 0};
            ss.push_back(s);
        }
    // Pipelines: only the PP and HP forms have stages.
    CHECK_THROWS_WITH(fit::fit_group(ModelKind::pollux, ss),
                      "pollux cannot price a row of 2 pipeline stages (its form has no pipeline); the model kinds "
                      "that can: icefrog-pp, icefrog-hp");
    CHECK_THROWS_AS(fit::fit_group(ModelKind::icefrog_ddp, ss), DataError);
    CHECK_NOTHROW(fit::fit_group(ModelKind::icefrog_pp, ss));
    // Replicas: the PP form is one pipeline.
    ss[4].stages = 1;  // 2 GPUs as 2 replicas
    try {
        fit::fit_group(ModelKind::icefrog_pp, ss);
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(describe(e) == "p.csv:6: icefrog-pp cannot price a row of 2 data-parallel replicas (its form is one "
                             "pipeline without replicas); the model kinds that can: pollux, icefrog-ddp, "
                             "icefrog-sdp, icefrog-hp");
    }
    CHECK_NOTHROW(fit::fit_group(ModelKind::icefrog_hp, ss));
}

TEST_CASE("one replica count: its per-replica term is pinned, and a fit without one replica says its split is not the samples'", "[fit]") {
    // 8 GPUs on one node at batches 4-64: Pollux with alpha_r 0.01, beta_r 0.002, gamma 1.
    std::vector<fit::Sample> ss;
    for (double b : {4.0, 8.0, 16.0, 32.0, 64.0}) {
        fit::Sample s = config(1, 8, b);
        s.step_time_s = 0.05 + 0.002 * b + 0.01 + 0.002 * 6;
        ss.push_back(s);
    }
    const auto g = fit::fit_group(ModelKind::pollux, ss);
    CHECK_THAT(g.pinned[static_cast<size_t>(fit::param_index(ModelKind::pollux, "beta_r"))],
               Catch::Contains("one replica count within a node (8)"));
    CHECK(g.quality.max_ape_pct < 0.1);  // the steps themselves fit
    CHECK_THAT(g.unsplit, Catch::Contains("every sample runs 8 replicas or more"));
    // One GPU beside them tells compute from network: no such note.
    fit::Sample one = config(1, 1, 16);
    one.step_time_s = 0.05 + 0.002 * 16;
    ss.push_back(one);
    CHECK(fit::fit_group(ModelKind::pollux, ss).unsplit.empty());
}
