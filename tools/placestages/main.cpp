// placestages: pipeline stages onto the GPU types of an allocation (Espresso's CMR placer, Whale, HPH,
// an exact search), with a 1F1B iteration-time estimate.
#include <hetsched/cli/app.hpp>
#include <hetsched/io/output_file.hpp>
#include <hetsched/model/job_options.hpp>
#include <hetsched/place/placestages.hpp>

using namespace hetsched;

int main(int argc, char** argv) {
    place::PlacestagesOptions opt;
    cli::Verbosity verbosity;
    auto app = cli::make_app({"placestages",
                              "Split a model's layers into pipeline stages on the GPU types of an allocation and "
                              "estimate the iteration time of the 1F1B schedule.",
                              "Reads a job document (kind: job) with an allocation from FILE or stdin unless "
                              "--model and --stages are given.\nExit status: 0 ok; 1 the allocation cannot hold "
                              "the model; 64 usage; 65 bad data; 66 no input; 73/74 output errors; 78 bad "
                              "catalog.\nSee placestages(1) and hetsched-formats(5)."},
                             verbosity);
    cli::add_io_options(*app, opt.io);
    model::add_job_options(*app, opt.job, false);
    const char* a = "Allocation";
    app->add_option("--dp", opt.dp, "Data-parallel degree: GPUs per stage")->group(a)->check(cli::positive());
    app->add_option("--stages", opt.stages, "GPU type of each stage, comma-separated (e.g. A100,A100,V100)")
        ->group(a);
    app->add_option("--catalog", opt.catalog, "GPU catalog: default, juchi, sia, or a YAML/CSV file")
        ->capture_default_str();
    app->add_option("--method", opt.method, "cmr (Espresso), whale, hph, or optimal (exact search)")
        ->check(CLI::IsMember({"cmr", "whale", "hph", "optimal"}))->capture_default_str();
    app->add_flag("--keep-order", opt.keep_order, "Keep the allocation's stage order; only split the layers");
    app->add_option("--profile", opt.profile, "Measured per-layer times (CSV: gpu,layer,forward_s,backward_s)");
    app->add_option("--efficiency", opt.efficiency, "Achieved share of peak TFLOPS for the compute model")
        ->check(CLI::Range(0.01, 1.0))->capture_default_str();
    app->add_option("--inter-node-gb-s", opt.inter_node_gb_s, "Network between nodes in GB/s (default: the catalog's)")
        ->check(cli::positive());
    app->add_option("--measure", opt.measure, "Memory that must fit: allocated, reserved or device")
        ->check(CLI::IsMember({"allocated", "reserved", "device"}))->capture_default_str();
    app->add_option("--usable-fraction", opt.usable_fraction, "Share of a GPU's memory a stage may fill")
        ->check(CLI::Range(0.1, 1.0))->capture_default_str();
    app->add_option("--search-limit", opt.search_limit, "Nodes the exact searches (hph, optimal) may visit")
        ->check(cli::positive())->capture_default_str();
    app->add_option("--timeline", opt.timeline, "Write the simulated schedule to FILE.csv");
    app->add_option("--format", opt.format, "yaml (a job document) or csv (a stage table)")
        ->check(CLI::IsMember({"yaml", "csv"}))->capture_default_str();

    return cli::run_tool(*app, argc, argv, [&] {
        auto result = place::run_placestages(opt);
        if (!opt.timeline.empty()) io::write_output(opt.timeline, result.timeline);
        io::write_output(opt.io.output, result.text);
        return Exit::ok;
    });
}
