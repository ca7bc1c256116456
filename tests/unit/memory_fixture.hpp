#pragma once
// Small models and settings for the memory-mechanism tests (framework_memory_test.cpp,
// megatron_memory_test.cpp, zero_memory_test.cpp, fsdp_memory_test.cpp, torchtitan_activations_test.cpp):
// sizes chosen so the tests can work bytes out by hand.
#include <string>

#include <hetsched/model/memory.hpp>
#include <hetsched/model/transformer.hpp>

namespace hetsched::model::test {

using model::Framework;
using model::Layout;
using model::Measure;

/// A GPT-style model (LayerNorm, plain MLP) and a LLaMA-style one (RMSNorm, SwiGLU, GQA).
inline catalog::ModelSpec gpt() {
    catalog::ModelSpec m;
    m.layers = 4, m.hidden = 64, m.heads = 4, m.kv_heads = 4, m.ffn_hidden = 256, m.vocab = 1000;
    return m;
}

inline catalog::ModelSpec llama() {
    catalog::ModelSpec m;
    m.layers = 4, m.hidden = 64, m.heads = 4, m.kv_heads = 2, m.ffn_hidden = 176, m.vocab = 1000;
    m.gated_mlp = true, m.rms_norm = true, m.linear_bias = false, m.dropout = 0, m.tied_embeddings = false;
    m.learned_positions = 0;
    return m;
}

inline model::Training training(Framework f, long seq = 128, long batch = 8) {
    model::Training t;
    t.framework = f;
    t.seq_len = seq;
    t.global_batch = batch;
    return t;
}

inline double stage_params(const catalog::ModelSpec& m, const Layout& l, int stage, long count, bool pad) {
    double p = static_cast<double>(count) * model::layer_params(m, l.tp);
    if (stage == 0) p += model::embedding_params(m, l.tp, pad);
    if (stage == l.pp - 1) p += model::output_params(m, l.tp, l.pp, pad);
    return p;
}

/// The one stage of gpt() at one token a micro-batch over dp 2 under `f` and `precision`: activations
/// are negligible, so the optimizer step's temporaries decide the peak.
inline const Layout kStepLayout{1, 1, 2, 1, 1, 1, {}};
inline model::StageMemory step_stage(Framework f, const std::string& precision) {
    auto t = training(f, 1, 2);
    t.precision = precision;
    return model::estimate_memory(gpt(), t, kStepLayout, Measure::allocated).stages.at(0);
}

/// llama() under torchtitan 0.2.2, fully sharded over dp 2, nothing recomputed: `batch` sequences of
/// `seq` tokens, one a micro-batch per rank.
inline model::Training torchtitan(long seq = 128, long batch = 2) {
    auto t = training(Framework::fsdp, seq, batch);
    t.zero_stage = 3;
    t.framework_version = "0.2.2";
    return t;
}

inline const Layout kDp2{1, 1, 2, 1, 1, 1, {}};

}  // namespace hetsched::model::test
