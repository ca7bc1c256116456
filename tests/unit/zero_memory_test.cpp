// DeepSpeed ZeRO's gradients and step, its pipeline engine's limits, and whose model it trains.
#include <catch2/catch.hpp>

#include "memory_fixture.hpp"

using namespace hetsched;
using namespace hetsched::model::test;
using model::Phase;

namespace {

/// GPT-3 175B's shape: at one token a micro-batch the optimizer step is every stage's peak.
catalog::ModelSpec gpt3_175b() {
    catalog::ModelSpec m = gpt();
    m.layers = 96, m.hidden = 12288, m.heads = 96, m.kv_heads = 96, m.ffn_hidden = 4 * 12288, m.vocab = 50257;
    return m;
}

}  // namespace

TEST_CASE("ZeRO makes the fp32 grad partition in the step, beside the concatenated 16-bit one", "[model]") {
    // A 96-layer, 12288-wide model at one token over dp 2 in bf16 (DeepSpeed 0.17.5): the step is the
    // peak (beyond the backward's 5e8-element reduce bucket). States: 2-byte weights, 16-bit grads
    // (stage 2: their half; stage 1: all), fp32 master and moments halved. The step adds the
    // partition's concatenated 16-bit grads and their fp32 upcast: (2 + 4) / 2 bytes a parameter.
    const catalog::ModelSpec m = gpt3_175b();
    const Layout l{1, 1, 2, 1, 1, 1, {}};
    const double p = stage_params(m, l, 0, 96, false);
    auto zero = [&](int stage) {
        auto t = training(Framework::deepspeed, 1, 2);
        t.zero_stage = stage;
        return model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
    };
    const auto two = zero(2), one = zero(1);
    REQUIRE(two.phase == Phase::step);
    CHECK(two.gradients == Approx(1 * p));
    CHECK(two.comm_buffers == Approx(3 * p));
    // Stage 1 first frees the grads outside its partition: half of its 2 bytes remain.
    REQUIRE(one.phase == Phase::step);
    CHECK(one.gradients == Approx(1 * p));
    CHECK(one.comm_buffers == Approx(3 * p));
}

TEST_CASE("a first ZeRO-1/2 step makes its moments once the 16-bit grads' concatenation is gone", "[model]") {
    // The model above in its first iteration (DeepSpeed 0.14.5: Adam's moments are made in the first
    // update). The concatenated 16-bit partition (1 byte a parameter over dp 2) is let go once upcast,
    // and stage 1 frees its partition's own 16-bit grads too: the update holds the fp32 grad (2 bytes)
    // beside the new moments (8 / 2). Before it: the temporaries (3) without the moments. Stage 2 alike.
    const catalog::ModelSpec m = gpt3_175b();
    const Layout l{1, 1, 2, 1, 1, 1, {}};
    const double p = stage_params(m, l, 0, 96, false);
    auto first = [&](int stage) {
        auto t = training(Framework::deepspeed, 1, 2);
        t.zero_stage = stage, t.first_iteration = true, t.framework_version = "0.14.5";
        return model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
    };
    const auto one = first(1);
    REQUIRE(one.phase == Phase::step);
    CHECK(one.gradients == Approx(0).margin(1));
    CHECK(one.optimizer == Approx(6 * p));
    CHECK(one.comm_buffers == Approx(2 * p));
    CHECK(one.total() == Approx(10 * p).epsilon(1e-3));  // not 2 + 1 + 6 + 3 = 12 bytes
    // Stage 2's flat 16-bit partition buffer (1 byte a parameter) is released as the backward ends
    // and lives on only through the grads the step frees: gone by the update too.
    const auto two = first(2);
    REQUIRE(two.phase == Phase::step);
    CHECK(two.gradients == Approx(0).margin(1));
    CHECK(two.optimizer == Approx(6 * p));
    CHECK(two.comm_buffers == Approx(2 * p));
}

