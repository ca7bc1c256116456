// FSDP2 under torchtitan: its sharding mesh, when its gradients appear, what it holds gathered (at the
// loss, at ZeRO-2, in fp8, under pipelining), torch's pipelining buffers, and the blocks the allocator
// keeps for FSDP2's communication streams. What a block keeps for its backward is in
// torchtitan_activations_test.cpp.
#include <catch2/catch.hpp>

#include <hetsched/model/layer_activations.hpp>

#include "memory_fixture.hpp"

using namespace hetsched;
using namespace hetsched::model::test;
using model::Phase;

TEST_CASE("FSDP2 makes each unit's gradients in its backward: with one micro-batch none exist at the loss", "[model]") {
    // 1,000-token vocabulary: the loss (12 bytes a logit) is the peak. Every block is resharded after
    // its forward; only the final norm and output layer stay gathered (2 bytes a weight).
    const auto m = llama();
    auto t = torchtitan();
    const auto st = model::estimate_memory(m, t, kDp2, Measure::allocated).stages.at(0);
    REQUIRE(st.logits > 0);
    const double p = stage_params(m, kDp2, 0, 4, false), output = model::output_params(m, 1, 1, false);
    CHECK(st.gradients == 0);
    CHECK(st.weights == Approx(4 * p / 2));
    CHECK(st.comm_buffers == Approx(2 * output));
    // Before torchtitan 0.2 the root unit held the embedding too, and the last block stayed gathered.
    t.framework_version = "";
    const double embedding = model::embedding_params(m, 1, false), layer = model::layer_params(m, 1);
    CHECK(model::estimate_memory(m, t, kDp2, Measure::allocated).stages.at(0).comm_buffers ==
          Approx(2 * (embedding + output + layer)));
    // Two micro-batches: the second's loss back-propagates beside the first's gradients.
    t = torchtitan(128, 4);
    const auto accumulated = model::estimate_memory(m, t, kDp2, Measure::allocated).stages.at(0);
    REQUIRE(accumulated.logits > 0);
    CHECK(accumulated.gradients == Approx(4 * p / 2));
    CHECK(accumulated.comm_buffers == Approx(2 * output));
}

TEST_CASE("FSDP2's backward peaks at its last block, with only the output layer's gradients made", "[model]") {
    // A 50-token vocabulary: a block's backward outweighs the loss. Every activation is still stashed
    // and the gradients so far are the output layer's (4 bytes a weight, halved by dp 2).
    auto m = llama();
    m.vocab = 50;
    const auto st = model::estimate_memory(m, torchtitan(), kDp2, Measure::allocated).stages.at(0);
    REQUIRE(st.phase == Phase::backward);
    REQUIRE(st.logits == 0);
    CHECK(st.gradients == Approx(4 * model::output_params(m, 1, 1, false) / 2));
    // The block at work and the one prefetched gathered (2 bytes each), its 16-bit grads and their
    // fp32 reduce-scatter input, beside the final norm and output layer.
    const double layer = model::layer_params(m, 1);
    CHECK(st.comm_buffers == Approx((2 * 2 + 2 + 4) * layer + 2 * model::output_params(m, 1, 1, false)));
    // With the output weight tied to the embedding, its gradient is made first too (beside the final
    // norm's, which the output layer's count holds), but it stays whole and in 16 bits in the
    // embedding's unit until that unit's reduce-scatter, the last of all. Before 0.2 the untied
    // output layer's does the same in the root unit.
    m.tied_embeddings = true;
    const double root = 2 * (model::embedding_params(m, 1, false) + model::output_params(m, 1, 1, false));
    const auto tied = model::estimate_memory(m, torchtitan(), kDp2, Measure::allocated).stages.at(0);
    REQUIRE(tied.phase == Phase::backward);
    CHECK(tied.gradients == 0);
    CHECK(tied.comm_buffers == Approx((2 * 2 + 2 + 4) * layer + root + root));  // gathered, and its grad
    m.tied_embeddings = false;
    auto before = torchtitan();
    before.framework_version = "";
    const auto root_unit = model::estimate_memory(m, before, kDp2, Measure::allocated).stages.at(0);
    CHECK(root_unit.gradients == 0);
    CHECK(root_unit.comm_buffers ==
          Approx((2 * 2 + 2 + 4) * layer + 2 * model::embedding_params(m, 1, false) + 4 * model::output_params(m, 1, 1, false)));
}

