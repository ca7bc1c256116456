#include <hetsched/sim/report.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>

#include <yaml-cpp/yaml.h>

#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/yaml_document.hpp>
#include <hetsched/sched/allox_policy.hpp>
#include <hetsched/sched/glpk.hpp>

namespace hetsched::sim {
namespace {

using io::format_number;

/// The summary's fields in their documented order, as (name, value) with the value formatted.
std::vector<std::pair<std::string, std::string>> fields(const Summary& s, const ReportOptions& o) {
    auto n = [](double v) { return format_number(v); };
    // Seconds to the millisecond, as the jobs CSV writes them: 6 significant digits dropped whole
    // seconds from a makespan of a long trace (1001234568 for 1001234567.891).
    auto secs = [](double v) { return io::format_fixed(v, 3); };
    std::vector<std::pair<std::string, std::string>> f = {
        {"policy", s.policy},
        {"jobs", std::to_string(s.jobs)},
        {"skipped_jobs", std::to_string(o.skipped)},
        {"rounds", std::to_string(s.rounds)},
        {"avg_jct_s", secs(s.avg_jct_s)},
        {"p50_jct_s", secs(s.p50_jct_s)},
        {"p95_jct_s", secs(s.p95_jct_s)},
        {"p99_jct_s", secs(s.p99_jct_s)},
        {"makespan_s", secs(s.makespan_s)},
        {"mean_ftf", n(s.mean_ftf)},
        {"max_ftf", n(s.max_ftf)},
        {"unfair_fraction", n(s.unfair_fraction)},
        {"avg_queue_s", secs(s.avg_queue_s)},
        {"max_starvation_s", secs(s.max_starvation_s)},
        {"utilization", n(s.utilization)},
        {"migrations", std::to_string(s.migrations)},
        {"unproven_rounds", std::to_string(s.unproven_rounds)},
        {"max_gap", n(s.max_gap)},
    };
    if (o.timings) {
        f.push_back({"sched_time_mean_s", format_number(s.sched_time_mean_s, 3)});
        f.push_back({"sched_time_max_s", format_number(s.sched_time_max_s, 3)});
        f.push_back({"wall_s", format_number(s.wall_s, 3)});
    }
    return f;
}

}  // namespace

std::vector<ReplayResult> replay_all(const std::vector<ReplayJob>& jobs, const ReplayCluster& cluster,
                                     const ReplayOptions& o, const std::vector<sched::PolicyKind>& kinds, int threads,
                                     const ReplayProgress& progress) {
    // A trace a policy cannot run is refused before any policy spends its time on it.
    for (const sched::PolicyKind kind : kinds)
        if (kind == sched::PolicyKind::allox)
            for (const auto& rj : jobs) sched::check_allox_job(rj.job, rj.where);
    std::vector<ReplayResult> out(kinds.size());
    std::vector<std::exception_ptr> errors(kinds.size());
    std::atomic<size_t> next{0};
    struct Seen {
        long rounds = 0, finished = 0;
        double time_s = 0, share = 0;
        bool done = false;
    };
    std::vector<Seen> seen(kinds.size());
    std::mutex seen_lock;
    // The share done: the policies' mean (one not started yet has done none of its part).
    auto report = [&](size_t k, long rounds, double time_s, long finished, double share, bool done) {
        if (!progress) return;
        const std::lock_guard<std::mutex> hold(seen_lock);
        seen[k] = {rounds, finished, time_s, share, done};
        Seen all{0, 0, std::numeric_limits<double>::infinity(), 0, true};
        for (const Seen& x : seen) {
            all.rounds += x.rounds;
            all.finished += x.finished;
            all.share += x.share;
            if (!x.done) all.time_s = std::min(all.time_s, x.time_s);
        }
        progress(all.rounds, std::isfinite(all.time_s) ? all.time_s : time_s, all.finished,
                 all.share / static_cast<double>(seen.size()));
    };
    auto work = [&] {
        for (size_t k; (k = next++) < kinds.size();) {
            try {
                ReplayOptions mine = o;
                mine.round.policy = kinds[k];
                const auto t0 = std::chrono::steady_clock::now();
                out[k] = replay(jobs, cluster, mine, [&, k](long rounds, double time_s, long finished, double share) {
                    report(k, rounds, time_s, finished, share, false);
                });
                report(k, out[k].summary.rounds, out[k].summary.makespan_s,
                       static_cast<long>(out[k].jobs.size()), 1.0, true);
                out[k].summary.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            } catch (...) {
                errors[k] = std::current_exception();
            }
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < std::min<int>(threads, static_cast<int>(kinds.size())); ++t)
        pool.emplace_back([&work] {
            work();
            sched::release_glpk_thread();
        });
    work();
    for (auto& t : pool) t.join();
    for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
    return out;
}

std::string summary_yaml(const std::vector<ReplayResult>& results, const ReportOptions& o) {
    std::string text;
    for (size_t k = 0; k < results.size(); ++k) {
        YAML::Node doc(YAML::NodeType::Map);
        doc["kind"] = "replay-summary";
        doc["version"] = 1;
        for (const auto& [name, value] : fields(results[k].summary, o))
            doc[name] = value == "inf" ? ".inf" : value;  // YAML's infinity (a gap with no bound known)
        text += (k ? "---\n" : "") + io::emit_yaml(doc);
    }
    return text;
}

std::string summary_csv(const std::vector<ReplayResult>& results, const ReportOptions& o) {
    std::vector<std::string> header;
    for (const auto& [name, value] : fields(Summary{}, o)) header.push_back(name);
    io::CsvWriter w(header);
    for (const auto& r : results) {
        std::vector<std::string> row;
        for (const auto& [name, value] : fields(r.summary, o)) row.push_back(value);
        w.add_row(row);
    }
    return w.text();
}

std::string jobs_csv(const std::vector<ReplayResult>& results) {
    io::CsvWriter w({"policy", "job_id", "model", "submit_time_s", "start_time_s", "finish_time_s", "jct_s", "queue_s",
                     "ftf", "migrations", "starvation_s", "gpu_time_s"});
    // Times to the millisecond, whatever their size: at 6 significant digits a finish past 1e6 s lost
    // seconds, and finish less submit no longer gave jct_s.
    const auto ms = [](double v) { return io::format_fixed(v, 3); };
    for (const auto& r : results)
        for (const auto& j : r.jobs)
            w.add_row({r.summary.policy, j.id, j.model, ms(j.submit_time_s), ms(j.start_time_s), ms(j.finish_time_s),
                       ms(j.jct_s()), ms(j.queue_s()), format_number(j.ftf()), std::to_string(j.migrations),
                       ms(j.starvation_s()), ms(j.gpu_time_s())});
    return w.text();
}

std::string rounds_csv(const std::vector<ReplayResult>& results, const ReplayCluster& cluster) {
    std::vector<std::string> header = {"policy", "time_s", "queued", "running"};
    for (const auto& t : cluster.types) header.push_back("busy_" + t.name);
    io::CsvWriter w(header);
    for (const auto& r : results)
        for (const auto& rec : r.rounds) {
            std::vector<std::string> row = {r.summary.policy, io::format_fixed(rec.time_s, 3), std::to_string(rec.queued),
                                            std::to_string(rec.running)};
            for (double b : rec.busy) row.push_back(format_number(b));
            w.add_row(row);
        }
    return w.text();
}

}  // namespace hetsched::sim
