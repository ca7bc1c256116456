#include <hetsched/alloc/search_layout.hpp>

#include <algorithm>

namespace hetsched::alloc {

std::vector<SearchLayout> build_search_layouts(const SearchSpace& space, SearchStats& stats) {
    const long layers = space.job->model.layers;
    std::vector<SearchLayout> out;
    for (int dp : dp_range(space)) {
        int max_k = 0;
        for (const auto& c : space.types) max_k += c.quota / dp;
        // No pipeline where the job cannot run one, nor where torchtitan would run it in fp32 (no FSDP).
        const bool pipelines = model::can_pipeline(space.job->training) &&
                               !model::torchtitan_trains_fp32(space.job->training, model::Layout{1, 2, dp, 1, 1, 1, {}});
        max_k = static_cast<int>(std::min<long>({max_k, pipelines ? layers : 1, model::limits::layout_gpus / dp}));
        for (int k = 1; k <= max_k; ++k) {
            SearchLayout l;
            l.dp = dp;
            l.pp = k;
            l.factory = std::make_unique<place::ProblemFactory>(*space.job, dp, k, *space.catalog, space.problem);
            std::vector<long> best_at(static_cast<size_t>(k), 0);  // roomiest type at each position
            for (const auto& c : space.types) {
                const place::StageType& st = l.factory->type(c.name);
                l.c.types.push_back(bound_type_of(st, l.factory->base()));
                l.room.push_back(&st.max_layers);
                for (size_t pos = 0; pos < st.max_layers.size(); ++pos)
                    best_at[pos] = std::max(best_at[pos], st.max_layers[pos]);
            }
            l.c.job = bound_job_of(*l.factory);
            const size_t n = space.types.size();
            l.roomiest_from.assign(n + 1, std::vector<long>(static_cast<size_t>(k), 0));
            for (size_t t = n; t-- > 0;) {
                l.roomiest_from[t] = l.roomiest_from[t + 1];
                if (space.types[t].quota / dp > 0)
                    for (size_t pos = 0; pos < l.roomiest_from[t].size(); ++pos)
                        l.roomiest_from[t][pos] = std::max(l.roomiest_from[t][pos], (*l.room[t])[pos]);
            }
            for (const auto& c : space.types) {
                l.c.stage_price_s.push_back(dp * c.price_per_hour / 3600);
                l.c.max_stages.push_back(c.quota / dp);
            }
            long most = 0;  // layers k stages of the roomiest types hold, ignoring quotas
            for (long m : best_at) most += m;
            ++stats.trees;
            if (most < layers) {  // BP: fewer stages than the largest GPUs need
                ++stats.trees_pruned_bp;
                continue;
            }
            out.push_back(std::move(l));
        }
        // BP's pipeline depths past the quota, and past the layer count.
        stats.trees_pruned_bp += std::max<long>(0, layers - max_k);
    }
    return out;
}

}  // namespace hetsched::alloc
