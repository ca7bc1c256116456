#pragma once
// A fitted model for the tests that use one: Pollux's step time with parameters whose predictions the
// tests work out by hand (alpha_c 0.02, beta_c 0.001, alpha_r 0.05, beta_r 0.01, alpha_n 0.2,
// beta_n 0.02, gamma 1).
#include <string>

#include <hetsched/fit/fitter.hpp>

namespace hetsched::fit::test {

/// Pollux's model for `app` on `gpu`, fitted on per-GPU batches [min_batch, max_batch], up to
/// `max_gpus` GPUs with `max_per_node` on a node.
inline GroupFit pollux_fit(const std::string& app, const std::string& gpu, double min_batch, double max_batch,
                           int max_gpus, int max_per_node) {
    GroupFit g;
    g.app = app;
    g.gpu = gpu;
    g.kind = ModelKind::pollux;
    g.params = {0.02, 0.001, 0.05, 0.01, 0.2, 0.02, 1};  // alpha_c, beta_c, alpha_r, beta_r, alpha_n, beta_n, gamma
    g.pinned.assign(g.params.size(), "");
    g.range.min_batch = min_batch;
    g.range.max_batch = max_batch;
    g.range.max_gpus = max_gpus;
    g.range.max_per_node = max_per_node;
    return g;
}

}  // namespace hetsched::fit::test
