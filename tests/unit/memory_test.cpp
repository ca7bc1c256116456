#include <catch2/catch.hpp>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/model/memory.hpp>
#include <hetsched/model/transformer.hpp>

using namespace hetsched;
using model::Layout;
using model::Measure;

namespace {

catalog::ModelSpec tiny() {
    catalog::ModelSpec m;
    m.layers = 2;
    m.hidden = 64;
    m.heads = 4;
    m.kv_heads = 4;
    m.ffn_hidden = 256;
    m.vocab = 1000;
    return m;
}

/// Training of `global_batch` sequences of `seq_len` tokens, the rest at its defaults.
model::Training batch_of(long seq_len, long global_batch) {
    model::Training t;
    t.seq_len = seq_len;
    t.global_batch = global_batch;
    return t;
}

}  // namespace

TEST_CASE("frenzy method is the paper's formula", "[model]") {
    model::Training t;
    t.seq_len = 128;
    t.global_batch = 8;
    // W = 1000*64 + 2*(12*64^2 + 13*64) = 163968; 20W/2 = 1639680;
    // sBhl(10/2 + 24/4 + 5*4*128/(2*64*2)) = 131072 * 21 = 2752512.
    CHECK(model::frenzy_memory_bytes(tiny(), t, 2, 2) == Approx(4392192.0).epsilon(0.001));
    CHECK(model::frenzy_memory_bytes(tiny(), t, 1, 1) == Approx(20 * 163968.0 + 131072.0 * (10 + 24 + 40)));
    // As a breakdown: one stage, 2 + 2 + 16 bytes of model state per parameter over tp, the rest activations.
    auto est = model::estimate_memory(tiny(), t, {2, 1, 2, 1, 1, 4, {}}, Measure::device, model::Method::frenzy);
    REQUIRE(est.stages.size() == 1);
    CHECK(est.peak_bytes() == Approx(4392192.0));
    CHECK(est.stages[0].optimizer == Approx(16 * 163968.0 / 2));
    CHECK(est.stages[0].activations == Approx(2752512.0));
}

TEST_CASE("1F1B stages hold min(pp - i, m) micro-batches", "[model]") {
    auto m = tiny();
    m.layers = 8;
    model::Training t;
    t.seq_len = 128;
    t.global_batch = 16;
    auto est = model::estimate_memory(m, t, {1, 4, 1, 1, 1, 2, {}}, Measure::allocated);
    REQUIRE(est.stages.size() == 4);
    CHECK(est.stages[0].in_flight == 4);
    CHECK(est.stages[3].in_flight == 1);
    CHECK(est.stages[1].first_layer == 2);
    CHECK(est.stages[3].last_layer == 7);
    CHECK(est.stages[3].logits > 0);
    CHECK(est.stages[0].logits == 0);
    // Two micro-batches only: no stage holds more than two.
    auto few = model::estimate_memory(m, t, {1, 4, 1, 1, 1, 8, {}}, Measure::allocated);
    CHECK(few.stages[0].in_flight == 2);
    // Interleaving raises the first stage to (1 + (p-1)/(p v)) p micro-batches' worth.
    auto inter = model::estimate_memory(m, t, {1, 4, 1, 1, 2, 2, {}}, Measure::allocated);
    CHECK(inter.stages[0].in_flight == Approx(4 * (1 + 3.0 / 8)));
}

TEST_CASE("sharding divides model states by dp", "[model]") {
    auto m = tiny();
    m.vocab = 1024;  // no padding difference between frameworks
    model::Training t;
    t.seq_len = 128;
    t.global_batch = 16;
    auto plain = model::estimate_memory(m, t, {1, 1, 4, 1, 1, 1, {}}, Measure::allocated).stages[0];
    t.distributed_optimizer = true;
    auto distopt = model::estimate_memory(m, t, {1, 1, 4, 1, 1, 1, {}}, Measure::allocated).stages[0];
    CHECK(distopt.optimizer == Approx(plain.optimizer / 4));
    CHECK(distopt.weights == plain.weights);
    CHECK(plain.optimizer == Approx(plain.weights * 6));  // 12 bytes of fp32 states per 2-byte weight
    t.framework = model::Framework::fsdp;
    t.zero_stage = 3;
    CHECK_THROWS_WITH(model::estimate_memory(m, t, {1, 1, 4, 1, 1, 1, {}}, Measure::allocated),
                      Catch::Contains("distributed_optimizer is Megatron-LM's"));  // FSDP shards by zero_stage
    t.distributed_optimizer = false;
    auto fsdp = model::estimate_memory(m, t, {1, 1, 4, 1, 1, 1, {}}, Measure::allocated).stages[0];
    CHECK(fsdp.weights == Approx(plain.weights * 2 / 4));  // fp32 shards
}

