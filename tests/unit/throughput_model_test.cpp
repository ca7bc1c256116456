// Step-time models against the papers' formulas, evaluated by hand (Pollux's T_iter; ICEFROG Eq. 5-7
// for data parallelism and Eq. 11-12 for pipelines). The expected values are literals with their
// arithmetic in the comment, never the output of predict() itself.
#include <catch2/catch.hpp>

#include <hetsched/fit/throughput_model.hpp>

using namespace hetsched;
using fit::ModelKind;

namespace {

fit::Sample config(int nodes, int gpus, double batch, int stages = 1) {
    fit::Sample s;
    s.num_nodes = nodes;
    s.num_gpus = gpus;
    s.stages = stages;
    s.max_per_node = (gpus + nodes - 1) / nodes;
    s.per_gpu_batch = batch;
    return s;
}

/// Every parameter of `k` at its neutral value (scale terms 1e-9 s, i.e. off), then `set` by name.
std::vector<double> params(ModelKind k, std::initializer_list<std::pair<const char*, double>> set) {
    std::vector<double> p;
    for (const auto& info : fit::param_info(k)) p.push_back(info.neutral);
    for (const auto& [name, v] : set) {
        const int i = fit::param_index(k, name);
        REQUIRE(i >= 0);
        p[static_cast<size_t>(i)] = v;
    }
    return p;
}

}  // namespace

TEST_CASE("Pollux: compute linear in the batch, network by link and replicas, gamma-norm", "[fit][model]") {
    // alpha_c, beta_c, alpha_r, beta_r, alpha_n, beta_n, gamma
    const std::vector<double> p = {0.02, 0.001, 0.05, 0.01, 0.2, 0.02, 2};
    // One GPU: T_net = 0, T_iter = T_accum = 0.02 + 0.001 * 32 = 0.052.
    CHECK(fit::predict(ModelKind::pollux, p, config(1, 1, 32)).step == Approx(0.052));
    // 4 replicas in one node: T_net = 0.05 + 0.01 * (4 - 2) = 0.07;
    // T_iter = sqrt(0.052^2 + 0.07^2) = sqrt(0.002704 + 0.0049) = sqrt(0.007604) = 0.0872009.
    const auto intra = fit::predict(ModelKind::pollux, p, config(1, 4, 32));
    CHECK(intra.compute == Approx(0.052));
    CHECK(intra.network == Approx(0.07));
    CHECK(intra.step == Approx(0.0872009).epsilon(1e-6));
    // 8 replicas on 2 nodes: T_net = 0.2 + 0.02 * (8 - 2) = 0.32;
    // T_iter = sqrt(0.002704 + 0.1024) = sqrt(0.105104) = 0.3241975.
    CHECK(fit::predict(ModelKind::pollux, p, config(2, 8, 32)).step == Approx(0.3241975).epsilon(1e-6));
    // gamma = 1: no overlap, the terms add: 0.052 + 0.07 = 0.122.
    std::vector<double> serial = p;
    serial[6] = 1;
    CHECK(fit::predict(ModelKind::pollux, serial, config(1, 4, 32)).step == Approx(0.122));
}