TEST_CASE("FSDP2's backward peaks at its first block when a block's gradients outweigh its activations", "[model]") {
    // Eight tokens, every block replayed: a block keeps 8 x 64 x 2 bytes, far below its 46,208
    // parameters' fp32 gradients. At the first block every gradient but the embedding's is made.
    auto m = llama();
    m.vocab = 50;
    auto t = torchtitan(8);
    t.recompute = model::Recompute::full;
    const auto st = model::estimate_memory(m, t, kDp2, Measure::allocated).stages.at(0);
    REQUIRE(st.phase == Phase::backward);
    const double p = stage_params(m, kDp2, 0, 4, false), embedding = model::embedding_params(m, 1, false);
    CHECK(st.gradients == Approx(4 * (p - embedding) / 2));
    // Gathered in 16 bits: this block and the unit FSDP2 prefetches for the next backward, the
    // embedding (its own unit), and the final norm with the output layer; beside them the block's
    // 16-bit gradients and the fp32 reduce-scatter input they are cast into.
    const double layer = model::layer_params(m, 1), output = model::output_params(m, 1, 1, false);
    CHECK(st.comm_buffers == Approx(2 * layer + 2 * embedding + 2 * output + (2 + 4) * layer));
    // One block's input is all that is stashed, beside that block's replay and working set.
    const auto a = model::layer_activations(m, t, kDp2);
    CHECK(st.activations == Approx(a.stored + a.full - a.stored + a.working));
    // Checkpointing every second block (blocks 1 and 3 of 0-3): the first keeps everything and replays
    // nothing.
    t.checkpoint_every = 2;
    const auto every2 = model::estimate_memory(m, t, kDp2, Measure::allocated).stages.at(0);
    REQUIRE(every2.gradients == Approx(st.gradients));
    CHECK(every2.activations == Approx(a.full + a.working));
    // Reserved, the sharded gradients not yet made are held at every candidate, their blocks from the
    // last step cached for the reduce-scatter stream: the backward's peak moves to the last block,
    // where every activation is still stashed, and holds all of them.
    const auto reserved = model::estimate_memory(m, t, kDp2, Measure::reserved).stages.at(0);
    REQUIRE(reserved.phase == Phase::backward);
    CHECK(reserved.activations > every2.activations);
    CHECK(reserved.gradients == Approx(4 * p / 2));
}

TEST_CASE("FSDP2's backward ends at the embedding's reduce-scatter: its 16-bit grads and fp32 input", "[model]") {
    // A 100,000-word vocabulary on 64-wide blocks over dp 8, eight tokens a rank, every block replayed:
    // the embedding (6.4M parameters) dwarfs a block (46,208), the activations and the optimizer
    // step's sharded temporaries. Its unit reduce-scatters last, resharded by then, beside every other
    // unit's gradients; before torchtitan 0.2 that unit is the root, with the output layer too.
    auto m = llama();
    m.vocab = 100000;
    auto t = torchtitan(8, 8);
    t.recompute = model::Recompute::full;
    const Layout dp8{1, 1, 8, 1, 1, 1, {}};
    const double p = stage_params(m, dp8, 0, 4, false), embedding = model::embedding_params(m, 1, false);
    const double output = model::output_params(m, 1, 1, false);
    auto st = model::estimate_memory(m, t, dp8, Measure::allocated).stages.at(0);
    CHECK(st.phase == Phase::backward);
    CHECK(st.activations == 0);
    CHECK(st.comm_buffers == Approx((2 + 4) * embedding));
    CHECK(st.gradients == Approx(4 * (p - embedding) / 8));
    t.framework_version = "";
    st = model::estimate_memory(m, t, dp8, Measure::allocated).stages.at(0);
    CHECK(st.comm_buffers == Approx((2 + 4) * (embedding + output)));
    CHECK(st.gradients == Approx(4 * (p - embedding - output) / 8));
}

