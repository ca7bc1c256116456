#pragma once
/// The ranges every number fitthroughput reads must lie in, from files (profiles, model documents,
/// layer statistics, usage profiles) and from flags alike. They are wide enough for any real cluster
/// and narrow enough that no sum, square or product the fits and predictions form can overflow, so a
/// fit never reports R^2 nan or an infinite error. fitthroughput(1) and hetsched-formats(5) list them.
namespace hetsched::fit::limits {

/// Step, sync, forward and backward times (s): a microsecond to a day.
constexpr double min_time_s = 1e-6;
constexpr double max_time_s = 86400;
/// Per-GPU batch (samples): positive, at most 2^20.
constexpr double max_batch = 1048576;
/// GPUs, replicas and nodes of a job (and GPUs per node): 1 to 2^20.
constexpr long max_gpus = 1048576;
/// Layers of a model, and so frozen layers and pipeline stages: at most 2^16.
constexpr long max_layers = 65536;
/// Layer statistics: gradient variances in [0, 1e30], FLOPs and parameter weights in (0, 1e30].
constexpr double max_layer_stat = 1e30;
/// Factor curves of a model document: factors in [1e-3, 1e3].
constexpr double min_factor = 1e-3;
constexpr double max_factor = 1e3;
/// GPU memory (GiB), in usage profiles and --capacity-gib: positive, at most 2^20.
constexpr double max_memory_gib = 1048576;

}  // namespace hetsched::fit::limits
