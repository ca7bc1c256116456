// The memory mechanisms each framework adds: DeepSpeed's BF16 and FP16 optimizers and pipeline
// engine, FSDP2's sharding mesh, eager PyTorch blocks against fused ones, and the phase that peaks.
#include <catch2/catch.hpp>

#include <utility>

#include "memory_fixture.hpp"

using namespace hetsched;
using namespace hetsched::model::test;
using model::Phase;


TEST_CASE("DeepSpeed's BF16 optimizer: fp32 grads in full, master and moments split over dp", "[model]") {
    // The step (reducing the grads through a bf16 copy of the one flat fp32 buffer) is the peak.
    const auto st = step_stage(Framework::deepspeed, "bf16");
    const double p = stage_params(gpt(), kStepLayout, 0, 4, false);
    CHECK(st.phase == Phase::step);
    CHECK(st.weights == Approx(2 * p));
    CHECK(st.gradients == Approx((2 + 4) * p));  // the params' bf16 .grad and the fp32 accumulation buffer
    CHECK(st.optimizer == Approx(12 * p / 2));   // fp32 master weights, Adam's m and v, partitioned
    CHECK(st.comm_buffers == Approx(2 * p));     // the bf16 copy of the flat fp32 grads
    CHECK(st.activations == 0);
}

TEST_CASE("DeepSpeed's bf16 optimizer at ZeRO-0 by release", "[model]") {
    auto stage = [](const std::string& version) {
        auto t = training(Framework::deepspeed, 1, 2);
        t.framework_version = version;
        return model::estimate_memory(gpt(), t, kStepLayout, Measure::allocated).stages.at(0);
    };
    const double p = stage_params(gpt(), kStepLayout, 0, 4, false);
    // 0.17.6 to 0.18.4 runs FP16_Optimizer over bf16: fp32 states whole, every grad upcast to step.
    const auto fp16 = stage("0.18.4");
    CHECK(fp16.phase == Phase::step);
    CHECK(fp16.gradients == Approx(2 * p));
    CHECK(fp16.optimizer == Approx(12 * p));
    CHECK(fp16.comm_buffers == Approx(8 * p));
    // 0.18.5 on accumulates in bf16, and casts its partition of the grads (dp 2) to fp32 to step.
    const auto bf16 = stage("0.18.5");
    CHECK(bf16.phase == Phase::step);
    CHECK(bf16.gradients == Approx((2 + 2) * p));
    CHECK(bf16.optimizer == Approx(12 * p / 2));
    CHECK(bf16.comm_buffers == Approx(4 * p / 2));
    CHECK(stage("0.17").optimizer == Approx(12 * p / 2));  // X.Y is X.Y.0
    for (const char* bad : {"0.17.x", "v0.17.5", "0.17.5.1", "17", "0.1234.0", "0..1"})
        CHECK_THROWS_WITH(stage(bad), Catch::Contains("framework_version must be a release such as 0.17.5"));
    auto fsdp = training(Framework::fsdp, 1, 2);
    fsdp.framework_version = "0.2.x";
    CHECK_THROWS_WITH(model::estimate_memory(gpt(), fsdp, kStepLayout, Measure::allocated),
                      Catch::Contains("framework_version must be a release such as 0.17.5"));
    // DeepSpeed's and torchtitan's releases are 0.x: a 2.5 is someone else's (PyTorch's, Megatron's).
    fsdp.framework_version = "2.5";
    CHECK_THROWS_WITH(model::validate_training(fsdp), "framework_version for fsdp is torchtitan's release (0.x), got 2.5");
    auto ds = training(Framework::deepspeed, 1, 2);
    ds.framework_version = "1.0";
    CHECK_THROWS_WITH(model::validate_training(ds), "framework_version for deepspeed is DeepSpeed's release (0.x), got 1.0");
}

TEST_CASE("DeepSpeed fills its fp32 grad buffer one parameter at a time", "[model]") {
    // Stage 0 of two holds the 32,000 x 64 embedding; one token a micro-batch: the 4-byte copy of the
    // embedding's grad outweighs the step's bf16 cast of all the grads (2 bytes a parameter).
    auto m = gpt();
    m.vocab = 32000;
    auto t = training(Framework::deepspeed, 1, 2);
    const Layout l{1, 2, 1, 1, 1, 1, {}};
    const auto st = model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
    const double receive = 2 * 1 * 64;  // the pipe's receive buffer
    CHECK(st.phase == Phase::backward);
    CHECK(st.comm_buffers - receive == Approx(4 * 32000 * 64));
    t.framework_version = "0.18.5";  // a bf16 buffer adds each grad as it is
    CHECK(model::estimate_memory(m, t, l, Measure::allocated).stages.at(0).phase == Phase::step);
}

