// Predictions from a fitted model: configurations, default batch sizes and the throughput grid, with the
// step times worked by hand from Pollux's formula and throughput = replicas x m / T_iter (ICEFROG Eq. 4).
#include <catch2/catch.hpp>

#include <hetsched/fit/prediction.hpp>

#include "fit_fixture.hpp"

using namespace hetsched;

namespace {

fit::GroupFit pollux_fit() { return fit::test::pollux_fit("bert", "T4", 6, 40, 4, 4); }

/// ICEFROG's PP form with the parameters of throughput_model_test's hand case: forward + backward
/// 0.02 + 0.002 m (a quarter forward), each transfer 0.001 + 0.0002 m; the rest off.
fit::GroupFit pipeline_fit(fit::ModelKind kind, int max_stages) {
    fit::GroupFit g;
    g.app = "gpt";
    g.gpu = "A100";
    g.kind = kind;
    for (const auto& info : fit::param_info(kind)) g.params.push_back(info.neutral);
    const auto set = [&](const char* name, double v) { g.params[static_cast<size_t>(fit::param_index(kind, name))] = v; };
    set("alpha_c", 0.02), set("beta_c", 0.002), set("fwd_share", 0.25), set("alpha_act", 0.001), set("beta_act", 0.0002);
    g.pinned.assign(g.params.size(), "");
    g.range.min_batch = g.range.max_batch = 10;
    g.range.max_gpus = g.range.max_per_node = g.range.max_stages = max_stages;
    return g;
}

}  // namespace

TEST_CASE("configurations fill nodes evenly", "[fit][predict]") {
    const auto s = fit::configuration(pollux_fit(), 6, 4, 16);
    CHECK(s.num_gpus == 6);
    CHECK(s.num_nodes == 4);
    CHECK(s.max_per_node == 2);  // ceil(6 / 4)
    CHECK(s.per_gpu_batch == 16);
    CHECK(fit::gpus_per_node(pollux_fit(), 0) == 4);
    CHECK(fit::gpus_per_node(pollux_fit(), 3) == 3);
}

TEST_CASE("default batches are the powers of two inside the fitted range", "[fit][predict]") {
    CHECK(fit::default_batches(pollux_fit()) == std::vector<double>{8, 16, 32});  // within [6, 40]
    fit::GroupFit narrow = pollux_fit();
    narrow.range.min_batch = 5, narrow.range.max_batch = 7;
    CHECK(fit::default_batches(narrow) == std::vector<double>{5});  // none inside: the smallest batch
}

TEST_CASE("the throughput grid: step time and replicas x batch / step", "[fit][predict]") {
    // 1 GPU, m = 32: T_iter = 0.02 + 0.001 * 32 = 0.052; throughput 32 / 0.052 = 615.385.
    // 4 GPUs at 2 per node (2 nodes), m = 32: T_net = 0.2 + 0.02 * (4 - 2) = 0.24, gamma = 1:
    // T_iter = 0.052 + 0.24 = 0.292; throughput 4 * 32 / 0.292 = 438.356.
    const std::string grid = fit::throughput_grid({pollux_fit()}, {{1, 4}, {32}, 2});
    CHECK(grid ==
          "app,gpu,num_nodes,num_gpus,pipeline_stages,per_gpu_batch,predicted_step_time_s,predicted_throughput\n"
          "bert,T4,1,1,1,32,0.052,615.385\n"
          "bert,T4,2,4,1,32,0.292,438.356\n");
}

TEST_CASE("predict_table appends the predictions to each profile row", "[fit][predict]") {
    const auto p = fit::read_profile({"p.csv", "app,gpu,num_nodes,num_gpus,per_gpu_batch\nbert,T4,1,1,32\n"},
                                     {"", "", false, ""});
    // As above: 0.052 s, 615.385 samples/s.
    CHECK(fit::predict_table(p, {pollux_fit()}) ==
          "app,gpu,num_nodes,num_gpus,per_gpu_batch,predicted_step_time_s,predicted_throughput\n"
          "bert,T4,1,1,32,0.052,615.385\n");
    const auto other = fit::read_profile({"p.csv", "app,gpu,num_nodes,num_gpus,per_gpu_batch\nvgg,T4,1,1,32\n"},
                                         {"", "", false, ""});
    CHECK_THROWS_AS(fit::predict_table(other, {pollux_fit()}), DataError);
}

TEST_CASE("predict_table names the rows beyond their fit's samples, and predicts them all the same", "[fit][predict]") {
    // The fit saw per-GPU batches 6-40 on up to 4 GPUs.
    const auto p = fit::read_profile({"p.csv", "app,gpu,num_nodes,num_gpus,per_gpu_batch\n"
                                               "bert,T4,1,1,32\nbert,T4,1,1,64\nbert,T4,2,8,4\nbert,T4,1,4,6\n"},
                                     {"", "", false, ""});
    std::string beyond;
    const std::string table = fit::predict_table(p, {pollux_fit()}, &beyond);
    CHECK(table == fit::predict_table(p, {pollux_fit()}));
    CHECK(beyond == "2 of 4 rows extrapolated beyond their fit's samples: p.csv:3: per-GPU batch 64 (profiled 6-40), "
                    "p.csv:4: per-GPU batch 4 (profiled 6-40) and 8 GPUs (profiled up to 4)");
    std::string rows = "app,gpu,num_nodes,num_gpus,per_gpu_batch\n";
    for (int i = 0; i < 7; ++i) rows += "bert,T4,1,1,100\n";
    beyond.clear();
    (void)fit::predict_table(fit::read_profile({"q.csv", rows}, {"", "", false, ""}), {pollux_fit()}, &beyond);
    CHECK(beyond.rfind("7 of 7 rows", 0) == 0);
    CHECK(beyond.find("q.csv:6: per-GPU batch 100") != std::string::npos);
    CHECK(beyond.find("q.csv:7:") == std::string::npos);
    CHECK(beyond.substr(beyond.size() - 12) == ", and 2 more");
}