TEST_CASE("ZeRO-3 steps one sub-group of at most 1e9 elements at a time", "[model]") {
    // A 96-layer, 12288-wide model at one token over dp 8: each rank's partition (about 21.7e9
    // parameters) is stepped 1e9 at a time, so the step's temporaries are 6e9 bytes.
    const catalog::ModelSpec m = gpt3_175b();
    auto t = training(Framework::deepspeed, 1, 8);
    t.zero_stage = 3;
    const auto st = model::estimate_memory(m, t, Layout{1, 1, 8, 1, 1, 1, {}}, Measure::allocated).stages.at(0);
    REQUIRE(st.phase == Phase::step);
    CHECK(st.comm_buffers == Approx(6e9));
    // Before 0.4.1 the default sub-group (1e12) held the whole partition.
    t.framework_version = "0.4.0";
    const auto old = model::estimate_memory(m, t, Layout{1, 1, 8, 1, 1, 1, {}}, Measure::allocated).stages.at(0);
    CHECK(old.comm_buffers == Approx(6 * stage_params(m, Layout{1, 1, 8, 1, 1, 1, {}}, 0, 96, false) / 8));
    // A job's own sub_group_size.
    t.framework_version = "";
    t.sub_group_size = 2e9;
    CHECK(model::estimate_memory(m, t, Layout{1, 1, 8, 1, 1, 1, {}}, Measure::allocated).stages.at(0).comm_buffers ==
          Approx(12e9));
}

TEST_CASE("ZeRO-1 and 2 make their reduce bucket, whole, as each backward starts", "[model]") {
    // gpt() (0.26M parameters) over dp 2 at 128 tokens, ZeRO-2 in bf16 with a 1e6-element bucket: the
    // bucket is allocated whole, in 16 bits, beyond what the model fills, and only for the backward.
    auto t = training(Framework::deepspeed, 128, 2);
    t.zero_stage = 2;
    t.reduce_bucket_size = 1e6;
    const Layout l{1, 1, 2, 1, 1, 1, {}};
    REQUIRE(stage_params(gpt(), l, 0, 4, true) < 1e6);
    const auto one = model::estimate_memory(gpt(), t, l, Measure::allocated).stages.at(0);
    REQUIRE(one.phase == Phase::backward);
    CHECK(one.comm_buffers == Approx(2e6));
    // overlap_comm: a second bucket.
    t.overlap_comm = true;
    const auto two = model::estimate_memory(gpt(), t, l, Measure::allocated).stages.at(0);
    CHECK(two.comm_buffers == Approx(4e6));
    CHECK(two.total() - one.total() == Approx(2e6));
    // The default bucket, 5e8 elements, is a GB in 16 bits whatever the model.
    t.overlap_comm = false;
    t.reduce_bucket_size = 0;
    CHECK(model::estimate_memory(gpt(), t, l, Measure::allocated).stages.at(0).comm_buffers == Approx(1e9));
    // A peak in the forward (Megatron-DeepSpeed's loss copies its logits there) comes before any bucket.
    t.reduce_bucket_size = 1e4;
    const auto forward = model::estimate_memory(gpt(), t, l, Measure::allocated).stages.at(0);
    REQUIRE(forward.phase == Phase::forward);
    CHECK(forward.comm_buffers == 0);
}

TEST_CASE("ZeRO-1 keeps its bucket until the last micro-batch is reduced, ZeRO-2 frees it each time", "[model]") {
    // gpt() over dp 2 at 1024 tokens: Megatron-DeepSpeed's loss peaks in its forward. With two
    // micro-batches ZeRO-1's bucket, made in the first backward, is still there in the second forward.
    auto forward = [](int zero, long global_batch) {
        auto t = training(Framework::deepspeed, 1024, global_batch);
        t.zero_stage = zero;
        t.reduce_bucket_size = 1e4;
        return model::estimate_memory(gpt(), t, Layout{1, 1, 2, 1, 1, 1, {}}, Measure::allocated).stages.at(0);
    };
    REQUIRE(forward(1, 4).phase == Phase::forward);
    CHECK(forward(1, 4).comm_buffers == Approx(2e4));
    CHECK(forward(1, 2).comm_buffers == 0);
    CHECK(forward(2, 4).comm_buffers == 0);
}

