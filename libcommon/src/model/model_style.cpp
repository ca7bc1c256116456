#include <hetsched/model/model_style.hpp>

#include <hetsched/model/stage_memory.hpp>

namespace hetsched::model {

NormAndBias style_norm_and_bias(bool gated_mlp) { return {gated_mlp, !gated_mlp}; }

double default_dropout(const catalog::ModelSpec& m, const Training& t) {
    if (t.framework == Framework::megatron || megatron_deepspeed(m, t)) return 0.1;
    if (t.framework == Framework::fsdp) return 0.0;
    return m.gated_mlp ? 0.0 : 0.1;
}

}  // namespace hetsched::model
