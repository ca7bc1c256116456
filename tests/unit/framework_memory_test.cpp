// The memory mechanisms each framework adds: DeepSpeed's BF16 and FP16 optimizers and pipeline
// engine, FSDP2's sharding mesh, eager PyTorch blocks against fused ones, and the phase that peaks.
#include <catch2/catch.hpp>

#include <hetsched/model/memory.hpp>
#include <hetsched/model/transformer.hpp>

using namespace hetsched;
using model::Framework;
using model::Layout;
using model::Measure;
using model::Phase;

namespace {

/// A GPT-style model (LayerNorm, plain MLP) and a LLaMA-style one (RMSNorm, SwiGLU, GQA).
catalog::ModelSpec gpt() {
    catalog::ModelSpec m;
    m.layers = 4, m.hidden = 64, m.heads = 4, m.kv_heads = 4, m.ffn_hidden = 256, m.vocab = 1000;
    return m;
}

catalog::ModelSpec llama() {
    catalog::ModelSpec m;
    m.layers = 4, m.hidden = 64, m.heads = 4, m.kv_heads = 2, m.ffn_hidden = 176, m.vocab = 1000;
    m.gated_mlp = true, m.rms_norm = true, m.linear_bias = false, m.dropout = 0, m.tied_embeddings = false;
    m.learned_positions = 0;
    return m;
}

model::Training training(Framework f, long seq = 128, long batch = 8) {
    model::Training t;
    t.framework = f;
    t.seq_len = seq;
    t.global_batch = batch;
    return t;
}

double stage_params(const catalog::ModelSpec& m, const Layout& l, int stage, long count, bool pad) {
    double p = static_cast<double>(count) * model::layer_params(m, l.tp);
    if (stage == 0) p += model::embedding_params(m, l.tp, pad);
    if (stage == l.pp - 1) p += model::output_params(m, l.tp, l.pp, pad);
    return p;
}

/// The one stage of gpt() at one token a micro-batch over dp 2 under `f` and `precision`: activations
/// are negligible, so the optimizer step's temporaries decide the peak.
const Layout kStepLayout{1, 1, 2, 1, 1, 1, {}};
model::StageMemory step_stage(Framework f, const std::string& precision) {
    auto t = training(f, 1, 2);
    t.precision = precision;
    return model::estimate_memory(gpt(), t, kStepLayout, Measure::allocated).stages.at(0);
}

}  // namespace

TEST_CASE("DeepSpeed's BF16 optimizer: fp32 grads in full, master and moments split over dp", "[model]") {
    // The step (reducing the grads through a bf16 copy of each bucket) is the peak.
    const auto st = step_stage(Framework::deepspeed, "bf16");
    const double p = stage_params(gpt(), kStepLayout, 0, 4, false);
    CHECK(st.phase == Phase::step);
    CHECK(st.weights == Approx(2 * p));
    CHECK(st.gradients == Approx((2 + 4) * p));  // the params' bf16 .grad and the fp32 accumulation buffer
    CHECK(st.optimizer == Approx(12 * p / 2));   // fp32 master weights, Adam's m and v, partitioned
    CHECK(st.comm_buffers == Approx(2 * p));     // the bf16 copy of the one bucket of fp32 grads
    CHECK(st.activations == 0);
}

TEST_CASE("DeepSpeed's FP16 optimizer keeps its fp32 states whole and upcasts every grad to step", "[model]") {
    const auto st = step_stage(Framework::deepspeed, "fp16");
    const double p = stage_params(gpt(), kStepLayout, 0, 4, false);
    CHECK(st.phase == Phase::step);
    CHECK(st.gradients == Approx(2 * p));
    CHECK(st.optimizer == Approx(12 * p));
    CHECK(st.comm_buffers == Approx(8 * p));  // fp32 copies of every grad, and the flat buffer they fill
}

