#pragma once
/// What replay reports: per job, per round, and a summary with the metrics the papers use (JCT and
/// its percentiles, makespan, finish-time fairness, starvation, utilisation, migrations, scheduler time).
#include <string>
#include <vector>

#include <hetsched/sched/cluster_state.hpp>

namespace hetsched::sim {

/// One finished job.
struct JobResult {
    std::string id;
    std::string model;
    double submit_time_s = 0;
    double start_time_s = -1;   ///< first start
    double finish_time_s = 0;
    double run_s = 0;           ///< time holding GPUs (migration time included)
    double gpu_s = 0;           ///< GPUs × seconds held (an elastic job's size may change)
    double isolated_s = 0;      ///< JCT with a fair share of the cluster (see ftf)
    long migrations = 0;
    int num_gpus = 1;           ///< as the trace asked (an elastic job may run at other sizes)
    double work = 0;
    double jct_s() const { return finish_time_s - submit_time_s; }
    double queue_s() const { return jct_s() - run_s; }
    double starvation_s() const { return start_time_s - submit_time_s; }  ///< submission to first start (FFT)
    double ftf() const { return jct_s() / isolated_s; }
    double gpu_time_s() const { return gpu_s; }
};

/// One decision and the interval after it.
struct RoundRecord {
    double time_s = 0;
    double length_s = 0;
    long queued = 0;   ///< jobs present and not running
    long running = 0;
    std::vector<double> busy;  ///< GPUs held per type after the decision (a sharer holds half of one)
    double busy_gpu_s = 0;  ///< GPU-seconds held in the interval (jobs finishing in it hold theirs until then)
    double sched_s = 0;     ///< time the round function took
    bool proven = true;     ///< the policy's program was solved to proven optimality (or had none)
    double gap = 0;         ///< objective − proven bound when not
};

struct Summary {
    std::string policy;
    long jobs = 0;
    long skipped = 0;  ///< trace jobs no type of the cluster could run (too many GPUs)
    long rounds = 0;
    double avg_jct_s = 0, p50_jct_s = 0, p95_jct_s = 0, p99_jct_s = 0, makespan_s = 0;
    double mean_ftf = 0, max_ftf = 0, unfair_fraction = 0;
    double avg_queue_s = 0, max_starvation_s = 0, utilization = 0;
    long migrations = 0;
    long unproven_rounds = 0;  ///< rounds whose program hit the time limit: best schedule found kept
    double max_gap = 0;        ///< the largest objective − bound among them
    double sched_time_mean_s = 0, sched_time_max_s = 0, wall_s = 0;
};

struct ReplayResult {
    std::vector<JobResult> jobs;  ///< in trace order
    std::vector<RoundRecord> rounds;
    Summary summary;
};

/// Each job's isolated JCT: its work at the rate it gets from 1/N of every type's GPUs, N the number
/// of active jobs averaged over its life (Sia's definition), the best single type as FFT runs a job:
/// max_t θ_t·min(1, Y_t / (N·d)) over the types with at least d GPUs (a gang of d GPUs cannot
/// time-share fewer, as the engine cannot run it there). `throughput[k]` per type for jobs[k];
/// `capacity` per type.
void set_isolated(std::vector<JobResult>& jobs, const std::vector<std::vector<double>>& throughput,
                  const std::vector<int>& capacity);

/// The summary of a finished replay (timings from the rounds, wall time as given).
Summary summarize(const std::string& policy, const std::vector<JobResult>& jobs, const std::vector<RoundRecord>& rounds,
                  int total_gpus);

}  // namespace hetsched::sim