TEST_CASE("DeepSpeed's FP16 optimizer keeps its fp32 states whole and upcasts every grad to step", "[model]") {
    const auto st = step_stage(Framework::deepspeed, "fp16");
    const double p = stage_params(gpt(), kStepLayout, 0, 4, false);
    CHECK(st.phase == Phase::step);
    CHECK(st.gradients == Approx(2 * p));
    CHECK(st.optimizer == Approx(12 * p));
    CHECK(st.comm_buffers == Approx(8 * p));  // fp32 copies of every grad, and the flat buffer they fill
}

TEST_CASE("before 0.5.0 DeepSpeed steps Megatron-DeepSpeed's fp16 optimizer unfused: one fp32 grad a weight", "[model]") {
    auto t = training(Framework::deepspeed, 1, 2);
    t.precision = "fp16";
    t.framework_version = "0.4.0";
    const auto st = model::estimate_memory(gpt(), t, kStepLayout, Measure::allocated).stages.at(0);
    const double p = stage_params(gpt(), kStepLayout, 0, 4, false);
    CHECK(st.phase == Phase::step);
    CHECK(st.optimizer == Approx(12 * p));
    CHECK(st.comm_buffers == Approx(4 * p));
}

TEST_CASE("DeepSpeed's ZeRO-0 all-reduce flattens each bucket of grads, and upcasts it with fp32_allreduce", "[model]") {
    // gpt() has far fewer than a bucket's 5e8 elements: one bucket holds every grad. The unfused FP16
    // optimizer's step (4 bytes a parameter) outweighs the 2-byte flat copy; with fp32_allreduce the
    // reduction holds the copy and its fp32 upcast, 6 bytes a parameter, and peaks.
    auto t = training(Framework::deepspeed, 1, 2);
    t.precision = "fp16";
    t.framework_version = "0.4.0";
    const double p = stage_params(gpt(), kStepLayout, 0, 4, false);
    auto st = model::estimate_memory(gpt(), t, kStepLayout, Measure::allocated).stages.at(0);
    CHECK(st.comm_buffers == Approx(4 * p));
    t.fp32_allreduce = true;
    st = model::estimate_memory(gpt(), t, kStepLayout, Measure::allocated).stages.at(0);
    CHECK(st.phase == Phase::step);
    CHECK(st.comm_buffers == Approx(6 * p));
    // Without data parallelism the engine reduces nothing.
    const Layout alone{1, 1, 1, 1, 1, 1, {}};
    CHECK(model::estimate_memory(gpt(), t, alone, Measure::allocated).stages.at(0).comm_buffers == Approx(4 * p));
}

TEST_CASE("with fp32_allreduce ZeRO upcasts a copy of the bucket it reduces", "[model]") {
    auto t = training(Framework::deepspeed);  // 128 tokens a micro-batch
    t.precision = "bf16";
    t.zero_stage = 2;
    t.reduce_bucket_size = 1e6;
    const Layout l{1, 1, 2, 1, 1, 1, {}};
    const auto plain = model::estimate_memory(gpt(), t, l, Measure::allocated).stages.at(0);
    t.fp32_allreduce = true;
    const auto upcast = model::estimate_memory(gpt(), t, l, Measure::allocated).stages.at(0);
    REQUIRE(plain.phase == Phase::backward);
    REQUIRE(upcast.phase == Phase::backward);
    CHECK(plain.comm_buffers == Approx(2 * 1e6));  // the 16-bit bucket, whole
    // and an fp32 copy of what it holds: at most the stage's grads
    CHECK(upcast.comm_buffers - plain.comm_buffers == Approx(4 * stage_params(gpt(), l, 0, 4, false)));
    // DeepSpeed refused it under ZeRO before 0.9.0.
    t.framework_version = "0.8.3";
    CHECK_THROWS_WITH(model::estimate_memory(gpt(), t, l, Measure::allocated),
                      "fp32_allreduce under ZeRO needs DeepSpeed 0.9.0 or later (earlier releases refuse it), got "
                      "framework_version 0.8.3");
    // Megatron-LM and FSDP reduce fp32 gradients already: the setting is DeepSpeed's alone.
    t.framework_version = "";
    t.framework = Framework::megatron;
    t.zero_stage = 0;
    t.reduce_bucket_size = 0;
    CHECK_THROWS_WITH(model::estimate_memory(gpt(), t, l, Measure::allocated),
                      Catch::Contains("fp32_allreduce applies to deepspeed"));
}

