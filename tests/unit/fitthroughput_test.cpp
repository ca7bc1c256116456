// fitthroughput's entry point: typed options and input texts (no files, no CLI11), usage errors from the
// flags alone, and the tuner's global batch split into whole per-GPU batches.
#include <catch2/catch.hpp>

#include <hetsched/cli/error.hpp>
#include <hetsched/fit/fitthroughput.hpp>

using namespace hetsched;

namespace {

fit::FitthroughputOptions tune(int gpus, long global_batch) {
    fit::FitthroughputOptions o;
    o.mode = fit::Mode::tune;
    o.app = "resnet18";
    o.gpu = "V100";
    o.gpus = {gpus};
    o.global_batch = global_batch;
    return o;
}

std::string usage_error(const fit::FitthroughputOptions& o, fit::GivenInputs given = {true, true, {}}) {
    try {
        fit::check_options(o, given);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

TEST_CASE("the global batch must split into whole per-GPU batches over --gpus", "[fit][tool]") {
    CHECK(usage_error(tune(4, 256)) == "no error");
    CHECK(usage_error(tune(4, 1)) == "--global-batch 1 is below --gpus 4: every GPU needs at least one sample of the batch");
    CHECK(usage_error(tune(4, 10)).find("--global-batch 10 does not split evenly over --gpus 4") == 0);
    auto both = tune(4, 256);
    both.batches = {64};
    CHECK(usage_error(both) == "--global-batch fixes the per-GPU batch: give it or --batch, not both");
}

TEST_CASE("a mode's missing inputs are usage errors before any file is read", "[fit][tool]") {
    CHECK(usage_error(tune(4, 256), {false, true, {}}) == "--tune needs --params MODEL.yaml (the output of a fit)");
    CHECK(usage_error(tune(4, 256), {true, false, {}}) == "--tune needs --layer-stats FILE (layer,grad_var[,...])");
    CHECK_THROWS_WITH(fit::select_mode(true, true, false, false),
                      "--predict, --grid, --tune and --sharing are separate modes: give one");
    CHECK(fit::select_mode(false, false, true, false) == fit::Mode::tune);
}

TEST_CASE("a fit runs on profile text in memory", "[fit][tool]") {
    fit::FitthroughputInputs in;
    in.profiles.push_back({"p.csv", "app,gpu,num_nodes,num_gpus,per_gpu_batch,step_time_s\n"
                                    "a,T4,1,1,8,0.028\na,T4,1,1,16,0.036\na,T4,1,1,32,0.052\n"});
    fit::FitthroughputOptions o;
    o.model = "pollux";
    o.csv = true;
    const auto r = fit::run_fitthroughput(in, o);
    // Exactly linear in the batch (0.02 + 0.001 m): a perfect fit.
    CHECK(r.text == "app,gpu,model,samples,r2,mean_ape_pct,max_ape_pct,heldout_r2,heldout_mean_ape_pct,heldout_max_ape_pct\n"
                    "a,T4,pollux,3,1,0,0,,,\n");
}

TEST_CASE("a fit that misses its own samples by more than 15% on average is warned of", "[fit][tool]") {
    fit::FitthroughputInputs in;
    fit::FitthroughputOptions o;
    o.model = "pollux";
    o.csv = true;
    // Step times that fall and rise with the batch: no line in it fits them.
    in.profiles.push_back({"p.csv", "app,gpu,num_nodes,num_gpus,per_gpu_batch,step_time_s\n"
                                    "a,T4,1,1,8,0.2\na,T4,1,1,16,0.02\na,T4,1,1,32,0.3\na,T4,1,1,64,0.03\n"});
    const auto rough = fit::run_fitthroughput(in, o).warnings;
    REQUIRE(rough.size() == 1);
    CHECK_THAT(rough[0], Catch::Contains("a on T4: the fit misses its own samples by") && Catch::Contains("% on average (r2 "));
    in.profiles[0].text = "app,gpu,num_nodes,num_gpus,per_gpu_batch,step_time_s\na,T4,1,1,8,0.028\na,T4,1,1,16,0.036\n"
                          "a,T4,1,1,32,0.052\n";
    CHECK(fit::run_fitthroughput(in, o).warnings.empty());
}

TEST_CASE("a flag only other modes read is refused, not ignored", "[fit][tool]") {
    fit::FitthroughputOptions grid;
    grid.mode = fit::Mode::grid;
    CHECK(usage_error(grid, {true, false, {"--params", "--gpus", "--batch"}}) == "no error");
    CHECK(usage_error(grid, {true, false, {"--format"}}) == "--format is read by a fit, not by --grid");
    CHECK(usage_error(grid, {true, false, {"--nodes"}}) == "--nodes is read by --tune, not by --grid");
    fit::FitthroughputOptions fit;
    CHECK(usage_error(fit, {true, false, {"--params"}}) == "--params is read by --predict, --grid or --tune, not by a fit");
    fit.validate = 5;
    CHECK(usage_error(fit, {false, false, {"FILE", "--validate", "--seed"}}) == "no error");
    fit::FitthroughputOptions predict;
    predict.mode = fit::Mode::predict;
    CHECK(usage_error(predict, {true, false, {"FILE"}}) == "a profile FILE is read by a fit, not by --predict");
}

TEST_CASE("an option the mode reads only with another is refused alone, not ignored", "[fit][tool]") {
    // --seed seeds --validate's shuffle only.
    fit::FitthroughputOptions fit;
    CHECK(usage_error(fit, {false, false, {"FILE", "--seed"}}) ==
          "--seed is read by --validate only: it seeds the cross-validation shuffle");
    // --no-curves shapes the ICEFROG fits only.
    CHECK(usage_error(fit, {false, false, {"--no-curves"}}) == "no error");
    fit.model = "pollux";
    CHECK(usage_error(fit, {false, false, {"--no-curves"}}) ==
          "--no-curves is read by the ICEFROG models only: pollux has no factor curves");
    // --gpu and --capacity-gib size the --pair verdict only.
    fit::FitthroughputOptions sharing;
    sharing.mode = fit::Mode::sharing;
    sharing.gpu = "T4";
    CHECK(usage_error(sharing, {false, false, {"--capacity-gib"}}) ==
          "--capacity-gib is read by --sharing only with --pair: the GPU memory the jobs would share");
    CHECK(usage_error(sharing, {false, false, {"--gpu"}}) ==
          "--gpu is read by --sharing only with --pair: the GPU type the jobs would share");
    sharing.pairs = {"a:8", "b:8"};
    CHECK(usage_error(sharing, {false, false, {"--gpu", "--capacity-gib", "--pair"}}) == "no error");
    // --nodes spreads the tuner's GPUs itself: --gpus-per-node would change nothing.
    auto t = tune(4, 256);
    t.nodes = 2;
    CHECK(usage_error(t, {true, true, {"--nodes", "--gpus-per-node"}}) ==
          "--gpus-per-node is read by --tune only without --nodes: --nodes says how the GPUs are spread");
    t.nodes = 0;
    CHECK(usage_error(t, {true, true, {"--gpus-per-node"}}) == "no error");
}

TEST_CASE("a Sia profile takes its app from the folder the tool found it in", "[fit][tool]") {
    // "placements-dgx.csv" read in .../bert: the path names no folder; the tool's absolute path does.
    fit::FitthroughputInputs in;
    in.profiles.push_back({"placements-dgx.csv", "placement,local_bsz,step_time,sync_time\n"
                                                 "1,4,0.2,0\n1,8,0.3,0\n1,16,0.5,0\n1,32,0.9,0\n"});
    fit::FitthroughputOptions o;
    o.model = "pollux";
    o.csv = true;
    CHECK_THROWS_AS(fit::run_fitthroughput(in, o), UsageError);
    in.profile_folders = {"bert"};
    const auto r = fit::run_fitthroughput(in, o);
    CHECK(r.text.find("\nbert,A100-40GB-SXM,pollux,4,") != std::string::npos);
}

TEST_CASE("validation where no fold could be fitted reports no figures", "[fit][tool]") {
    fit::FitthroughputInputs in;
    // Two samples a fold: neither half alone identifies Pollux's compute line with its batch slope.
    in.profiles.push_back({"p.csv", "app,gpu,num_nodes,num_gpus,per_gpu_batch,step_time_s\n"
                                    "x,T4,1,1,4,0.1\nx,T4,1,1,8,0.15\nx,T4,1,1,16,0.25\nx,T4,1,1,32,0.40\n"});
    fit::FitthroughputOptions o;
    o.validate = 2;
    o.csv = true;
    const auto r = fit::run_fitthroughput(in, o);
    CHECK(r.text.substr(r.text.find('\n') + 1).find(",,,\n") != std::string::npos);  // held-out columns empty
    CHECK(r.warnings == std::vector<std::string>{"1 of 1 app x GPU groups not validated: no training fold could identify the model (failed_folds)"});
    o.csv = false;
    const auto doc = fit::run_fitthroughput(in, o).text;
    CHECK(doc.find("validation: {samples: 0, folds: 2, failed_folds: 2}") != std::string::npos);
}