TEST_CASE("under DeepSpeed's pipeline engine ZeRO-1's bucket lives by release", "[model]") {
    // gpt() over pp 2 x dp 2, ZeRO-1 in bf16, a 1e6-element bucket (2 MB).
    auto stage = [](const std::string& version, long seq, int s) {
        auto t = training(Framework::deepspeed, seq, 8);
        t.zero_stage = 1;
        t.reduce_bucket_size = 1e6;
        t.framework_version = version;
        return model::estimate_memory(gpt(), t, Layout{1, 2, 2, 1, 1, 1, {}}, Measure::allocated).stages.at(s);
    };
    // 512 tokens: a backward peaks. Up to 0.16.4 the engine runs ZeRO's backward, which makes the
    // bucket, on the last stage only; from 0.16.5 the gradient hooks make it on every stage.
    REQUIRE(stage("0.16.4", 512, 0).phase == Phase::backward);
    REQUIRE(stage("0.16.5", 512, 0).phase == Phase::backward);
    CHECK(stage("0.16.5", 512, 0).comm_buffers - stage("0.16.4", 512, 0).comm_buffers == Approx(2e6));
    CHECK(stage("0.16.5", 512, 1).comm_buffers == Approx(stage("0.16.4", 512, 1).comm_buffers));
    // One token. Up to 0.17.1 the reduction replaces the stage's bucket with one (which ties with the
    // backward that made it); from 0.17.2 it adds one, and peaks.
    REQUIRE(stage("0.17.2", 1, 0).phase == Phase::step);
    CHECK(stage("0.17.2", 1, 0).comm_buffers - stage("0.17.1", 1, 0).comm_buffers == Approx(2e6));
}

TEST_CASE("ZeRO-3 keeps its reduce bucket beside the parameters it has gathered", "[model]") {
    // gpt() over dp 2 at 128 tokens with a 1e6-element bucket: the bucket from start-up, and every
    // parameter gathered (far fewer than stage3_max_live_parameters' 1e9), in forward and backward.
    auto t = training(Framework::deepspeed, 128, 2);
    t.zero_stage = 3;
    t.reduce_bucket_size = 1e6;
    const Layout l{1, 1, 2, 1, 1, 1, {}};
    const double p = stage_params(gpt(), l, 0, 4, true);
    const auto st = model::estimate_memory(gpt(), t, l, Measure::allocated).stages.at(0);
    REQUIRE(st.phase == Phase::forward);  // Megatron-DeepSpeed's loss, which copies its logits there
    CHECK(st.comm_buffers == Approx(2 * (1e6 + p)));
    auto peak = [&](const std::string& version, bool fp32) {
        t.framework_version = version;
        t.fp32_allreduce = fp32;
        return model::estimate_memory(gpt(), t, l, Measure::allocated).stages.at(0);
    };
    // Before 0.6.0 each backward makes two (overlap_comm, on for ZeRO-3), and the backward peaks.
    const auto old = peak("0.5.0", false);
    REQUIRE(old.phase == Phase::backward);
    CHECK(old.comm_buffers == Approx(2 * (2e6 + p)));
    // Reducing in fp32: up to 0.17.1 the bucket stays 16-bit (a reduce converts a copy); from 0.17.2
    // it is fp32 itself.
    REQUIRE(peak("0.17.1", true).phase == Phase::forward);
    CHECK(peak("0.17.1", true).comm_buffers == Approx(2 * (1e6 + p)));
    CHECK(peak("0.17.2", true).comm_buffers == Approx(4e6 + 2 * p));
    t.fp32_allreduce = false;
    t.framework_version = "";
    // stage3_max_live_parameters caps them, but never below the largest module, gathered whole: here
    // the embedding (tied: the output layer's weight too), larger than FC1's 64 x 256 weight.
    t.max_live_parameters = 1e4;
    const double module = std::max({64.0 * 256, model::embedding_params(gpt(), 1, true),
                                    model::output_params(gpt(), 1, 1, true)});
    REQUIRE(module > 64.0 * 256);
    CHECK(model::estimate_memory(gpt(), t, l, Measure::allocated).stages.at(0).comm_buffers ==
          Approx(2 * (1e6 + module)));
}