TEST_CASE("ICEFROG-DDP: Eq. 5 with the frozen-layer backward (Eq. 6) and sync (Eq. 7)", "[fit][model]") {
    const auto p = params(ModelKind::icefrog_ddp, {{"alpha_c", 0.03}, {"beta_c", 0.0015}, {"fwd_share", 0.25},
                                                   {"alpha_r", 0.04}, {"beta_r", 0.005}, {"gamma", 2},
                                                   {"alpha_flop", 0.001}, {"beta_flop", 1.2}, {"gamma_flop", 0.5},
                                                   {"alpha_sync", 0.002}, {"beta_sync", 1.1}});
    fit::Sample s = config(1, 4, 40);
    s.unfrozen_flops = s.unfrozen_params = 0.5;  // theta_l = omega_l = 0.5
    // T_fwd + T_bwd(m, 0) = 0.03 + 0.0015 * 40 = 0.09, forward a quarter: T_fwd = 0.0225, T_bwd(m, 0) = 0.0675.
    // Eq. 6: T_bwd = 0.001 + 1.2 * 0.5^0.5 * 0.0675 = 0.001 + 1.2 * 0.7071068 * 0.0675 = 0.0582756.
    // T_sync(a, 0) = 0.04 + 0.005 * (4 - 2) = 0.05; Eq. 7: T_sync = 0.002 + 1.1 * 0.5 * 0.05 = 0.0295.
    // Eq. 5: T_iter = 0.0225 + sqrt(0.0582756^2 + 0.0295^2) = 0.0225 + 0.0653169 = 0.0878169.
    const auto t = fit::predict(ModelKind::icefrog_ddp, p, s);
    CHECK(t.network == Approx(0.0295));
    CHECK(t.compute == Approx(0.0225 + 0.0582756).epsilon(1e-6));
    CHECK(t.step == Approx(0.0878169).epsilon(1e-6));
    // Nothing frozen, one GPU: no sync, T_bwd = 0.001 + 1.2 * 0.0675 = 0.082; T_iter = 0.0225 + 0.082 = 0.1045.
    CHECK(fit::predict(ModelKind::icefrog_ddp, p, config(1, 1, 40)).step == Approx(0.1045));
}

TEST_CASE("ICEFROG-PP: Eq. 12, each stage's backward on its own frozen layers", "[fit][model]") {
    const auto p = params(ModelKind::icefrog_pp, {{"alpha_c", 0.02}, {"beta_c", 0.002}, {"fwd_share", 0.25},
                                                  {"alpha_act", 0.001}, {"beta_act", 0.0002}, {"gamma_flop", 0.5}});
    // m = 10: forward + backward = 0.02 + 0.002 * 10 = 0.04, T_fwd = 0.01, T_bwd(m, 0) = 0.03 over 2 equal
    // stages (0.015 each); T_act = T_grad = 0.001 + 0.0002 * 10 = 0.003.
    fit::Sample s = config(1, 2, 10, 2);
    s.total_layers = 8;
    s.frozen_layers = 2;
    // F(2, 0) = 2 of stage 0's 4 layers (theta_0 = 0.5), F(2, 1) = 0 (theta_1 = 1);
    // backward = 0.5^0.5 * 0.015 + 1 * 0.015 = 0.0106066 + 0.015 = 0.0256066 (alpha_flop off);
    // one activation transfer (stage 0 -> 1) and one gradient transfer (1(F(2, 1) = 0) = 1);
    // T_pp = 0.01 + 0.003 + 0.0256066 + 0.003 = 0.0416066.
    CHECK(fit::predict(ModelKind::icefrog_pp, p, s).step == Approx(0.0416066).epsilon(1e-6));
    // Freezing into stage 1 (F(5, 1) = 1 of 4): no gradient transfer into stage 0, both stages partly frozen:
    // theta_0 = 0 (no backward), theta_1 = 0.75: backward = 0.75^0.5 * 0.015 = 0.0129904;
    // T_pp = 0.01 + 0.003 + 0.0129904 = 0.0259904.
    s.frozen_layers = 5;
    CHECK(fit::predict(ModelKind::icefrog_pp, p, s).step == Approx(0.0259904).epsilon(1e-6));
}

TEST_CASE("ICEFROG-PP without total_layers: nothing is frozen in any stage", "[fit][model]") {
    const auto p = params(ModelKind::icefrog_pp, {{"alpha_c", 0.02}, {"beta_c", 0.002}, {"fwd_share", 0.25},
                                                  {"alpha_act", 0.001}, {"beta_act", 0.0002}});
    // As above with theta_j = 1: T_pp = 0.01 + 0.003 + 0.03 + 0.003 = 0.046 (before the fix the backward
    // vanished, 0.016).
    const fit::Sample s = config(1, 2, 10, 2);
    CHECK(s.total_layers == 0);
    CHECK(fit::predict(ModelKind::icefrog_pp, p, s).step == Approx(0.046));
}
