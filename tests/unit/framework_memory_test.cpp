// The memory mechanisms the frameworks share or differ in by their blocks: eager PyTorch blocks
// against fused ones, the loss each framework runs, torchtitan's tensor-parallel GEMM inputs, and the
// first iteration's missing optimizer state.
#include <catch2/catch.hpp>

#include "memory_fixture.hpp"

using namespace hetsched;
using namespace hetsched::model::test;
using model::Phase;

namespace {

/// The activations an eager llama() block keeps beyond a compiled one under `t` and `l`.
double eager_extra(const model::Training& t, const Layout& l) {
    auto compiled = t;
    compiled.compiled = true;
    const auto a = model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0);
    const auto b = model::estimate_memory(llama(), compiled, l, Measure::allocated).stages.at(0);
    REQUIRE(a.phase == b.phase);
    return a.activations - b.activations;
}

/// Per layer and token (h 64, kv 32, f 176, 2-byte elements), eager against compiled: norms
/// 2 x (4 + 4) h + 2 x 4 bytes against 4 x 2h; attention `attention` x 2h against 2 (h + 2kv) + 2h;
/// SwiGLU 4 x 2f against 3 x 2f.
double eager_extra_per_token(double attention) {
    const double h = 64, kv = 32, f = 176;
    return (16 * h + 8 - 8 * h) + (2 * attention * h - 2 * (h + 2 * kv) - 2 * h) + (8 * f - 6 * f);
}

}  // namespace

TEST_CASE("eager LLaMA blocks keep fp32 norms, repeated K and V, and all of SwiGLU: compiled ones do not", "[model]") {
    auto t = training(Framework::fsdp);
    t.zero_stage = 3;
    // Attention: Q, repeated K and V, and the context (flash lays it out contiguous for wo): 4 x 2h.
    CHECK(eager_extra(t, Layout{1, 1, 2, 1, 1, 1, {}}) == Approx(4 * 128 * eager_extra_per_token(4)));
}

TEST_CASE("eager attention without flash keeps the fp32 softmax beside the 16-bit probabilities", "[model]") {
    auto t = training(Framework::deepspeed);
    t.flash_attention = false;
    // Also the context's copy made contiguous for wo (5 x 2h), and 4 bytes a score: 4 heads x 128^2
    // scores a layer, 4 layers.
    const double s = 128;
    CHECK(eager_extra(t, Layout{1, 1, 1, 1, 1, 1, {}}) == Approx(4 * (s * eager_extra_per_token(5) + 4 * 4 * s * s)));
}

namespace {

/// llama() with a 32,000-token vocabulary under torchtitan (FSDP, fully sharded over dp 2, compiled
/// blocks, sequence parallel): the loss is the peak and `activations` is the stash alone.
model::StageMemory torchtitan_stage(int tp, bool compiled_loss, model::Recompute recompute) {
    auto m = llama();
    m.vocab = 32000;
    auto t = training(Framework::fsdp);
    t.zero_stage = 3;
    t.compiled = true;
    t.compiled_loss = compiled_loss;
    t.seq_parallel = tp > 1;
    t.recompute = recompute;
    const Layout l{tp, 1, 2, 1, 1, 1, {}};
    return model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
}

}  // namespace

TEST_CASE("torchtitan's loss: 12 bytes a logit eager, 16 under loss parallel, 4 compiled", "[model]") {
    const double tokens = 128, vocab = 32000;
    const auto eager = torchtitan_stage(1, false, model::Recompute::none);
    REQUIRE(eager.phase == Phase::backward);
    CHECK(eager.logits == Approx(12 * tokens * vocab));  // fp32 log-softmax, nll grad, its input grad
    // Loss parallel: each rank holds a tp-th of the vocabulary, and DTensor's fused backward holds the
    // log-softmax, a zeroed grad, exp() and their sum, all fp32.
    CHECK(torchtitan_stage(2, false, model::Recompute::none).logits == Approx(16 * tokens * vocab / 2));
    // Compiled: the 16-bit logits it saved and their 16-bit grad.
    CHECK(torchtitan_stage(1, true, model::Recompute::none).logits == Approx(4 * tokens * vocab));
    CHECK(torchtitan_stage(2, true, model::Recompute::none).logits == Approx(4 * tokens * vocab / 2));
}

