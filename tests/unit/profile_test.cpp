#include <catch2/catch.hpp>

#include <hetsched/fit/factor_curve.hpp>
#include <hetsched/fit/profile.hpp>

using namespace hetsched;

TEST_CASE("Sia placements: nodes and replicas from the placement string, app and GPU from the path", "[fit]") {
    const auto p = fit::read_profile({"traces/bert/placements-aws.csv",
                                      "placement,local_bsz,step_time,sync_time\n1,4,0.45,0.01\n12,6,1.2,0.8\n"},
                                     {});
    REQUIRE(p.samples.size() == 2);
    CHECK(p.format == fit::ProfileFormat::placements);
    CHECK(p.samples[0].app == "bert");
    CHECK(p.samples[0].gpu == "T4");
    CHECK(p.samples[1].num_nodes == 2);
    CHECK(p.samples[1].num_gpus == 3);
    CHECK(p.samples[1].max_per_node == 2);
    CHECK(p.samples[1].sync_time_s == Approx(0.8));
    CHECK(p.samples[1].throughput(1.2) == Approx(3 * 6 / 1.2));
}

TEST_CASE("Sia scalability files, columns in any order: --app and --gpu override the path", "[fit]") {
    const auto p = fit::read_profile(
        {"x/imagenet/scalability-rtx.csv", "local_bsz,step_time,sync_time,num_nodes,num_replicas\n20,0.2,0.05,3,7\n"},
        {"resnet", "RTX-2080Ti-custom", true, "x"});
    REQUIRE(p.samples.size() == 1);
    CHECK(p.format == fit::ProfileFormat::scalability);
    CHECK(p.samples[0].app == "resnet");
    CHECK(p.samples[0].gpu == "RTX-2080Ti-custom");
    CHECK(p.samples[0].num_nodes == 3);
    CHECK(p.samples[0].num_gpus == 7);
    CHECK(p.samples[0].max_per_node == 3);
}

TEST_CASE("hetsched's CSV: frozen layers give the trained shares theta and omega", "[fit]") {
    const auto p = fit::read_profile(
        {"p.csv", "app,gpu,num_nodes,num_gpus,per_gpu_batch,frozen_layers,total_layers,step_time_s,fwd_time_s\n"
                  "resnet18,A800,1,4,128,6,24,0.21,0.05\n"},
        {});
    REQUIRE(p.samples.size() == 1);
    CHECK(p.samples[0].unfrozen_flops == Approx(0.75));
    CHECK(p.samples[0].unfrozen_params == Approx(0.75));
    CHECK(p.samples[0].fwd_time_s == Approx(0.05));
    CHECK(std::isnan(p.samples[0].bwd_time_s));
}

TEST_CASE("profile errors say where and what", "[fit]") {
    auto err = [](const std::string& name, const std::string& text) {
        try {
            fit::read_profile({name, text}, {});
        } catch (const Error& e) {
            return describe(e);
        }
        return std::string("no error");
    };
    CHECK(err("a/bert/placements-aws.csv", "placement,local_bsz,step_time,sync_time\n1,4,0.4,0\n1x,4,0.4,0\n") ==
          "a/bert/placements-aws.csv:3:1: unknown placement '1x': expected one digit 1-9 per node, the replicas it "
          "holds (e.g. 12 = two nodes with 1 and 2)");
    CHECK(err("a/bert/placements-aws.csv", "placement,local_bsz,step_time,sync_time\n1,4,0,0\n") ==
          "a/bert/placements-aws.csv:2:5: expected a number from 0.000001 to 86400 in column 'step_time', got '0'");
    CHECK_THROWS_AS(fit::read_profile({"<stdin>", "placement,local_bsz,step_time,sync_time\n1,4,0.4,0\n"}, {}),
                    UsageError);
    CHECK(err("p.csv", "gpu,num_nodes,num_gpus,per_gpu_batch,step_time_s\nT4,1,1,8,0.1\n") ==
          "p.csv:1:1: no app column: add one, or name the app of every row with --app");
    CHECK(err("p.csv", "app,gpu,num_nodes,num_gpus,per_gpu_batch,frozen_layers,total_layers,step_time_s\n"
                       "a,T4,1,1,8,4,4,0.1\n") ==
          "p.csv:2:12: frozen_layers (4) must be below total_layers (4): a job trains at least one layer");
    CHECK(err("p.csv", "a,b\n1,2\n").find("unrecognised profile header") != std::string::npos);
    // One application, one layer count, on every GPU.
    const std::string layers = "app,gpu,num_nodes,num_gpus,per_gpu_batch,frozen_layers,total_layers,step_time_s\n";
    CHECK(err("p.csv", layers + "a,T4,1,1,8,4,16,0.1\na,T4,1,1,8,0,16,0.1\na,V100,1,1,8,2,18,0.1\n") ==
          "p.csv:4:16: a: total_layers 18 here, 16 on line 2: one application has one layer count");
    CHECK(err("p.csv", layers + "a,T4,1,1,8,4,16,0.1\nb,T4,1,1,8,2,18,0.1\n") == "no error");
}

