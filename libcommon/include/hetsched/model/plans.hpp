#pragma once
/// Ranked resource plans (Frenzy's MARP, extended): every GPU type x tp x pp x dp x micro-batch whose
/// peak memory fits the card (pipeline depths up to 64, uneven layer splits allowed), ranked by fewest
/// GPUs, then estimated iteration time.
#include <optional>
#include <string>
#include <vector>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/model/memory.hpp>

#include <hetsched/model/step_time.hpp>

namespace hetsched::model {

struct PlanOptions {
    Method method = Method::framework;
    Measure measure = Measure::device;
    double usable_fraction = 0.98;   ///< share of the sold memory a job may fill (ECC, driver reserve)
    int max_gpus = 1024;             ///< per plan (also capped by each type's quota)
    int max_tp = 0;                  ///< 0: the type's GPUs per node
    long micro_batch = 0;            ///< the job's own micro-batch; 0: every one that divides the batch
    Network network;                 ///< links the rough time prices tp and dp traffic on
    std::optional<Layout> layout;    ///< only this layout (a fit check's), on each type it fits
};

/// One plan and what it costs in memory and time.
struct Plan {
    std::string gpu;
    Layout layout;
    double peak_gib = 0;
    double usable_gib = 0;
    double iteration_s = 0;  ///< rough estimate (compute, bubbles, tp and dp traffic), for ranking only
};

/// All fitting plans, best first. Deterministic: ties broken by type name and degrees. Types that
/// cannot train in t.precision (precision_left_out) get none.
std::vector<Plan> enumerate_plans(const catalog::ModelSpec& m, const Training& t, const catalog::GpuCatalog& c,
                                  const PlanOptions& o);

/// The types of `c` that cannot train in t.precision and why (precision_unsupported); no types when
/// all can.
struct PrecisionLeftOut {
    std::vector<std::string> types;
    /// Each reason once, with the types it leaves out, in catalog order.
    std::vector<std::pair<std::string, std::vector<std::string>>> reasons;
    /// For messages: "T4, V100-SXM2-32GB: bf16 needs ...; MI250X: fp8 needs ...".
    std::string text() const;
};
PrecisionLeftOut precision_left_out(const Training& t, const catalog::GpuCatalog& c);

/// The busiest stage's work in layers when `layers` are split over `pp` stages, the last of which also
/// computes the logits and loss (`tail` layers' worth): the best split's, as placestages searches it.
double busiest_stage_layers(long layers, long pp, double tail);

/// The rough iteration time used to rank plans on one GPU type: 1F1B over the roofline's layer times,
/// paced by the busiest stage (of the layout's layers_per_stage where it gives them, else of the best
/// split) or the slowest send between stages (across nodes, the node's network
/// shared by its GPUs, stages filling nodes in pipeline order as placestages places them), with the
/// fill and drain, tensor-parallel all-reduces, the tied embedding's and the data-parallel gradient
/// sync and the optimizer step.
double rough_iteration_s(const catalog::ModelSpec& m, const Training& t, const Layout& l, const catalog::GpuType& g,
                         const Network& net);

}  // namespace hetsched::model