TEST_CASE("FSDP2's communication streams keep their freed blocks reserved", "[model]") {
    // Reserved adds the compute stream's 6% of its dynamic memory, the 16-bit logits freed before the
    // loss (the peak here; 128 tokens of 1,000, 2 bytes each) and the all-gather stream's two largest
    // units gathered in 16 bits (the embedding and a block). The reduce-scatter stream holds the
    // sharded fp32 gradients: none is made when the loss back-propagates, yet all stay reserved.
    const auto m = llama();
    auto t = torchtitan();
    const double layer = model::layer_params(m, 1), embedding = model::embedding_params(m, 1, false);
    const double output = model::output_params(m, 1, 1, false);
    const double params = stage_params(m, kDp2, 0, 4, false);
    auto check = [&](const Layout& l, double gathered, double grads) {
        const auto allocated = model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
        const auto reserved = model::estimate_memory(m, t, l, Measure::reserved).stages.at(0);
        REQUIRE(reserved.phase == allocated.phase);
        REQUIRE(allocated.logits > 0);
        const double freed = 2.0 * 128 * m.vocab;
        CHECK(reserved.overhead - allocated.overhead - 0.06 * (allocated.activations + allocated.logits) - freed ==
              Approx(gathered).margin(1e-6));
        CHECK(allocated.gradients == Approx(0).margin(1e-6));
        CHECK(reserved.gradients == Approx(grads).margin(1e-6));
        CHECK(model::estimate_memory(m, t, l, Measure::device).stages.at(0).gradients == Approx(grads).margin(1e-6));
    };
    REQUIRE(embedding > layer);
    check(kDp2, 2 * (std::max(embedding, output) + layer), 4 * params / 2);
    // The first iteration's too: its loss reserves the compute stream's blocks, its backward then the
    // gradients' on top.
    t.first_iteration = true;
    check(kDp2, 2 * (std::max(embedding, output) + layer), 4 * params / 2);
    t.first_iteration = false;
    // Before 0.2 the root gathers the embedding and output once and keeps them: the all-gather stream
    // passes blocks only.
    t.framework_version = "";
    check(kDp2, 2 * (layer + layer), 4 * params / 2);
    // Without sharding there is no reduce-scatter stream: with one micro-batch the gradients, made in
    // the backward, are neither allocated nor reserved at the loss.
    const Layout single{1, 1, 1, 1, 1, 1, {}};
    auto one = t;
    one.global_batch = 1;
    const auto whole = model::estimate_memory(m, one, single, Measure::reserved).stages.at(0);
    REQUIRE(whole.logits > 0);
    CHECK(whole.gradients == Approx(0).margin(1e-6));
    // Not resharded after forward (ZeRO-2) the same: each all-gather output is still freed to its
    // stream once copied out (the unsharded copy lives on the compute stream).
    t.zero_stage = 2;
    check(kDp2, 2 * (layer + layer), 4 * params / 2);
    t.zero_stage = 3;
    // Gathering fp8, a block is one byte a weight, but the embedding's unit stays 16-bit.
    t.framework_version = "0.2.2";
    t.precision = "fp8";
    t.fp8_all_gather = true;
    check(kDp2, 2 * std::max(embedding, output) + layer, 4 * params / 2);
}

TEST_CASE("torchtitan's freed 16-bit logits stay cached while its loss back-propagates", "[model]") {
    // Unsharded (no stream pools), 128 tokens of a 1,000-token vocabulary: the loss is the peak, and
    // the block `del pred` frees (2 bytes a logit) is half the fp32 tensors its backward makes, so
    // reserved holds it beside the 6% share.
    const auto m = llama();
    auto t = torchtitan(128, 1);
    const Layout single{1, 1, 1, 1, 1, 1, {}};
    auto cached = [&](const model::Training& tr, const Layout& l, int stage) {
        const auto a = model::estimate_memory(m, tr, l, Measure::allocated).stages.at(stage);
        const auto r = model::estimate_memory(m, tr, l, Measure::reserved).stages.at(stage);
        REQUIRE(r.phase == a.phase);
        return r.overhead - a.overhead - 0.06 * (a.activations + a.logits);
    };
    REQUIRE(model::estimate_memory(m, t, single, Measure::allocated).stages.at(0).logits > 0);
    CHECK(cached(t, single, 0) == Approx(2.0 * 128 * m.vocab));
    // A compiled loss saves the logits itself: nothing is freed before its backward.
    auto compiled = t;
    compiled.compiled_loss = true;
    CHECK(cached(compiled, single, 0) == Approx(0).margin(1e-6));
    // Under a pipeline the schedule keeps the last stage's output through its backward.
    auto piped = torchtitan(128, 4);
    CHECK(cached(piped, Layout{1, 2, 1, 1, 1, 1, {}}, 1) == Approx(0).margin(1e-6));
    // In fp32 the freed block is the size of the loss's tensors, which reuse it.
    auto fp32 = t;
    fp32.precision = "fp32";
    CHECK(cached(fp32, single, 0) == Approx(0).margin(1e-6));
}