TEST_CASE("DeepSpeed's loss: Megatron's fused one for GPT models, eager or compiled for LLaMA blocks", "[model]") {
    auto t = training(Framework::deepspeed);
    const Layout l{1, 1, 1, 1, 1, 1, {}};
    auto logits_per_token = [&](const catalog::ModelSpec& m) {
        return model::estimate_memory(m, t, l, Measure::allocated).stages.at(0).logits / 128 / m.vocab;
    };
    auto big = llama();
    big.vocab = 32000;  // so that the loss is the peak
    auto gpt_big = gpt();
    gpt_big.vocab = 32000;
    // Megatron's loss on an upcast copy: since September 2022 (DeepSpeed 0.7.4) it subtracts the
    // maximum into a new fp32 tensor, beside the 16-bit logits and the copy, in the loss's forward.
    CHECK(logits_per_token(gpt_big) == Approx(10));
    CHECK(model::estimate_memory(gpt_big, t, l, Measure::allocated).stages.at(0).phase == Phase::forward);
    t.framework_version = "0.7.3";
    CHECK(logits_per_token(gpt_big) == Approx(6));
    t.framework_version.clear();
    CHECK(logits_per_token(big) == Approx(12));
    t.compiled = true;  // compiled blocks leave the loss eager
    CHECK(logits_per_token(big) == Approx(12));
    t.compiled_loss = true;
    CHECK(logits_per_token(big) == Approx(4));
}

TEST_CASE("torchtitan's tensor parallelism saves the gathered inputs of its column-parallel GEMMs", "[model]") {
    // tp 2, sequence parallel, 2-byte elements, 128 tokens: sbh = 8,192 elements. Per layer, with
    // nothing recomputed: two norm inputs split by sp (2 x 2 x 8,192 / 2), the gathered inputs of
    // wq/wk/wv and w1/w3 in full (2 x 2 x 8,192), and Q, K, V, context, SwiGLU's three tensors and the
    // flash log-sum-exp split by tp: 2 x 128 x (64 + 64 + 64 + 2 x 176 + 176) + 4 x 128 x 4 = 186,368 / 2.
    // The last stage adds the final norm's input split (2 x 4,096) and the output layer's gathered input
    // (2 x 8,192).
    const double layer = 16384 + 32768 + 186368.0 / 2, head = 8192 + 16384;
    CHECK(torchtitan_stage(2, true, model::Recompute::none).activations == Approx(4 * layer + head));
    // Selective (the op-level policy), compiled: the layer input split by sp; the attention output, wq's,
    // wv's and w1's outputs and the log-sum-exp split by tp, 2 x 128 x (64 + 64 + 32 + 176) + 2,048 =
    // 88,064 / 2; and wo's reduce-scatter output split by sp. No backward reads w2's output or its
    // reduce-scatter, so the partitioner saves neither.
    const double selective = 8192 + 88064.0 / 2 + 8192;
    CHECK(torchtitan_stage(2, true, model::Recompute::selective).activations == Approx(4 * selective + head));
}

TEST_CASE("eager selective checkpointing keeps every must-save output: compiled, only those the backward reads", "[model]") {
    // llama() under torchtitan's op-level policy, fully sharded over dp 2, 128 tokens, 2-byte elements:
    // eager blocks also keep w2's output (2 x 128 x 64 a layer), which no backward reads.
    auto t = training(Framework::fsdp);
    t.zero_stage = 3;
    t.recompute = model::Recompute::selective;
    CHECK(eager_extra(t, Layout{1, 1, 2, 1, 1, 1, {}}) == Approx(4 * 2 * 128 * 64.0));
    // Under tensor parallelism (tp 2, sequence parallel) w2's output is the full partial sum, and its
    // reduce-scatter's output, split by sp, is kept too: 2 x 128 x (64 + 32) a layer.
    t.seq_parallel = true;
    CHECK(eager_extra(t, Layout{2, 1, 2, 1, 1, 1, {}}) == Approx(4 * 2 * 128 * (64 + 32.0)));
}

