#pragma once
/// Using fitted models: predicted step time and throughput for each row of a profile (kept as it was,
/// two columns appended), or for a grid of GPU counts and batch sizes (a throughput table for
/// schedround and replay).
#include <string>
#include <vector>

#include <hetsched/fit/fitter.hpp>

namespace hetsched::fit {

/// The profile's table with predicted_step_time_s and predicted_throughput (samples/s) appended (or,
/// where it has them from an earlier prediction, replaced).
/// DataError at a row whose (app, gpu) has no fit. Rows beyond their fit's samples (a per-GPU batch
/// outside its profiled range, more GPUs than its largest sample) are predicted all the same and, when
/// `beyond` is given, named there as a warning's text ("" when none).
std::string predict_table(const Profile& profile, const std::vector<GroupFit>& fits, std::string* beyond = nullptr);

/// Powers of two within the batch range the fit saw (its smallest batch when none lies inside).
std::vector<double> default_batches(const GroupFit& fit);

/// GPUs per node for predictions: `wanted` when set (> 0), else the fit's densest profiled node.
int gpus_per_node(const GroupFit& fit, int wanted);

/// The pipeline stage counts a fit can price on `gpus` GPUs: ICEFROG's PP form has no data-parallel
/// term, so one pipeline over all of them; its HP form every divisor of `gpus` up to the deepest
/// pipeline profiled; the other forms no pipeline (1). None deeper than the model's layers
/// (range.total_layers, where known): PP on more GPUs than layers gets none.
std::vector<int> stage_counts(const GroupFit& fit, int gpus);

/// A configuration of the fit's app and GPU type: `gpus` GPUs on `nodes` nodes, filled evenly, in
/// replicas of `stages` pipeline stages.
Sample configuration(const GroupFit& fit, int gpus, int nodes, double per_gpu_batch, int stages = 1);

/// Samples per second of `global_batch` on `gpus` GPUs of the fit's type, filled onto nodes of
/// `per_node`. A per-GPU batch above the largest the fit saw is split into that many accumulation
/// steps (each the fit's step time of the smaller batch, the whole step repeated: an upper bound on
/// the time, as the gradient exchange is counted each time). global_batch <= 0: the largest per-GPU
/// batch the fit saw on every replica. Over the fit's stage_counts(), the fastest (a pipeline's replica
/// spans its stages, and the batch is per replica as in the profiles); 0 where it has none.
double fitted_throughput(const GroupFit& fit, int gpus, int per_node, double global_batch);

struct GridOptions {
    std::vector<int> gpus;         ///< empty: 1, 2, 4, ... up to each fit's largest sample
    std::vector<double> batches;   ///< per-GPU; empty: powers of two within each fit's batch range
    int gpus_per_node = 0;         ///< 0: each fit's densest sample node
};

/// CSV app,gpu,num_nodes,num_gpus,pipeline_stages,per_gpu_batch,predicted_step_time_s,
/// predicted_throughput, one row per fit x GPU count x stage count (stage_counts()) x batch; GPUs fill
/// nodes of gpus_per_node. A GPU count a fit has no stage count for gets no rows of it; `left_out`,
/// when given, then says which, and which asked-for batches and GPU counts lie beyond the fit's samples
/// (predicted all the same): clauses for a warning, "" when none.
std::string throughput_grid(const std::vector<GroupFit>& fits, const GridOptions& o, std::string* left_out = nullptr);

}  // namespace hetsched::fit
