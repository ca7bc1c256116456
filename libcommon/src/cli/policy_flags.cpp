#include <hetsched/cli/policy_flags.hpp>

#include <algorithm>

#include <hetsched/cli/error.hpp>
#include <hetsched/cli/validators.hpp>

namespace hetsched::cli {
namespace {

/// `range` as help shows it, with 0 left out (check_policy_flags refuses 0, saying why).
CLI::Validator nonzero(CLI::Validator range) {
    return range.description(range.get_description() + ", not 0");
}

}  // namespace

void add_policy_flags(CLI::App& app, sched::RoundOptions& o, const char* group) {
    app.add_option("--migration-gb-s", o.migration_gb_s, "Checkpoint transfer speed of a migration, GB/s")
        ->group(group)->check(number_in(0.001, 1e6))->capture_default_str();
    app.add_option("--migration-restart-s", o.migration_restart_s, "Stop and restart time of a migration, seconds")
        ->group(group)->check(number_in(0, 1e6))->capture_default_str();
    app.add_flag("--exact", o.exact, "fft: hand the plain program to GLPK's MIP solver (for checking; slower)")
        ->group(group);
    app.add_option("--time-limit-s", o.time_limit_s, "A round's solver limit: schedround exits 75 past it (unless --accept-unproven), replay keeps the best schedule found")
        ->group(group)->check(positive(1e6))->capture_default_str();
    app.add_option("--seed", o.seed, "Seed of the drawn choices (fifo and gavel-agnostic type orders, tiresias types)")
        ->group(group)->transform(integer_in(0, 1L << 62))->capture_default_str();
    app.add_option("--gavel-reset-s", o.gavel_reset_s, "gavel: least time between two allocations, seconds")
        ->group(group)->check(number_in(0, 1e9))->capture_default_str();
    app.add_option("--tiresias-queues-s", o.tiresias_queues_s,
                   "tiresias: attained-service limits of the queues but the last, GPU-seconds, increasing")
        ->group(group)->delimiter(',')->allow_extra_args(false)->check(positive(1e15))->capture_default_str();
    app.add_option("--tiresias-starvation", o.tiresias_starvation,
                   "tiresias: promote a job waiting this many times its run time (0: never)")
        ->group(group)->check(number_in(0, 1e6))->capture_default_str();
    app.add_option("--sia-p", o.sia_p, "sia: power of the normalised goodput (negative: the program minimises)")
        ->group(group)->check(nonzero(number_in(-10, 10)))->capture_default_str();
    app.add_option("--sia-lambda-n", o.sia_lambda_n, "sia: cost of a job left without GPUs")
        ->group(group)->check(number_in(-1e6, 1e6))->capture_default_str();
}

void check_policy_flags(const CLI::App& app, const sched::RoundOptions& o) {
    const auto& q = o.tiresias_queues_s;
    if (!std::is_sorted(q.begin(), q.end()) || std::adjacent_find(q.begin(), q.end()) != q.end())
        throw UsageError("--tiresias-queues-s: expected increasing limits, got '" +
                         CLI::detail::join(app.get_option("--tiresias-queues-s")->results(), ",") + "'");
    if (o.sia_p == 0) throw UsageError("--sia-p: expected a non-zero power (Sia's program is undefined at 0)");
}

}  // namespace hetsched::cli