namespace {

/// A DeepSpeed job under full recompute, and the same job under Megatron-LM, which keeps no pipe
/// buffers: their difference is what DeepSpeed's pipeline engine holds.
std::pair<model::Training, model::Training> deepspeed_and_megatron() {
    auto t = training(Framework::deepspeed);
    t.recompute = model::Recompute::full;
    auto megatron = t;
    megatron.framework = Framework::megatron;
    return {t, megatron};
}

}  // namespace

TEST_CASE("DeepSpeed's pipeline engine holds each in-flight input and output, and the last stage's logits", "[model]") {
    const auto [t, megatron] = deepspeed_and_megatron();
    const Layout l{1, 2, 1, 1, 1, 1, {}};
    const auto ds = model::estimate_memory(gpt(), t, l, Measure::allocated);
    const auto mg = model::estimate_memory(gpt(), megatron, l, Measure::allocated);
    const double tokens = 128, boundary = 2 * tokens * 64;
    // Stage 0, two micro-batches in flight: token ids (int64, loaded and cloned) and the output sent on,
    // per micro-batch, and the one receive buffer.
    REQUIRE(ds.stages[0].phase == Phase::backward);
    CHECK(ds.stages[0].activations - mg.stages[0].activations == Approx(2 * (2 * 8 * tokens + boundary)));
    CHECK(ds.stages[0].comm_buffers == Approx(boundary));
    // The last stage keeps the logits of two micro-batches in its pipe buffers: fp32, as a
    // Megatron-DeepSpeed GPT model's last layer casts them. Its loss saves a new fp32 tensor (until
    // September 2022, DeepSpeed before 0.7.4, it worked in place); the cast's backward adds the 16-bit
    // gradient.
    // fp16 (the FP16 optimizer in every release) and 1,024 tokens, so that the loss is the peak.
    auto loss_run = training(Framework::deepspeed, 1024);
    loss_run.precision = "fp16";
    auto big = gpt();
    big.vocab = 32000;
    auto last_stage = [&](const model::Training& x) {
        const auto st = model::estimate_memory(big, x, l, Measure::allocated).stages.at(1);
        REQUIRE(st.phase == Phase::backward);
        return st;
    };
    CHECK(last_stage(loss_run).logits == Approx((2 * 4 + 4 + 2) * 1024 * 32000));
    loss_run.framework_version = "0.7.3";
    CHECK(last_stage(loss_run).logits == Approx((2 * 4 + 2) * 1024 * 32000));
}

