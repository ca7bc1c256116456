#pragma once
/// replay's outputs: the summary per policy (YAML documents, or a CSV row each), and the per-job and
/// per-round tables; and running several policies on one trace, in threads, with results in the
/// order the policies were given.
#include <string>
#include <vector>

#include <hetsched/sim/replay.hpp>

namespace hetsched::sim {

/// Runs `jobs` once per policy of `kinds` (each with `o`'s parameters), `threads` at a time. Results
/// follow `kinds`. `progress` gets the sums over the policies (rounds, jobs finished) and the least
/// simulated time among those still running, one call at a time.
std::vector<ReplayResult> replay_all(const std::vector<ReplayJob>& jobs, const ReplayCluster& cluster,
                                     const ReplayOptions& o, const std::vector<sched::PolicyKind>& kinds, int threads,
                                     const ReplayProgress& progress = {});

struct ReportOptions {
    bool timings = true;  ///< the measured times (scheduler time, wall time) vary from run to run
    long skipped = 0;     ///< trace jobs left out
    ReplayCluster cluster;
};

std::string summary_yaml(const std::vector<ReplayResult>& results, const ReportOptions& o);
std::string summary_csv(const std::vector<ReplayResult>& results, const ReportOptions& o);
/// `policy,job_id,model,submit_time_s,start_time_s,finish_time_s,jct_s,queue_s,ftf,migrations,starvation_s,gpu_time_s`
std::string jobs_csv(const std::vector<ReplayResult>& results);
/// `policy,time_s,queued,running,busy_<TYPE>...`
std::string rounds_csv(const std::vector<ReplayResult>& results, const ReplayCluster& cluster);

}  // namespace hetsched::sim