TEST_CASE("ZeRO-3's first iteration gathers only the module at work", "[model]") {
    // The case above in its first iteration: ZeRO-3 records the order its modules run in, and until
    // that trace is complete it neither prefetches nor keeps parameters for their next use. Only the
    // largest module, the 1024 x 64 embedding (1000 rows padded, as Megatron-DeepSpeed does), is gathered beside the bucket.
    auto t = training(Framework::deepspeed, 128, 2);
    t.zero_stage = 3, t.reduce_bucket_size = 1e6, t.first_iteration = true;
    const Layout l{1, 1, 2, 1, 1, 1, {}};
    const double module = model::embedding_params(gpt(), 1, true);
    REQUIRE(module == 1024 * 64);
    const auto st = model::estimate_memory(gpt(), t, l, Measure::allocated).stages.at(0);
    CHECK(st.comm_buffers == Approx(2 * (1e6 + module)));
    // The record is reset after each backward: a second micro-batch in that first step prefetches and
    // keeps them all (here fewer than stage3_max_live_parameters). From 0.15.4 the first two passes
    // record (the first completes an empty record, which the second finds invalid).
    const double p = stage_params(gpt(), l, 0, 4, true);
    auto gathered = [&](const std::string& version, long micro_batches) {
        t.framework_version = version, t.global_batch = 2 * micro_batches;
        return model::estimate_memory(gpt(), t, l, Measure::allocated).stages.at(0).comm_buffers;
    };
    CHECK(gathered("0.14.5", 2) == Approx(2 * (1e6 + p)));
    CHECK(gathered("0.15.4", 2) == Approx(2 * (1e6 + module)));
    CHECK(gathered("0.15.4", 3) == Approx(2 * (1e6 + p)));
}

TEST_CASE("DeepSpeed's bucket settings belong to the ZeRO stages that have them", "[model]") {
    const Layout l{1, 1, 2, 1, 1, 1, {}};
    auto t = training(Framework::deepspeed);
    t.reduce_bucket_size = 1e6;
    CHECK_THROWS_WITH(model::estimate_memory(gpt(), t, l, Measure::allocated),
                      "reduce_bucket_size applies to deepspeed at zero_stage 1-3, got deepspeed at zero_stage 0");
    t.reduce_bucket_size = 0;
    t.zero_stage = 3;
    t.overlap_comm = true;
    CHECK_THROWS_WITH(model::estimate_memory(gpt(), t, l, Measure::allocated),
                      Catch::Contains("overlap_comm applies to deepspeed at zero_stage 1-2"));
    t.overlap_comm = false;
    t.zero_stage = 2;
    t.sub_group_size = 1e9;
    CHECK_THROWS_WITH(model::estimate_memory(gpt(), t, l, Measure::allocated),
                      "sub_group_size applies to deepspeed at zero_stage 3, got deepspeed at zero_stage 2");
    t.sub_group_size = 0;
    t.max_live_parameters = 3e7;
    CHECK_THROWS_WITH(model::estimate_memory(gpt(), t, l, Measure::allocated),
                      "stage3_max_live_parameters applies to deepspeed at zero_stage 3, got deepspeed at zero_stage 2");
}

TEST_CASE("DeepSpeed's pipeline engine refuses ZeRO-2 and 3", "[model]") {
    auto t = training(Framework::deepspeed);
    t.zero_stage = 2;
    CHECK_THROWS_WITH(model::estimate_memory(gpt(), t, Layout{1, 2, 1, 1, 1, 1, {}}, Measure::allocated),
                      "DeepSpeed's pipeline engine runs ZeRO stage 0 or 1 only, got zero_stage 2 with pp 2");
    CHECK_NOTHROW(model::estimate_memory(gpt(), t, Layout{1, 1, 2, 1, 1, 1, {}}, Measure::allocated));
    CHECK(!model::can_pipeline(t));
    t.zero_stage = 1;
    CHECK(model::can_pipeline(t));
}

