// replay: a job trace through many rounds of one or more scheduling policies, with the metrics the
// papers report (JCT, finish-time fairness, starvation, utilisation), each round by schedround's code.
#include <algorithm>
#include <iostream>
#include <thread>

#include <hetsched/cli/app.hpp>
#include <hetsched/cli/catalog_flags.hpp>
#include <hetsched/cli/inputs.hpp>
#include <hetsched/cli/policy_flags.hpp>
#include <hetsched/cli/progress.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/io/output_file.hpp>
#include <hetsched/sim/application_work.hpp>
#include <hetsched/sim/replay_input.hpp>
#include <hetsched/sim/report.hpp>

using namespace hetsched;

int main(int argc, char** argv) {
    sim::ReplayOptions opt;
    sim::JobOptions jobs_opt;
    cli::Verbosity verbosity;
    std::string trace, cluster, throughputs, app_work, policies = "fft", catalog = "default", jobs_out, rounds_out, output;
    std::string format = "yaml";
    int gpus_per_node = 8, threads = 2;
    bool no_timings = false;
    // A round's solver that runs out of time keeps its best schedule, or the previous round's when it
    // found none (counted as unproven_rounds), rather than stopping the replay; it stops (75) only when
    // there is nothing to keep. 10 s a round unless told otherwise.
    opt.round.accept_unproven = true;
    opt.round.time_limit_s = 10;
    auto app = cli::make_app(
        {"replay",
         "Replay a job trace through many rounds of one or more scheduling policies and report JCT, fairness and "
         "utilisation.",
         "Each round is decided by the same code schedround runs.\nExit status: 0 ok; 64 usage; 65 bad trace or "
         "table; 66 no input; 70 internal; 73/74 output errors; 75 a round's solver out of time with no schedule "
         "found and none to keep; 78 bad catalog.\n"
         "See replay(1) and hetsched-formats(5)."},
        verbosity);
    const char* i = "Inputs";
    app->add_option("--trace", trace, "Job trace: CSV job_id,submit_time_s,num_gpus,duration_s[,model,memory_gib,...], "
                                      "Gavel's tab-separated trace, or a Sia/Pollux workload CSV (required)")
        ->group(i)->type_name("FILE");
    app->add_option("--cluster", cluster, "Cluster: a YAML file with nodes: (as a cluster state), or TYPE=GPUS,... "
                                          "(required)")->group(i);
    app->add_option("--gpus-per-node", gpus_per_node, "Node size for the TYPE=GPUS shorthand (and, when given, of a model document's predictions)")
        ->group(i)->transform(cli::integer_in(1, 1024))->capture_default_str();
    app->add_option("--throughputs", throughputs, "Throughputs: CSV model,gpu,throughput[,num_gpus], Gavel's "
                                                  "flattened CSV, Gavel's JSON, or fitthroughput's model document (required)")
        ->group(i)->type_name("FILE");
    app->add_option("--app-work", app_work, "Work of a Sia/Pollux workload's applications: CSV application,"
                                            "samples_per_epoch,epochs (added to Sia's six)")->group(i)->type_name("FILE");
    app->add_flag("--skip-unknown-models", jobs_opt.skip_unknown_models,
                  "Leave out (and count) jobs whose model the throughput table lacks, instead of stopping")->group(i);
    app->add_option("--reference-gpu", jobs_opt.reference_gpu, "The type a trace's duration_s was measured on "
                                                               "(default: the cluster's first type)")->group(i)->type_name("GPU");
    app->add_option("--checkpoint-gib", jobs_opt.checkpoint_gib, "Checkpoint of a job whose model memest does not know")
        ->group(i)->check(cli::number_in(0, 1e6))->capture_default_str();
    cli::add_catalog_option(*app, catalog)->group(i);
    const char* p = "Policies";
    app->add_option("--policy", policies, "Policies to replay, comma-separated (fft, gavel, gavel-agnostic, tiresias, "
                                          "srtf, fifo, opportunistic, allox, has, sia, iceshare)")->group(p)->capture_default_str();
    app->add_option("--round-length-s", opt.round_length_s, "Time between two decisions, seconds")
        ->group(p)->check(cli::positive(1e7))->capture_default_str();
    app->add_flag("--reschedule-on-events", opt.reschedule_on_events, "Decide again as soon as a job finishes")->group(p);
    cli::add_policy_flags(*app, opt.round, p);
    const char* o = "Output";
    app->add_option("-o,--output", output, "Write the summary to FILE atomically instead of stdout")->group(o)->type_name("FILE");
    app->add_option("--format", format, "yaml (a summary document per policy) or csv (one row per policy)")
        ->group(o)->check(CLI::IsMember({"yaml", "csv"}))->capture_default_str();
    app->add_option("--jobs-out", jobs_out, "Per-job CSV (one row per job and policy)")->group(o)->type_name("FILE");
    app->add_option("--rounds-out", rounds_out, "Per-round CSV (one row per round and policy)")->group(o)->type_name("FILE");
    app->add_flag("--no-timings", no_timings, "Leave out the measured times (for byte-identical outputs)")->group(o);
    app->add_option("--threads", threads, "Policies replayed at once")
        ->group(o)->transform(cli::integer_in(1, 256))->capture_default_str();

    return cli::run_tool(*app, argc, argv, [&] {
        for (const auto& [flag, value] : {std::pair<const char*, const std::string*>{"--trace", &trace},
                                          {"--cluster", &cluster}, {"--throughputs", &throughputs}})
            if (value->empty()) throw UsageError(std::string(flag) + " is required");
        std::vector<std::string> from_stdin;  // standard input serves one of them
        for (const auto& [flag, value] : {std::pair<const char*, const std::string*>{"--trace", &trace},
                                          {"--throughputs", &throughputs}, {"--app-work", &app_work}})
            if (*value == "-") from_stdin.push_back(flag);
        if (from_stdin.size() > 1)
            throw UsageError("standard input can be read once: " + io::join(from_stdin) + " name '-'");
        cli::check_policy_flags(*app, opt.round);
        cli::check_outputs_spare_inputs({{"-o", output}, {"--jobs-out", jobs_out}, {"--rounds-out", rounds_out}},
                                        {{"--trace", trace}, {"--cluster", cluster}, {"--throughputs", throughputs},
                                         {"--app-work", app_work}, {"--catalog", catalog}});
        const std::vector<sched::PolicyKind> kinds = sched::parse_policy_list(policies);
        jobs_opt.seed = opt.round.seed;
        const auto cat = cli::load_catalog(catalog);
        const sim::ReplayCluster c = sim::is_cluster_file(cluster)
                                         ? sim::cluster_from_yaml(io::read_input(cluster), cat)
                                         : sim::cluster_from_shorthand(cluster, gpus_per_node, cat);
        sim::ThroughputTable table = sim::read_throughputs(io::read_input(throughputs));
        // A reference type the cluster may lack (a trace from K80s replayed on V100s): its memory, where the
        // catalog knows it, tells the jobs that could not have run there (the default is a cluster type).
        if (!jobs_opt.reference_gpu.empty())
            if (const catalog::GpuType* g = cat.lookup(jobs_opt.reference_gpu)) jobs_opt.reference_memory_gib = g->memory_gib;
        if (app->count("--gpus-per-node") > 0) table.gpus_per_node = gpus_per_node;  // nodes of the fits' predictions
        std::set<std::string> app_work_names;  // the applications --app-work gives, each to be run by some job
        if (!app_work.empty())
            jobs_opt.applications =
                sim::read_application_work(io::read_input(app_work), jobs_opt.applications, &app_work_names);
        const io::TextInput trace_text = io::read_input(trace);
        sim::JobCounts counts;
        std::vector<std::string> trace_warnings;
        const std::vector<sim::TraceJob> trace_jobs = sim::read_trace(trace_text, &trace_warnings);
        const auto jobs = sim::build_jobs(trace_jobs, table, c, jobs_opt, counts, trace_text.name);
        if (jobs.empty())
            throw DataError("no job of the trace can be replayed on this cluster: " + std::to_string(counts.too_big) +
                            " need more GPUs than any type that runs them has up, " + std::to_string(counts.no_type) +
                            " run models no type of the cluster has a throughput for, " +
                            std::to_string(counts.too_much_memory) + " need more memory than those types hold, " +
                            std::to_string(counts.unknown_model) + " models the table lacks");
        // Warnings and jobs left out: even with -q.
        for (const auto& w : trace_warnings) std::cerr << "replay: warning: " << w << "\n";
        if (std::any_of(kinds.begin(), kinds.end(), sched::preempts) &&
            opt.round.migration_restart_s >= opt.round_length_s)
            std::cerr << "replay: warning: --migration-restart-s " << io::format_number(opt.round.migration_restart_s)
                      << " is a round (--round-length-s " << io::format_number(opt.round_length_s)
                      << ") or more: a job restarted does no work that round, and one a policy stops every round "
                         "(gavel, fft, tiresias time-share) may never finish\n";
        if (counts.too_big > 0)
            std::cerr << "replay: jobs left out: " << counts.too_big << " (more GPUs than any type that can run them has up)\n";
        if (counts.no_type > 0)
            std::cerr << "replay: jobs left out: " << counts.no_type << " (no type of the cluster has a throughput for their model)\n";
        if (counts.unknown_model > 0)
            std::cerr << "replay: jobs left out: " << counts.unknown_model << " (model not in the throughput table)\n";
        if (counts.too_much_memory > 0)
            std::cerr << "replay: jobs left out: " << counts.too_much_memory
                      << " (more memory_gib than any type with their GPUs holds)\n";
        if (counts.memory_unknown > 0 && std::find(kinds.begin(), kinds.end(), sched::PolicyKind::has) != kinds.end())
            std::cerr << "replay: warning: " << counts.memory_unknown << " of " << jobs.size()
                      << " jobs give no memory_gib: has takes every GPU type to hold them, and so orders types by "
                         "memory alone (the least first, then the job's faster)\n";
        if (counts.memory_taken_to_fit > 0)
            std::cerr << "replay: warning: " << counts.memory_taken_to_fit << " of " << jobs.size()
                      << " jobs give memory_gib, but the memory of "
                      << io::join({counts.memory_unknown_types.begin(), counts.memory_unknown_types.end()})
                      << " is not known (not a type of the catalog; a cluster file's gpu_types give memory_gib): "
                         "those types are taken to hold them\n";
        for (const auto& w : sim::unrun_applications(app_work_names, trace_jobs)) std::cerr << "replay: warning: " << w << "\n";
        if (counts.extrapolated > 0)
            std::cerr << "replay: warning: " << counts.extrapolated
                      << " jobs ask for a size their fit did not see on some type (more GPUs than it saw, or a "
                         "per-GPU batch below its smallest): their throughput there is extrapolated\n";
        const long total = static_cast<long>(jobs.size() * kinds.size());
        cli::Progress progress("replay: jobs finished", total, cli::progress_wanted(verbosity.quiet));
        const auto results =
            sim::replay_all(jobs, c, opt, kinds, threads, [&](long rounds, double time_s, long finished, double share) {
                progress.update(finished, std::to_string(rounds) + " rounds, " + io::format_number(time_s / 86400, 3) +
                                              " days simulated", share);
            });
        progress.finish();
        const sim::ReportOptions ro{!no_timings, counts.skipped(), c};
        std::vector<std::pair<std::string, std::string>> outputs{
            {output, format == "csv" ? sim::summary_csv(results, ro) : sim::summary_yaml(results, ro)}};
        if (!jobs_out.empty()) outputs.emplace_back(jobs_out, sim::jobs_csv(results));
        if (!rounds_out.empty()) outputs.emplace_back(rounds_out, sim::rounds_csv(results, c));
        io::write_outputs(outputs);  // all or none
        if (verbosity.verbose > 0 && !verbosity.quiet)
            for (const auto& r : results) {
                const sim::Summary& s = r.summary;
                std::cerr << "replay: " << s.policy << ": " << s.jobs << " jobs in " << s.rounds << " rounds, average JCT "
                          << io::format_number(s.avg_jct_s, 6) << " s, makespan " << io::format_number(s.makespan_s, 6)
                          << " s, utilization " << io::format_number(s.utilization, 4) << ", " << s.migrations
                          << " migrations, " << s.unproven_rounds << " unproven rounds\n";
            }
        return Exit::ok;
    });
}