TEST_CASE("a measurement in two files counts once, keeping the placement's fuller node", "[fit]") {
    // Sia's dgx-ext pair: the same step in a placements file ("31": 3 and 1 replicas) and a scalability
    // file (2 nodes, 4 replicas, spread unknown: 2 a node at best).
    auto all = fit::read_profile({"bert/scalability-aws.csv",
                                  "num_nodes,num_replicas,local_bsz,step_time,sync_time\n2,4,8,0.5,0.1\n1,1,8,0.3,0\n"},
                                 {}).samples;
    const auto placed = fit::read_profile({"bert/placements-aws.csv",
                                           "placement,local_bsz,step_time,sync_time\n31,8,0.5,0.1\n31,8,0.5,0.2\n"},
                                          {}).samples;
    all.insert(all.end(), placed.begin(), placed.end());
    std::string repeats;
    const auto kept = fit::distinct_samples(all, &repeats);
    REQUIRE(kept.size() == 3);  // the second placement row's sync time differs: another measurement
    CHECK(kept[0].max_per_node == 3);
    CHECK(kept[0].where.file == "bert/scalability-aws.csv");
    CHECK(repeats == "1 profile row repeats an earlier row exactly (configuration and times), counted once "
                     "(the first: bert/placements-aws.csv:2 repeats bert/scalability-aws.csv:2)");
    std::string none;
    CHECK(fit::distinct_samples(placed, &none).size() == 2);
    CHECK(none.empty());
}

TEST_CASE("factor curves interpolate on a log axis and hold their ends", "[fit]") {
    fit::FactorCurve c{{8, 32}, {1.0, 4.0}};
    CHECK(c.at(4) == Approx(1.0));
    CHECK(c.at(16) == Approx(2.0));
    CHECK(c.at(64) == Approx(4.0));
    CHECK(fit::FactorCurve{}.at(3) == 1.0);
}

TEST_CASE("profile numbers must be finite and inside fit/limits.hpp's ranges", "[fit]") {
    auto err = [](const std::string& row) {
        try {
            fit::read_profile({"p.csv", "app,gpu,num_nodes,num_gpus,per_gpu_batch,step_time_s\n" + row}, {});
        } catch (const Error& e) {
            return describe(e);
        }
        return std::string("no error");
    };
    CHECK(err("a,T4,1,1,8,0.2\n") == "no error");
    CHECK(err("a,T4,1,1,8,1e308\n") == "p.csv:2:12: expected a number from 0.000001 to 86400 in column 'step_time_s', got '1e308'");
    CHECK(err("a,T4,1,1,8,inf\n") == "p.csv:2:12: expected a number from 0.000001 to 86400 in column 'step_time_s', got 'inf'");
    CHECK(err("a,T4,1,1,8,nan\n") == "p.csv:2:12: expected a number from 0.000001 to 86400 in column 'step_time_s', got 'nan'");
    CHECK(err("a,T4,1,1,-8,0.2\n") == "p.csv:2:10: expected a positive number up to 1048576 in column 'per_gpu_batch', got '-8'");
    CHECK(err("a,T4,1,1048577,8,0.2\n") == "p.csv:2:8: expected an integer from 1 to 1048576 in column 'num_gpus', got '1048577'");
    CHECK(err("a,T4,2000000,2000000,8,0.2\n") == "p.csv:2:6: expected an integer from 1 to 1048576 in column 'num_nodes', got '2000000'");
}