TEST_CASE("context-parallel ranks shard the optimizer with the data-parallel ones", "[model]") {
    // Megatron-Core's distributed optimizer and DeepSpeed's ZeRO shard over dp x cp: dp 1 x cp 4
    // holds a quarter of the fp32 states, as dp 4 does.
    auto m = tiny();
    m.vocab = 1024;
    model::Training t;
    t.seq_len = 128;
    t.global_batch = 16;
    t.distributed_optimizer = true;
    const double dp4 = model::estimate_memory(m, t, {1, 1, 4, 1, 1, 1, {}}, Measure::allocated).stages[0].optimizer;
    const double cp4 = model::estimate_memory(m, t, {1, 1, 1, 4, 1, 1, {}}, Measure::allocated).stages[0].optimizer;
    CHECK(cp4 == Approx(dp4));
    t.distributed_optimizer = false;
    t.framework = model::Framework::deepspeed;
    t.zero_stage = 1;
    const double zero_dp4 = model::estimate_memory(m, t, {1, 1, 4, 1, 1, 1, {}}, Measure::allocated).stages[0].optimizer;
    const double zero_cp4 = model::estimate_memory(m, t, {1, 1, 1, 4, 1, 1, {}}, Measure::allocated).stages[0].optimizer;
    CHECK(zero_cp4 == Approx(zero_dp4));
}

TEST_CASE("recomputation and flash attention shrink activations", "[model]") {
    auto m = tiny();
    m.layers = 16;  // full recompute replays one layer: it pays off over many layers
    model::Training t;
    t.seq_len = 512;
    t.global_batch = 4;
    Layout l{1, 1, 1, 1, 1, 4, {}};
    auto act = [&] { return model::estimate_memory(m, t, l, Measure::allocated).stages[0].activations; };
    const double flash = act();
    t.flash_attention = false;
    const double unfused = act();
    t.recompute = model::Recompute::selective;
    const double selective = act();
    t.recompute = model::Recompute::full;
    const double full = act();
    CHECK(unfused > flash);
    CHECK(selective < unfused);
    CHECK(full < selective);
}

TEST_CASE("memory model rejects inconsistent layouts", "[model]") {
    auto m = tiny();
    model::Training t;
    t.seq_len = 128;
    t.global_batch = 10;
    CHECK_THROWS_WITH(model::estimate_memory(m, t, {3, 1, 1, 1, 1, 1, {}}, Measure::allocated),
                      "tp (3) must divide heads (4)");
    CHECK_THROWS_WITH(model::estimate_memory(m, t, {1, 1, 4, 1, 1, 1, {}}, Measure::allocated),
                      "global batch (10) is not divisible by micro_batch x dp (4)");
    CHECK_THROWS_AS(model::estimate_memory(m, t, {1, 4, 1, 1, 1, 1, {}}, Measure::allocated), DataError);
    m.kv_heads = 2;  // tp 4 would leave half a key/value head on a rank
    CHECK_THROWS_WITH(model::estimate_memory(m, t, {4, 1, 1, 1, 1, 1, {}}, Measure::allocated),
                      "tp (4) must divide kv_heads (2): each tensor-parallel rank holds whole key/value heads of its own");
    CHECK_NOTHROW(model::estimate_memory(m, t, {2, 1, 1, 1, 1, 1, {}}, Measure::allocated));
    m.kv_heads = 4;
    m.hidden = 66;
    CHECK_THROWS_WITH(model::estimate_memory(m, t, {1, 1, 1, 1, 1, 1, {}}, Measure::allocated),
                      "heads (4) must divide hidden (66), or give head_dim");
}

