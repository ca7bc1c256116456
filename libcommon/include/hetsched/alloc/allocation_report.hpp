#pragma once
/// planalloc's output: the chosen plan as an `allocation:` section placestages can read, the search's
/// statistics as `search:`, or the best plans as a CSV table.
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include <hetsched/alloc/cost_search.hpp>

namespace hetsched::alloc {

/// What the report says besides the plans.
struct ReportContext {
    std::string method, placer, currency;
    double slo_s = 0;  ///< 0: none
    long iterations = 0;
    std::string schedule;  ///< the pipeline schedule every plan was timed under
    std::string catalog;   ///< whose GPU specs timed the plans (a named catalog, or the file's full path)
    /// The model settings the plans were timed with, which placestages then keeps.
    std::string measure;
    double usable_fraction = 0, efficiency = 0;
};

/// `{TYPE: GPUs}` of a plan, in the space's type order.
YAML::Node gpu_counts(const SearchSpace& space, const PlanRecord& p);

/// The catalog as an allocation names it: a named catalog by its name, a file by its full path (so
/// placestages, run from another directory, knows the file).
std::string catalog_identity(const catalog::GpuCatalog& cat);

/// The `allocation:` section: the best plan, then the others as `alternatives`.
YAML::Node allocation_to_yaml(const SearchSpace& space, const std::vector<PlanRecord>& plans, const ReportContext& c);

/// Puts `allocation` into the document. What described the allocation it replaces is dropped: a
/// `placement:` section (placestages'), and a `search:` section (the SLO search's) unless
/// `search_follows` (the caller writes its own). The note saying what was dropped, or "".
std::string replace_allocation(YAML::Node& root, const YAML::Node& allocation, bool search_follows);

/// A plan's total time to 6 significant digits, or as many more as keep it on its side of the SLO
/// (1228.184 s against an SLO of 1228.18 s is not written 1228.18); `slo` 0: none.
std::string time_beside_slo(double t, double slo);

/// The `search:` section; `skipped` lists the catalog types left out and why.
YAML::Node search_to_yaml(const SearchStats& s, const std::vector<PlanRecord>& plans, const ReportContext& c,
                          const std::vector<std::string>& skipped);

/// One row per plan: rank, GPUs, mix, dp, pp, stages, times, price, cost.
std::string plans_to_csv(const SearchSpace& space, const std::vector<PlanRecord>& plans);

/// "dp 2, pp 3, 6 GPUs (A30: 4, RTX-3090: 2), stages A30/12 A30/10 RTX-3090/4": for messages.
std::string describe_plan(const SearchSpace& space, const PlanRecord& p);

/// Writes a flag's inter-node bandwidth (GB/s; 0: none given) to the document's `network:`, so that
/// placestages times the plan on the network it was planned for.
void record_network(double inter_node_gb_s, YAML::Node& root);

}  // namespace hetsched::alloc