TEST_CASE("pipelined rows: without total_layers nothing is frozen: freezing needs total_layers", "[fit]") {
    const std::string head = "app,gpu,num_nodes,num_gpus,per_gpu_batch,pipeline_stages,step_time_s\n";
    const auto p = fit::read_profile({"p.csv", head + "a,T4,1,4,8,4,0.2\n"}, {});
    REQUIRE(p.samples.size() == 1);
    CHECK(p.samples[0].stages == 4);
    CHECK(p.samples[0].total_layers == 0);
    CHECK(p.samples[0].unfrozen_flops == 1);
    try {
        fit::read_profile({"p.csv", "app,gpu,num_nodes,num_gpus,per_gpu_batch,pipeline_stages,frozen_layers,"
                                    "unfrozen_flops_fraction,step_time_s\na,T4,1,2,8,2,1,0.75,0.2\n"},
                          {});
        FAIL("expected an error");
    } catch (const DataError& e) {
        CHECK(describe(e) == "p.csv:2:14: a pipelined row with frozen layers needs total_layers: each stage's "
                             "trained share comes from the layers it holds");
    }
    CHECK_THROWS_WITH(
        fit::read_profile({"p.csv", "app,gpu,num_nodes,num_gpus,per_gpu_batch,pipeline_stages,total_layers,"
                                    "step_time_s\na,T4,1,4,8,4,2,0.2\n"},
                          {}),
        "total_layers (2) is below pipeline_stages (4): every stage holds at least one layer");
}

TEST_CASE("parts of a step: equal to it is fine, rounding aside, beyond it (alone or together) refused at the cell", "[fit]") {
    const std::string head = "app,gpu,num_nodes,num_gpus,per_gpu_batch,fwd_time_s,bwd_time_s,step_time_s\n";
    auto err = [](const std::string& text) {
        try {
            fit::read_profile({"p.csv", text}, {});
        } catch (const Error& e) {
            return describe(e);
        }
        return std::string("no error");
    };
    // 0.1 + 0.2 is one rounding above 0.3, and 0.0072 + 0.0108 above 0.018: a profiler writing
    // step = fwd + bwd writes these.
    CHECK(err(head + "m,T4,1,1,8,0.1,0.2,0.3\n") == "no error");
    CHECK(err(head + "m,T4,1,1,8,0.0072,0.0108,0.018\n") == "no error");
    CHECK(err(head + "m,T4,1,1,8,0.1,0.2001,0.3\n") ==
          "p.csv:2:16: forward + backward time 0.3001 s exceeds the step time 0.3 s they are part of");
    // A part alone beyond the step, the other column absent (NaN summed to NaN, and passed).
    CHECK(err("app,gpu,num_nodes,num_gpus,per_gpu_batch,fwd_time_s,step_time_s\nm,T4,1,1,8,0.06,0.012\n") ==
          "p.csv:2:12: forward time 0.06 s exceeds the step time 0.012 s it is part of");
    CHECK(err("app,gpu,num_nodes,num_gpus,per_gpu_batch,step_time_s,bwd_time_s\nm,T4,1,1,8,0.012,0.06\n") ==
          "p.csv:2:18: backward time 0.06 s exceeds the step time 0.012 s it is part of");
    CHECK(err(head + "m,T4,1,1,8,0.5,0.1,0.3\n") == "p.csv:2:12: forward time 0.5 s exceeds the step time 0.3 s it is part of");
}

TEST_CASE("a Sia profile's app is the folder the caller found it in, when its path names none", "[fit]") {
    const std::string text = "placement,local_bsz,step_time,sync_time\n1,4,0.45,0.01\n";
    // "placements-dgx.csv" read in profiles/bert: the tool passes the folder of its absolute path.
    CHECK_THROWS_AS(fit::read_profile({"placements-dgx.csv", text}, {}), UsageError);
    const auto p = fit::read_profile({"placements-dgx.csv", text}, {"", "", true, "bert"});
    CHECK(p.samples.at(0).app == "bert");
    CHECK(p.samples.at(0).gpu == "A100-40GB-SXM");
    // --app still wins.
    CHECK(fit::read_profile({"placements-dgx.csv", text}, {"gpt", "", true, "bert"}).samples.at(0).app == "gpt");
}
