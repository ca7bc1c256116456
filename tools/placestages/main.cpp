// placestages: pipeline stages onto the GPU types of an allocation (Espresso's CMR placer, Whale, HPH,
// an exact search), with a 1F1B iteration-time estimate.
#include <hetsched/cli/app.hpp>
#include <hetsched/cli/inputs.hpp>
#include <hetsched/cli/job_flags.hpp>
#include <hetsched/cli/catalog_flags.hpp>
#include <hetsched/cli/model_flags.hpp>
#include <hetsched/io/output_file.hpp>
#include <hetsched/place/placestages.hpp>

using namespace hetsched;

int main(int argc, char** argv) {
    place::PlacestagesOptions opt;
    cli::IoOptions io;
    cli::ModelFlags model_flags;
    std::string catalog = "default", method = "cmr", profile, timeline, format = "yaml";
    cli::Verbosity verbosity;
    auto app = cli::make_app({"placestages",
                              "Split a model's layers into pipeline stages on the GPU types of an allocation and "
                              "estimate the iteration time of the 1F1B schedule.",
                              "Reads a job document (kind: job) with an allocation from FILE or stdin unless "
                              "--model and --stages are given.\nExit status: 0 ok; 1 the allocation cannot hold "
                              "the model; 64 usage; 65 bad data; 66 no input; 70 internal; 73/74 output errors; 78 bad "
                              "catalog.\nSee placestages(1) and hetsched-formats(5)."},
                             verbosity);
    cli::add_io_options(*app, io);
    cli::add_job_options(*app, opt.job, false);
    const char* a = "Allocation";
    app->add_option("--dp", opt.dp, "Data-parallel degree: GPUs per stage")->group(a)
        ->transform(cli::integer_in(1, model::limits::degree));
    app->add_option("--stages", opt.stages, "GPU type of each stage, comma-separated (e.g. A100,A100,V100)")
        ->type_name("STAGES")
        ->group(a);
    cli::add_layers_per_stage(*app, opt.job.layers_per_stage, "Layers of each stage, for --method given (e.g. 8,9,9,6)")
        ->group(a);
    cli::add_catalog_option(*app, catalog);
    app->add_option("--method", method, "cmr (Espresso), whale, hph, optimal (exact search), or given (evaluate "
                                        "the split given); default: the allocation's placer, else cmr")
        ->check(CLI::IsMember({"cmr", "whale", "hph", "optimal", "given"}))->capture_default_str();
    app->add_flag("--keep-order", opt.keep_order, "Keep the allocation's stage order; only split the layers");
    app->add_option("--profile", profile, "Measured per-layer times (CSV: gpu,layer,forward_s,backward_s[,micro_batch][,tp])")
        ->type_name("FILE");
    cli::add_model_flags(*app, model_flags, nullptr, "the allocation's schedule, else the job's framework's");
    app->add_option("--search-limit", opt.search_limit, "Nodes the exact searches (hph, optimal) may visit; past it, their best placement so far (not proven)")
        ->transform(cli::integer_in(1, 1000000000000))->capture_default_str();
    app->add_option("--timeline", timeline, "Write the simulated schedule to FILE, as CSV")->type_name("FILE");
    app->add_option("--format", format, "yaml (a job document) or csv (a stage table)")
        ->check(CLI::IsMember({"yaml", "csv"}))->capture_default_str();

    cli::ListFlags lists;
    cli::add_list_flags(*app, lists);

    return cli::run_tool(*app, argc, argv, [&] {
        cli::check_outputs_spare_inputs({{"-o", io.output}, {"--timeline", timeline}},
                                        {{"FILE", io.input}, {"--profile", profile}, {"--catalog", catalog}});
        if (cli::write_list(*app, lists, catalog, io.output)) return Exit::ok;
        opt.method = place::parse_method(method);
        opt.method_given = app->get_option("--method")->count() > 0;
        opt.model = model_flags.problem(*app);
        opt.inter_node_gb_s = model_flags.inter_node_gb_s;
        opt.timeline = !timeline.empty();
        if (timeline == "-" && (io.output.empty() || io.output == "-"))
            throw UsageError("--timeline - and the placement would share standard output: give -o FILE or a timeline FILE");
        opt.csv = format == "csv";
        const auto cat = cli::load_catalog(catalog);
        opt.job.catalog_given = app->count("--catalog") > 0;
        const auto job = cli::job_input(io, opt.job);
        auto result = place::run_placestages(job, cat, cli::optional_input(profile), opt);
        if (opt.timeline) io::write_outputs({{timeline, result.timeline}, {io.output, result.text}});
        else io::write_output(io.output, result.text);
        for (const auto& w : result.warnings) std::cerr << "placestages: warning: " << w << '\n';  // even with -q
        if (!result.note.empty() && !verbosity.quiet) std::cerr << "placestages: " << result.note << '\n';
        if (verbosity.verbose > 0 && !verbosity.quiet) std::cerr << "placestages: " << result.summary << '\n';
        return Exit::ok;
    });
}