TEST_CASE("DeepSpeed's pipeline engine under tensor parallelism passes 1/tp slices between stages", "[model]") {
    // tp 2, pp 3, full recompute; the middle stage has 2 micro-batches in flight. Against Megatron
    // (which keeps no pipe buffers), per micro-batch only the 1/tp slice of the output stays (the
    // received slice is gathered into the first layer's saved input), and a backward restores its
    // output in full and, from 0.5.4, gathers its gradient in full.
    auto [t, megatron] = deepspeed_and_megatron();
    const Layout l{2, 3, 1, 1, 1, 1, {1, 1, 2}};  // one split for both (DeepSpeed's own puts 2 layers first)
    const double boundary = 2 * 128 * 64, slice = boundary / 2;
    auto middle = [&](const model::Training& x) {
        const auto st = model::estimate_memory(gpt(), x, l, Measure::allocated).stages.at(1);
        REQUIRE(st.phase == Phase::backward);
        return st;
    };
    const auto mg = middle(megatron);
    const auto current = middle(t);
    CHECK(current.activations - mg.activations == Approx(2 * slice + 2 * boundary));
    // Since 0.15.0 the slices of activations and gradients are received into one shared buffer.
    CHECK(current.comm_buffers == Approx(slice));
    t.framework_version = "0.14.4";  // a buffer for each
    CHECK(middle(t).comm_buffers == Approx(2 * slice));
    t.framework_version = "0.5.3";  // gradients sent back whole
    const auto old = middle(t);
    CHECK(old.activations - mg.activations == Approx(2 * slice + boundary));
    CHECK(old.comm_buffers == Approx(slice + boundary));
    // The first stage, 3 micro-batches in flight: its token ids (int64, loaded and cloned) and output
    // slice each; it receives only gradients.
    t.framework_version.clear();
    const auto first = model::estimate_memory(gpt(), t, l, Measure::allocated).stages.at(0);
    const auto mg_first = model::estimate_memory(gpt(), megatron, l, Measure::allocated).stages.at(0);
    REQUIRE(first.phase == Phase::backward);
    REQUIRE(mg_first.phase == Phase::backward);
    CHECK(first.activations - mg_first.activations == Approx(3 * (2 * 8 * 128 + slice) + 2 * boundary));
    CHECK(first.comm_buffers == Approx(slice));
}

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

TEST_CASE("eager LLaMA blocks keep fp32 norms, repeated K and V, and all of SwiGLU; compiled ones do not", "[model]") {
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

TEST_CASE("FSDP2 shards the model states over the dp_shard x cp mesh", "[model]") {
    auto t = training(Framework::fsdp);
    t.zero_stage = 3;
    const Layout l{1, 1, 2, 2, 1, 1, {}};
    const auto st = model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0);
    const double p = stage_params(llama(), l, 0, 4, false);
    CHECK(st.weights == Approx(4 * p / 4));
    CHECK(st.optimizer == Approx(8 * p / 4));
}

TEST_CASE("torch's pipelining allocates a receive buffer per micro-batch for inputs and gradients", "[model]") {
    auto t = training(Framework::fsdp);  // 8 sequences of 128 tokens, one a micro-batch, dp 2: 4 micro-batches
    t.zero_stage = 3;
    const double boundary = 2 * 128 * 64, m = 4;
    auto comm = [&](int vpp, int stage) {
        const Layout l{1, 2, 2, 1, vpp, 1, {}};
        const auto st = model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(static_cast<size_t>(stage));
        // FSDP with pipelining: every block gathered in 16 bits and its fp32 grads unsharded.
        return st.comm_buffers - (2 + 4) * stage_params(llama(), l, stage, 2, false);
    };
    CHECK(comm(1, 0) == Approx(m * boundary));  // the gradients of its outputs
    CHECK(comm(1, 1) == Approx(m * boundary));  // its inputs
    // Interleaved, two virtual stages each: stage 0 holds virtual stages 0 (gradients) and 2 (both).
    CHECK(comm(2, 0) == Approx(3 * m * boundary));
    CHECK(comm(2, 1) == Approx(3 * m * boundary));
}

TEST_CASE("interleaved over one round, a rank holds one virtual stage's unsharded fp32 grads at a time", "[model]") {
    // pp 2 x vpp 2, dp 2, one sequence a micro-batch. With 2 micro-batches (one round of pp) a rank runs
    // every backward of its later virtual stage, whose last one reduce-scatters and frees its grads,
    // before the earlier one's first: half the stage's grads at the peak. With 4 micro-batches (two
    // rounds) their backwards interleave and both stages' grads coexist.
    auto grads = [](long global_batch) {
        auto t = training(Framework::fsdp, 128, global_batch);
        t.zero_stage = 3;
        const Layout l{1, 2, 2, 1, 2, 1, {}};
        const double m = static_cast<double>(global_batch) / 2, boundary = 2 * 128 * 64;
        const auto st = model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0);
        // Less the gathered 16-bit blocks and the receive buffers (3 per micro-batch, as above).
        return (st.comm_buffers - 2 * stage_params(llama(), l, 0, 2, false) - 3 * m * boundary) /
               stage_params(llama(), l, 0, 2, false);
    };
    CHECK(grads(4) == Approx(4.0 / 2));
    CHECK(grads(8) == Approx(4.0));
}

