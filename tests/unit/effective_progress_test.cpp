// ICEFROG's frozen penalty (Eq. 3), effective progress E = psi x T (Eq. 2, with T = M / T_iter, Eq. 4,
// lambda = 1) and the layer tuner's argmax (Eq. 15), against hand-computed values.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include <hetsched/fit/effective_progress.hpp>

using namespace hetsched;
using fit::ModelKind;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

/// An ICEFROG-DDP fit with only compute, forward share and the intra-node all-reduce switched on.
fit::GroupFit ddp_fit() {
    fit::GroupFit g;
    g.app = "app";
    g.gpu = "T4";
    g.kind = ModelKind::icefrog_ddp;
    for (const auto& info : fit::param_info(g.kind)) g.params.push_back(info.neutral);
    const auto set = [&](const char* n, double v) { g.params[static_cast<size_t>(fit::param_index(g.kind, n))] = v; };
    set("alpha_c", 0.02);
    set("beta_c", 0.001);
    set("fwd_share", 0.25);
    set("alpha_r", 0.01);
    g.pinned.assign(g.params.size(), "");
    g.range.max_per_node = 2;
    return g;
}

}  // namespace

TEST_CASE("frozen penalty: Eq. 3 with the variance frozen layers had when frozen", "[fit][progress]") {
    // Layers 1..4, current variances 4, 3, 2, 1; layer 1 was frozen when its variance was 6.
    const fit::LayerStats s{{4, 3, 2, 1}, {6, kNaN, kNaN, kNaN}, {1, 1, 1, 1}, {1, 1, 1, 1}};
    CHECK(fit::frozen_penalty(s, 0) == Approx(1.0));   // nothing frozen: 10 / (0 + 10)
    CHECK(fit::frozen_penalty(s, 1) == Approx(0.5));   // (3 + 2 + 1) / (6 + 6) = 6 / 12
    CHECK(fit::frozen_penalty(s, 2) == Approx(0.25));  // (2 + 1) / ((6 + 3) + 3) = 3 / 12
    CHECK(fit::frozen_penalty(s, 3) == Approx(1.0 / 12));  // 1 / ((6 + 3 + 2) + 1) = 1 / 12
}

TEST_CASE("trained shares theta and omega are the weights after the frozen layers", "[fit][progress]") {
    CHECK(fit::unfrozen_share({1, 2, 3, 4}, 0) == Approx(1.0));
    CHECK(fit::unfrozen_share({1, 2, 3, 4}, 2) == Approx(0.7));  // (3 + 4) / 10
    CHECK(fit::unfrozen_share({1, 2, 3, 4}, 3) == Approx(0.4));  // 4 / 10
}

TEST_CASE("layer tuner: the candidate of highest effective progress first (Eq. 2, 15)", "[fit][progress]") {
    // Two layers of equal weight, variances 1 and 3 (nothing frozen yet); 2 GPUs on one node, m = 16.
    const fit::LayerStats stats{{1, 3}, {kNaN, kNaN}, {1, 1}, {1, 1}};
    const auto cands = fit::tune_layers(ddp_fit(), stats, 2, 1, {16});
    REQUIRE(cands.size() == 2);
    // Compute 0.02 + 0.001 * 16 = 0.036: T_fwd = 0.009, T_bwd(m, 0) = 0.027; T_sync(2, 0) = 0.01; gamma = 1.
    // l = 1: theta = omega = 0.5, gamma_flop = 1: T_bwd = 0.0135, T_sync = 0.005, T_iter = 0.009 + 0.0135 +
    //   0.005 = 0.0275; T = 2 * 16 / 0.0275 = 1163.636; psi = 3 / (1 + 3) = 0.75; E = 872.727.
    // l = 0: T_iter = 0.009 + 0.027 + 0.01 = 0.046; T = 32 / 0.046 = 695.652; psi = 1; E = 695.652.
    CHECK(cands[0].frozen_layers == 1);
    CHECK(cands[0].psi == Approx(0.75));
    CHECK(cands[0].step_time_s == Approx(0.0275).epsilon(1e-6));
    CHECK(cands[0].throughput == Approx(1163.636).epsilon(1e-6));
    CHECK(cands[0].effective_progress == Approx(872.727).epsilon(1e-6));
    CHECK(cands[1].frozen_layers == 0);
    CHECK(cands[1].effective_progress == Approx(695.652).epsilon(1e-6));
}

TEST_CASE("layer statistics: numbers outside their range are refused at the cell", "[fit][progress]") {
    const auto err = [](const std::string& text) {
        try {
            fit::read_layer_stats({"s.csv", text});
        } catch (const Error& e) {
            return describe(e);
        }
        return std::string("no error");
    };
    CHECK(err("layer,grad_var\n1,0.1\n2,1e31\n") == "s.csv:3:3: expected a number from 0 to 1e30 in column 'grad_var', got '1e31'");
    CHECK(err("layer,grad_var\n1,-1\n2,1\n") == "s.csv:2:3: expected a number from 0 to 1e30 in column 'grad_var', got '-1'");
    CHECK(err("layer,grad_var,flops\n1,1,0\n2,1,1\n") == "s.csv:2:5: expected a positive number up to 1e30 in column 'flops', got '0'");
    CHECK(err("layer,grad_var\n1,nan\n2,1\n").find("expected a number from 0 to 1e30 in column 'grad_var'") != std::string::npos);
}

TEST_CASE("layer tuner: a fixed global batch is split over each stage count's replicas", "[fit][progress]") {
    // ICEFROG-HP on 4 GPUs: 1 stage (4 replicas) or 2 stages (2 replicas of 2 GPUs). A global batch of
    // 128 is 32 a replica in the first and 64 in the second: both train on 128 samples a step.
    fit::GroupFit hp;
    hp.app = "app";
    hp.gpu = "T4";
    hp.kind = ModelKind::icefrog_hp;
    for (const auto& info : fit::param_info(hp.kind)) hp.params.push_back(info.neutral);
    const auto set = [&](const char* n, double v) { hp.params[static_cast<size_t>(fit::param_index(hp.kind, n))] = v; };
    set("alpha_c", 0.02), set("beta_c", 0.001), set("alpha_r", 0.005), set("alpha_act", 0.001);
    hp.pinned.assign(hp.params.size(), "");
    hp.range.max_per_node = 4;
    hp.range.max_stages = 2;
    const fit::LayerStats stats{{1, 3}, {kNaN, kNaN}, {1, 1}, {1, 1}};
    const auto cands = fit::tune_layers(hp, stats, 4, 1, {}, 128);
    REQUIRE(cands.size() == 4);  // 2 stage counts x 2 frozen-layer counts
    for (const auto& c : cands) {
        INFO(c.pipeline_stages << " stages, batch " << c.per_gpu_batch);
        CHECK(c.per_gpu_batch == 128.0 * c.pipeline_stages / 4);
        CHECK(c.throughput * c.step_time_s == Approx(128));  // samples a step
    }
}
