// planalloc: the cheapest GPU mix that meets a training-time SLO (Espresso's cost-tree search), or a
// best-fit allocation of memest's ranked plans onto a cluster's free GPUs (Frenzy HAS).
#include <iostream>

#include <hetsched/alloc/planalloc.hpp>
#include <hetsched/cli/app.hpp>
#include <hetsched/cli/progress.hpp>
#include <hetsched/io/output_file.hpp>
#include <hetsched/model/job_options.hpp>

using namespace hetsched;

int main(int argc, char** argv) {
    alloc::PlanallocOptions opt;
    cli::Verbosity verbosity;
    auto app = cli::make_app({"planalloc",
                              "Find the cheapest mix of GPU types that trains a job within a time SLO, or best-fit "
                              "its ranked plans onto a cluster's free GPUs.",
                              "Reads a job document (kind: job) from FILE or stdin unless --model is given. With "
                              "--cluster or a cluster: section it allocates nodes; otherwise it searches GPU mixes.\n"
                              "Exit status: 0 ok; 1 no plan meets the SLO or fits the cluster; 64 usage; 65 bad "
                              "data; 66 no input; 73/74 output errors; 78 bad catalog.\n"
                              "See planalloc(1) and hetsched-formats(5)."},
                             verbosity);
    cli::add_io_options(*app, opt.io);
    model::add_job_options(*app, opt.job, false);
    const char* s = "Search";
    app->add_option("--slo-s", opt.slo_s, "Time SLO for all iterations, seconds (default: training.slo_s)")
        ->group(s)->check(cli::positive());
    app->add_option("--method", opt.method, "espresso (cost tree), exhaustive, or homogeneous (one type, 2^n GPUs)")
        ->group(s)->check(CLI::IsMember({"espresso", "exhaustive", "homogeneous"}))->capture_default_str();
    app->add_option("--placer", opt.placer, "Stage placer for each plan: cmr, whale, hph or optimal")
        ->group(s)->check(CLI::IsMember({"cmr", "whale", "hph", "optimal"}))->capture_default_str();
    app->add_option("--catalog", opt.catalog, "GPU catalog: default, juchi, sia, or a YAML/CSV file")
        ->group(s)->capture_default_str();
    app->add_option("--quota", opt.quotas, "GPUs of a type one may take: TYPE=N, or all=N (repeatable)")->group(s);
    app->add_option("--price", opt.prices, "Price per GPU-hour of a type: TYPE=PRICE (repeatable)")->group(s);
    app->add_option("--types", opt.types, "Only these GPU types, comma-separated")->group(s);
    app->add_option("--top", opt.top, "Plans to report (the best, then alternatives)")
        ->group(s)->check(CLI::Range(1, 1000))->capture_default_str();
    app->add_option("--beta", opt.beta, "Espresso's fragmentation coefficient for its cost-pruning estimate (0 = off)")
        ->group(s)->check(CLI::Range(0.0, 1.0))->capture_default_str();
    app->add_option("--search-limit", opt.search_limit, "Tree nodes and plans the search may visit")
        ->group(s)->check(cli::positive())->capture_default_str();
    const char* m = "Models";
    app->add_option("--efficiency", opt.efficiency, "Achieved share of peak TFLOPS for the compute model")
        ->group(m)->check(CLI::Range(0.01, 1.0))->capture_default_str();
    app->add_option("--inter-node-gb-s", opt.inter_node_gb_s, "Network between nodes in GB/s (default: the catalog's)")
        ->group(m)->check(cli::positive());
    app->add_option("--measure", opt.measure, "Memory that must fit: allocated, reserved or device")
        ->group(m)->check(CLI::IsMember({"allocated", "reserved", "device"}))->capture_default_str();
    app->add_option("--usable-fraction", opt.usable_fraction, "Share of a GPU's memory a stage may fill")
        ->group(m)->check(CLI::Range(0.1, 1.0))->capture_default_str();
    const char* c = "Cluster";
    app->add_option("--cluster", opt.cluster, "Best-fit onto this cluster (YAML kind: cluster, or CSV name,gpu,gpus,free)")
        ->group(c);
    app->add_flag("--exact-type", opt.exact_type, "Only GPUs of each plan's own type (default: any with enough memory)")
        ->group(c);
    app->add_option("--format", opt.format, "yaml (a job document) or csv (a table of the best plans)")
        ->check(CLI::IsMember({"yaml", "csv"}))->capture_default_str();

    return cli::run_tool(*app, argc, argv, [&] {
        opt.progress = cli::progress_wanted(verbosity.quiet);
        auto result = alloc::run_planalloc(opt);
        io::write_output(opt.io.output, result.text);
        if (verbosity.verbose > 0 && !verbosity.quiet) std::cerr << "planalloc: " << result.summary << '\n';
        return Exit::ok;
    });
}