TEST_CASE("layer-level checkpointing: every N-th layer keeps its input only, the others everything", "[model]") {
    auto t = training(Framework::fsdp);
    t.zero_stage = 3;
    const Layout l{1, 1, 2, 1, 1, 1, {}};
    auto m = llama();
    m.vocab = 50;  // the loss (12 bytes a logit) stays below a layer's backward working set
    auto activations = [&](model::Recompute r, int every) {
        t.recompute = r;
        t.checkpoint_every = every;
        const auto st = model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
        REQUIRE(st.phase == Phase::backward);
        return st.activations;
    };
    // Per layer F kept without recompute, S with; W the working set; R = F - S replayed in backward.
    // Every layer: 4S + W + R. None: 4F + W. Every second (layers 0 and 2): 2S + 2F + W + R.
    const double all = activations(model::Recompute::full, 1), none = activations(model::Recompute::none, 1);
    const double half = activations(model::Recompute::full, 2);
    CHECK(half - all == Approx((none - all) * 2 / 3));
    CHECK(activations(model::Recompute::full, 4) - all == Approx(none - all));  // only layer 3: 3R more
    // torchtitan counts blocks from 1 and wraps those N divides: of 4 layers N = 3 wraps one, not two.
    CHECK(activations(model::Recompute::full, 3) == Approx(activations(model::Recompute::full, 4)));
    CHECK(activations(model::Recompute::full, 5) == Approx(none));  // none checkpointed, nothing replayed
    CHECK_THROWS_WITH(activations(model::Recompute::selective, 2), "checkpoint_every 2 needs recompute full, got selective");
}

TEST_CASE("FSDP2 at ZeRO-2 keeps fp32 shards and every block's 16-bit copy gathered", "[model]") {
    auto t = training(Framework::fsdp);
    t.zero_stage = 2;  // reshard_after_forward=False
    const Layout l{1, 1, 2, 1, 1, 1, {}};
    auto m = llama();
    m.vocab = 50;  // a layer's backward, not the loss, is the peak
    const auto st = model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
    REQUIRE(st.phase == Phase::backward);
    const double p = stage_params(m, l, 0, 4, false);
    CHECK(st.weights == Approx(4 * p / 2 + 2 * p));
    CHECK(st.gradients == Approx(4 * p / 2));
    // Backward: one block's 16-bit grads and the fp32 reduce-scatter input; nothing else to gather.
    const double layer = model::layer_params(m, 1);
    CHECK(st.comm_buffers == Approx((2 + 4) * layer));
    // Under fp8 the block at work has its fp8 cast too; gathering fp8 keeps one byte a weight instead.
    t.precision = "fp8";
    const auto cast = model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
    CHECK(cast.weights == Approx(4 * p / 2 + 2 * p));
    CHECK(cast.comm_buffers == Approx((1 + 2 + 4) * layer));
    t.fp8_all_gather = true;
    const auto fp8 = model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
    CHECK(fp8.weights == Approx(4 * p / 2 + 1 * p));
    CHECK(fp8.comm_buffers == Approx((2 + 4) * layer));
    t.zero_stage = 1;  // nothing gathered
    CHECK_THROWS_WITH(model::estimate_memory(llama(), t, l, Measure::allocated),
                      Catch::Contains("fp8_all_gather needs zero_stage 2 or 3"));
}

TEST_CASE("FSDP2 gathers one fp8 byte a weight with fp8_all_gather, 16 bits and an fp8 cast without", "[model]") {
    auto t = training(Framework::fsdp);
    t.zero_stage = 3;
    t.precision = "fp8";
    const Layout l{1, 1, 2, 1, 1, 1, {}};
    auto m = llama();
    m.vocab = 50;  // a layer's backward, not the loss, is the peak
    const double layer = model::layer_params(m, 1);
    // Backward: this block and the one prefetched gathered, this block's bf16 grads, the fp32 input of
    // the reduce-scatter.
    const auto cast = model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
    REQUIRE(cast.phase == Phase::backward);
    t.fp8_all_gather = true;
    const auto fp8 = model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
    const double root = 2 * (model::embedding_params(m, 1, false) + model::output_params(m, 1, 1, false));
    CHECK(cast.comm_buffers - root == Approx((2 * 3 + 2 + 4) * layer));
    CHECK(fp8.comm_buffers - root == Approx((2 * 1 + 2 + 4) * layer));
    t.precision = "bf16";  // there is nothing to gather in fp8
    CHECK_THROWS_WITH(model::estimate_memory(m, t, l, Measure::allocated),
                      "fp8_all_gather needs precision fp8 and framework fsdp, got bf16 and fsdp");
}

