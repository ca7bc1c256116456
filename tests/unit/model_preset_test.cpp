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
                        {"opt-6.7b", 6.66, 0.01},      {"gpt-neo-2.7b", 2.65, 0.02},  {"gpt3-175b", 174.6, 0.01}};
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
