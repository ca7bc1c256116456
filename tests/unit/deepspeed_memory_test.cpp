// DeepSpeed's own allocations beside ZeRO's partitions: its BF16 and FP16 optimizers at ZeRO-0, the
// engine's data-parallel all-reduce and fp32 reduction, and its pipeline engine's buffers.
#include <catch2/catch.hpp>

#include <utility>

#include "memory_fixture.hpp"

using namespace hetsched;
using namespace hetsched::model::test;
using model::Phase;

TEST_CASE("DeepSpeed's BF16 optimizer: fp32 grads in full, master and moments split over dp", "[model]") {
    // The step (reducing the grads through a bf16 copy of the one flat fp32 buffer) is the peak.
    const auto st = step_stage(Framework::deepspeed, "bf16");
    const double p = stage_params(gpt(), kStepLayout, 0, 4, true);
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
    const double p = stage_params(gpt(), kStepLayout, 0, 4, true);
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
    // As tags and pip write a release: the release it belongs to.
    for (const char* written : {"v0.18.5", "0.18.5.post1", "0.18.5+cu124", "0.18.5-post2"})
        CHECK(stage(written).optimizer == Approx(12 * p / 2));
    // A pre-release or dev build comes before its release: the one before's habits.
    for (const char* before : {"0.18.5rc1", "0.18.5-rc1", "0.18.5.dev0", "0.18.5b2"})
        CHECK(stage(before).optimizer == Approx(stage("0.18.4").optimizer));
    for (const char* bad : {"0.17.x", "0.17.5.1", "17", "0.1234.0", "0..1", "core_r0.8.0", "vv0.17", "0.16-4",
                            "0.16.4banana", "0.", "v"})
        CHECK_THROWS_WITH(stage(bad), Catch::Contains("framework_version must be a release such as 0.17.5"));
    CHECK_FALSE(model::is_release("0." + std::string(100000, '1')));  // refused, not a stack overflow
    CHECK_THROWS_WITH(stage("1.0.0rc1"), Catch::Contains("DeepSpeed's release (0.x)"));  // 1.0's, not 0.999.999
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
    const double p = stage_params(gpt(), kStepLayout, 0, 4, true);
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
    const double p = stage_params(gpt(), kStepLayout, 0, 4, true);
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
    const double p = stage_params(gpt(), kStepLayout, 0, 4, true);
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
    CHECK(upcast.comm_buffers - plain.comm_buffers == Approx(4 * stage_params(gpt(), l, 0, 4, true)));
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

TEST_CASE("Hugging Face's upcast loss peaks as its forward ends when the backward finds no 16-bit grads", "[model]") {
    // llama() trained by DeepSpeed 0.14.5 (BF16_Optimizer, which clears the 16-bit grads as each
    // backward starts), 128 tokens, no pipeline: 128,000 logits. As the loss's forward ends the bf16
    // logits, their fp32 copy and the fp32 log-softmax are live (2 + 4 + 4 bytes a logit) beside every
    // grad; its backward holds 12 bytes a logit but no 16-bit grads, which outweigh the 2 bytes a logit
    // more here (about 232,000 parameters).
    auto t = training(Framework::deepspeed, 128, 1);
    t.precision = "bf16", t.framework_version = "0.14.5";
    const Layout l{1, 1, 1, 1, 1, 1, {}};
    const double logits = 128 * 1000, p = stage_params(llama(), l, 0, 4, false);
    REQUIRE(p > logits);
    const auto st = model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0);
    REQUIRE(st.phase == Phase::forward);
    CHECK(st.logits == Approx(10 * logits));
    CHECK(st.gradients == Approx((2 + 4) * p));
    // 0.16.5 on keeps the 16-bit grads: the backward's 12 bytes a logit are the peak again.
    t.framework_version = "0.16.5";
    const auto kept = model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0);
    CHECK(kept.phase == Phase::backward);
    CHECK(kept.logits == Approx(12 * logits));
}

TEST_CASE("DeepSpeed's first step makes its flat optimizer state in segments of its own, on top of the reserve", "[model]") {
    // Two stages of gpt() at 1,024 tokens: BF16 at ZeRO-0 (the default release makes the state at
    // the first step), dp 1: 12 bytes a parameter of fp32 master weights and Adam's moments.
    auto steady = training(Framework::deepspeed, 1024);
    auto first = steady;
    first.first_iteration = true;
    const Layout l{1, 2, 1, 1, 1, 1, {}};
    auto stage = [&](const model::Training& t, Measure measure, int i) {
        return model::estimate_memory(gpt(), t, l, measure).stages.at(static_cast<size_t>(i));
    };
    const double p = stage_params(gpt(), l, 0, 2, true);  // a GPT model: Megatron-DeepSpeed's, vocab padded
    // Allocated: the first iteration lacks the moments (8 bytes a parameter) until its step.
    const auto allocated = stage(first, Measure::allocated, 0);
    CHECK(allocated.total() < stage(steady, Measure::allocated, 0).total());
    // Reserved: the moments come on top of the blocks the first iteration's forwards and backwards
    // left cached, so the reserve the first step reaches is the steady one, reached at the step.
    const auto reserved = stage(first, Measure::reserved, 0);
    CHECK(reserved.total() == Approx(stage(steady, Measure::reserved, 0).total()));
    CHECK(reserved.phase == Phase::step);
    CHECK(reserved.optimizer == Approx(12 * p));
    CHECK(reserved.activations > 0);  // the cached blocks of the backward before it
    // The last stage's moments (4 bytes a parameter each, 0.7 MB) fit in the 4 MB fp32 logits block
    // the loss freed: the first step adds no segment (the next step's loss does).
    CHECK(stage(first, Measure::reserved, 1).total() < stage(steady, Measure::reserved, 1).total());
    // So do the first stage's, in the 16 MB blocks of an unfused fp32 softmax's scores (4 heads x
    // 1,024² x 4 bytes) its backward freed.
    auto unfused = first, unfused_steady = steady;
    unfused.flash_attention = unfused_steady.flash_attention = false;
    unfused.unfused_fp32_softmax = unfused_steady.unfused_fp32_softmax = true;
    CHECK(stage(unfused, Measure::reserved, 0).total() < stage(unfused_steady, Measure::reserved, 0).total());
    // At 256 tokens a moment's bytes (4 x p) outnumber a score block's elements (4 heads x 256²) but
    // fit its bytes (4 each): the block's bytes decide.
    auto short_first = unfused, short_steady = unfused_steady;
    short_first.seq_len = short_steady.seq_len = 256;
    REQUIRE(4 * p > 4 * 256 * 256);
    REQUIRE(4 * p <= 4 * 4 * 256 * 256);
    CHECK(stage(short_first, Measure::reserved, 0).total() < stage(short_steady, Measure::reserved, 0).total());
    // torch's Adam makes a state per parameter, which cached blocks hold: no such floor, under
    // DeepSpeed's client optimizer (fp32 at ZeRO-0) as under Megatron.
    auto client = first, client_steady = steady;
    client.precision = client_steady.precision = "fp32";
    CHECK(stage(client, Measure::reserved, 0).total() < stage(client_steady, Measure::reserved, 0).total());
    auto megatron = first;
    megatron.framework = Framework::megatron;
    auto megatron_steady = steady;
    megatron_steady.framework = Framework::megatron;
    CHECK(stage(megatron, Measure::reserved, 0).total() < stage(megatron_steady, Measure::reserved, 0).total());
}
