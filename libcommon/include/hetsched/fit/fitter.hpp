#pragma once
/// Fitting a step-time model to the samples of one app on one GPU type: the parameters the samples can
/// identify are searched with a bounded optimiser (NLopt's BOBYQA) on a log-time loss, so a 10% miss
/// costs the same on a 5 ms step as on a 5 s one; the others are pinned, with the reason kept.
/// Pollux's own fit uses its loss as adaptdl has it (RMSE of log times and two regularisers). The
/// ICEFROG fits use a robust loss (soft-L1 on log residuals: a straggler-hit sample pulls less than a
/// squared error lets it) and, where the samples allow, factor curves (compute by batch, cross-node
/// network by node count), fitted by alternating with the parameters.
#include <string>
#include <vector>

#include <hetsched/fit/factor_curve.hpp>
#include <hetsched/fit/profile.hpp>
#include <hetsched/fit/throughput_model.hpp>

namespace hetsched::fit {

/// How well a model matches samples (percentages are of the measured step time).
struct FitQuality {
    size_t samples = 0;
    double r2 = 0;
    double mean_ape_pct = 0;
    double max_ape_pct = 0;
    double rmse_log = 0;
};

/// The range of configurations a fit has seen, so a user (and --grid) knows where it holds.
struct SampleRange {
    double min_batch = 0, max_batch = 0;
    int max_gpus = 0, max_nodes = 0, max_per_node = 0, max_stages = 1, max_frozen = 0, total_layers = 0;
};

/// The factor curves of a fit: compute by per-GPU batch, cross-node network by node count.
struct FitCurves {
    FactorCurve compute_by_batch;
    FactorCurve network_by_nodes;
    Factors at(const Sample& s) const;
};

/// One fitted model: the app and GPU type, every parameter's value, and why a parameter was not fitted
/// ("" when it was).
struct GroupFit {
    std::string app;
    std::string gpu;
    ModelKind kind = ModelKind::icefrog_ddp;
    std::vector<double> params;
    std::vector<std::string> pinned;
    FitCurves curves;  ///< ICEFROG kinds; empty for Pollux's own fit
    FitQuality quality;
    SampleRange range;
    /// Why the fit's split of a step into compute and network time is not the samples' (empty when
    /// it is): no sample on one replica and no measured compute time.
    std::string unsplit;
};

/// The fitted step time of configuration `s`.
double step_time(const GroupFit& fit, const Sample& s);

struct FitOptions {
    bool curves = true;  ///< ICEFROG kinds: fit factor curves where the samples allow
};

/// Fits `kind` to samples of one app and GPU type. The result does not depend on the samples' order
/// (they are fitted in a canonical one). Where no sample spans nodes, the cross-node network terms
/// take adaptdl's prior, 1.1 x their within-node ones. DataError at the row when a sample lies
/// outside the kind's form (require_priceable), and when the samples cannot identify the free
/// parameters (it names them and the samples that would).
GroupFit fit_group(ModelKind kind, const std::vector<Sample>& samples, const FitOptions& options = {});

/// The samples in one canonical order: by configuration, then by their times. The loss is a sum over
/// samples, and a sum of doubles depends on its order in the last digits, which BOBYQA follows to a
/// different stopping point; in this order a fit, and a cross-validation's folds, do not depend on the
/// order of the input rows or files.
std::vector<Sample> canonical_order(std::vector<Sample> samples);

/// fit_group on each group, the groups spread over the machine's cores; results in the groups' order.
/// The first error any group raises is rethrown.
std::vector<GroupFit> fit_groups(ModelKind kind, const std::vector<std::vector<Sample>>& groups,
                                 const FitOptions& options = {});

/// The samples grouped by (app, gpu), in that order.
std::vector<std::vector<Sample>> group_samples(const std::vector<Sample>& samples);

/// Quality of `predicted` step times against the samples' measured ones (same order).
FitQuality score(const std::vector<double>& predicted, const std::vector<Sample>& samples);

/// Quality of a fit on `samples` (their measured step times).
FitQuality measure_quality(const GroupFit& fit, const std::vector<Sample>& samples);

/// The reason each parameter of `kind` cannot be fitted from `samples` ("" for the ones that can),
/// and the value it is pinned at.
struct Pins {
    std::vector<std::string> reason;
    std::vector<double> value;
};
Pins identify(ModelKind kind, const std::vector<Sample>& samples);

}  // namespace hetsched::fit
