#pragma once
/// How a placement looks on the wire: the `placement:` section of a job document, a flat CSV stage
/// table, and the simulated schedule as CSV for plotting.
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include <hetsched/place/estimator.hpp>
#include <hetsched/place/methods.hpp>

namespace hetsched::place {

/// What the report says about where the layer times came from.
struct ReportContext {
    std::string method;
    std::string layer_times;  ///< "compute-model" or "profile"
    double efficiency = 0;    ///< shown for the compute model
    std::string measure;
    long micro_batch = 1;
};

/// One row per stage with its times and memory.
struct StageReport {
    int stage = 0;
    std::string gpu;
    long first_layer = 0, layers = 0;
    StageTimes times;
    double memory_gib = -1, usable_gib = 0;  ///< memory < 0: not known (hand-made problem)
};
std::vector<StageReport> stage_reports(const Problem& p, const Placement& pl, const Estimate& e);

YAML::Node placement_to_yaml(const Problem& p, const PlaceResult& r, const Estimate& e, const ReportContext& c);
/// stage,gpu,gpus,first_layer,last_layer,layers,forward_s,backward_s,send_activation_s,send_gradient_s,
/// allreduce_s,optimizer_s,memory_gib,usable_gib,headroom_gib,iteration_time_s (gpus: dp x tp)
std::string placement_to_csv(const Problem& p, const PlaceResult& r, const Estimate& e);
/// stage,gpu,micro_batch,kind,start_s,end_s (micro_batch empty for the all-reduce)
std::string timeline_to_csv(const Problem& p, const Placement& pl, const std::vector<TimelineEvent>& events);

}  // namespace hetsched::place
