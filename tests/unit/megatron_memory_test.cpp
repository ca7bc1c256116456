// The memory mechanisms Megatron-LM adds, by release: fp16 gradients, unfused softmax, the global buffer.
#include <catch2/catch.hpp>

#include <hetsched/model/layer_activations.hpp>

#include "memory_fixture.hpp"

using namespace hetsched;
using namespace hetsched::model::test;
using model::Phase;

TEST_CASE("Megatron-LM before 2.6 flattens its fp16 grads to all-reduce: before 2.5 keeps fp32 grads", "[model]") {
    auto stage = [](const std::string& version) {
        auto t = training(Framework::megatron, 1, 2);
        t.precision = "fp16";
        t.framework_version = version;
        return model::estimate_memory(gpt(), t, kStepLayout, Measure::allocated).stages.at(0);
    };
    const double p = stage_params(gpt(), kStepLayout, 0, 4, true);
    const auto v20 = stage("2.0");
    CHECK(v20.phase == Phase::step);
    CHECK(v20.gradients == Approx((2 + 4) * p));  // fp16 grads and the master weights' fp32 grads
    CHECK(v20.comm_buffers == Approx(2 * p));      // the flat copy of every fp16 grad
    const auto v25 = stage("2.5");
    CHECK(v25.gradients == Approx(2 * p));
    CHECK(v25.comm_buffers == Approx(4 * p));  // the step's new fp32 grads, beside the live fp16 ones
    for (const char* current : {"2.6", "0.12.0", "23.04"}) {  // 0.x: Megatron-Core
        CHECK(stage(current).gradients == Approx(2 * p));
        CHECK(stage(current).comm_buffers == Approx(4 * p));
    }
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

TEST_CASE("Megatron's unfused fp32 softmax saves 4 bytes a score more and back-propagates with 16", "[model]") {
    // gpt() with 8 tokens of vocabulary (padded to 128) and a wide MLP (so that no loss outweighs a
    // layer), fp16, no flash attention, one micro-batch of 1024 tokens on one GPU. Saved a score: the
    // fp32 softmax (4), dropout's mask (1) and output (2) = 7 bytes; fused, the 16-bit softmax, mask
    // and output = 5.
    auto m = gpt();
    m.vocab = 8;
    m.ffn_hidden = 1024;
    const double s = 1024, h = 64, f = 1024, scores = 4 * s * s;  // 4 heads
    auto peak = [&](model::Recompute r, bool fp32) {
        auto t = training(Framework::megatron, 1024, 1);
        t.precision = "fp16";
        t.flash_attention = false;
        t.recompute = r;
        t.unfused_fp32_softmax = fp32;
        const auto st = model::estimate_memory(m, t, Layout{1, 1, 1, 1, 1, 1, {}}, Measure::allocated).stages.at(0);
        REQUIRE(st.phase == Phase::backward);
        return st.activations;
    };
    // A layer's backward holds at the softmax a score's 16 bytes (fp32: torch's backward makes grad x
    // output beside its saved output, the incoming gradient and the one it writes) or, fused with dropout, 7 (the
    // saved softmax, dropout's mask, the probabilities' gradient and dropout's), less the 7 or 5 it
    // saved, besides V's gradient and the incoming one (2 bytes each): more than FC1's gradients.
    const double grads = 2 * 2 * s * h, fp32 = (16 - 7) * scores + grads, fused = (7 - 5) * scores + grads;
    REQUIRE(fused > 2 * s * f + 2 * s * h);
    // Nothing recomputed: 4 layers store 2 bytes a score more.
    CHECK(peak(model::Recompute::none, true) - peak(model::Recompute::none, false) ==
          Approx(4 * 2 * scores + fp32 - fused));
    // Selective recompute stores no scores and replays one layer's: 7 bytes a score against 5.
    CHECK(peak(model::Recompute::selective, true) - peak(model::Recompute::selective, false) ==
          Approx(2 * scores + fp32 - fused));
    // Full recompute replays the whole layer, which then holds the same as a kept one.
    CHECK(peak(model::Recompute::full, true) - peak(model::Recompute::full, false) ==
          Approx(2 * scores + fp32 - fused));
}

TEST_CASE("a 16-bit softmax back-propagates beside its gradient: Megatron's fused kernel writes it in place", "[model]") {
    // gpt() without dropout, wide MLP, 8 tokens of vocabulary, fp16, no flash, 1024 tokens, nothing
    // recomputed: each of 4 layers saves its 16-bit softmax (2 bytes a score); at its backward the
    // softmax and its gradient are live (in place: 4 bytes), and torch's out-of-place backward adds 2.
    auto m = gpt();
    m.vocab = 8;
    m.ffn_hidden = 1024;
    m.dropout = 0;
    const double s = 1024, h = 64, scores = 4 * s * s;
    auto stage = [&](Framework f) {
        auto t = training(f, 1024, 1);
        t.precision = "fp16";
        t.flash_attention = false;
        if (f == Framework::deepspeed) t.deepspeed_model = "hf";
        return model::estimate_memory(m, t, Layout{1, 1, 1, 1, 1, 1, {}}, Measure::allocated).stages.at(0);
    };
    const auto megatron = stage(Framework::megatron), hf = stage(Framework::deepspeed);
    REQUIRE(megatron.phase == Phase::backward);
    REQUIRE(hf.phase == Phase::backward);
    // The layer's kept peak beyond its stored tensors: (4 - 2) or (6 - 2) bytes a score, V's gradient
    // and the incoming one; the stash below is the same in both (DeepSpeed's fp16 step aside, which is
    // in the states).
    CHECK(hf.activations - megatron.activations == Approx(2 * scores));
    CHECK(megatron.activations > 4 * 2 * scores + 2 * scores + 2 * 2 * s * h);
}

TEST_CASE("an unfused fp32 softmax needs unfused attention and 16-bit scores", "[model]") {
    auto t = training(Framework::megatron);
    t.unfused_fp32_softmax = true;
    CHECK_THROWS_WITH(model::validate_training(t), Catch::Contains("unfused_fp32_softmax needs flash_attention off"));
    t.flash_attention = false;
    CHECK_NOTHROW(model::validate_training(t));
    t.precision = "fp32";
    CHECK_THROWS_WITH(model::validate_training(t), Catch::Contains("needs a 16-bit precision"));
}

TEST_CASE("Megatron-LM 2.x's local DDP keeps last iteration's fp16 grads and adds each new weight gradient", "[model]") {
    // gpt() with a wide MLP and 8 tokens of vocabulary, fp16, one GPU, Megatron-LM main of 2021 (2.1):
    // with 4 micro-batches rather than 1, a layer's backward holds last iteration's 16-bit grads
    // (2 bytes a parameter, through main_grad) and FC1's new 16-bit weight gradient (64 x 1024).
    auto m = gpt();
    m.vocab = 8;
    m.ffn_hidden = 1024;
    auto stage = [&](long global_batch, bool first, const std::string& version, long seq = 128) {
        auto t = training(Framework::megatron, seq, global_batch);
        t.precision = "fp16";
        t.framework_version = version;
        t.first_iteration = first;
        return model::estimate_memory(m, t, Layout{1, 1, 1, 1, 1, 1, {}}, Measure::allocated).stages.at(0);
    };
    const double params = stage_params(m, Layout{1, 1, 1, 1, 1, 1, {}}, 0, 4, true), wgrad = 2.0 * 64 * 1024;
    const auto one = stage(1, false, "2.1"), four = stage(4, false, "2.1");
    REQUIRE(one.phase == Phase::backward);
    REQUIRE(four.phase == Phase::backward);
    CHECK(four.gradients - one.gradients == Approx(2 * params));
    CHECK(four.activations - one.activations == Approx(wgrad));
    // The first iteration has no grads from before (its backward, without the optimizer's state, peaks
    // only on longer sequences); the new weight gradient is still added.
    const auto first_one = stage(1, true, "2.1", 1024), first_four = stage(4, true, "2.1", 1024);
    REQUIRE(first_one.phase == Phase::backward);
    REQUIRE(first_four.phase == Phase::backward);
    CHECK(first_four.gradients == Approx(first_one.gradients));
    CHECK(first_four.activations - first_one.activations == Approx(wgrad));
    // Up to the 2.0 tag no main_grad points at the old grads; the new weight gradient is still added.
    for (const char* old : {"1.1", "2.0"}) {
        const auto old_one = stage(1, false, old), old_four = stage(4, false, old);
        CHECK(old_four.gradients == Approx(old_one.gradients));
        CHECK(old_four.activations - old_one.activations == Approx(wgrad));
    }
    // 2.5 still has both.
    CHECK(stage(4, false, "2.5").gradients - stage(1, false, "2.5").gradients == Approx(2 * params));
    // From 2.6 the contiguous buffer holds the grads: neither.
    const auto buffer_one = stage(1, false, "2.6"), buffer_four = stage(4, false, "2.6");
    CHECK(buffer_four.total() == Approx(buffer_one.total()));
}

TEST_CASE("Megatron's global buffer: the local attention's scores input on every stage, the SP gather", "[model]") {
    // gpt() (4 heads, h 64) at 128 tokens, micro-batch 2, over tp 2 x pp 2, no flash attention. The
    // local implementation keeps a 16-bit buffer of 2 x 2 heads x 128 x 128 scores on every stage
    // (larger than the 128 x 2 x 64 sequence-parallel gather); Transformer Engine's layers gather into
    // their own tensors, so only the output layer's gather (the last stage) stays, and only with
    // sequence parallelism.
    auto comm = [](bool local, bool sp, const std::string& version, int stage) {
        auto t = training(Framework::megatron, 128, 8);
        t.flash_attention = false;
        t.local_impl = local;
        t.seq_parallel = sp;
        t.framework_version = version;
        return model::estimate_memory(gpt(), t, Layout{2, 2, 1, 1, 1, 2, {}}, Measure::allocated).stages.at(stage).comm_buffers;
    };
    const double scores = 2.0 * 2 * 2 * 128 * 128, gather = 2.0 * 128 * 2 * 64;
    CHECK(comm(true, false, "", 0) - comm(false, false, "", 0) == Approx(scores));
    CHECK(comm(true, true, "", 1) - comm(false, false, "", 1) == Approx(scores));
    CHECK(comm(false, true, "", 0) == Approx(comm(false, false, "", 0)));
    CHECK(comm(false, true, "", 1) - comm(false, false, "", 1) == Approx(gather));
    // Before May 2022 (2.x) the buffer did not exist; Megatron-Core releases (0.x) have it.
    CHECK(comm(true, false, "2.5", 0) == Approx(comm(false, false, "2.5", 0)));
    CHECK(comm(true, false, "0.9", 0) - comm(false, false, "0.9", 0) == Approx(scores));
    // With the legacy model's flash attention there are no scores: only the gather stays.
    auto flash = training(Framework::megatron, 128, 8);
    flash.local_impl = true;
    flash.seq_parallel = true;
    const auto with_flash = model::estimate_memory(gpt(), flash, Layout{2, 2, 1, 1, 1, 2, {}}, Measure::allocated);
    flash.local_impl = false;
    const auto te_flash = model::estimate_memory(gpt(), flash, Layout{2, 2, 1, 1, 1, 2, {}}, Measure::allocated);
    CHECK(with_flash.stages.at(0).comm_buffers - te_flash.stages.at(0).comm_buffers == Approx(gather));
    // The two share the buffer, so the larger sets its size: a wide model (h 4096, 4 heads) at 64
    // tokens gathers 64 x 2 x 4096 elements, more than its 2 x 2 x 64 x 64 scores.
    auto wide = gpt();
    wide.hidden = 4096, wide.ffn_hidden = 4 * 4096;
    auto wt = training(Framework::megatron, 64, 8);
    wt.flash_attention = false;
    wt.seq_parallel = true;
    wt.local_impl = true;
    const double local_wide = model::estimate_memory(wide, wt, Layout{2, 2, 1, 1, 1, 2, {}}, Measure::allocated).stages.at(0).comm_buffers;
    wt.local_impl = false;
    const double te_wide = model::estimate_memory(wide, wt, Layout{2, 2, 1, 1, 1, 2, {}}, Measure::allocated).stages.at(0).comm_buffers;
    CHECK(local_wide - te_wide == Approx(2.0 * 64 * 2 * 4096));
    auto t = training(Framework::fsdp);
    t.local_impl = true;
    CHECK_THROWS_WITH(model::validate_training(t), Catch::Contains("transformer_impl local applies to megatron"));
    auto cp = training(Framework::megatron, 128, 8);
    cp.local_impl = true;
    CHECK_THROWS_WITH(model::estimate_memory(gpt(), cp, Layout{1, 1, 1, 2, 1, 1, {}}, Measure::allocated),
                      Catch::Contains("local implementation has no context parallelism"));
}

TEST_CASE("Transformer Engine's cuBLAS workspace: 32 MiB from compute capability 9.0, 4 MiB below", "[model]") {
    // Megatron-LM's layers under Transformer Engine (the default implementation, current release)
    // allocate one workspace beside torch's two 32 MiB ones; an unknown GPU counts as Hopper or later.
    auto t = training(Framework::megatron, 1, 2);
    auto overhead = [&](double capability) {
        t.compute_capability = capability;
        return model::estimate_memory(gpt(), t, kStepLayout, Measure::allocated).stages.at(0).overhead;
    };
    const double mib = 1024.0 * 1024;
    CHECK(overhead(9.0) == Approx((64 + 32) * mib));
    CHECK(overhead(10.0) == Approx((64 + 32) * mib));
    CHECK(overhead(0) == Approx((64 + 32) * mib));
    CHECK(overhead(8.0) == Approx((64 + 4) * mib));
    // torch's own two (forward and autograd threads), at its default, are 8 MiB + 128 KiB each below 9.0.
    t.cublas_workspace_config = "default";
    CHECK(overhead(8.0) == Approx(2 * 8.125 * mib + 4 * mib));
    CHECK(overhead(9.0) == Approx((64 + 32) * mib));
    t.cublas_workspace_config.clear();
    t.local_impl = true;  // Megatron-LM's own layers: no Transformer Engine
    CHECK(overhead(9.0) == Approx(64 * mib));
    t.local_impl = false;
    t.framework_version = "2.5";  // before Transformer Engine
    CHECK(overhead(9.0) == Approx(64 * mib));
    auto ds = training(Framework::deepspeed, 1, 2);
    ds.compute_capability = 9.0;
    CHECK(model::estimate_memory(gpt(), ds, kStepLayout, Measure::allocated).stages.at(0).overhead == Approx(64 * mib));
}

TEST_CASE("torch's cuBLAS workspaces: CUBLAS_WORKSPACE_CONFIG, torch's default by compute capability, else 32 MiB",
          "[model]") {
    auto t = training(Framework::megatron, 1, 2);
    const double mib = 1024.0 * 1024;
    t.compute_capability = 8.0;  // not said: 32 MiB on any GPU
    CHECK(model::torch_cublas_workspace(t) == Approx(32 * mib));
    t.cublas_workspace_config = "default";  // unset: torch's default for the GPU
    t.compute_capability = 9.0;
    CHECK(model::torch_cublas_workspace(t) == Approx(32 * mib));
    t.compute_capability = 0;  // unknown: Hopper or later
    CHECK(model::torch_cublas_workspace(t) == Approx(32 * mib));
    t.compute_capability = 10.0;
    CHECK(model::torch_cublas_workspace(t) == Approx(32 * mib));
    t.compute_capability = 8.0;  // ":4096:2:16:8": 2 x 4096 KiB + 8 x 16 KiB
    CHECK(model::torch_cublas_workspace(t) == Approx(8192.0 * 1024 + 128 * 1024));
    t.cublas_workspace_config = ":4096:8";  // what deterministic runs set: 8 x 4 MiB on any GPU
    CHECK(model::torch_cublas_workspace(t) == Approx(32 * mib));
    t.cublas_workspace_config = ":16:8";
    CHECK(model::torch_cublas_workspace(t) == Approx(128 * 1024));
    t.cublas_workspace_config = ":4096:2:16:8";
    CHECK(model::torch_cublas_workspace(t) == Approx(8192.0 * 1024 + 128 * 1024));
    // The model holds two: an A100 run with the deterministic setting sheds none of them.
    auto mt = training(Framework::megatron, 1, 2);
    mt.compute_capability = 8.0;
    mt.cublas_workspace_config = ":4096:8";
    CHECK(model::estimate_memory(gpt(), mt, kStepLayout, Measure::allocated).stages.at(0).overhead ==
          Approx((64 + 4) * mib));
    for (const char* bad : {"4096:8", ":4096", ":4096:8:", ":a:8", "::8", ":4096:8 ", ":1234567890:1", "Default"}) {
        t.cublas_workspace_config = bad;
        CHECK(model::torch_cublas_workspace(t) < 0);
        CHECK_THROWS_WITH(model::validate_training(t),
                          Catch::Contains("cublas_workspace_config must be CUBLAS_WORKSPACE_CONFIG's") &&
                              Catch::Contains(std::string("got '") + bad + "'"));
    }
}

TEST_CASE("Transformer Engine below compute capability 8.0 runs unfused attention, torch's SDPA does not", "[model]") {
    // gpt() at 128 tokens, one sequence a micro-batch, bf16, tp 1. Transformer Engine has no flash or
    // cuDNN attention before Ampere, so its DotProductAttention keeps, per score, the softmax (2 bytes),
    // dropout's mask (1) and the dropped-out probabilities (2), and no flash log-sum-exp (4 bytes a
    // row and head).
    const Layout l{1, 1, 1, 1, 1, 1, {}};
    auto t = training(Framework::megatron, 128, 1);
    auto full = [&](double capability) {
        t.compute_capability = capability;
        return model::layer_activations(gpt(), t, l).full;
    };
    const double s = 128, a = 4, scores = (2 + 1 + 2) * a * s * s, lse = 4 * s * a;
    CHECK(full(7.0) - full(8.0) == Approx(scores - lse));
    t.compute_capability = 7.5;
    CHECK_FALSE(model::runs_fused_attention(t));
    CHECK(full(7.5) == Approx(full(7.0)));
    CHECK(full(0) == Approx(full(8.0)));  // unknown: counted as fused
    // The same as asking for unfused attention outright.
    t.flash_attention = false;
    CHECK(full(8.0) == Approx(full(7.0)));
    t.flash_attention = true;
    // Megatron-LM's own layers (no Transformer Engine) and torch's scaled_dot_product_attention, which
    // falls back to its memory-efficient kernel (a log-sum-exp per row, as flash), are unchanged.
    t.local_impl = true;
    CHECK(full(7.0) == Approx(full(8.0)));
    t.local_impl = false;
    t.framework = Framework::fsdp;
    CHECK(full(7.0) == Approx(full(8.0)));
}
