// FSDP2 under torch.distributed.pipelining (torchtitan): the embedding's gradient under tensor
// parallelism, the last stage's own logits, and torch's fused AdamW. Each case was first seen on the
// project's H100 pipeline runs (tests/data/memory_measured_torchtitan_h100_pp.csv).
#include <catch2/catch.hpp>

#include <hetsched/model/model_states.hpp>

#include "memory_fixture.hpp"

using namespace hetsched;
using namespace hetsched::model::test;
using model::Phase;

namespace {

/// llama() with a 50,000-word vocabulary under torchtitan 0.2.2, fully sharded: pp 2 x `tp` x dp 2,
/// eight sequences of 128 tokens, one a micro-batch per rank (four micro-batches).
struct Pipelined {
    catalog::ModelSpec m = llama();
    model::Training t = training(Framework::fsdp, 128, 8);
    Layout l;
    explicit Pipelined(int tp) : l{tp, 2, 2, 1, 1, 1, {}} {
        m.vocab = 50000;
        t.zero_stage = 3;
        t.framework_version = "0.2.2";
    }
    model::StageMemory stage(int i) const {
        return model::estimate_memory(m, t, l, Measure::allocated).stages.at(static_cast<size_t>(i));
    }
};

constexpr double kVocabRows = 50000.0 * 64;  // the embedding's weights, whole
constexpr double kMicroBatches = 4, kBoundary = 2 * 128 * 64;  // one stage output, 16-bit

}  // namespace

TEST_CASE("the first stage peaks as an embedding backward ends: its new 16-bit gradient beside the fp32 one", "[model]") {
    // tp 1. The stage's every weight stays gathered in 16 bits and its grads accumulate unsharded in
    // fp32 (6 bytes a weight), the gradients of its four outputs have receive buffers, and the
    // embedding's backward, the last of a micro-batch's, makes a new 16-bit gradient (2 bytes a row
    // weight) before FSDP2 adds it into the fp32 one.
    const Pipelined p(1);
    const auto st = p.stage(0);
    REQUIRE(st.phase == Phase::backward);
    const double params = stage_params(p.m, p.l, 0, 2, false);
    CHECK(st.comm_buffers == Approx(6 * params + kMicroBatches * kBoundary + 2 * kVocabRows));
}

TEST_CASE("under torchtitan's tensor parallelism the embedding's gradient is the whole vocabulary's", "[model]") {
    // tp 2: each rank's embedding holds half the rows, but DTensor's embedding backward gives every
    // tp rank a Partial gradient of all of them, which FSDP2 upcasts and accumulates whole: 4 bytes a
    // row weight for the half the shard does not count, and the new 16-bit gradient whole too.
    const Pipelined p(2);
    const auto st = p.stage(0);
    REQUIRE(st.phase == Phase::backward);
    const double params = stage_params(p.m, p.l, 0, 2, false);
    // A stage's output is sequence-sharded (torchtitan's tensor parallelism is sequence-parallel): its
    // receive buffers are half a boundary each.
    CHECK(st.comm_buffers == Approx(6 * params + kMicroBatches * kBoundary / 2 + 4 * kVocabRows / 2 + 2 * kVocabRows));
    // The last stage's output layer is split by columns, whose backward DTensor splits too: no such term.
    const auto last = p.stage(1);
    CHECK(last.comm_buffers == Approx(6 * stage_params(p.m, p.l, 1, 2, false) + kMicroBatches * kBoundary / 2));
}

TEST_CASE("the last pipeline stage holds its own 16-bit logits through its loss and backward", "[model]") {
    // torchtitan without a pipeline deletes `pred` once the loss is made; the schedule keeps the stage's
    // output in its forward cache until the micro-batch's backward returns. At the loss: the eager
    // cross entropy's 12 bytes a logit and the 16-bit logits themselves.
    Pipelined p(1);
    p.m.layers = 2;  // one block a stage, the loss the last stage's peak
    const auto st = p.stage(1);
    REQUIRE(st.phase == Phase::backward);
    CHECK(st.logits == Approx((12 + 2) * 128 * 50000.0));
}