TEST_CASE("in a pipeline FSDP2 keeps its blocks gathered in fp8 or 16 bits, the embedding always 16", "[model]") {
    // pp 2, dp 2, fp8, one micro-batch a round: the first stage keeps its two blocks and the embedding
    // gathered (no reshard after forward) and their fp32 grads accumulated. A weight's fp8 cast lives
    // only while its block works; with fp8_all_gather the blocks are gathered as fp8 bytes, but the
    // embedding (no float8 linear) still in 16 bits.
    auto t = training(Framework::fsdp, 128, 4);
    t.zero_stage = 3;
    t.precision = "fp8";
    const Layout l{1, 2, 2, 1, 1, 1, {}};
    const auto m = llama();
    const double layer = model::layer_params(m, 1), embedding = model::embedding_params(m, 1, false);
    const double p = stage_params(m, l, 0, 2, false), receive = 2 * (128 * 64 * 2);  // a gradient buffer a micro-batch
    auto comm = [&](bool fp8_gather) {
        t.fp8_all_gather = fp8_gather;
        return model::estimate_memory(m, t, l, Measure::allocated).stages.at(0).comm_buffers - receive - 4 * p;
    };
    CHECK(comm(false) == Approx(2 * p + 1 * layer));
    CHECK(comm(true) == Approx(1 * 2 * layer + 2 * embedding));
}

TEST_CASE("before torchtitan 0.2.1 the pipeline's last stage keeps every micro-batch's logits", "[model]") {
    // pp 2, dp 2, four micro-batches of 128 tokens over a 50,000-word vocabulary: at the last
    // micro-batch's loss the three before it still hold their 16-bit logits, for the schedule's step
    // to return; from 0.2.1 torchtitan asks for none.
    auto t = training(Framework::fsdp, 128, 8);
    t.zero_stage = 3;
    auto m = llama();
    m.vocab = 50000;
    const Layout l{1, 2, 2, 1, 1, 1, {}};
    auto last = [&](const std::string& version) {
        t.framework_version = version;
        return model::estimate_memory(m, t, l, Measure::allocated).stages.at(1);
    };
    const auto kept = last("0.2.0"), released = last("0.2.1");
    REQUIRE(kept.phase == released.phase);
    CHECK(kept.logits - released.logits == Approx(3 * 128 * 50000 * 2));
}

TEST_CASE("a stage peaks in the forward when BF16's grads are cleared before each backward", "[model]") {
    // DeepSpeed 0.16.4, nothing recomputed: the backward of a layer holds no more than its forward
    // did, but the 16-bit grads of the layer being back-propagated are gone by then.
    // A 100-token vocabulary, so that the upcast copy of the embedding's grad stays below both.
    auto m = gpt();
    m.vocab = 100;
    auto t = training(Framework::deepspeed);
    t.framework_version = "0.16.4";
    const Layout l{1, 2, 1, 1, 1, 1, {}};
    const auto est = model::estimate_memory(m, t, l, Measure::allocated);
    CHECK(est.stages[0].phase == Phase::forward);
    CHECK(model::phase_name(est.stages[0].phase) == std::string("forward"));
    t.framework_version = "0.16.5";  // zeroed in place instead: the backward holds every grad too
    const auto kept = model::estimate_memory(m, t, l, Measure::allocated);
    CHECK(kept.stages[0].phase == Phase::backward);
    CHECK(kept.stages[0].total() - est.stages[0].total() == Approx(0).margin(1));
    t.framework_version = "0.16.4";
    t.recompute = model::Recompute::full;  // the replayed layer outweighs one layer's grads
    CHECK(model::estimate_memory(m, t, l, Measure::allocated).stages[0].phase == Phase::backward);
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

TEST_CASE("eager selective checkpointing keeps every must-save output; compiled, only those the backward reads", "[model]") {
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
    CHECK(zero1("0.17.5", false).optimizer - zero1("0.17.5", true).optimizer == Approx(8 * q / 2));
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

TEST_CASE("eager attention back-propagates its fp32 softmax with two fp32 gradients beside it", "[model]") {
    // llama() under DeepSpeed without flash attention, full recompute, one stage, 1024 tokens: the
    // replayed layer's softmax backward outweighs the rest. Beyond the stash (4 layer inputs and the
    // final norm's and output layer's inputs, 2 bytes x 1024 x 64 each), 12 bytes a score over 4 heads,
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
    CHECK(st.activations == Approx(stash + 12 * 4 * s * s + s * (4 * h + 4 + 2 * h + 2 * 2 * h + 4 * 2 * h)));
    // A kept layer (nothing recomputed) adds 6 bytes a score to what it stored: the two fp32
    // gradients, less the 16-bit probabilities freed by then; and V's and the incoming gradient.
    t.recompute = model::Recompute::none;
    const auto kept = model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0);
    REQUIRE(kept.phase == Phase::backward);
    // Against flash (whose peak is then the loss): the 6 bytes a score each of the 4 layers stores
    // (fp32 softmax and 16-bit probabilities), those 6, and under a byte a score of per-token terms.
    t.flash_attention = true;
    const auto flash = model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0);
    CHECK(kept.activations > flash.activations + (4 * 6 + 6) * 4 * s * s);
    CHECK(kept.activations < flash.activations + (4 * 6 + 6 + 1) * 4 * s * s);
}

