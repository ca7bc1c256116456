#pragma once
/// One scheduling round, the function schedround runs once and replay runs every round: state in,
/// decision and next state out, nothing else read or written.
///
/// Before deciding, the round credits the time since the previous decision (time_s − last_decision_s)
/// to each job that held a placement: attained service (GPUs × seconds) and time on its type. Then the
/// policy picks types, hosts are assigned, and the next state records the placements, first starts,
/// migrations, the decision time and the job set it saw, with `round` one higher. The policy and the
/// host placement see the jobs in order of submission, then id (tie_break.hpp), so that nothing
/// depends on the order of the state's list; the next state and the actions keep that list's order.
#include <string>
#include <vector>

#include <hetsched/sched/cluster_state.hpp>
#include <hetsched/sched/policy.hpp>

namespace hetsched::sched {

/// What a job is told to do this round.
enum class ActionKind { start, stop, migrate, keep };
std::string action_name(ActionKind a);

/// One line of the actions table: a job that ran before the round, runs after it, or both.
struct Action {
    std::string job_id;
    ActionKind kind = ActionKind::keep;
    Placement placement;  ///< after the round (empty for stop)
};

/// The round's outcome.
struct RoundResult {
    ClusterState state;  ///< the next state
    std::vector<Action> actions;
    TypeDecision decision;
    double wall_time_s = 0;  ///< time the decision took (policy and placement)
};

/// Runs one round of `o.policy` on `in`.
RoundResult run_round(const ClusterState& in, const RoundOptions& o);

/// The actions as CSV `job_id,action,gpu,nodes` (nodes as `name:gpus` joined by ';').
std::string actions_csv(const ClusterState& s, const std::vector<Action>& actions);

}  // namespace hetsched::sched
