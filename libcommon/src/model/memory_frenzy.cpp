#include <hetsched/model/memory.hpp>

namespace hetsched::model {
namespace {

double frenzy_weight_count(const catalog::ModelSpec& m) {
    const double V = static_cast<double>(m.vocab), h = static_cast<double>(m.hidden);
    return V * h + static_cast<double>(m.layers) * (12 * h * h + 13 * h);
}

}  // namespace

double frenzy_memory_bytes(const catalog::ModelSpec& m, const Training& t, int tp, int dp) {
    const double h = static_cast<double>(m.hidden);
    const double l = static_cast<double>(m.layers), a = static_cast<double>(m.heads);
    const double s = static_cast<double>(t.seq_len), B = static_cast<double>(t.global_batch);
    const double d = dp, tt = tp;
    const double W = frenzy_weight_count(m);
    const double statics = 20 * W / tt;
    const double activations = s * B * h * l * (10 / d + 24 / (d * tt) + 5 * a * s / (d * h * tt));
    return statics + activations;
}

/// The paper's one number as a single stage: its 20 bytes of model state per parameter split the
/// mixed-precision Adam way (16-bit weights and gradients, 16 bytes of fp32 optimizer state).
MemoryEstimate frenzy_estimate(const catalog::ModelSpec& m, const Training& t, const Layout& l) {
    validate(m, t, l);
    const double per_param = frenzy_weight_count(m) / l.tp;
    StageMemory st;
    st.last_layer = m.layers - 1;
    st.in_flight = 1;
    st.weights = 2 * per_param;
    st.gradients = 2 * per_param;
    st.optimizer = 16 * per_param;
    st.activations = frenzy_memory_bytes(m, t, l.tp, l.dp) - 20 * per_param;
    MemoryEstimate est;
    est.stages.push_back(st);
    return est;
}

}  // namespace hetsched::model