TEST_CASE("context parallelism cuts the sequence into 2 x cp chunks, DeepSpeed's into cp", "[model]") {
    auto m = tiny();
    model::Training t;
    t.seq_len = 12;
    t.global_batch = 4;
    // 12 tokens: cp 2 cuts four chunks of 3, cp 3 six of 2; 6 tokens divide by cp 2 but not into four.
    CHECK_NOTHROW(model::estimate_memory(m, t, {1, 1, 1, 2, 1, 1, {}}, Measure::allocated));
    CHECK_NOTHROW(model::estimate_memory(m, t, {1, 1, 1, 3, 1, 1, {}}, Measure::allocated));
    t.seq_len = 6;
    CHECK_THROWS_WITH(model::estimate_memory(m, t, {1, 1, 1, 2, 1, 1, {}}, Measure::allocated),
                      Catch::Contains("cp 2 needs seq_len (6) divisible by 2 x cp (4)"));
    // With sequence parallelism a cp rank's part of the sequence is split again over tp.
    t.seq_len = 16;
    t.seq_parallel = true;
    CHECK_NOTHROW(model::estimate_memory(m, t, {4, 1, 1, 2, 1, 1, {}}, Measure::allocated));
    t.seq_len = 24;  // cp 4: 6 tokens a rank, not divisible by tp 4, though 24 is
    CHECK_THROWS_WITH(model::estimate_memory(m, t, {4, 1, 1, 4, 1, 1, {}}, Measure::allocated),
                      Catch::Contains("tp (4) to divide the sequence each rank holds (seq_len / cp = 6)"));
    // DeepSpeed's sequence parallelism (Ulysses) cuts the sequence into cp parts, not 2 x cp.
    t.seq_parallel = false;
    t.seq_len = 6;
    t.framework = model::Framework::deepspeed;
    CHECK_NOTHROW(model::estimate_memory(m, t, {1, 1, 1, 2, 1, 1, {}}, Measure::allocated));
    CHECK_THROWS_WITH(model::estimate_memory(m, t, {1, 1, 1, 4, 1, 1, {}}, Measure::allocated),
                      "cp (4) must divide seq_len (6)");
}

TEST_CASE("interleaving needs a pipeline that runs it, and pp x vpp does not wrap", "[model]") {
    auto m = tiny();
    auto t = batch_of(128, 8);
    CHECK_THROWS_WITH(model::estimate_memory(m, t, {1, 1, 1, 1, 2, 1, {}}, Measure::allocated),
                      "vpp 2 interleaves pipeline stages: it needs pp above 1");
    // 65536 x 65536 is 2^32, 0 in 32 bits: still far beyond the layers.
    CHECK_THROWS_WITH(model::estimate_memory(m, t, {1, 65536, 1, 1, 65536, 1, {}}, Measure::allocated),
                      Catch::Contains("pp x vpp (4294967296) exceeds the number of layers"));
    m.layers = 4;
    CHECK_NOTHROW(model::estimate_memory(m, t, {1, 2, 1, 1, 2, 1, {}}, Measure::allocated));
    t.framework = model::Framework::deepspeed;
    CHECK_THROWS_WITH(model::estimate_memory(m, t, {1, 2, 1, 1, 2, 1, {}}, Measure::allocated),
                      Catch::Contains("no interleaved schedule"));
}

TEST_CASE("Megatron's interleaved schedule needs pp micro-batches, where 1F1B and torch's run fewer", "[model]") {
    auto m = tiny();
    m.layers = 8;
    auto t = batch_of(128, 8);
    CHECK_NOTHROW(model::estimate_memory(m, t, {1, 4, 1, 1, 2, 2, {}}, Measure::allocated));  // 4 micro-batches
    CHECK_THROWS_WITH(model::estimate_memory(m, t, {1, 4, 1, 1, 2, 4, {}}, Measure::allocated),
                      "Megatron-LM's interleaved schedule (vpp 2) needs at least pp (4) micro-batches, got 2");
    CHECK_NOTHROW(model::estimate_memory(m, t, {1, 4, 1, 1, 1, 4, {}}, Measure::allocated));
    // torch's interleaved schedule (torchtitan) runs them, with a larger bubble.
    t.framework = model::Framework::fsdp;
    t.zero_stage = 3;
    CHECK_NOTHROW(model::estimate_memory(m, t, {1, 4, 1, 1, 2, 4, {}}, Measure::allocated));
}