TEST_CASE("Megatron under fp16 keeps fp16 main grads and upcasts them in the step", "[model]") {
    const auto st = step_stage(Framework::megatron, "fp16");
    const double p = stage_params(gpt(), kStepLayout, 0, 4, true);
    CHECK(st.phase == Phase::step);
    CHECK(st.gradients == Approx(2 * p));
    CHECK(st.comm_buffers == Approx(4 * p));
    const auto bf16 = step_stage(Framework::megatron, "bf16");  // fp32 main grads: nothing to upcast
    CHECK(bf16.phase == Phase::backward);
    CHECK(bf16.gradients == Approx(4 * p));
}

TEST_CASE("DeepSpeed's pipeline engine holds each in-flight input and output, and the last stage's logits", "[model]") {
    auto t = training(Framework::deepspeed);
    t.recompute = model::Recompute::full;
    auto megatron = t;
    megatron.framework = Framework::megatron;
    const Layout l{1, 2, 1, 1, 1, 1, {}};
    const auto ds = model::estimate_memory(gpt(), t, l, Measure::allocated);
    const auto mg = model::estimate_memory(gpt(), megatron, l, Measure::allocated);
    const double tokens = 128, boundary = 2 * tokens * 64;
    // Stage 0, two micro-batches in flight: token ids (int64) and the output sent on, per micro-batch,
    // and the one receive buffer.
    REQUIRE(ds.stages[0].phase == Phase::backward);
    CHECK(ds.stages[0].activations - mg.stages[0].activations == Approx(2 * (8 * tokens + boundary)));
    CHECK(ds.stages[0].comm_buffers == Approx(boundary));
    // The last stage keeps the logits of two micro-batches in its pipe buffers, whatever the phase.
    const double logits = 2 * tokens * 1000;
    CHECK(ds.stages[1].logits >= 2 * logits * (1 - 1e-12));
}

TEST_CASE("eager LLaMA blocks keep fp32 norms, repeated K and V, and all of SwiGLU; compiled ones do not", "[model]") {
    auto eager = training(Framework::fsdp);
    eager.zero_stage = 3;
    auto compiled = eager;
    compiled.compiled = true;
    const Layout l{1, 1, 2, 1, 1, 1, {}};
    const auto a = model::estimate_memory(llama(), eager, l, Measure::allocated).stages.at(0);
    const auto b = model::estimate_memory(llama(), compiled, l, Measure::allocated).stages.at(0);
    // Per layer and token (h 64, kv 32, f 176, 2-byte elements): norms 2 x (4 + 4) h + 2 x 4 bytes
    // against 4 x 2h; attention 5 x 2h against 2 (h + 2kv) + 2h; SwiGLU 4 x 2f against 3 x 2f.
    const double h = 64, kv = 32, f = 176, s = 128;
    const double per_token = (16 * h + 8 - 8 * h) + (10 * h - 2 * (h + 2 * kv) - 2 * h) + (8 * f - 6 * f);
    REQUIRE(a.phase == b.phase);
    CHECK(a.activations - b.activations == Approx(4 * s * per_token));
}

TEST_CASE("FSDP2 shards the model states over the dp_shard x cp mesh", "[model]") {
    auto t = training(Framework::fsdp);
    t.zero_stage = 3;
    const Layout l{1, 1, 2, 2, 1, 1, {}};
    const auto st = model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0);
    const double p = stage_params(llama(), l, 0, 4, false);
    CHECK(st.weights == Approx(4 * p / 4));
    CHECK(st.optimizer == Approx(8 * p / 4));
}

TEST_CASE("a stage peaks in the forward when BF16's grads are cleared before each backward", "[model]") {
    // Nothing recomputed: the backward of a layer holds no more than its forward did, but the 16-bit
    // grads of the layer being back-propagated are gone by then.
    auto t = training(Framework::deepspeed);
    const Layout l{1, 2, 1, 1, 1, 1, {}};
    const auto est = model::estimate_memory(gpt(), t, l, Measure::allocated);
    CHECK(est.stages[0].phase == Phase::forward);
    CHECK(model::phase_name(est.stages[0].phase) == std::string("forward"));
    t.recompute = model::Recompute::full;  // the replayed layer outweighs one layer's grads
    CHECK(model::estimate_memory(gpt(), t, l, Measure::allocated).stages[0].phase == Phase::backward);
}
