// memest: per-GPU training memory for one layout, or ranked plans that fit (Frenzy MARP, extended).
#include <iostream>

#include <hetsched/cli/app.hpp>
#include <hetsched/cli/inputs.hpp>
#include <hetsched/cli/job_flags.hpp>
#include <hetsched/cli/catalog_flags.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/output_file.hpp>
#include <hetsched/model/memest.hpp>

using namespace hetsched;

int main(int argc, char** argv) {
    model::MemestOptions opt;
    cli::IoOptions io;
    std::string catalog = "default", method = "default", measure, format = "yaml", check;
    cli::ListFlags lists;
    cli::Verbosity verbosity;
    auto app = cli::make_app({"memest",
                              "Estimate per-GPU training memory for a model and parallel layout, or rank the "
                              "resource plans that fit each GPU type.",
                              "Reads a job document (kind: job) from FILE or stdin unless --model is given.\n"
                              "Exit status: 0 ok; 1 nothing fits; 64 usage; 65 bad data; 66 no input; 70 internal; "
                              "73/74 output errors; 78 bad catalog.\nSee memest(1) and hetsched-formats(5)."},
                             verbosity);
    cli::add_io_options(*app, io);
    cli::add_job_options(*app, opt.job);
    app->add_option("--gpu", opt.gpu, "Only this GPU type (fit check for a layout, plans otherwise)")->type_name("GPU");
    cli::add_catalog_option(*app, catalog);
    app->add_option("--method", method, "default (framework-aware) or frenzy (the paper's formula)")
        ->check(CLI::IsMember({"default", "frenzy"}))->capture_default_str();
    app->add_option("--measure", measure,
                    "Predict allocated, reserved or device (nvidia-smi) memory (default: device for plans and a "
                    "layout with --gpu, allocated for a layout without one)")
        ->check(CLI::IsMember({"allocated", "reserved", "device"}));
    app->add_flag("--first-iteration", opt.job.first_iteration,
                  "Predict the first iteration's peak: no optimizer state made in the first step before it");
    app->add_option("--usable-fraction", opt.usable_fraction, "Share of a GPU's memory a plan may fill")
        ->check(cli::number_in(0.1, 1.0))->capture_default_str();
    app->add_option("--max-gpus", opt.max_gpus, "Largest plan considered")->transform(cli::integer_in(1, 65536))
        ->capture_default_str();
    app->add_option("--top", opt.top, "Plans to print (0 = all)")->transform(cli::integer_in(0, 1000000))->capture_default_str();
    app->add_option("--format", format, "yaml (a job document) or csv (a table)")
        ->check(CLI::IsMember({"yaml", "csv"}))->capture_default_str();
    app->add_option("--check", check, "Compare predictions with measured runs in FILE, a CSV")->type_name("FILE");
    cli::add_list_flags(*app, lists);

    return cli::run_tool(*app, argc, argv, [&] {
        cli::check_outputs_spare_inputs({{"-o", io.output}},
                                        {{"FILE", io.input}, {"--check", check}, {"--catalog", catalog}});
        if (cli::write_list(*app, lists, catalog, io.output)) return Exit::ok;
        opt.method = model::parse_method(method);
        if (!check.empty()) {
            // The rows say the model, the layout, the GPU and the measure; the output is a CSV table.
            if (format != "csv" && app->count("--format") > 0) throw UsageError("--check writes a CSV table: drop --format " + format);
            std::vector<std::string> read{"--check", "--method", "--format"};
            cli::refuse_unread(*app, read, "--check");
            auto result = model::run_memest_check(io::CsvTable::parse(io::read_input(check)), opt.method);
            for (const auto& why : result.skipped) std::cerr << "memest: skipped " << why << '\n';  // even with -q
            for (const auto& w : result.warnings) std::cerr << "memest: warning: " << w << '\n';  // even with -q
            if (!result.nothing_checked.empty()) throw DataError(result.nothing_checked);
            io::write_output(io.output, result.csv);
            if (!verbosity.quiet) std::cerr << "memest: " << result.summary << '\n';
            return Exit::ok;
        }
        if (!measure.empty()) opt.measure = model::parse_measure(measure);
        opt.csv = format == "csv";
        const auto cat = cli::load_catalog(catalog);
        opt.job.catalog_given = app->count("--catalog") > 0;
        auto result = model::run_memest(cli::job_input(io, opt.job), cat, opt);
        io::write_output(io.output, result.text);
        for (const auto& w : result.warnings) std::cerr << "memest: warning: " << w << '\n';  // even with -q
        // Why nothing fits (exit 1) is told even with -q, as planalloc tells its infeasible SLO.
        if (!result.message.empty() && (!verbosity.quiet || !result.fits)) std::cerr << "memest: " << result.message << '\n';
        if (verbosity.verbose > 0 && !verbosity.quiet) std::cerr << "memest: " << result.summary << '\n';
        return result.fits ? Exit::ok : Exit::negative;
    });
}
