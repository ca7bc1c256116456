// fitthroughput: fit step-time models (Pollux; ICEFROG's layer-aware DDP/SDP/PP/HP forms) to profiled
// samples, check them by cross-validation, and use them: predictions, throughput grids, the layer
// tuner and the GPU-sharing rule.
#include <filesystem>
#include <iostream>

#include <hetsched/cli/app.hpp>
#include <hetsched/cli/catalog_flags.hpp>
#include <hetsched/cli/inputs.hpp>
#include <hetsched/cli/validators.hpp>
#include <hetsched/fit/fitthroughput.hpp>
#include <hetsched/fit/limits.hpp>
#include <hetsched/io/output_file.hpp>

using namespace hetsched;

/// The name of the folder that holds `path`, from its absolute path, so that "x.csv" and "./x.csv"
/// name the working directory's folder as "../bert/x.csv" names bert ("" for standard input).
static std::string folder_of(const std::string& path) {
    if (path.empty() || path == "-") return "";
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::absolute(path, ec).lexically_normal();
    return ec ? "" : abs.parent_path().filename().string();
}

int main(int argc, char** argv) {
    fit::FitthroughputOptions opt;
    std::vector<std::string> inputs;
    std::string output, format = "yaml", params, predict, layer_stats, sharing;
    bool grid = false, tune = false;
    cli::Verbosity verbosity;
    const auto gpu_count = cli::integer_in(1, fit::limits::max_gpus);
    auto app = cli::make_app(
        {"fitthroughput",
         "Fit step-time models to profiled training steps, check them on held-out samples, and predict "
         "throughput, tune frozen layers or judge GPU sharing with them.",
         "Reads profiles from FILEs or stdin: Sia/Pollux placements-*.csv and scalability-*.csv as they are, or "
         "hetsched's CSV (app, gpu, num_nodes, num_gpus, per_gpu_batch, step_time_s; optionally the columns hetsched-formats(5) lists; any other is refused). "
         "Writes a throughput-model YAML document (or a quality table with --format csv).\n"
         "Exit status: 0 ok; 64 usage; 65 bad data (incl. samples that cannot identify the model); 66 no input; 70 internal; "
         "73/74 output errors.\nSee fitthroughput(1) and hetsched-formats(5)."},
        verbosity);
    app->add_option("FILE", inputs, "Profile files; - reads standard input");
    app->add_option("-o,--output", output, "Write the result to FILE atomically instead of stdout")->type_name("FILE");
    const char* f = "Fit";
    app->add_option("--model", opt.model, "pollux, icefrog-ddp, icefrog-sdp, icefrog-pp or icefrog-hp")
        ->group(f)->check(CLI::IsMember({"pollux", "icefrog-ddp", "icefrog-sdp", "icefrog-pp", "icefrog-hp"}))
        ->capture_default_str();
    app->add_option("--app", opt.app, "App of Sia profiles (default: the file's folder) or of rows without an app column")
        ->group(f);
    app->add_option("--gpu", opt.gpu, "GPU type of Sia profiles (default: from the cluster suffix) or of rows without a gpu column")
        ->group(f)->type_name("GPU");
    app->add_option("--validate", opt.validate, "K-fold cross-validation: held-out error per app x GPU")
        ->group(f)->transform(cli::integer_in(2, 1000));
    app->add_flag("--no-curves", opt.no_curves, "ICEFROG models: the paper's forms only, without factor curves")
        ->group(f);
    app->add_option("--seed", opt.seed, "Seed of the cross-validation shuffle")
        ->group(f)->transform(cli::integer_in(0, 9007199254740992))->capture_default_str();
    app->add_option("--format", format, "yaml (the model document) or csv (one quality row per fit)")
        ->group(f)->check(CLI::IsMember({"yaml", "csv"}))->capture_default_str();
    const char* u = "Use";
    app->add_option("--params", params, "A throughput-model document from an earlier fit")->group(u)->type_name("FILE");
    app->add_option("--predict", predict, "Append predicted_step_time_s and predicted_throughput to this profile's rows")
        ->group(u)->type_name("FILE");
    app->add_flag("--grid", grid, "Predict a grid of GPU counts x per-GPU batches for every fit")->group(u);
    app->add_option("--gpus", opt.gpus, "GPU counts of the grid, or the allocation to tune for (comma-separated)")
        ->group(u)->delimiter(',')->allow_extra_args(false)->transform(gpu_count);
    app->add_option("--batch", opt.batches, "Per-GPU batch sizes of the grid or the tuner (comma-separated)")
        ->group(u)->delimiter(',')->allow_extra_args(false)->check(cli::positive(fit::limits::max_batch));
    app->add_option("--gpus-per-node", opt.gpus_per_node, "GPUs per node (default: the densest profiled node)")
        ->group(u)->transform(gpu_count);

    const char* t = "Layer tuner";
    app->add_flag("--tune", tune, "Best per-GPU batch and frozen layers for an allocation (needs --params, "
                                      "--layer-stats, --app, --gpu, --gpus)")->group(t);
    app->add_option("--layer-stats", layer_stats, "Per-layer gradient statistics: layer, grad_var (optionally grad_var_at_freeze, flops, params)")
        ->group(t)->type_name("FILE");
    app->add_option("--nodes", opt.nodes, "Nodes of the allocation (default: as few as --gpus-per-node allows)")
        ->group(t)->transform(gpu_count);
    app->add_option("--global-batch", opt.global_batch, "Fixed global batch, a multiple of --gpus: each replica takes it / replicas (--gpus / pipeline stages)")
        ->group(t)->transform(cli::integer_in(1, 1099511627776));
    app->add_option("--top", opt.top, "Candidates to list")->group(t)->transform(cli::integer_in(1, 10000))->capture_default_str();
    const char* g = "GPU sharing";
    app->add_option("--sharing", sharing, "Fit utilisation and memory models: app, gpu, per_gpu_batch, gpu_util_pct, memory_gib (optionally frozen_layers, total_layers)")
        ->group(g)->type_name("FILE");
    app->add_option("--pair", opt.pairs, "Jobs that would share one --gpu: APP:BATCH[:FROZEN/TOTAL], comma-separated")
        ->group(g)->delimiter(',')->allow_extra_args(false);
    app->add_option("--capacity-gib", opt.capacity_gib, "GPU memory for the verdict (default: the catalog's for --gpu)")
        ->group(g)->check(cli::positive(fit::limits::max_memory_gib));

    cli::ListFlags lists;
    cli::add_list_flags(*app, lists, false);

    return cli::run_tool(*app, argc, argv, [&] {
        if (cli::write_list(*app, lists, "default", output)) return Exit::ok;
        opt.mode = fit::select_mode(!predict.empty(), grid, tune, !sharing.empty());
        opt.csv = format == "csv";
        fit::GivenInputs given{!params.empty(), !layer_stats.empty(), {}};
        for (const CLI::Option* o : app->get_options())
            if (o->count() > 0) given.flags.push_back(o->get_name());
        fit::check_options(opt, given);
        fit::FitthroughputInputs in;
        in.params = cli::optional_input(params);
        in.layer_stats = cli::optional_input(layer_stats);
        in.usage = cli::optional_input(sharing);
        if (opt.mode == fit::Mode::predict) inputs = {predict};
        if (opt.mode == fit::Mode::fit && inputs.empty()) inputs = {"-"};
        cli::check_distinct_inputs(inputs, "profiles");
        std::vector<cli::NamedPath> read{{"--params", params}, {"--layer-stats", layer_stats}, {"--sharing", sharing}};
        for (const auto& path : inputs) read.push_back({opt.mode == fit::Mode::predict ? "--predict" : "FILE", path});
        cli::check_outputs_spare_inputs({{"-o", output}}, read);
        if (opt.mode == fit::Mode::fit || opt.mode == fit::Mode::predict)
            for (const auto& path : inputs) {
                in.profiles.push_back(io::read_input(path));
                in.profile_folders.push_back(folder_of(path));
            }
        auto result = fit::run_fitthroughput(in, opt);
        io::write_output(output, result.text);
        for (const auto& w : result.warnings) std::cerr << "fitthroughput: warning: " << w << '\n';  // even with -q
        if (verbosity.verbose > 0 && !verbosity.quiet) std::cerr << "fitthroughput: " << result.summary << '\n';
        return Exit::ok;
    });
}
