#include <hetsched/sched/state_near_misses.hpp>

namespace hetsched::sched {

std::vector<std::string> near_miss_keys(const io::YamlDocument& doc) {
    static const std::vector<std::string> top = {"kind", "version", "time_s", "round", "round_length_s", "last_decision_s",
                                                 "active_set", "gavel", "gpu_types", "nodes", "jobs", "solve"};
    static const std::vector<std::string> type_keys = {"name", "memory_gib"}, node_keys = {"name", "gpu", "gpus", "down"};
    // The keys of a job that schedround reads or writes.
    static const std::vector<std::string> job_keys = {
        "id", "submit_time_s", "num_gpus", "work", "done", "scales", "throughput", "app", "min_gpus", "max_gpus",
        "batch_size", "memory_gib", "model", "training", "checkpoint_gib", "gpu_util_pct", "preemptible",
        "priority_weight", "parallelism", "placement", "rho", "tau_s", "attained_gpu_s", "time_per_type_s",
        "migrations", "first_start_s", "gavel", "tiresias"};
    const std::string not_read = "is not one schedround reads (it passes through)";
    std::vector<std::string> out;
    io::warn_near_miss_keys(doc, doc.root, top, not_read, out);
    for (const auto& [section, known] : {std::pair{"gpu_types", &type_keys}, {"nodes", &node_keys}, {"jobs", &job_keys}}) {
        const YAML::Node list = io::optional_child(doc, doc.root, section);
        if (list.IsSequence())
            for (const auto& item : list) io::warn_near_miss_keys(doc, item, *known, not_read, out);
    }
    return out;
}

}  // namespace hetsched::sched