TEST_CASE("before torchtitan 0.2.1 the last stage keeps every output, and the schedule's step merges them", "[model]") {
    // The schedule keeps each micro-batch's 16-bit logits to return them: at its end all of them, and
    // the torch.cat of them it returns, stand beside every gradient, before the optimizer step. With 16
    // micro-batches that is 32 micro-batches' logits, more than the last loss holds (15 kept, its own
    // and the eager cross entropy's 12 bytes a logit: 22).
    Pipelined p(1);
    p.m.layers = 2;
    p.m.vocab = 500000;
    p.t.global_batch = 32;  // 16 micro-batches a rank
    p.t.framework_version = "0.2.0";
    const double one = 2 * 128 * 500000.0;  // one micro-batch's 16-bit logits
    const auto st = p.stage(1);
    CHECK(st.phase == Phase::backward);
    CHECK(st.logits == Approx(32 * one));
    // The same logits in bigger micro-batches: never less memory (the step counted the earlier
    // micro-batches' only, so the estimate fell as they grew).
    Pipelined q = p;
    q.l.micro_batch = 2;
    CHECK(q.stage(1).total() >= st.total());
    // From 0.2.1 (return_outputs=False) nothing is kept past a micro-batch's backward: the loss's 7.
    p.t.framework_version = "0.2.1";
    CHECK(p.stage(1).logits == Approx(7 * one));
}

TEST_CASE("torchtitan's fused AdamW (from 0.1.0) steps in place: before, foreach's sqrt(v) per shard", "[model]") {
    // Bytes a parameter the optimizer step allocates beside the states, over two shards.
    auto t = training(Framework::fsdp);
    t.zero_stage = 3;
    CHECK(model::step_bytes(t, 2).step == Approx(4.0 / 2));  // torchtitan's code before 0.1: foreach
    t.framework_version = "0.1.0";
    CHECK(model::step_bytes(t, 2).step == 0);
    t.framework_version = "0.2.2";
    CHECK(model::step_bytes(t, 2).step == 0);
}

TEST_CASE("the last stage's own logits stand beside a block's backward too", "[model]") {
    // A 16-word vocabulary: a block's backward, not the loss (14 bytes a logit), is the last stage's
    // peak, and the schedule still holds that micro-batch's 16-bit logits there.
    Pipelined p(1);
    p.m.vocab = 16;
    const auto st = p.stage(1);
    REQUIRE(st.phase == Phase::backward);
    CHECK(st.logits == Approx(2 * 128 * 16.0));
}

TEST_CASE("without a pipeline the whole embedding gradient is narrowed to its rows before the fp32 input is made", "[model]") {
    // tp 4, dp 2, no pipeline, 16-token sequences: the backward ends at the embedding's unit (its own
    // from torchtitan 0.2), the peak. Its whole 16-bit gradient (4 x its rows) and the redistributed
    // rows (1 x) stand together, then the rows alone beside their fp32 reduce-scatter input (2 + 4):
    // 10 bytes a row weight, not 6.
    auto m = llama();
    m.vocab = 50000;
    m.kv_heads = 4;  // whole key/value heads on each of the 4 ranks
    auto t = training(Framework::fsdp, 16, 2);
    t.zero_stage = 3;
    t.framework_version = "0.2.2";
    const Layout l{4, 1, 2, 1, 1, 1, {}};
    const auto st = model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
    REQUIRE(st.phase == Phase::backward);
    CHECK(st.comm_buffers == Approx(10 * kVocabRows / 4));
}

TEST_CASE("without FSDP (dp 1) autograd keeps the whole embedding gradient in .grad until the step", "[model]") {
    // pp 2 x tp 2, dp 1: no FSDP, fp32 parameters and gradients; the first stage's gradients count the
    // embedding's whole vocabulary, the last stage's only its own parameters.
    Pipelined p(2);
    p.l.dp = 1;
    p.t.global_batch = 4;
    const auto first = p.stage(0), last = p.stage(1);
    CHECK(first.gradients == Approx(4 * (stage_params(p.m, p.l, 0, 2, false) + kVocabRows / 2)));
    CHECK(last.gradients == Approx(4 * stage_params(p.m, p.l, 1, 2, false)));
}
