#include <hetsched/model/memory.hpp>

namespace hetsched::model {

double frenzy_memory_bytes(const catalog::ModelSpec& m, const Training& t, int tp, int dp) {
    const double V = static_cast<double>(m.vocab), h = static_cast<double>(m.hidden);
    const double l = static_cast<double>(m.layers), a = static_cast<double>(m.heads);
    const double s = static_cast<double>(t.seq_len), B = static_cast<double>(t.global_batch);
    const double d = dp, tt = tp;
    const double W = V * h + l * (12 * h * h + 13 * h);
    const double statics = 20 * W / tt;
    const double activations = s * B * h * l * (10 / d + 24 / (d * tt) + 5 * a * s / (d * h * tt));
    return statics + activations;
}

}  // namespace hetsched::model