TEST_CASE("the first iteration lacks what the optimizer makes in its first step", "[model]") {
    // Long sequences, so that a layer's backward is the steady peak; first_iteration drops the state
    // made by the first step from every phase but the step.
    auto stage = [](Framework f, const std::string& precision, const std::string& version, bool first) {
        auto t = training(f, 4096, 2);
        t.precision = precision;
        t.framework_version = version;
        t.first_iteration = first;
        if (f == Framework::fsdp) t.zero_stage = 3;
        return model::estimate_memory(gpt(), t, kStepLayout, Measure::allocated).stages.at(0);
    };
    const double p = stage_params(gpt(), kStepLayout, 0, 4, true);
    // Megatron in bf16: Adam's two fp32 moments.
    const auto steady = stage(Framework::megatron, "bf16", "", false), first = stage(Framework::megatron, "bf16", "", true);
    REQUIRE(steady.phase == Phase::backward);
    REQUIRE(first.phase == Phase::backward);
    CHECK(steady.optimizer - first.optimizer == Approx(8 * p));
    CHECK(steady.total() - first.total() == Approx(8 * p));
    // Megatron before 2.5 in fp16: also the master weights' fp32 grads.
    const auto old = stage(Framework::megatron, "fp16", "2.4", true);
    CHECK(old.gradients == Approx(2 * p));
    CHECK(old.optimizer == Approx(4 * p));
    // FSDP2 (ZeRO-3): torch's AdamW moments, sharded over dp 2.
    const double q = stage_params(gpt(), kStepLayout, 0, 4, false);
    CHECK(stage(Framework::fsdp, "bf16", "", false).optimizer - stage(Framework::fsdp, "bf16", "", true).optimizer ==
          Approx(8 * q / 2));
    // DeepSpeed's FP16 optimizer steps once at start-up: nothing changes.
    CHECK(stage(Framework::deepspeed, "fp16", "", true).total() == Approx(stage(Framework::deepspeed, "fp16", "", false).total()));
    // ZeRO (and the BF16 optimizer) stopped doing so in 0.13.2: the moments, split over dp 2, wait.
    auto zero1 = [&](const std::string& version, bool first) {
        auto t = training(Framework::deepspeed, 4096, 2);
        t.zero_stage = 1;
        t.reduce_bucket_size = 1e4;  // a bucket the size of gpt()'s, not the default 5e8 elements
        t.framework_version = version;
        t.first_iteration = first;
        return model::estimate_memory(gpt(), t, kStepLayout, Measure::allocated).stages.at(0);
    };
    REQUIRE(zero1("0.17.5", true).phase == Phase::forward);  // the loss's upcast copy
    CHECK(zero1("0.17.5", false).optimizer - zero1("0.17.5", true).optimizer == Approx(8 * stage_params(gpt(), kStepLayout, 0, 4, true) / 2));
    CHECK(zero1("0.13.1", false).total() == Approx(zero1("0.13.1", true).total()));
}

TEST_CASE("in the first iteration the gradient reduction comes before the lazy state, the step after it", "[model]") {
    // Megatron 2.4 in fp16, one token: the steady peak is the all-reduce's flat copy of the fp16 grads
    // beside every state; in the first iteration the step, which makes the moments and fp32 grads, is.
    auto t = training(Framework::megatron, 1, 2);
    t.precision = "fp16";
    t.framework_version = "2.4";
    const double p = stage_params(gpt(), kStepLayout, 0, 4, true);
    const auto steady = model::estimate_memory(gpt(), t, kStepLayout, Measure::allocated).stages.at(0);
    t.first_iteration = true;
    const auto first = model::estimate_memory(gpt(), t, kStepLayout, Measure::allocated).stages.at(0);
    REQUIRE(steady.phase == Phase::step);
    REQUIRE(first.phase == Phase::step);
    CHECK(steady.comm_buffers == Approx(2 * p));
    CHECK(first.comm_buffers == Approx(0));
    CHECK(first.gradients + first.optimizer == Approx((2 + 4 + 12) * p));
}

