// What a torchtitan block keeps for its backward, by release and checkpointing: the eager block's norms
// and K/V, layer-level and per-op selective checkpointing (cuDNN attention, head widths, the query and
// key norms, the float8 casts' abs kept before 0.1.0).
#include <catch2/catch.hpp>

#include <hetsched/model/layer_activations.hpp>

#include "memory_fixture.hpp"

using namespace hetsched;
using namespace hetsched::model::test;
using model::Phase;

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
    // Under DeepSpeed a Hugging Face block keeps the upcast norm, and its sdpa attention K and V at
    // their own heads (enable_gqa), as torchtitan from 0.2.2.
    auto ds = training(Framework::deepspeed, 128, 2);
    auto fsdp_old = torchtitan();
    fsdp_old.framework_version = "";
    CHECK(model::layer_activations(m, fsdp_old, kDp2).full - model::layer_activations(m, ds, kDp2).full ==
          Approx(2 * 2 * 128 * 32));
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

TEST_CASE("per-op checkpointing keeps heads x head_dim wide queries and attention output", "[model]") {
    // llama() with heads of 32 instead of hidden / heads = 16: Q and the attention output are 128 wide,
    // K and V 64. torchtitan's per-op policy (eager, flash, no tp) keeps per token the block input (64),
    // the attention output (128) and its log-sum-exp (4 heads, fp32), and the outputs of wq (128), wv
    // (64), w1 (176) and w2 (64), 2 bytes each.
    auto m = llama();
    m.head_dim = 32;
    auto t = torchtitan(128, 2);
    t.recompute = model::Recompute::selective;
    const double s = 128, e = 2;
    const auto act = model::layer_activations(m, t, kDp2);
    CHECK(act.stored == Approx(s * (e * 64 + e * 128 + 4 * 4 + e * (128 + 64 + 176) + e * 64)));
    // Given as hidden / heads, the width changes nothing.
    auto plain = llama();
    auto given = llama();
    given.head_dim = 16;
    CHECK(model::layer_activations(given, t, kDp2).stored == Approx(model::layer_activations(plain, t, kDp2).stored));
    CHECK(model::layer_activations(given, t, kDp2).full == Approx(model::layer_activations(plain, t, kDp2).full));
}

TEST_CASE("the query and key norms keep wq's and wk's outputs and their 1/rms per head", "[model]") {
    // llama(): Q 4 heads of 16 (64 wide), K 2 heads (32). Without checkpointing, torch's fused RMSNorm
    // (torchtitan from 0.2) keeps its 16-bit input and an fp32 1/rms per head and token:
    // 2 x (64 + 32) + 4 x (4 + 2) = 216 bytes a token; before 0.2, torchtitan's own norm keeps the fp32
    // input and the normalised 16-bit tensor: 6 x (64 + 32) + 24 = 600.
    auto with = llama(), without = llama();
    with.qk_norm = true;
    auto t = torchtitan(128, 2);
    t.recompute = model::Recompute::none;
    const double tokens = 128.0 * static_cast<double>(kDp2.micro_batch);
    auto added = [&](const model::Training& tr) {
        return model::layer_activations(with, tr, kDp2).full - model::layer_activations(without, tr, kDp2).full;
    };
    CHECK(added(t) == Approx(216 * tokens));
    t.framework_version = "0.1.0";
    CHECK(added(t) == Approx(600 * tokens));
    // Megatron's fused norm keeps its 16-bit input (the 1/rms rows left out, as for the block norms).
    auto megatron = training(Framework::megatron, 128, 2);
    megatron.recompute = model::Recompute::none;
    CHECK(added(megatron) == Approx(2 * 96 * tokens));
    // Checkpointing the whole layer keeps only its input.
    t.recompute = model::Recompute::full;
    CHECK(model::layer_activations(with, t, kDp2).stored == Approx(model::layer_activations(without, t, kDp2).stored));
}

