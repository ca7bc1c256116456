#pragma once
/// ICEFROG's effective progress: the frozen penalty psi from per-layer gradient variance (Eq. 3),
/// E = psi x T (Eq. 2, no GPU sharing: lambda = 1), and the layer tuner (m*, l*) = argmax E (Eq. 15)
/// for a given allocation.
#include <vector>

#include <hetsched/fit/fitter.hpp>
#include <hetsched/io/text_input.hpp>

namespace hetsched::fit {

/// Per-layer statistics, first layer first. `at_freeze` holds the variance recorded when a layer was
/// frozen (sigma^2_t0), NaN for layers still training; flops and params weigh the layers (1 each when
/// not given).
struct LayerStats {
    std::vector<double> grad_var;
    std::vector<double> at_freeze;
    std::vector<double> flops;
    std::vector<double> params;
};

/// CSV layer,grad_var[,grad_var_at_freeze,flops,params], rows in layer order 1..L. DataError at the cell
/// for negative variances, non-positive weights or layers out of order.
LayerStats read_layer_stats(const io::TextInput& in);

/// psi_t(l) (Eq. 3) for freezing the first `frozen` layers: 1 for none; frozen layers count with the
/// variance they had when frozen (or now, for layers this decision would freeze).
double frozen_penalty(const LayerStats& s, int frozen);
/// theta_l and omega_l: FLOPs and parameter shares of the layers after the first `frozen`.
double unfrozen_share(const std::vector<double>& weights, int frozen);

struct TuneCandidate {
    double per_gpu_batch = 0;
    int pipeline_stages = 1;        ///< of each replica (prediction.hpp's stage_counts())
    int frozen_layers = 0;
    double psi = 1;
    double step_time_s = 0;
    double throughput = 0;          ///< samples/s
    double effective_progress = 0;  ///< psi x throughput
};

/// Every (batch, pipeline stages, frozen layers) candidate for `gpus` GPUs on `nodes` nodes, best
/// effective progress first (ties: fewer frozen layers, then the smaller batch, then fewer stages).
/// A batch is a replica's, as in the grid (a pipeline's replica spans its stages). With `global_batch`
/// > 0 instead of `batches`, each stage count p takes global_batch / (gpus / p), so that every
/// candidate trains on the same global batch and their effective progress compares like with like.
/// DataError when no stage count fits the statistics' layers (a pipeline needs a layer a stage).
std::vector<TuneCandidate> tune_layers(const GroupFit& fit, const LayerStats& stats, int gpus, int nodes,
                                       const std::vector<double>& batches, double global_batch = 0);

}  // namespace hetsched::fit
