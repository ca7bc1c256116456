#include <hetsched/sched/fitted_scales.hpp>

#include <algorithm>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/fit/prediction.hpp>
#include <hetsched/io/names.hpp>

namespace hetsched::sched {
namespace {

/// The fit of `app` on `type`, or none.
const fit::GroupFit* find(const std::vector<fit::GroupFit>& fits, const std::string& app, const std::string& type) {
    for (const auto& f : fits)
        if (f.app == app && io::same_name(f.gpu, type)) return &f;
    return nullptr;
}

}  // namespace

bool fits_app(const std::vector<fit::GroupFit>& fits, const std::string& app, const std::vector<GpuTypeInfo>& types) {
    return std::any_of(types.begin(), types.end(), [&](const GpuTypeInfo& t) { return find(fits, app, t.name) != nullptr; });
}

std::vector<Scale> fitted_scales(const std::vector<fit::GroupFit>& fits, const std::vector<GpuTypeInfo>& types,
                                 const ElasticRequest& r, bool* extrapolated) {
    std::vector<int> sizes{r.requested};
    for (int g = 1; g <= r.max_gpus; g *= 2)
        if (g >= r.min_gpus) sizes.push_back(g);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    if (extrapolated) *extrapolated = false;
    std::vector<Scale> out;
    for (int g : sizes) {
        Scale sc{g, std::vector<double>(types.size(), 0)};
        bool any = false;
        for (size_t t = 0; t < types.size(); ++t) {
            const fit::GroupFit* f = find(fits, r.app, types[t].name);
            if (!f) continue;
            const bool past = g > f->range.max_gpus || (r.global_batch > 0 && r.global_batch / g < f->range.min_batch);
            if (past && g == r.requested && extrapolated) *extrapolated = true;
            if (past && g != r.requested) continue;
            sc.throughput[t] = fit::fitted_throughput(*f, g, fit::gpus_per_node(*f, r.gpus_per_node), r.global_batch);
            // A size the model cannot run (an icefrog-pp pipeline deeper than its layers) is no scale
            // of it, unless it is the size the job asks for.
            any = any || sc.throughput[t] > 0 || g == r.requested;
        }
        if (any) out.push_back(std::move(sc));
    }
    return out;
}

}  // namespace hetsched::sched
