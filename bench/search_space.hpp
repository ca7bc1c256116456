#pragma once
// The search space the planalloc benchmarks share: a job on a catalog with the catalog's network and
// no types yet (each benchmark adds its own).
#include <hetsched/alloc/cost_search.hpp>
#include <hetsched/catalog/gpu_catalog.hpp>

namespace hetsched::bench {

inline alloc::SearchSpace search_space(const model::JobSpec& job, const catalog::GpuCatalog& cat, long iterations) {
    alloc::SearchSpace space;
    space.job = &job;
    space.catalog = &cat;
    space.problem.network.inter_node_gb_s = cat.inter_node_gb_s;
    space.iterations = iterations;
    return space;
}

}  // namespace hetsched::bench
