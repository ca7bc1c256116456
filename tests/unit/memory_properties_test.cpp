// Directions the memory model may never take, over a small sweep of frameworks, layouts and
// settings (what the stop-61 property audit checked by hand, kept as a regression test): more tokens
// a micro-batch never need less, keeping fewer activations never needs more, and the measures nest.
// The micro-batch count is held fixed (2 a data-parallel rank): with one, ZeRO's and FSDP2's
// gradients do not exist yet at the loss, a documented exception.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <hetsched/catalog/model_preset.hpp>
#include <hetsched/model/memory.hpp>
#include <hetsched/model/training.hpp>

using namespace hetsched;
using model::Framework;
using model::Layout;
using model::Measure;

namespace {

struct Setting {
    Framework framework;
    int zero_stage;
    Layout layout;
};

std::vector<Setting> settings() {
    return {{Framework::megatron, 0, {2, 2, 2, 1, 1, 1, {}}}, {Framework::megatron, 0, {1, 1, 4, 1, 1, 1, {}}},
            {Framework::deepspeed, 0, {1, 2, 1, 1, 1, 1, {}}}, {Framework::deepspeed, 2, {1, 1, 4, 1, 1, 1, {}}},
            {Framework::fsdp, 3, {1, 1, 4, 1, 1, 1, {}}},     {Framework::fsdp, 3, {2, 1, 2, 1, 1, 1, {}}},
            {Framework::fsdp, 3, {1, 2, 2, 1, 1, 1, {}}}};
}

double peak(const model::Training& t, const Layout& l, Measure measure = Measure::allocated) {
    return model::estimate_memory(catalog::find_model("qwen3-1.7b"), t, l, measure).peak_bytes();
}

model::Training training(const Setting& s, long seq, long micro_batch, const std::string& recompute = "selective") {
    model::Training t;
    t.framework = s.framework;
    t.zero_stage = s.zero_stage;
    t.seq_len = seq;
    t.global_batch = 2 * micro_batch * s.layout.dp;  // two micro-batches a rank
    t.recompute = model::parse_recompute(recompute);
    return t;
}

std::string name(const Setting& s) {
    return model::framework_name(s.framework) + " zero " + std::to_string(s.zero_stage) + " tp " +
           std::to_string(s.layout.tp) + " pp " + std::to_string(s.layout.pp) + " dp " + std::to_string(s.layout.dp);
}

}  // namespace

TEST_CASE("memory never falls as a micro-batch grows, in tokens or sequences", "[model][properties]") {
    for (const Setting& s : settings()) {
        INFO(name(s));
        for (long mb : {1L, 2L}) {
            Layout l = s.layout;
            l.micro_batch = mb;
            Layout bigger = l;
            bigger.micro_batch = 2 * mb;
            CHECK(peak(training(s, 1024, mb), l) <= peak(training(s, 2048, mb), l));
            CHECK(peak(training(s, 1024, mb), l) <= peak(training(s, 1024, 2 * mb), bigger));
        }
    }
}

TEST_CASE("memory never grows as recomputation keeps fewer activations", "[model][properties]") {
    for (const Setting& s : settings()) {
        INFO(name(s));
        const double none = peak(training(s, 2048, 1, "none"), s.layout);
        const double selective = peak(training(s, 2048, 1, "selective"), s.layout);
        const double full = peak(training(s, 2048, 1, "full"), s.layout);
        CHECK(full <= selective);
        CHECK(selective <= none);
    }
}

TEST_CASE("device memory holds reserved, which holds allocated", "[model][properties]") {
    for (const Setting& s : settings()) {
        INFO(name(s));
        const auto t = training(s, 2048, 1);
        const double allocated = peak(t, s.layout, Measure::allocated), reserved = peak(t, s.layout, Measure::reserved);
        CHECK(allocated <= reserved);
        CHECK(reserved <= peak(t, s.layout, Measure::device));
    }
}
