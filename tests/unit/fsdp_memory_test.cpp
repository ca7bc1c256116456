// FSDP2 under torchtitan: when its gradients appear, what it holds gathered at the loss, torchtitan's
// eager block by release, and the blocks the allocator keeps for FSDP2's communication streams.
#include <catch2/catch.hpp>

#include <hetsched/model/layer_activations.hpp>

#include "memory_fixture.hpp"

using namespace hetsched;
using namespace hetsched::model::test;
using model::Phase;

namespace {

/// llama() under torchtitan 0.2.2, fully sharded over dp 2, nothing recomputed: `batch` sequences of
/// `seq` tokens, one a micro-batch per rank.
model::Training torchtitan(long seq = 128, long batch = 2) {
    auto t = training(Framework::fsdp, seq, batch);
    t.zero_stage = 3;
    t.framework_version = "0.2.2";
    return t;
}

const Layout kDp2{1, 1, 2, 1, 1, 1, {}};

}  // namespace

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

TEST_CASE("torchtitan's eager block by release: fused RMSNorm from 0.2, K and V unrepeated from 0.2.2", "[model]") {
    // 128 tokens x 64 wide, 2 of 4 heads for K and V (32 wide). Before 0.2 each of the two norms
    // saves an fp32 copy of its input beside the 16-bit normalised tensor; torch's fused kernel saves
    // the 16-bit input alone: 4 bytes x 128 x 64 less per norm. From 0.2.2 attention keeps K and V at
    // 32 wide instead of repeated to 64: 2 x 2 bytes x 128 x 32 less.
    const auto m = llama();
    auto t = torchtitan();
    auto full = [&](const std::string& release) {
        t.framework_version = release;
        return model::layer_activations(m, t, kDp2).full;
    };
    CHECK(full("") - full("0.2") == Approx(2 * 4 * 128 * 64));
    CHECK(full("0.2.1") == Approx(full("0.2")));
    CHECK(full("0.2") - full("0.2.2") == Approx(2 * 2 * 128 * 32));
    // Under DeepSpeed a Hugging Face block keeps the upcast norm and repeated K and V.
    auto ds = training(Framework::deepspeed, 128, 2);
    auto fsdp_old = torchtitan();
    fsdp_old.framework_version = "";
    CHECK(model::layer_activations(m, ds, kDp2).full == Approx(model::layer_activations(m, fsdp_old, kDp2).full));
}

TEST_CASE("FSDP2's communication streams keep their freed blocks reserved", "[model]") {
    // Reserved adds the compute stream's 12% of its dynamic memory and, for the two streams, their
    // two largest units each: gathered in 16 bits (the embedding and a block) and reduce-scattered
    // in fp32 (the larger of the embedding and output, and a block).
    const auto m = llama();
    auto t = torchtitan();
    auto pools = [&](const Layout& l) {
        const auto allocated = model::estimate_memory(m, t, l, Measure::allocated).stages.at(0);
        const auto reserved = model::estimate_memory(m, t, l, Measure::reserved).stages.at(0);
        REQUIRE(reserved.phase == allocated.phase);
        return reserved.overhead - allocated.overhead - 0.12 * (allocated.activations + allocated.logits);
    };
    const double layer = model::layer_params(m, 1), embedding = model::embedding_params(m, 1, false);
    const double output = model::output_params(m, 1, 1, false);
    REQUIRE(embedding > layer);
    CHECK(pools(kDp2) == Approx(2 * (std::max(embedding, output) + layer) + 4 * (std::max(embedding, output) + layer)));
    // Before 0.2 the root gathers the embedding and output once and keeps them; it reduce-scatters them
    // together, last.
    t.framework_version = "";
    CHECK(pools(kDp2) == Approx(2 * (layer + layer) + 4 * (embedding + output + layer)));
    // Without sharding there is nothing to gather.
    CHECK(pools(Layout{1, 1, 1, 1, 1, 1, {}}) == Approx(0).margin(1e-6));
}