TEST_CASE("framework options are refused where the framework has no such setting", "[model]") {
    auto m = tiny();
    auto t = batch_of(128, 8);
    t.recompute = model::Recompute::full;
    t.checkpoint_every = 2;  // torchtitan's every N-th block
    CHECK_THROWS_WITH(model::estimate_memory(m, t, {1, 1, 1, 1, 1, 1, {}}, Measure::allocated),
                      "checkpoint_every (every N-th block) is torchtitan's, framework fsdp; got megatron");
    t.framework = model::Framework::fsdp;
    t.zero_stage = 3;
    CHECK_NOTHROW(model::estimate_memory(m, t, {1, 1, 1, 1, 1, 1, {}}, Measure::allocated));
    t.checkpoint_every = 1;
    t.flash_attention = false;
    t.unfused_fp32_softmax = true;  // Megatron's --attention-softmax-in-fp32
    CHECK_THROWS_WITH(model::estimate_memory(m, t, {1, 1, 1, 1, 1, 1, {}}, Measure::allocated),
                      Catch::Contains("unfused_fp32_softmax is Megatron's"));
    t.framework = model::Framework::deepspeed;
    t.zero_stage = 0;
    CHECK_NOTHROW(model::estimate_memory(m, t, {1, 1, 1, 1, 1, 1, {}}, Measure::allocated));
}

TEST_CASE("DeepSpeed's element counts are whole", "[model]") {
    model::Training t;
    t.seq_len = 128;
    t.global_batch = 8;
    t.framework = model::Framework::deepspeed;
    t.zero_stage = 3;
    t.sub_group_size = 1.5;
    CHECK_THROWS_WITH(model::validate_training(t), "sub_group_size must be a whole number of elements, got 1.5");
    t.sub_group_size = 0;
    t.reduce_bucket_size = 1e8 + 0.5;
    CHECK_THROWS_WITH(model::validate_training(t), Catch::StartsWith("reduce_bucket_size must be a whole number"));
    t.reduce_bucket_size = 1e8;
    CHECK_NOTHROW(model::validate_training(t));
}

TEST_CASE("FSDP2's sharding stages: 0 (none), 2 and 3, the optimizer alone (1) refused", "[model]") {
    model::Training t;
    t.seq_len = 128;
    t.global_batch = 8;
    t.framework = model::Framework::fsdp;
    for (int z : {0, 2, 3}) {
        t.zero_stage = z;
        CHECK_NOTHROW(model::validate_training(t));
    }
    t.zero_stage = 1;
    CHECK_THROWS_WITH(model::validate_training(t), Catch::StartsWith("zero_stage 1 is not FSDP2's"));
    t.framework = model::Framework::deepspeed;
    CHECK_NOTHROW(model::validate_training(t));
}

TEST_CASE("device measure adds context on top of reserved on top of allocated", "[model]") {
    auto m = tiny();
    model::Training t;
    t.seq_len = 128;
    t.global_batch = 8;
    Layout l{1, 1, 2, 1, 1, 4, {}};
    const double a = model::estimate_memory(m, t, l, Measure::allocated).peak_bytes();
    const double r = model::estimate_memory(m, t, l, Measure::reserved).peak_bytes();
    const double d = model::estimate_memory(m, t, l, Measure::device).peak_bytes();
    CHECK(a < r);
    CHECK(r < d);
}

