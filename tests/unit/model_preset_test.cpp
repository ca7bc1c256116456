#include <catch2/catch.hpp>

#include <hetsched/catalog/model_preset.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/model/transformer.hpp>

using namespace hetsched;

TEST_CASE("presets have the published parameter counts", "[catalog]") {
    struct Row { const char* name; double billions; double tolerance; };
    const Row rows[] = {{"gpt2", 0.124, 0.01},        {"gpt2-xl", 1.56, 0.02},       {"llama-2-7b", 6.74, 0.01},
                        {"llama-2-13b", 13.0, 0.01},  {"llama-2-70b", 69.0, 0.01},   {"llama-3.1-8b", 8.03, 0.01},
                        {"llama-3.1-70b", 70.6, 0.01}, {"llama-3.1-405b", 405.8, 0.01}, {"bert-large", 0.335, 0.03},
                        {"opt-6.7b", 6.66, 0.01},      {"gpt-neo-2.7b", 2.65, 0.02},  {"gpt3-175b", 174.6, 0.01},
                        {"qwen3-0.6b", 0.596, 0.01},   {"qwen3-8b", 8.19, 0.01},      {"qwen3-32b", 32.76, 0.01},
                        {"llama-7b", 6.74, 0.01},      {"llama-33b", 32.5, 0.01},     {"llama-65b", 65.2, 0.01}};
    for (const auto& r : rows) {
        INFO(r.name);
        CHECK(model::total_params(catalog::find_model(r.name)) / 1e9 == Approx(r.billions).epsilon(r.tolerance));
    }
}

TEST_CASE("model names match exactly but for case, and misspellings only get hints", "[catalog]") {
    CHECK(catalog::find_model("LLaMA-2-7B").layers == 32);
    CHECK_THROWS_WITH(catalog::find_model("llama2 7b"), Catch::Contains("did you mean 'llama-2-7b'"));
    // Punctuation matters: gpt3-13b is not gpt3-1.3b, and a mangled name is not a match.
    CHECK(model::total_params(catalog::find_model("gpt3-13b")) / 1e9 == Approx(13).epsilon(0.05));
    CHECK(model::total_params(catalog::find_model("gpt3-1.3b")) / 1e9 == Approx(1.3).epsilon(0.05));
    CHECK_THROWS_AS(catalog::find_model("gpt3-1.3b."), UsageError);
    CHECK_THROWS_AS(catalog::find_model("gpt3-1\xff.3b"), UsageError);
    CHECK_THROWS_AS(catalog::find_model(""), UsageError);
    CHECK_THROWS_WITH(catalog::find_model("llama-2-7"), Catch::Contains("did you mean 'llama-2-7b'"));
    CHECK(catalog::find_model("llama-3.1-70b").kv_heads == 8);
    CHECK_FALSE(catalog::find_model("llama-3.1-8b").tied_embeddings);
}

TEST_CASE("heads wider than hidden / heads: Qwen3's 128 for every size", "[catalog]") {
    // qwen3-0.6b: hidden 1024, 16 query heads and 8 kv heads of 128: wq 1024 x 2048, wk and wv 1024 x 1024
    // each, wo 2048 x 1024, the SwiGLU MLP 3 x 1024 x 3072, two RMSNorms of 1024, and the query and key
    // norms of 128.
    const auto& m = catalog::find_model("qwen3-0.6b");
    CHECK(model::q_width(m) == 2048);
    CHECK(model::kv_width(m) == 1024);
    CHECK(model::layer_params(m, 1) ==
          1024.0 * (2048 + 2 * 1024) + 2048.0 * 1024 + 3 * 1024.0 * 3072 + 2 * 1024 + 2 * 128);
    // QK^T and PV over 2048 queries of width 2048, each against 2048 keys.
    CHECK(model::attention_flops(m, 2048, 2048) == 2 * 2 * 2048.0 * 2048 * 2048);
    CHECK(model::layer_matmul_flops(m, 1) == 2 * (1024.0 * 4096 + 2048.0 * 1024 + 3 * 1024.0 * 3072));
    // Without head_dim a head is hidden / heads wide: the same as giving that width.
    auto plain = m, given = m;
    plain.head_dim = 0;
    given.head_dim = 64;
    CHECK(model::q_width(plain) == 1024);
    CHECK(model::layer_params(plain, 1) == model::layer_params(given, 1));
    CHECK(model::attention_flops(plain, 8, 8) == model::attention_flops(given, 8, 8));
}