TEST_CASE("fitted_throughput splits a per-GPU batch beyond the fit into accumulation steps", "[fit][predict]") {
    // As above: m = 32 on 1 GPU, 0.052 s: 615.385 samples/s.
    CHECK(fit::fitted_throughput(pollux_fit(), 1, 4, 32) == Approx(32 / 0.052));
    // 64 on 1 GPU is past the fit's 40: two steps of 32, 2 x 0.052 s for 64 samples, the same rate.
    CHECK(fit::fitted_throughput(pollux_fit(), 1, 4, 64) == Approx(64 / (2 * 0.052)));
    // No batch given: the largest the fit saw, 40: 0.02 + 0.001 * 40 = 0.06 s.
    CHECK(fit::fitted_throughput(pollux_fit(), 1, 4, 0) == Approx(40 / 0.06));
    // 128 on 4 GPUs, 2 per node: 32 each, 0.292 s as in the grid.
    CHECK(fit::fitted_throughput(pollux_fit(), 4, 2, 128) == Approx(128 / 0.292));
}

TEST_CASE("a pipelined fit is priced with pipeline stages, never as free data parallelism", "[fit][predict]") {
    using fit::ModelKind;
    // PP has no data-parallel term: one pipeline over every GPU.
    const auto pp = pipeline_fit(ModelKind::icefrog_pp, 4);
    CHECK(fit::stage_counts(pp, 4) == std::vector<int>{4});
    CHECK(fit::stage_counts(pp, 1) == std::vector<int>{1});
    // HP: every divisor of the GPU count up to the deepest pipeline profiled (4).
    CHECK(fit::stage_counts(pipeline_fit(ModelKind::icefrog_hp, 4), 8) == std::vector<int>{1, 2, 4});
    CHECK(fit::stage_counts(pollux_fit(), 8) == std::vector<int>{1});
    // 2 GPUs, m = 10, 2 stages: 0.01 forward + 0.003 activation + 0.03 backward + 0.003 gradient = 0.046 s
    // (throughput_model_test's hand case), 10 samples a step: 217.391 samples/s. As one stage with 2
    // replicas it would read 0.04 s and 500 samples/s.
    CHECK(fit::throughput_grid({pp}, {{2}, {10}, 2}) ==
          "app,gpu,num_nodes,num_gpus,pipeline_stages,per_gpu_batch,predicted_step_time_s,predicted_throughput\n"
          "gpt,A100,1,2,2,10,0.046,217.391\n");
    // A global batch of 10 is one replica's 10: the same 0.046 s step.
    CHECK(fit::fitted_throughput(pp, 2, 2, 10) == Approx(10 / 0.046));
}

TEST_CASE("predict_table replaces the predictions of a table predicted before", "[fit][predict]") {
    const auto p = fit::read_profile(
        {"p.csv", "app,gpu,num_nodes,num_gpus,per_gpu_batch,predicted_step_time_s,predicted_throughput\n"
                  "bert,t4,1,1,32,9,9\n"},
        {"", "", false, ""});
    // GPU names match with case ignored: t4 is the fit's T4. As above: 0.052 s, 615.385 samples/s.
    CHECK(fit::predict_table(p, {pollux_fit()}) ==
          "app,gpu,num_nodes,num_gpus,per_gpu_batch,predicted_step_time_s,predicted_throughput\n"
          "bert,t4,1,1,32,0.052,615.385\n");
}

TEST_CASE("no pipeline deeper than the model's layers: the grid leaves such GPU counts out, and says so", "[fit][predict]") {
    using fit::ModelKind;
    auto pp = pipeline_fit(ModelKind::icefrog_pp, 4);
    pp.range.total_layers = 4;
    // PP prices N GPUs as one N-stage pipeline: 8 stages of a 4-layer model do not exist.
    CHECK(fit::stage_counts(pp, 4) == std::vector<int>{4});
    CHECK(fit::stage_counts(pp, 8).empty());
    CHECK(fit::fitted_throughput(pp, 8, 8, 80) == 0);
    auto hp = pipeline_fit(ModelKind::icefrog_hp, 8);
    hp.range.total_layers = 2;
    CHECK(fit::stage_counts(hp, 8) == std::vector<int>{1, 2});
    std::string left_out;
    const std::string grid = fit::throughput_grid({pp}, {{2, 8, 16}, {10}, 2}, &left_out);
    CHECK(grid ==
          "app,gpu,num_nodes,num_gpus,pipeline_stages,per_gpu_batch,predicted_step_time_s,predicted_throughput\n"
          "gpt,A100,1,2,2,10,0.046,217.391\n");
    CHECK(left_out == "no rows for gpt on A100 at 8, 16 GPUs: icefrog-pp prices them as one pipeline of as many "
                      "stages, more than the model's 4 layers");
}

TEST_CASE("predict_table refuses rows the model kind cannot price", "[fit][predict]") {
    // A pipelined row under Pollux's form would be priced as data parallelism.
    const auto p = fit::read_profile(
        {"p.csv", "app,gpu,num_nodes,num_gpus,per_gpu_batch,pipeline_stages\nbert,T4,1,2,32,2\n"}, {"", "", false, ""});
    CHECK_THROWS_WITH(fit::predict_table(p, {pollux_fit()}),
                      Catch::StartsWith("pollux cannot price a row of 2 pipeline stages"));
}