TEST_CASE("a GPU trains in bf16 from compute capability 8.0, in fp8 from 8.9: unknown is no objection", "[model]") {
    model::Training t;
    auto cannot = [&](const std::string& precision, double capability) {
        t.precision = precision;
        t.compute_capability = capability;
        return !model::precision_unsupported(t).empty();
    };
    CHECK(cannot("bf16", 7.0));  // V100
    CHECK(cannot("bf16", 7.5));  // T4
    CHECK_FALSE(cannot("bf16", 8.0));
    CHECK_FALSE(cannot("fp16", 6.0));  // P100
    CHECK(cannot("fp8", 8.0));  // A100
    CHECK(cannot("fp8", 8.6));
    CHECK_FALSE(cannot("fp8", 8.9));  // L40S, L4
    CHECK_FALSE(cannot("fp8", 9.0));
    CHECK_FALSE(cannot("bf16", 0));  // not a CUDA part, or not known
    CHECK_FALSE(cannot("fp32", 3.7));
    // Where the catalog says whether a type has fp8 units (an AMD part), that decides fp8.
    t.fp8_units = 0;
    CHECK(cannot("fp8", 0));
    CHECK_FALSE(cannot("bf16", 0));
    t.fp8_units = 1;
    CHECK_FALSE(cannot("fp8", 0));
    // The default catalog's AMD parts: MI250X (CDNA2) has none, MI300X (CDNA3) has.
    const auto c = catalog::named_catalog("default");
    t.precision = "fp8";
    CHECK_FALSE(model::precision_unsupported(model::on_gpu(t, c.find("MI250X"))).empty());
    CHECK(model::precision_unsupported(model::on_gpu(t, c.find("MI300X"))).empty());
}

TEST_CASE("interleaved stages hold model chunks s, s + pp, ...: their layers are reported chunk by chunk", "[model]") {
    auto m = tiny();
    m.layers = 12;
    model::Training t;
    t.seq_len = 128;
    t.global_batch = 8;
    // 4 + 3 + 3 + 2 layers in 2 chunks a stage: chunk sizes 2|2, 2|1, 2|1, 1|1 in model-chunk order.
    const auto est = model::estimate_memory(m, t, {1, 4, 1, 1, 2, 1, {4, 3, 3, 2}}, Measure::allocated);
    using Chunks = std::vector<std::pair<long, long>>;
    CHECK(est.stages[0].chunks == Chunks{{0, 1}, {7, 8}});
    CHECK(est.stages[1].chunks == Chunks{{2, 3}, {9, 9}});
    CHECK(est.stages[2].chunks == Chunks{{4, 5}, {10, 10}});
    CHECK(est.stages[3].chunks == Chunks{{6, 6}, {11, 11}});
    CHECK(est.stages[1].first_layer == 2);
    CHECK(est.stages[1].last_layer == 9);
    // Without interleaving a stage's layers are one run.
    const auto plain = model::estimate_memory(m, t, {1, 4, 1, 1, 1, 1, {4, 3, 3, 2}}, Measure::allocated);
    CHECK(plain.stages[1].chunks.empty());
    CHECK(plain.stages[1].first_layer == 4);
    CHECK(plain.stages[1].last_layer == 6);
}

TEST_CASE("Megatron-DeepSpeed pads the vocabulary as Megatron does, a Hugging Face model under DeepSpeed does not", "[model]") {
    // 1000 rows pad to 1024 (128 x tp 1): a GPT-style model under DeepSpeed (Megatron-DeepSpeed) holds
    // the padded embedding, so vocab 1000 and 1024 weigh alike; as a Hugging Face model they differ.
    model::Training t;
    t.seq_len = 128;
    t.global_batch = 8;
    t.framework = model::Framework::deepspeed;
    auto m = tiny();
    const Layout l{1, 1, 1, 1, 1, 1, {}};
    const double padded = model::estimate_memory(m, t, l, Measure::allocated).peak_bytes();
    m.vocab = 1024;
    CHECK(model::estimate_memory(m, t, l, Measure::allocated).peak_bytes() == Approx(padded));
    t.deepspeed_model = "hf";
    const double hf_1024 = model::estimate_memory(m, t, l, Measure::allocated).peak_bytes();
    m.vocab = 1000;
    CHECK(model::estimate_memory(m, t, l, Measure::allocated).peak_bytes() < hf_1024);
}

TEST_CASE("Megatron under fp8 adds one byte a block parameter: TE's fp8 weight copies, not the embedding's", "[model]") {
    model::Training t;
    t.seq_len = 128;
    t.global_batch = 8;
    const Layout l{1, 1, 1, 1, 1, 1, {}};
    t.precision = "bf16";
    const double bf16 = model::estimate_memory(tiny(), t, l, Measure::allocated).stages.at(0).weights;
    t.precision = "fp8";
    const double fp8 = model::estimate_memory(tiny(), t, l, Measure::allocated).stages.at(0).weights;
    CHECK(fp8 - bf16 == Approx(2 * model::layer_params(tiny(), 1)));
}
