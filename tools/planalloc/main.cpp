// planalloc: the cheapest GPU mix that meets a training-time SLO (Espresso's cost-tree search), or a
// best-fit allocation of memest's ranked plans onto a cluster's free GPUs (Frenzy HAS).
#include <iostream>

#include <hetsched/alloc/planalloc.hpp>
#include <hetsched/cli/app.hpp>
#include <hetsched/cli/inputs.hpp>
#include <hetsched/cli/job_flags.hpp>
#include <hetsched/cli/catalog_flags.hpp>
#include <hetsched/cli/model_flags.hpp>
#include <hetsched/cli/progress.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/output_file.hpp>

using namespace hetsched;

int main(int argc, char** argv) {
    alloc::PlanallocOptions opt;
    cli::IoOptions io;
    cli::ModelFlags model_flags;
    std::string catalog = "default", method = "espresso", placer = "cmr", cluster, format = "yaml";
    cli::Verbosity verbosity;
    auto app = cli::make_app({"planalloc",
                              "Find the cheapest mix of GPU types that trains a job within a time SLO, or best-fit "
                              "its ranked plans onto a cluster's free GPUs.",
                              "Reads a job document (kind: job) from FILE or stdin unless --model is given. With "
                              "--cluster or a cluster: section it allocates nodes; otherwise it searches GPU mixes.\n"
                              "Exit status: 0 ok; 1 no plan meets the SLO or fits the cluster; 64 usage; 65 bad "
                              "data; 66 no input; 70 internal; 73/74 output errors; 75 out of time before any plan met the SLO; "
                              "78 bad catalog.\n"
                              "See planalloc(1) and hetsched-formats(5)."},
                             verbosity);
    cli::add_io_options(*app, io);
    cli::add_job_options(*app, opt.job, false);
    const char* s = "Search";
    app->add_option("--slo-s", opt.slo_s, "Time SLO for all iterations, seconds (default: training.slo_s)")
        ->group(s)->check(cli::number_in(model::limits::min_slo_s, model::limits::max_slo_s));
    app->add_option("--method", method, "espresso (cost tree), exhaustive, or homogeneous (one type, 2^n GPUs)")
        ->group(s)->check(CLI::IsMember({"espresso", "exhaustive", "homogeneous"}))->capture_default_str();
    app->add_option("--placer", placer, "Stage placer for each plan: cmr, whale, hph or optimal")
        ->group(s)->check(CLI::IsMember({"cmr", "whale", "hph", "optimal"}))->capture_default_str();
    cli::add_catalog_option(*app, catalog)->group(s);
    app->add_option("--quota", opt.quotas, "GPUs of a type one may take: TYPE=N, or all=N (repeatable, or comma-separated)")
        ->group(s)->allow_extra_args(false);
    app->add_option("--price", opt.prices, "Price per GPU-hour of a type, above 0: TYPE=PRICE (repeatable, or comma-separated)")
        ->group(s)->allow_extra_args(false);
    app->add_option("--types", opt.types, "Only these GPU types, comma-separated")->group(s)->type_name("GPUS");
    app->add_option("--top", opt.top, "Plans to report (the best, then alternatives)")
        ->group(s)->transform(cli::integer_in(1, 1000))->capture_default_str();
    app->add_option("--beta", opt.beta, "Espresso's fragmentation coefficient for its cost-pruning estimate (0 = off)")
        ->group(s)->check(cli::number_in(0, 1))->capture_default_str();
    app->add_option("--search-limit", opt.search_limit,
                    "Tree nodes and plans the search may visit before it stops with its best plan and proven gap")
        ->group(s)->transform(cli::integer_in(1, 1000000000000))->capture_default_str();
    app->add_option("--time-limit-s", opt.time_limit_s,
                    "Seconds the search may take before it stops with its best plan and proven gap (default: none)")
        ->group(s)->check(cli::positive(alloc::kMaxTimeLimitS));
    app->add_option("--threads", opt.threads, "Threads placing plans; 0 = one per core (the answer is the same for any)")
        ->group(s)->transform(cli::integer_in(0, 256))->capture_default_str();
    const char* m = "Models";
    cli::add_model_flags(*app, model_flags, m);
    const char* c = "Cluster";
    app->add_option("--cluster", cluster, "Best-fit onto this cluster (YAML kind: cluster, or CSV name,gpu,gpus,free)")
        ->group(c)->type_name("FILE");
    app->add_flag("--exact-type", opt.exact_type, "Only GPUs of each plan's own type (default: any with enough memory)")
        ->group(c);
    app->add_option("--format", format, "yaml (a job document) or csv (the best plans; in cluster mode, the nodes taken)")
        ->check(CLI::IsMember({"yaml", "csv"}))->capture_default_str();

    cli::ListFlags lists;
    cli::add_list_flags(*app, lists);

    return cli::run_tool(*app, argc, argv, [&] {
        cli::check_outputs_spare_inputs({{"-o", io.output}},
                                        {{"FILE", io.input}, {"--cluster", cluster}, {"--catalog", catalog}});
        if (cli::write_list(*app, lists, catalog, io.output)) return Exit::ok;
        if (app->count("--types") > 0) io::comma_list(opt.types, "--types");  // given empty: refused, not "every type"
        opt.method = alloc::parse_search_method(method);
        opt.placer = place::parse_method(placer);
        opt.model = model_flags.problem(*app);
        opt.inter_node_gb_s = model_flags.inter_node_gb_s;
        opt.csv = format == "csv";
        cli::Progress progress("planalloc: searching", 0, cli::progress_wanted(verbosity.quiet));
        opt.progress = [&progress](const alloc::SearchProgress& p) {
            if (p.seconds < 1) return;  // quick searches draw nothing
            progress.update(p.nodes, std::to_string(p.plans) + " plans placed, tree " + std::to_string(p.trees_done) +
                                         "/" + std::to_string(p.trees) + ", best " +
                                         (p.incumbent > 0 ? io::format_number(p.incumbent, 6) : std::string("none")) +
                                         ", bound " + io::format_number(p.bound, 6));
        };
        const auto cat = cli::load_catalog(catalog);
        opt.job.catalog_given = app->count("--catalog") > 0;
        const auto job = cli::job_input(io, opt.job);
        auto result = alloc::run_planalloc(job, cat, cli::optional_input(cluster), opt);
        progress.finish();
        io::write_output(io.output, result.text);
        if (!result.note.empty() && !verbosity.quiet) std::cerr << "planalloc: " << result.note << '\n';
        if (!result.feasible) {
            std::cerr << "planalloc: " << result.message << '\n';
            return Exit::negative;
        }
        if (verbosity.verbose > 0 && !verbosity.quiet) std::cerr << "planalloc: " << result.summary << '\n';
        return Exit::ok;
    });
}