TEST_CASE("torchtitan's per-op checkpointing before 0.1.0 keeps every abs an eager float8 cast takes", "[model]") {
    // llama() (hidden 64, Q 64, K and V 32 wide, MLP 176, gated), 128 tokens a rank. Each float8 linear
    // takes abs of its input: wq, wk, wv, w1 and w3 the normalised 64, wo the attention output (64), w2
    // the MLP's 176, so 5 x 64 + 64 + 176 = 560 a token; and of its gathered weight:
    // 64 x (64 + 64) + 64 x 64 + 3 x 64 x 176 = 46,080. Each abs is 2 bytes an element.
    auto m = llama();
    auto t = torchtitan(128, 2);
    t.framework_version = "";
    t.recompute = model::Recompute::selective;
    t.precision = "fp8";
    const double s = 128;
    auto stored = [&](const model::Training& tr, const Layout& l) { return model::layer_activations(m, tr, l).stored; };
    auto without = t;
    without.framework_version = "0.1.0";
    CHECK(stored(t, kDp2) - stored(without, kDp2) == Approx(2 * (560 * s + 46080)));
    // Gathered in fp8, the weight is cast in FSDP's pre-forward hook, outside the checkpointed block.
    auto gathered = t;
    gathered.fp8_all_gather = true;
    auto gathered_without = without;
    gathered_without.fp8_all_gather = true;
    CHECK(stored(gathered, kDp2) - stored(gathered_without, kDp2) == Approx(2 * 560 * s));
    // float8 tensor parallelism over 2: the attention's and the MLP's inputs are cast once on their
    // sequence shard (64 / 2 each; torchtitan's tensor parallelism is always sequence-parallel), wo's
    // and w2's on their slice (64 / 2, 176 / 2); weights split too.
    const Layout tp2{2, 1, 1, 1, 1, 1, {}};
    CHECK(stored(t, tp2) - stored(without, tp2) == Approx(2 * ((2 * 64 + 64 + 176) / 2.0 * s + 46080 / 2.0)));
    // The abs are kept, never replayed: a layer's backward replays what it replayed before, so the
    // backward's peak, with all 4 layers stashed, holds 4 layers' abs more (llama() with 8 tokens of
    // vocabulary, so that a layer's backward is the peak).
    auto small = llama();
    small.vocab = 8;
    auto peak = [&](const model::Training& tr) {
        const auto st = model::estimate_memory(small, tr, kDp2, Measure::allocated).stages.at(0);
        REQUIRE(st.phase == Phase::backward);
        return st.activations;
    };
    CHECK(model::layer_activations(small, t, kDp2).replayed == Approx(model::layer_activations(small, without, kDp2).replayed));
    CHECK(peak(t) - peak(without) == Approx(4 * 2 * (560 * s + 46080)));
    // Compiled, the abs is fused into the max; bf16 has no casts.
    auto compiled = t;
    compiled.compiled = true;
    auto compiled_without = without;
    compiled_without.compiled = true;
    CHECK(stored(compiled, kDp2) == Approx(stored(compiled_without, kDp2)));
    auto bf16 = t;
    bf16.precision = "bf16";
    auto bf16_without = without;
    bf16_without.precision = "bf16";
    CHECK(stored(bf16, kDp2) == Approx(stored(bf16_without, kDp2)));
}

TEST_CASE("torchtitan's tensor parallelism is always sequence-parallel", "[model]") {
    // Its plan shards the norms and the residual stream by sequence with no option to turn it off: a
    // job that leaves seq_parallel unset is estimated as one that sets it. Megatron follows the flag.
    const auto m = llama();
    const Layout tp2{2, 1, 2, 1, 1, 1, {}};
    auto t = torchtitan();
    t.seq_parallel = false;
    auto sp = t;
    sp.seq_parallel = true;
    CHECK(model::sequence_parallel(t, tp2));
    CHECK(model::layer_activations(m, t, tp2).stored == Approx(model::layer_activations(m, sp, tp2).stored));
    CHECK(model::estimate_memory(m, t, tp2, Measure::reserved).peak_bytes() ==
          Approx(model::estimate_memory(m, sp, tp2, Measure::reserved).peak_bytes()));
    CHECK_FALSE(model::sequence_parallel(t, kDp2));  // no tensor parallelism
    auto meg = training(Framework::megatron, 128, 2);
    CHECK_FALSE(model::sequence_parallel(meg, tp2));
    meg.seq_parallel = true;
    CHECK(model::sequence_parallel(meg, tp2));
}