TEST_CASE("with one micro-batch, ZeRO-2 has no 16-bit grads when the loss back-propagates", "[model]") {
    // gpt() over dp 2 at 1024 tokens, ZeRO-2 bf16: the loss (Megatron-DeepSpeed's, its upcast copy
    // in the forward) is the peak. With one micro-batch per rank no grad partition exists yet; with
    // two, the first micro-batch's is there.
    auto loss = [&](long global_batch) {
        auto t = training(Framework::deepspeed, 1024, global_batch);
        t.zero_stage = 2;
        t.reduce_bucket_size = 1e4;  // a bucket the size of gpt()'s, not the default 5e8 elements
        return model::estimate_memory(gpt(), t, Layout{1, 1, 2, 1, 1, 1, {}}, Measure::allocated).stages.at(0);
    };
    const double p = stage_params(gpt(), Layout{1, 1, 2, 1, 1, 1, {}}, 0, 4, true);
    const auto one = loss(2), two = loss(4);
    REQUIRE(one.phase == Phase::forward);
    REQUIRE(two.phase == Phase::forward);
    CHECK(one.gradients == Approx(0));
    CHECK(two.gradients == Approx(1 * p));
    // Nor as a Hugging Face loss's forward ends (llama(), 128 tokens of 1,000): its 10 bytes a logit
    // would outweigh the backward's 12 only beside grads that do not exist yet.
    auto t = training(Framework::deepspeed, 128, 2);
    t.zero_stage = 2, t.reduce_bucket_size = 1e4;
    const Layout l{1, 1, 2, 1, 1, 1, {}};
    REQUIRE(stage_params(llama(), l, 0, 4, false) > 2 * 128 * 1000);
    const auto hf = model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0);
    CHECK(hf.phase == Phase::backward);
    CHECK(hf.gradients == Approx(0));
    CHECK(hf.logits == Approx(12 * 128 * 1000));
}

TEST_CASE("with one micro-batch, ZeRO-2 makes its grad partition at the first bucket it reduces", "[model]") {
    // llama() over dp 2, one micro-batch a rank of 1024 tokens, eager attention, full recompute: a
    // replayed layer's softmax backward is the peak. ZeRO-2 makes its 16-bit partition (1 byte a
    // parameter over dp 2) when a gradient would overflow its bucket. A bucket that holds every
    // gradient but the embedding's, the last made, is reduced only as the backward ends: no partition
    // at any layer's backward. One element smaller, it is reduced before the first layer's backward.
    const Layout l{1, 1, 2, 1, 1, 1, {}};
    const double p = stage_params(llama(), l, 0, 4, false), embedding = model::embedding_params(llama(), 1, false);
    auto stage = [&](double bucket) {
        auto t = training(Framework::deepspeed, 1024, 2);
        t.zero_stage = 2, t.flash_attention = false, t.recompute = model::Recompute::full;
        t.reduce_bucket_size = bucket;
        return model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0);
    };
    const auto late = stage(p - embedding), early = stage(p - embedding - 1);
    REQUIRE(late.phase == Phase::backward);
    REQUIRE(early.phase == Phase::backward);
    CHECK(late.gradients == Approx(0));
    CHECK(early.gradients == Approx(p));
    // The bucket itself (2 bytes an element) is one element smaller.
    CHECK(early.total() - late.total() == Approx(p - 2).epsilon(0).margin(0.5));
}

TEST_CASE("DeepSpeed trains Megatron-DeepSpeed's model or a Hugging Face one", "[model]") {
    // llama() under DeepSpeed is a Hugging Face block unless deepspeed_model says megatron: then
    // Megatron's fused layers (no fp32 norms, SwiGLU's three saved tensors) and its vocab-parallel loss.
    auto t = training(Framework::deepspeed);
    const Layout l{1, 1, 1, 1, 1, 1, {}};
    const auto hf = model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0);
    t.deepspeed_model = "hf";
    CHECK(model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0).total() == Approx(hf.total()));
    t.deepspeed_model = "megatron";
    const auto megatron = model::estimate_memory(llama(), t, l, Measure::allocated).stages.at(0);
    CHECK(megatron.activations + megatron.logits < hf.activations + hf.logits);
    t.deepspeed_model = "hugging face";
    CHECK_THROWS_WITH(model::validate_training(t), Catch::Contains("unknown deepspeed_model 'hugging face'"));
    auto fsdp = training(Framework::fsdp);
    fsdp.deepspeed_model = "megatron";
    CHECK_THROWS_WITH(model::validate_training(fsdp), Catch::Contains("deepspeed_model needs framework deepspeed"));
}
