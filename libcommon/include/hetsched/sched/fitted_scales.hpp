#pragma once
/// An elastic job's sizes from fitthroughput's models: the GPU counts it may run at and its samples/s
/// on each cluster type at each, predicted by the fit of its app on that type (fit::fitted_throughput).
/// Sizes are 1, 2, 4, ... within [min_gpus, max_gpus] and its requested count. On a type, a size is left
/// out (throughput 0) when the fit never saw that many GPUs or, with a global batch, when it would leave
/// each GPU less than the smallest per-GPU batch the fit saw: a prediction there would extrapolate. The
/// requested count is predicted even so (the job asked for it); `extrapolated` says when it was.
#include <string>
#include <vector>

#include <hetsched/fit/fitter.hpp>
#include <hetsched/sched/cluster_state.hpp>

namespace hetsched::sched {

struct ElasticRequest {
    std::string app;
    int requested = 1;           ///< the GPUs it asks for (num_gpus)
    int min_gpus = 1, max_gpus = 1;
    double global_batch = 0;     ///< samples per step; 0: the largest per-GPU batch each fit saw
    int gpus_per_node = 0;       ///< nodes of the predictions; 0: each fit's densest profiled node
};

/// The scales on `types` (matched by name, letter case aside), ascending; sizes with no type left out.
/// `extrapolated` (when given) is set when the requested count lies past some type's fit.
std::vector<Scale> fitted_scales(const std::vector<fit::GroupFit>& fits, const std::vector<GpuTypeInfo>& types,
                                 const ElasticRequest& r, bool* extrapolated = nullptr);

/// Whether `fits` holds a fit of `app` on any of `types`.
bool fits_app(const std::vector<fit::GroupFit>& fits, const std::string& app, const std::vector<GpuTypeInfo>& types);

}  // namespace hetsched::sched
