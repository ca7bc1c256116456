#pragma once
/// The `allocation` a placement starts from: the data-parallel degree and the GPU type of each
/// pipeline stage (every stage runs on dp GPUs of its type).
///
///   allocation: {dp: 2, stages: [RTX-A6000, RTX-A6000, A30, RTX-A4000]}
///   allocation: {dp: 2, gpus: {RTX-A6000: 4, A30: 2, RTX-A4000: 2}}   # stages = count / dp per type
///   allocation: {tp: 4, dp: 1, gpus: {A100-40GB-SXM: 4}}              # stages = count / (dp x tp)
///
/// A `stages` entry may also be a map with a `gpu` key (planalloc's placed stages), and a `layers` key
/// on every stage or none: the split `placestages --method given` evaluates. `schedule` says the
/// pipeline schedule the plan was timed under (planalloc writes it). `nodes` (planalloc --cluster's
/// best fit: `{NODE: {gpu, gpus}}`) says how many GPUs of each node the stages have.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/io/yaml_document.hpp>
#include <hetsched/model/memory.hpp>
#include <hetsched/place/methods.hpp>
#include <hetsched/place/pipeline_schedule.hpp>

namespace hetsched::place {

struct Allocation {
    int dp = 0;
    int tp = 1;                       ///< tensor-parallel GPUs of every stage (one node's)
    std::vector<std::string> stages;  ///< catalog names, in the order given
    /// The `gpus` map's counts in its order, when the stages come from it (no `stages` list): stages
    /// of another dp (--dp) are made of them again.
    std::vector<std::pair<std::string, long>> counts;
    std::vector<long> layers;         ///< each stage's layers when the stages give them; empty otherwise
    std::optional<ScheduleKind> schedule;  ///< the schedule the plan was timed under, when it says
    std::optional<Method> placer;          ///< the placer that split the plan's layers (planalloc's --placer)
    /// The model settings planalloc timed the plan with, when it says.
    std::optional<model::Measure> measure;
    std::optional<double> usable_fraction, efficiency;
    /// The plan's micro-batch (planalloc's cluster mode writes it), when it says: the job's, where the
    /// job does not give one.
    std::optional<long> micro_batch;
    SourcePos micro_batch_where;
    /// Per type, the fewest GPUs the allocation has on one of its nodes, when it lists its nodes: its
    /// stages fill nodes of that many GPUs (the smallest share, where shares differ), not the catalog's.
    std::map<std::string, int> gpus_per_node;
    SourcePos where;                  ///< of the allocation, for errors about it as a whole
    SourcePos layers_where;           ///< of `stages` when they give layers
    SourcePos tp_where;               ///< of `tp` when the allocation gives it
    /// Keys not read (a slip of one that is, schedle for schedule, or one neither read nor written by
    /// planalloc; a stage's key other than gpu and layers), file:line:col first: the allocation passes
    /// through with them, so a user is told.
    std::vector<std::string> warnings;
};

/// The document's `allocation:` section with types resolved in `catalog`; DataError at the offending
/// node (unknown types with suggestions, counts not divisible by dp, missing keys).
Allocation read_allocation(const io::YamlDocument& doc, const catalog::GpuCatalog& catalog);

/// `catalog` with each type's GPUs per node as the allocation's nodes give them (Allocation::gpus_per_node).
catalog::GpuCatalog on_allocated_nodes(catalog::GpuCatalog catalog, const Allocation& a);

/// The stages an allocation of GPU counts (Allocation::counts) makes at dp x tp GPUs a stage: n / (dp x
/// tp) of each type, in the counts' order (each count a multiple: undivided_count).
std::vector<std::string> stages_of_counts(const std::vector<std::pair<std::string, long>>& counts, int dp, int tp);
/// The first count of `counts` that dp x tp does not divide; nullptr when each is a multiple.
const std::pair<std::string, long>* undivided_count(const std::vector<std::pair<std::string, long>>& counts, int dp,
                                                    int tp);
/// "dp (2)" or "dp x tp (8)": what a stage's GPUs are, for messages about counts.
std::string stage_width(int dp, int tp);

/// An allocation from `--dp` and `--stages A,B,C`; UsageError for unknown types.
Allocation allocation_from_flags(int dp, const std::string& stages, const catalog::GpuCatalog& catalog);

}  // namespace hetsched::place