TEST_CASE("in a pipeline FSDP2's streams keep each stage's two largest units reserved", "[model]") {
    // pp 2, dp 2, fp8 with fp8_all_gather: the first stage's units are its two blocks and the embedding
    // (16-bit), the last stage's its two blocks and the output layer. Each stream keeps two units: the
    // all-gather stream the larger gathered copy (the embedding's 2 bytes a weight or a block's 1) and
    // a block's, the reduce-scatter stream two fp32 inputs.
    auto t = training(Framework::fsdp, 128, 4);
    t.zero_stage = 3;
    t.precision = "fp8";
    t.fp8_all_gather = true;
    const Layout l{1, 2, 2, 1, 1, 1, {}};
    const auto m = llama();
    const double layer = model::layer_params(m, 1), embedding = model::embedding_params(m, 1, false);
    const double output = model::output_params(m, 1, 2, false);
    auto pools = [&](int stage) {
        const auto allocated = model::estimate_memory(m, t, l, Measure::allocated).stages.at(stage);
        const auto reserved = model::estimate_memory(m, t, l, Measure::reserved).stages.at(stage);
        REQUIRE(reserved.phase == allocated.phase);
        return reserved.overhead - allocated.overhead - 0.06 * (allocated.activations + allocated.logits);
    };
    REQUIRE(2 * embedding > layer);
    CHECK(pools(0) == Approx(2 * embedding + layer + 4 * (std::max(embedding, layer) + layer)));
    CHECK(pools(1) == Approx(std::max(2 * output, layer) + layer + 4 * (std::max(output, layer) + layer)));
    // pp 3 over 4 blocks (a 1-2-1 split): the middle stage has no part of the root, two blocks; the
    // last holds one block beside the output layer.
    const Layout three{1, 3, 2, 1, 1, 1, {1, 2, 1}};
    auto pools3 = [&](int stage) {
        const auto allocated = model::estimate_memory(m, t, three, Measure::allocated).stages.at(stage);
        const auto reserved = model::estimate_memory(m, t, three, Measure::reserved).stages.at(stage);
        return reserved.overhead - allocated.overhead - 0.06 * (allocated.activations + allocated.logits);
    };
    const double output3 = model::output_params(m, 1, 3, false);
    CHECK(pools3(1) == Approx(2 * layer + 4 * 2 * layer));
    CHECK(pools3(2) == Approx(2 * output3 + layer + 4 * (output3 + layer)));
    // Unsharded (dp 1) nothing is gathered or reduce-scattered.
    const Layout single{1, 2, 1, 1, 1, 1, {}};
    t.fp8_all_gather = false;
    const auto a = model::estimate_memory(m, t, single, Measure::allocated).stages.at(0);
    const auto r = model::estimate_memory(m, t, single, Measure::reserved).stages.at(0);
    CHECK(r.overhead - a.overhead == Approx(0.06 * (a.activations + a.logits)));
}

TEST_CASE("in a pipeline FSDP2's sharded grads are allocated only from the last backward, reserved throughout", "[model]") {
    // pp 2, dp 2, four micro-batches: each stage peaks in its 1F1B steady state, before the
    // reduce-scatter of its last backward makes the sharded fp32 grads (4 bytes a weight, halved by dp).
    // Allocated, they are absent there; reserved, their blocks stay cached for the reduce-scatter stream
    // from the step before, so they count in full.
    auto t = training(Framework::fsdp, 128, 8);
    t.zero_stage = 3;
    const Layout l{1, 2, 2, 1, 1, 1, {}};
    const auto m = llama();
    for (int stage : {0, 1}) {
        const auto allocated = model::estimate_memory(m, t, l, Measure::allocated).stages.at(stage);
        const auto reserved = model::estimate_memory(m, t, l, Measure::reserved).stages.at(stage);
        REQUIRE(allocated.phase != Phase::step);
        const double p = stage_params(m, l, stage, 2, false);
        CHECK(allocated.gradients == 0);
        CHECK(reserved.gradients == Approx(4 * p / 2));
        // Nothing else moves: the states and activations are the same peak's.
        CHECK(reserved.weights == Approx(allocated.weights));
        CHECK(reserved.activations == Approx(allocated.activations));
    }
    // Unsharded (dp 1) the grads are the parameters' own, made by the first backward and kept.
    const Layout single{1, 2, 1, 1, 1, 1, {}};
    const auto whole = model::estimate_memory(m, t, single, Measure::allocated).stages.at(0);
    CHECK(whole.gradients == Approx(4 * stage_params(m, single, 0, 2, false)));
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
    // Backward: one block's 16-bit grads and the fp32 reduce-scatter input, nothing else to gather; and
    // the output layer's 16-bit grads, whole until the root's reduce-scatter ends each micro-batch's backward.
    const double layer = model::layer_params(m, 1), head = 2 * model::output_params(m, 1, 1, false);
    CHECK(st.comm_buffers == Approx((2 + 4) * layer + head));
    // Under fp8 the block at work has its fp8 cast too; gathering fp8 keeps one byte a weight instead.
    t.precision = "fp8";
    const auto cast = model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
    CHECK(cast.weights == Approx(4 * p / 2 + 2 * p));
    CHECK(cast.comm_buffers == Approx((1 + 2 + 4) * layer + head));
    t.fp8_all_gather = true;
    const auto fp8 = model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
    CHECK(fp8.weights == Approx(4 * p / 2 + 1 * p));
    CHECK(fp8.comm_buffers == Approx((2 + 4) * layer + head));
    t.zero_stage = 0;  // nothing gathered
    CHECK_THROWS_WITH(model::estimate_memory(llama(), t, l, Measure::allocated),
                      Catch::Contains("fp8_all_gather needs zero_stage 2 or 3"));
}

