#pragma once
/// The one rule for jobs a policy cannot tell apart: they go in order of submission, then job id,
/// whatever the order of the state's list or of a trace's rows. The greedy policies take jobs in
/// arrival_order; a round hands every policy its jobs in that order (run_round); and the policies that
/// solve a program put its solution in that order here, since among several optima a solver's choice
/// of which interchangeable job runs is its own (CBC tends to take the last).
#include <algorithm>
#include <map>
#include <vector>

#include <hetsched/sched/cluster_state.hpp>

namespace hetsched::sched {

/// Whether job `a` goes before job `b` when nothing else tells them apart: submitted earlier, or at
/// the same time with the smaller id.
bool earlier(const Job& a, const Job& b);

/// Within each group of jobs of `s` with the same non-empty `key` (all the policy's program sees of a
/// job: tie_key and its options with their costs; so that the members of a group are interchangeable
/// in it and any permutation of their choices is as good a solution), hands the group's `choice`s out
/// again in order of `earlier`, the best first by `better(member, a, b)` (true when choice a is better
/// for a job than b; `member` is one of the group, whose options the choices may index). Choices
/// equally good stay where the solver put them (so no job moves for nothing). A job whose key is empty
/// keeps its choice.
template <class Choice, class Better>
void earliest_first(const ClusterState& s, const std::vector<std::vector<double>>& key, std::vector<Choice>& choice,
                    Better better) {
    std::map<std::vector<double>, std::vector<size_t>> groups;
    for (size_t k = 0; k < key.size(); ++k)
        if (!key[k].empty()) groups[key[k]].push_back(k);
    for (auto& [_, members] : groups) {
        if (members.size() < 2) continue;
        std::sort(members.begin(), members.end(), [&](size_t a, size_t b) { return earlier(s.jobs[a], s.jobs[b]); });
        std::vector<Choice> got;
        for (size_t k : members) got.push_back(choice[k]);
        const size_t any = members.front();
        std::stable_sort(got.begin(), got.end(), [&](const Choice& a, const Choice& b) { return better(any, a, b); });
        for (size_t i = 0; i < members.size(); ++i) choice[members[i]] = got[i];
    }
}

/// The types of `s` in a seeded random order (fifo's and gavel-agnostic's per-round shuffle): by the
/// hash of each type's name with `seed`, so that the order does not depend on how the state lists them.
std::vector<int> seeded_type_order(const ClusterState& s, std::uint64_t seed);

/// The start of a job's key: what a program sees of a job besides its options' costs (its GPUs, its
/// priority weight, whether it is pinned where it runs). Where it runs is not part of it: a running
/// job and a waiting one that cost the same are tied, and the earlier runs.
std::vector<double> tie_key(const Job& j);

}  // namespace hetsched::sched
