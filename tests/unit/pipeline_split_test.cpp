#include <catch2/catch.hpp>

#include <hetsched/model/memory.hpp>
#include <hetsched/model/pipeline_split.hpp>

using namespace hetsched;

namespace {

/// A 24-layer LLaMA-style model: 12,847,104 parameters a decoder layer, 32,768,000 in the embedding
/// and as many in the untied head.
catalog::ModelSpec llama24() {
    catalog::ModelSpec m;
    m.layers = 24, m.hidden = 1024, m.heads = 16, m.kv_heads = 16, m.ffn_hidden = 2816, m.vocab = 32000;
    m.gated_mlp = true, m.rms_norm = true, m.linear_bias = false, m.tied_embeddings = false, m.dropout = 0;
    m.learned_positions = 0;
    return m;
}

model::Training deepspeed() {
    model::Training t;
    t.framework = model::Framework::deepspeed;
    t.seq_len = 2048;
    t.global_batch = 32;
    t.recompute = model::Recompute::full;
    return t;
}

std::vector<long> split(const catalog::ModelSpec& m, const model::Training& t, int pp) {
    return model::default_split(m, t, model::Layout{1, pp, 1, 1, 1, 2, {}});
}

}  // namespace

TEST_CASE("partition_balanced cuts where the largest and smallest parts differ least, later cuts winning ties", "[model]") {
    CHECK(model::partition_balanced({1, 1, 1, 1}, 2) == std::vector<long>{0, 2, 4});
    CHECK(model::partition_balanced({3, 1, 1, 1}, 2) == std::vector<long>{0, 1, 4});
    CHECK(model::partition_balanced({1, 1, 1}, 2) == std::vector<long>{0, 2, 3});  // 1|2 and 2|1 tie
    CHECK(model::partition_balanced({5, 1, 1, 1, 1, 5}, 3) == std::vector<long>{0, 1, 5, 6});
    CHECK(model::partition_balanced({1, 1}, 3) == std::vector<long>{0, 1, 2, 2});  // fewer items than parts
}

TEST_CASE("DeepSpeed's PipelineModule splits a LLaMA-style model by parameters, the ends counting as layers", "[model]") {
    // [embedding, 24 layers, norm, head]: DeepSpeed's own partition_balanced gives these boundaries
    // (0 6 13 20 27 at pp 4, 0 8 18 27 at pp 3, 0 13 27 at pp 2).
    const auto m = llama24();
    const auto t = deepspeed();
    CHECK(split(m, t, 4) == std::vector<long>{5, 7, 7, 5});
    CHECK(split(m, t, 3) == std::vector<long>{7, 10, 7});
    CHECK(split(m, t, 2) == std::vector<long>{12, 12});
    CHECK(split(m, t, 1) == std::vector<long>{24});
    // Boundaries 0 2 6 10 14 18 21 24 27 at pp 8 (DeepSpeed before 0.12.5 cut this differently).
    CHECK(split(m, t, 8) == std::vector<long>{1, 4, 4, 4, 4, 3, 3, 1});
    // estimate_memory places that split unless the layout gives one.
    model::Layout l{1, 4, 1, 1, 1, 2, {}};
    const auto est = model::estimate_memory(m, t, l, model::Measure::allocated);
    CHECK(est.stages[1].first_layer == 5);
    CHECK(est.stages[1].last_layer == 11);
    l.layers_per_stage = {6, 6, 6, 6};
    CHECK(model::estimate_memory(m, t, l, model::Measure::allocated).stages[1].first_layer == 6);
}

TEST_CASE("Megatron-LM and torchtitan split evenly, Megatron-DeepSpeed's GPT by transformer layers", "[model]") {
    auto m = llama24();
    auto t = deepspeed();
    t.framework = model::Framework::megatron;
    CHECK(split(m, t, 4) == std::vector<long>{6, 6, 6, 6});
    t.framework = model::Framework::fsdp;
    CHECK(split(m, t, 5) == std::vector<long>{4, 5, 5, 5, 5});
    // Megatron-DeepSpeed's GPT partitions by transformer layers, later cuts winning ties: the first
    // stages take the extra layers.
    t.framework = model::Framework::deepspeed;
    m.gated_mlp = false, m.rms_norm = false;
    CHECK(split(m, t, 4) == std::vector<long>{6, 6, 6, 6});
    m.layers = 26;
    CHECK(split(m, t, 4) == std::vector<long>{7, 7, 6, 6});
    m.layers = 10;
    CHECK(split(m, t, 4) == std::vector<long>{3, 3, 2, 2});
    // A model so deep that DeepSpeed's cubic partition would take minutes is split evenly.
    m = llama24();
    m.layers = 3000;
    CHECK(split(m, t, 8) == std::vector<long>(8, 375));
    // A split that would leave a stage with only the embedding or the head falls back to even.
    m = llama24();
    m.layers = 4;
    m.vocab = 1000000;
    CHECK(split(m, t, 4) == std::vector<long>{1, 1, 1, 1});
}