TEST_CASE("FSDP2 at ZeRO-2 in fp32 keeps every block gathered in fp32, unsharded it uses the parameters", "[model]") {
    auto t = training(Framework::fsdp);
    t.precision = "fp32";
    t.zero_stage = 2;
    const Layout l{1, 1, 2, 1, 1, 1, {}};
    auto m = llama();
    m.vocab = 50;
    const double p = stage_params(m, l, 0, 4, false);
    // The fp32 shards and the fp32 gathered parameters beside them, not below ZeRO-3's weights.
    const auto z2 = model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
    CHECK(z2.weights == Approx(4 * p / 2 + 4 * p));
    t.zero_stage = 3;
    CHECK(z2.total() > model::estimate_memory(m, t, l, Measure::allocated).stages.at(0).total());
    // Unsharded (ZeRO-0, data parallelism alone): the parameters are whole, with no second copy.
    t.zero_stage = 0;
    CHECK(model::estimate_memory(m, t, l, Measure::allocated).stages.at(0).weights == Approx(4 * p));
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
    // The root gathered (embedding and output), and the output's 16-bit grads waiting for its reduce-scatter.
    const double root = 2 * (model::embedding_params(m, 1, false) + 2 * model::output_params(m, 1, 1, false));
    CHECK(cast.comm_buffers - root == Approx((2 * 3 + 2 + 4) * layer));
    CHECK(fp8.comm_buffers - root == Approx((2 * 1 + 2 + 4) * layer));
    t.precision = "bf16";  // there is nothing to gather in fp8
    CHECK_THROWS_WITH(model::estimate_memory(m, t, l, Measure::allocated),
                      "fp8_all_gather needs precision fp8 and framework fsdp, got bf16 and fsdp");
    // DeepSpeed has no fp8 of its own: refused, not read as its FP16 optimizer.
    t.fp8_all_gather = false;
    t.precision = "fp8";
    t.framework = model::Framework::deepspeed;
    t.zero_stage = 1;
    CHECK_THROWS_WITH(model::estimate_memory(m, t, l, Measure::allocated), Catch::Contains("not deepspeed"));
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

TEST_CASE("torchtitan from 0.2 gathers the embedding only for its backward: a tied one stays", "[model]") {
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

TEST_CASE("unsharded under torchtitan's tensor parallelism the whole embedding gradient stands at the step, one micro-batch or more", "[model]") {
    // dp 1, tp 2, no pipeline: autograd keeps the embedding's Partial gradient whole in .grad until the
    // optimizer step. With one micro-batch it is made as the backward ends, so no peak of the backward
    // holds it, but the step does, as it does after two micro-batches.
    auto m = llama();
    m.vocab = 50000;
    auto t = training(Framework::fsdp, 16, 2);  // short sequences: the model's states make the peak
    t.zero_stage = 3;
    t.precision = "fp32";  // torchtitan trains tp at dp 1 in fp32
    std::vector<double> at_step;
    for (long mb : {1L, 2L}) {
        const Layout l{2, 1, 1, 1, 1, mb, {}};
        const auto st = model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
        REQUIRE(st.phase == Phase::step);
        at_step.push_back(st.gradients);
    }
    CHECK(at_step[0] == Approx(at_step[1]));
    // Beyond the parameters' own fp32 gradients, the other half of the vocabulary's rows.
    const Layout one{2, 1, 1, 1, 1, 2, {}};
    const auto sharded = model::estimate_memory(m, t, one, Measure::allocated).stages.at(0);
    CHECK(at_step[0] - sharded.weights == Approx(4 * 50000.0 * 64 / 2).epsilon(0.02));  // fp32: a grad as large as its weight
}
