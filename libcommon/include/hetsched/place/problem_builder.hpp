#pragma once
/// Builds a placement Problem from a job, an allocation and a catalog: the memory model says how many
/// layers each type holds at each stage position, the compute model (or a measured profile) what a
/// micro-batch costs, and the network what transfers and gradient syncs take.
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/io/yaml_document.hpp>
#include <hetsched/model/job_spec.hpp>
#include <hetsched/model/layer_profile.hpp>
#include <hetsched/model/memory.hpp>
#include <hetsched/model/step_time.hpp>
#include <hetsched/place/allocation.hpp>
#include <hetsched/place/pipeline_schedule.hpp>
#include <hetsched/place/problem.hpp>

namespace hetsched::place {

struct ProblemOptions {
    model::Measure measure = model::Measure::device;
    double usable_fraction = 0.98;                   ///< share of each GPU's memory a stage may fill
    double efficiency = model::kDefaultEfficiency;   ///< achieved share of peak TFLOPS
    model::Network network;
    const model::LayerProfile* profile = nullptr;    ///< measured layer times instead of the compute model
    /// How stages exchange tensors; unset: as the job's framework runs its pipeline (default_schedule).
    std::optional<ScheduleKind> schedule;
    /// Which of measure, usable_fraction and efficiency a flag set; the others may come from the
    /// allocation planalloc timed (allocation.cpp).
    struct Given {
        bool measure = false, usable_fraction = false, efficiency = false;
    } given;
};

/// `base` (the flags' measure, usable fraction and efficiency) with its network resolved: the flag's
/// `inter_node_gb_s` (0: not given), over the document's `network:` section, over the catalog's.
ProblemOptions problem_options(ProblemOptions base, double inter_node_gb_s, const io::YamlDocument& doc,
                               const catalog::GpuCatalog& c);

/// `po` with the plan's own schedule, measure, usable fraction and efficiency where no flag set them:
/// a plan is timed as planalloc timed it.
ProblemOptions with_planned_settings(ProblemOptions po, const Allocation& a);

/// Builds the problems of many allocations with one data-parallel degree and stage count: the memory
/// model and each GPU type's numbers are worked out once and reused (planalloc builds thousands).
class ProblemFactory {
public:
    /// DataError at `where` when the layout does not suit the job (more stages than layers, a batch
    /// dp does not divide, ...).
    /// Each stage runs on dp x tp GPUs: tp of them split every layer (Megatron's tensor parallelism,
    /// within one node). Errors about tp alone (a node too small, a profile at another tp) are at
    /// `tp_where` when it names a file, else at `where`.
    ProblemFactory(const model::JobSpec& job, int dp, int stages, const catalog::GpuCatalog& c,
                   const ProblemOptions& o, const SourcePos& where = {}, int tp = 1, const SourcePos& tp_where = {});

    /// The numbers of one catalog type (its `stages` left 0), built on first use.
    const StageType& type(const std::string& name);
    /// The problem for these stage types (repeated names: several stages of one type).
    Problem problem(const std::vector<std::string>& stages);
    /// The problem with `counts[i]` stages of `names[i]` (counts sum to the stage count).
    Problem problem(const std::vector<std::string>& names, const std::vector<int>& counts);

    /// The fastest activation transfer between two stages of one type, of any type built so far.
    double fastest_link_s() const;
    /// The fastest activation transfer between stages of two different types built so far.
    double fastest_cross_link_s() const;
    /// Fastest tied-embedding sync between a first and a last stage on different nodes that a mix of
    /// the built types could have (0 when the embeddings are not tied across stages), for bounds.
    double fastest_tied_cross_s() const;

    /// The types built so far.
    std::vector<const StageType*> built() const;
    /// What every problem shares (no types).
    const Problem& base() const { return base_; }
    int dp() const { return dp_; }
    int stages() const { return stages_; }
    long micro_batches() const { return base_.micro_batches; }

private:
    const catalog::GpuCatalog& catalog_;
    ProblemOptions options_;
    int dp_, stages_, tp_;
    /// GPUs sharing a node's NIC in the mix of the built types that shares it least.
    double least_nic_share() const;
    /// The fastest network a built type's node has (for lower bounds).
    double fastest_nic_bytes_s() const;
    /// The tied embedding's two-rank gradient all-reduce at `bytes_s` (0 when nothing is tied).
    double tied_sync_s(double bytes_s) const;
    SourcePos where_, tp_where_;
    Problem base_;  ///< everything but the types
    model::Training training_;
    catalog::ModelSpec model_;
    model::Layout layout_;
    double per_param_ = 0, boundary_ = 0, inter_ = 0, layer_sync_bytes_ = 0;
    double tied_bytes_ = 0;  ///< per GPU: the tied embedding's gradient, synced first stage with last
    std::deque<std::pair<StageType, int>> types_;  ///< built types and their GPUs per node (stable references)
};

/// The problem; DataError at the allocation when it does not suit the job (more stages than layers,
/// a batch dp does not divide, ...).
Problem make_problem(const model::JobSpec& job, const Allocation& a, const catalog::GpuCatalog& c,
                     const ProblemOptions& o);

/// Why `g` cannot train the job in its precision (bf16 below compute capability 8.0, ...), naming the
/// type; empty when it can. `on_type`: the job's training as it runs on `g` (model::on_gpu).
std::string precision_unsupported_on(const model::Training& on_type, const catalog::GpuType& g);
std::string precision_unsupported_on(const model::JobSpec& job, const catalog::GpuType& g);

/// The layout of `stages` stages of `tp` x `dp` GPUs for the job, checked as a ProblemFactory checks
/// it: DataError at `where` when it does not suit the job (more stages than layers, a batch dp does
/// not divide, past the model's limits).
model::Layout checked_layout(const model::JobSpec& job, int dp, int stages, int tp, model::Measure measure,
                             const SourcePos& where);

/// Micro-batch size the job runs with (its own, or 1).
long micro_batch_of(const model::JobSpec& job);

}  // namespace hetsched::place
