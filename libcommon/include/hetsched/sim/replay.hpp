#pragma once
/// replay's engine: a trace through many rounds of a policy, calling exactly the round function
/// schedround runs. Between decisions it advances time event by event (no finer steps): each running
/// job progresses at its type's throughput, loses its migration time when it moves or resumes, and
/// finishes at the exact instant its work completes; its GPUs serve from the next decision (every
/// round_length_s, or at that finish with reschedule_on_events). Decision k falls at t0 + k ×
/// round_length_s, computed rather than summed, t0 the first arrival, the arrival ending an idle
/// spell, or the finish that brought the last decision. Arrivals join the first decision at or after
/// them (after by no more than rounding in the last digits); an idle cluster jumps to the next arrival.
/// A round whose solver reaches the time limit keeps what it found, or the previous round's schedule
/// (RoundOptions::accept_unproven, which the caller sets); TryLater (75) when there is nothing to keep.
#include <functional>
#include <string>
#include <vector>

#include <hetsched/cli/error.hpp>
#include <hetsched/sched/cluster_state.hpp>
#include <hetsched/sched/policy.hpp>
#include <hetsched/sim/metrics.hpp>

namespace hetsched::sim {

/// The cluster a trace runs on.
struct ReplayCluster {
    std::vector<sched::GpuTypeInfo> types;
    std::vector<sched::Node> nodes;
};

/// A job as the engine runs it: what the state needs, from the trace and the throughput table.
struct ReplayJob {
    sched::Job job;       ///< id, submit time, GPUs, work, throughput per cluster type, checkpoint
    std::string model;
    SourcePos where;      ///< its trace row, for errors a policy finds before the first round
};

struct ReplayOptions {
    sched::RoundOptions round;  ///< the policy, its parameters, and the migration speeds
    double round_length_s = 300;
    bool reschedule_on_events = false;
    /// Most decisions a replay makes: 9.5 years of 300 s rounds, beyond any published trace, and a few
    /// minutes of one job's rounds. A trace whose work needs more is refused before the first round
    /// (usage: the round length is too short for it); a replay that reaches it unfinished (migrations
    /// that never end) stops with a data error, rather than running for days.
    long max_rounds = 1000000;
};

/// Called now and then: rounds decided, simulated time, jobs finished, and the share of the trace's work
/// done (0 to 1, for a time-left estimate), each job's work counted in seconds at its fastest rate.
/// Jobs finished is no measure of it: a trace's many short jobs end early, its few long ones last.
using ReplayProgress = std::function<void(long rounds, double time_s, long finished, double share)>;

/// Runs `jobs` (in submission order) on `cluster`.
ReplayResult replay(const std::vector<ReplayJob>& jobs, const ReplayCluster& cluster, const ReplayOptions& o,
                    const ReplayProgress& progress = {});

}  // namespace hetsched::sim
