#pragma once
/// Profiles whose times cannot be seconds: a layer measured in milliseconds and written as seconds is
/// a thousand times slower than the GPU can be, and would be timed as such without a word.
#include <string>
#include <vector>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/catalog/model_preset.hpp>
#include <hetsched/model/layer_profile.hpp>
#include <hetsched/model/training.hpp>

namespace hetsched::model {

/// A warning for each type of `profile` whose layers' mean forward_s is at least 10 ms and at least
/// 100 times the compute model's time for that layer (its roofline at `efficiency`): real layers run
/// within a few times the roofline (launch-bound small ones, whose forwards take well under 10 ms,
/// within tens), a millisecond figure read as seconds a thousand times over it.
std::vector<std::string> implausible_profile_times(const LayerProfile& profile, const catalog::ModelSpec& m,
                                                   const Training& t, const catalog::GpuCatalog& catalog,
                                                   double efficiency);

}  // namespace hetsched::model