TEST_CASE("torchtitan from 0.2 gathers the embedding only for its backward; a tied one stays", "[model]") {
    // One stage over dp 2 under ZeRO-3, at the loss: before 0.2 the root module keeps the embedding's
    // and the output layer's 16-bit copies gathered, and the last block stays gathered after its
    // forward; from 0.2 the untied embedding (1000 x 64) and every block are resharded.
    auto comm = [](const catalog::ModelSpec& m, const std::string& version) {
        auto t = training(Framework::fsdp);
        t.zero_stage = 3;
        t.framework_version = version;
        return model::estimate_memory(m, t, Layout{1, 1, 2, 1, 1, 1, {}}, Measure::allocated).stages.at(0).comm_buffers;
    };
    CHECK(comm(llama(), "") - comm(llama(), "0.2") == Approx(2 * 1000 * 64.0 + 2 * model::layer_params(llama(), 1)));
    CHECK(comm(llama(), "0.1.0") == Approx(comm(llama(), "")));
    // Tied: the output layer needs the embedding gathered either way.
    CHECK(comm(gpt(), "") - comm(gpt(), "0.2") == Approx(2 * model::layer_params(gpt(), 1)));
}

TEST_CASE("torchtitan's per-op checkpointing replays cuDNN attention before 0.2.1, saves flash's", "[model]") {
    // llama() with 8 tokens of vocabulary (so a layer's backward is the peak), fully sharded over dp 2,
    // 128 tokens: cuDNN attention's output (2 x 128 x 64) and log-sum-exp (4 x 128 x 4 heads) are not
    // stored by the 4 layers, and one layer's replay holds them again.
    auto m = llama();
    m.vocab = 8;
    auto peak = [&](bool cudnn, const std::string& version) {
        auto t = training(Framework::fsdp);
        t.zero_stage = 3;
        t.recompute = model::Recompute::selective;
        t.cudnn_attention = cudnn;
        t.framework_version = version;
        const auto st = model::estimate_memory(m, t, Layout{1, 1, 2, 1, 1, 1, {}}, Measure::allocated).stages.at(0);
        REQUIRE(st.phase == Phase::backward);
        return st.activations;
    };
    const double attention = 2 * 128 * 64 + 4 * 128 * 4;
    CHECK(peak(false, "0.2") - peak(true, "0.2") == Approx(3 * attention));
    CHECK(peak(false, "") - peak(true, "") == Approx(3 * attention));
    CHECK(peak(true, "0.2.1") == Approx(peak(false, "0.2.1")));
    auto t = training(Framework::fsdp);
    t.cudnn_attention = true;
    t.flash_attention = false;
    CHECK_THROWS_WITH(model::validate_training(t), Catch::Contains("attention_backend cudnn needs flash_attention"));
    auto megatron = training(Framework::megatron);
    megatron.cudnn_attention = true;
    CHECK_THROWS_WITH(model::validate_training(megatron), Catch::Contains("attention_backend cudnn applies to fsdp"));
}
