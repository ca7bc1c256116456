// schedround: one scheduling round for a heterogeneous cluster: which job runs on which GPU type and
// hosts now (FFT by default), from a cluster-state file, safe to run from cron with --state.
#include <filesystem>
#include <iostream>
#include <memory>

#include <hetsched/cli/app.hpp>
#include <hetsched/cli/inputs.hpp>
#include <hetsched/cli/catalog_flags.hpp>
#include <hetsched/cli/policy_flags.hpp>
#include <hetsched/fit/model_document.hpp>
#include <hetsched/io/output_file.hpp>
#include <hetsched/io/state_file.hpp>
#include <hetsched/sched/state_document.hpp>

using namespace hetsched;

int main(int argc, char** argv) {
    sched::RoundOptions opt;
    cli::IoOptions io;
    cli::Verbosity verbosity;
    std::string policy = "fft", catalog = "default", format = "state", state_path, actions_path, throughputs;
    sched::StateModels models;
    double lock_timeout_s = 60;
    bool dry_run = false, no_timings = false;
    auto app = cli::make_app(
        {"schedround",
         "Decide one scheduling round for a cluster of mixed GPU types: which jobs run, on which type and hosts.",
         "Reads a cluster state (kind: cluster-state) from FILE or stdin, or from --state FILE, which it rewrites "
         "under a lock.\nExit status: 0 ok; 64 usage; 65 bad state; 66 no input; 70 internal; 73/74 output "
         "errors; 75 state locked or solver out of time (without --accept-unproven); 78 bad catalog.\nSee schedround(1) and "
         "hetsched-formats(5)."},
        verbosity);
    cli::add_io_options(*app, io);
    const char* p = "Policy";
    app->add_option("--policy", policy, "Scheduling policy")
        ->group(p)->check(CLI::IsMember(sched::policy_names()))->capture_default_str();
    cli::add_policy_flags(*app, opt, p);
    cli::add_catalog_option(*app, catalog)->group(p);
    app->add_option("--throughputs", throughputs, "fitthroughput's model document, for jobs with app: (elastic: "
                                                  "their sizes and samples/s)")->group(p)->type_name("FILE");
    app->add_option("--gpus-per-node", models.gpus_per_node, "Node size of those predictions (default: each fit's "
                                                             "densest profiled node)")
        ->group(p)->transform(cli::integer_in(1, 1024));
    const char* o = "Output";
    app->add_option("--format", format, "state (the next state) or actions (CSV job_id,action,gpu,nodes)")
        ->group(o)->check(CLI::IsMember({"state", "actions"}))->capture_default_str();
    app->add_option("--actions,--apply-to", actions_path, "Also write the actions CSV to FILE (--apply-to: the same)")->group(o)->type_name("FILE");
    app->add_flag("--explain", opt.explain, "Add each job's cost terms to the solve: section")->group(o);
    app->add_flag("--no-timings", no_timings, "Leave out solve: wall_time_s (for byte-identical outputs)")->group(o);
    const char* c = "Cron";
    app->add_option("--state", state_path, "Read FILE and replace it with the next state, under FILE.lock")
        ->group(c)->type_name("FILE");
    app->add_option("--lock-timeout-s", lock_timeout_s, "Wait this long for another run's lock, then exit 75")
        ->group(c)->check(cli::number_in(0, 86400))->capture_default_str();
    app->add_flag("--accept-unproven", opt.accept_unproven,
                  "Past --time-limit-s, keep the best schedule found (else the last round's), with solve: proven: "
                  "false, instead of exiting 75")
        ->group(c);
    app->add_flag("--dry-run", dry_run, "With --state: decide and print, but leave the file as it is")->group(c);
    cli::ListFlags lists;
    cli::add_list_flags(*app, lists, false);

    return cli::run_tool(*app, argc, argv, [&] {
        if (cli::write_list(*app, lists, catalog, io.output)) return Exit::ok;
        if (!state_path.empty() && io.input != "-") throw UsageError("give the state as FILE or as --state FILE, not both");
        if (!state_path.empty() && !io.output.empty() && !dry_run)
            throw UsageError("--state rewrites its own file; -o is for a state read from FILE or stdin");
        if (dry_run && state_path.empty()) throw UsageError("--dry-run goes with --state");
        if (state_path == "-")
            throw UsageError("--state replaces a file under its lock, and '-' is standard input: give the state on "
                             "stdin without --state (the next state goes to stdout or -o)");
        // The lock stays a file of its own: an output renamed over it would let a second run in.
        for (const auto& [flag, out] : {std::pair{"--actions", actions_path}, std::pair{"-o", io.output}})
            if (io::replaces_lock_of(out, state_path))
                throw UsageError(std::string(flag) + " " + out + " is --state's lock file: name another file");
        // -o may rewrite the state it read (a state in, the next state out), not with --state (which
        // --dry-run would then change) nor with actions; no output may replace another input.
        const cli::NamedPath state_in = state_path.empty() ? cli::NamedPath{"FILE", io.input} : cli::NamedPath{"--state", state_path};
        const std::vector<cli::NamedPath> others{{"--throughputs", throughputs}, {"--catalog", catalog}};
        std::vector<cli::NamedPath> all = others;
        all.push_back(state_in);
        cli::check_outputs_spare_inputs({{"--actions", actions_path}}, all);
        cli::check_outputs_spare_inputs({{"-o", io.output}}, format == "actions" || !state_path.empty() ? all : others);
        opt.policy = sched::parse_policy(policy);
        cli::check_policy_flags(*app, opt);
        if (verbosity.verbose > 0) opt.solver_log = [](const std::string& s) { std::cerr << s; };
        const auto cat = cli::load_catalog(catalog);
        std::unique_ptr<io::FileLock> lock;
        if (!state_path.empty()) {
            // A missing state (or a folder) is reported before its lock file is made beside it.
            std::error_code ec;
            if (!std::filesystem::exists(state_path, ec) || std::filesystem::is_directory(state_path, ec))
                (void)io::read_input(state_path);
            lock = std::make_unique<io::FileLock>(state_path, lock_timeout_s);
        }
        if (!throughputs.empty()) models.fits = fit::read_model_document(io::read_input(throughputs));
        sched::StateDocument doc = sched::read_state(io::read_input(state_path.empty() ? io.input : state_path), cat,
                                                     throughputs.empty() ? nullptr : &models);
        sched::check_round_options(doc, opt);
        for (const auto& w : doc.warnings) std::cerr << "schedround: warning: " << w << "\n";  // even with -q
        const sched::RoundResult r = sched::run_round(doc.state, opt);
        const std::string actions = sched::actions_csv(r.state, r.actions);
        const std::string next = sched::write_state(std::move(doc), r, opt.explain, !no_timings);
        if (!state_path.empty() && !dry_run) {
            // The next state is on disk, not yet in place, before any action goes out (a state that
            // cannot be written leaves no actions behind); the actions are out before the state moves
            // on (a run that fails to report them leaves the state as it was, so the next run decides
            // them again).
            io::DurableReplacement replacement(state_path, next);
            // On disk too before the state moves on (a power cut must not leave the new state beside
            // the old actions).
            if (!actions_path.empty()) io::write_output(actions_path, actions, true);
            if (format == "actions" || !io.output.empty()) io::write_output(io.output, format == "actions" ? actions : next);
            replacement.commit();
        } else {
            if (!actions_path.empty()) io::write_output(actions_path, actions);
            io::write_output(io.output, format == "actions" ? actions : next);
        }
        if (verbosity.verbose > 0 && !verbosity.quiet)
            std::cerr << "schedround: round " << r.state.round << ": " << r.actions.size() << " actions, "
                      << r.decision.stats.method << " solve in " << r.wall_time_s << " s"
                      << (r.decision.stats.proven ? "" : " (time limit: not proven)") << "\n";
        if (!r.decision.stats.proven && !verbosity.quiet)
            std::cerr << "schedround: the solver reached --time-limit-s; the round keeps the best schedule found, or "
                         "the last round's (solve: proven: false; gap says how far it may be from the optimum)\n";
        return Exit::ok;
    });
}
