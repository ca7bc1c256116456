#include <catch2/catch.hpp>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/model/profile_units.hpp>

using namespace hetsched;

namespace {

std::vector<std::string> warnings(const std::string& rows, const catalog::ModelSpec& m, long seq_len) {
    const auto cat = catalog::named_catalog("juchi");
    const auto prof = model::read_layer_profile(io::CsvTable::parse({"p.csv", "gpu,layer,forward_s,backward_s\n" + rows}),
                                                m.layers, 1, cat);
    model::Training t;
    t.seq_len = seq_len;
    t.global_batch = 8;
    return model::implausible_profile_times(prof, m, t, cat, 0.45);
}

}  // namespace

TEST_CASE("a profile in milliseconds written as seconds is told, real slow layers are not", "[place]") {
    const auto llama = catalog::find_model("espresso-llama-1.3b");
    // A 1.3B layer at sequence 2048: some 0.2 TFLOP a forward, a few ms on an A30.
    CHECK(warnings("A30,*,0.004,0.008\n", llama, 2048).empty());
    const auto ms = warnings("A30,*,4.0,8.0\nRTX-3090,*,0.004,0.008\n", llama, 2048);
    REQUIRE(ms.size() == 1);  // the type whose rows are milliseconds only
    CHECK_THAT(ms[0], Catch::StartsWith("profile 'p.csv': A30's layers take 4 s a forward on average") &&
                          Catch::Contains("are they milliseconds?"));
    // A small model's launch-bound layers run tens of times over their roofline, in well under 10 ms.
    catalog::ModelSpec tiny = llama;
    tiny.name = "tiny", tiny.layers = 2, tiny.hidden = 128, tiny.heads = 2, tiny.kv_heads = 2, tiny.ffn_hidden = 512;
    CHECK(warnings("A30,*,0.0009,0.0018\n", tiny, 128).empty());
    CHECK(warnings("A30,*,0.9,1.8\n", tiny, 128).size() == 1);
}
