#pragma once
// Small clusters and jobs for the scheduling tests.
#include <string>
#include <vector>

#include <hetsched/sched/cluster_state.hpp>

namespace hetsched::sched::test {

/// One node per type, each of `gpus` GPUs; types named as given, memory 0 (unknown) unless given.
inline ClusterState cluster(const std::vector<std::string>& types, int gpus = 1, double round_length_s = 60,
                            const std::vector<double>& memory = {}) {
    ClusterState s;
    s.round_length_s = round_length_s;
    for (size_t i = 0; i < types.size(); ++i) {
        s.types.push_back({types[i], i < memory.size() ? memory[i] : 0});
        s.nodes.push_back({types[i] + "-node", static_cast<int>(i), gpus, false});
    }
    return s;
}

/// A job of `work` units at `throughput` per type (0: cannot run there).
inline Job job(const std::string& id, double work, std::vector<double> throughput, int gpus = 1,
               double submit_time_s = 0) {
    Job j;
    j.id = id;
    j.work = work;
    j.num_gpus = gpus;
    j.submit_time_s = submit_time_s;
    j.book.time_per_type_s.assign(throughput.size(), 0);
    j.throughput = std::move(throughput);
    return j;
}

/// Job `j` running on type `t`, on that type's first node.
inline Job running(Job j, int t) {
    j.placement = {t, {{t, j.num_gpus}}};
    return j;
}

}  // namespace hetsched::sched::test
