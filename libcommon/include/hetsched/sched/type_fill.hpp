#pragma once
/// What the greedy policies share: a round's type decision built job by job against the free GPUs of
/// each type on up nodes, and the orders they take jobs and types in.
#include <vector>

#include <hetsched/sched/cluster_state.hpp>
#include <hetsched/sched/policy.hpp>

namespace hetsched::sched {

/// Types chosen so far and the GPUs of each type still free.
class TypeFill {
public:
    explicit TypeFill(const ClusterState& s);
    /// Whether job `k` may take type `t` now: it can run there and enough GPUs are free.
    bool fits(size_t k, int t) const;
    /// Gives job `k` type `t` (which must fit).
    void take(size_t k, int t);
    /// Gives job `k` the first type of `order` that fits; false when none does.
    bool take_first(size_t k, const std::vector<int>& order);
    const std::vector<int>& types() const { return type_; }
    int free(int t) const { return free_[static_cast<size_t>(t)]; }
    /// The decision, for a policy that solved no program (`method` names how it chose).
    TypeDecision decision(const std::string& method) const;

private:
    const ClusterState& s_;
    std::vector<int> free_;
    std::vector<int> type_;
};

/// Unfinished jobs in order of arrival (submit time, then id).
std::vector<size_t> arrival_order(const ClusterState& s);
/// The types job `j` can run on, fastest first (ties in the state's type order).
std::vector<int> fastest_types(const ClusterState& s, const Job& j);
/// The job's best throughput over the types it can run on with at least its num_gpus GPUs up (0 when
/// none): a type with fewer can never hold the job's gang, so its speed there is no measure of it.
/// `up` is the GPUs up per type (ClusterState::capacity).
double best_throughput(const ClusterState& s, const Job& j, const std::vector<int>& up);

}  // namespace hetsched::sched
