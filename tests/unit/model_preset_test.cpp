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

TEST_CASE("model names are matched loosely and misspellings get hints", "[catalog]") {
    CHECK(catalog::find_model("LLaMA-2-7B").layers == 32);
    CHECK(catalog::find_model("llama2 7b").hidden == 4096);
    CHECK_THROWS_WITH(catalog::find_model("llama-2-7"), Catch::Contains("did you mean 'llama-2-7b'"));
    CHECK(catalog::find_model("llama-3.1-70b").kv_heads == 8);
    CHECK_FALSE(catalog::find_model("llama-3.1-8b").tied_embeddings);
}