TEST_CASE("eager attention back-propagates its fp32 softmax with its gradient, the one it writes and torch's grad x output beside it", "[model]") {
    // llama() under DeepSpeed without flash attention, full recompute, one stage, 1024 tokens: the
    // replayed layer's softmax backward outweighs the rest. Beyond the stash (4 layer inputs and the
    // final norm's and output layer's inputs, 2 bytes x 1024 x 64 each), 16 bytes a score over 4 heads,
    // and per token the first norm's fp32 input, 1/rms and output (4h + 4 + 2h), Q and the repeated K
    // (2 x 2h), the repeated V's gradient, the incoming gradient, the replayed output and the input's
    // gradient (2h each).
    auto t = training(Framework::deepspeed, 1024, 1);
    t.flash_attention = false;
    t.recompute = model::Recompute::full;
    const Layout l{1, 1, 1, 1, 1, 1, {}};
    const auto st = model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0);
    REQUIRE(st.phase == Phase::backward);
    const double s = 1024, h = 64, stash = 4 * 2 * s * h + 2 * 2 * s * h;
    CHECK(st.activations == Approx(stash + 16 * 4 * s * s + s * (4 * h + 4 + 2 * h + 2 * 2 * h + 4 * 2 * h)));
    // A kept layer (nothing recomputed) adds 10 bytes a score to what it stored: the three fp32
    // tensors, less the 16-bit probabilities freed by then; and V's and the incoming gradient.
    t.recompute = model::Recompute::none;
    const auto kept = model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0);
    REQUIRE(kept.phase == Phase::backward);
    // Against flash (whose peak is then the loss): the 6 bytes a score each of the 4 layers stores
    // (fp32 softmax and 16-bit probabilities), those 10, and under a byte a score of per-token terms.
    t.flash_attention = true;
    const auto flash = model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0);
    CHECK(kept.activations > flash.activations + (4 * 6 + 10) * 4 * s * s);
    CHECK(kept.activations < flash.activations + (4 * 6 + 10 + 1) * 4 * s * s);
}

TEST_CASE("a framework reads in any case and by the names it goes by", "[model]") {
    using model::Framework;
    for (const char* w : {"megatron", "Megatron-LM", "megatron-core", "MCore"})
        CHECK(model::parse_framework(w) == Framework::megatron);
    for (const char* w : {"DeepSpeed", "megatron-deepspeed"}) CHECK(model::parse_framework(w) == Framework::deepspeed);
    for (const char* w : {"fsdp", "FSDP2", "torchtitan"}) CHECK(model::parse_framework(w) == Framework::fsdp);
    CHECK_THROWS_WITH(model::parse_framework("jax"), Catch::StartsWith("unknown framework 'jax' (expected megatron"));
}

TEST_CASE("a precision reads by torch's dtype names and a recompute by the words runs use", "[model]") {
    CHECK(model::precision_word("bfloat16") == "bf16");
    CHECK(model::precision_word("BF16") == "bf16");
    CHECK(model::precision_word("float16") == "fp16");
    CHECK(model::precision_word("half") == "fp16");
    CHECK(model::precision_word("Float32") == "fp32");
    CHECK(model::precision_word("float8") == "fp8");
    CHECK(model::precision_word("tf32") == "tf32");  // left for validation to refuse
    CHECK(model::parse_recompute("off") == model::Recompute::none);
    CHECK(model::parse_recompute("no") == model::Recompute::none);
    CHECK(model::parse_recompute("op") == model::Recompute::selective);
    CHECK_THROWS_AS(model::parse_recompute("true"), DataError);
}
