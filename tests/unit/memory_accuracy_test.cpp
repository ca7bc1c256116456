#include <catch2/catch.hpp>

#include <cmath>

#include <hetsched/model/memory_check.hpp>

using namespace hetsched;

// The default method's accuracy on the measured runs the project holds (tests/data/README.md): the
// figures its notes report, held as floors.

namespace {

/// The public measured runs whose id starts with `prefix` (all of them must read).
std::vector<model::MeasuredRun> public_runs(const std::string& prefix) {
    auto table = io::CsvTable::parse(io::read_input(HETSCHED_TEST_DATA "/memory_measured_public.csv"));
    const auto read = model::read_measured_runs(table);
    REQUIRE(read.skipped.empty());
    std::vector<model::MeasuredRun> out;
    for (const auto& r : read.runs)
        if (r.id.rfind(prefix, 0) == 0) out.push_back(r);
    return out;
}

std::vector<model::CheckRow> check_file(model::Method method) {
    auto table = io::CsvTable::parse(io::read_input(HETSCHED_TEST_DATA "/memory_measured.csv"));
    return model::check_runs(model::read_measured_runs(table).runs, method);
}

}  // namespace

TEST_CASE("default method is within 5% on Megatron CI's 7B golden run", "[model]") {
    auto rows = check_file(model::Method::framework);
    REQUIRE(rows.front().id == "mlm-ci-7b-tp4pp1-h100");
    CHECK(std::fabs(rows.front().error_pct) < 5);
}

TEST_CASE("default method holds its accuracy on the measured runs", "[model]") {
    auto s = model::summarize(check_file(model::Method::framework));
    CHECK(s.cases == 17);
    CHECK(s.mean_abs_pct <= 5.0);
    CHECK(s.within_5pct >= 14);
    auto frenzy = model::summarize(check_file(model::Method::frenzy));
    CHECK(frenzy.mean_abs_pct > s.mean_abs_pct);  // the paper's formula ignores framework reality
}

TEST_CASE("Megatron-LM CI runs in bf16 stay within 4% with the other frameworks' mechanisms added", "[model]") {
    // The largest, tp2cp2 on an A100 (+3.7%), is one of the context-parallel runs memest overestimates
    // there (and underestimates on H100), by tens of MiB on a 1 GiB peak.
    std::vector<model::MeasuredRun> ci;
    for (const auto& r : public_runs("mlm-ci-"))
        if ((r.id.rfind("mlm-ci-tiny-", 0) == 0 || r.id.rfind("mlm-ci-7b-", 0) == 0) && r.training.precision == "bf16")
            ci.push_back(r);
    REQUIRE(ci.size() >= 10);
    for (const auto& row : model::check_runs(ci, model::Method::framework)) {
        CAPTURE(row.id, row.predicted_gib, row.measured_gib);
        CHECK(std::fabs(row.error_pct) <= 4);
    }
}

TEST_CASE("every Megatron-LM CI case: mean |error| within 2%, none past 4.5%", "[model]") {
    // The 170-odd CI cases, most of them models of 1-3 GiB, on A100, H100 and GB200: Transformer
    // Engine's workspace differs by GPU (32 MiB from compute capability 9.0, 4 MiB below), a few
    // percent of so small a peak; what is left is about 10 MiB.
    const auto ci = public_runs("mlm-ci-");
    REQUIRE(ci.size() >= 150);
    double sum = 0;
    for (const auto& row : model::check_runs(ci, model::Method::framework)) {
        CAPTURE(row.id, row.predicted_gib, row.measured_gib);
        CHECK(std::fabs(row.error_pct) <= 4.5);
        sum += std::fabs(row.error_pct);
    }
    CHECK(sum / static_cast<double>(ci.size()) <= 2);
}

TEST_CASE("BigScience's 52B stages on DeepSpeed's pipeline engine stay within 3%", "[model]") {
    // fp16 at ZeRO-0, tp 4 x pp 16, DeepSpeed 0.4.0: the unfused optimizer, activations split over the
    // tensor ranks between stages, fp32 logits kept on the last stage.
    const auto stages = public_runs("bs-megds-");
    REQUIRE(stages.size() == 5);
    for (const auto& row : model::check_runs(stages, model::Method::framework)) {
        CAPTURE(row.id, row.predicted_gib, row.measured_gib);
        CHECK(std::fabs(row.error_pct) <= 3);
    }
}

namespace {

/// The project's own measured runs in `file` (bench/gpu/torchtitan_memory.py): every row read, half
/// allocated and half reserved; allocated within `allocated_max` percent, reserved within `reserved_max`
/// and `reserved_mean` on average.
void check_own_runs(const std::string& file, size_t rows, double allocated_max, double reserved_max,
                    double reserved_mean) {
    auto table = io::CsvTable::parse(io::read_input(std::string(HETSCHED_TEST_DATA "/") + file));
    const auto read = model::read_measured_runs(table);
    REQUIRE(read.skipped.empty());
    REQUIRE(read.runs.size() == rows);
    double reserved_sum = 0;
    for (const auto& row : model::check_runs(read.runs, model::Method::framework)) {
        CAPTURE(row.id, row.predicted_gib, row.measured_gib);
        if (row.measure == model::Measure::allocated) {
            CHECK(std::fabs(row.error_pct) <= allocated_max);
        } else {
            // The allocator's fragmentation is an assumption (6% of the dynamic memory), not a simulation.
            CHECK(std::fabs(row.error_pct) <= reserved_max);
            reserved_sum += std::fabs(row.error_pct);
        }
    }
    CHECK(reserved_sum / static_cast<double>(rows / 2) <= reserved_mean);
}

}  // namespace

TEST_CASE("the project's torchtitan runs on an H200: allocated within 1%, reserved within 10% and 4% on average", "[model]") {
    // torchtitan 0.2.2's own trainer in its fake-backend mode, 15 layouts (FSDP 2-64, TP 2, CP 2,
    // no/selective/full checkpointing, compile, accumulation), each read at its first and second step,
    // allocated and reserved.
    check_own_runs("memory_measured_torchtitan_h200.csv", 60, 1, 10, 4);
}

TEST_CASE("the project's torchtitan pipeline runs on an H100: allocated within 3.5%, reserved within 10% and 4% on average", "[model]") {
    // The same trainer pipelined: 21 stages of 0.6B-405B Llamas under 1F1B and interleaved 1F1B, pp 2-16,
    // FSDP 2-8, TP 1, 2 and 8, CP 2, each at its first and second step, allocated and reserved.
    check_own_runs("memory_measured_torchtitan_h100_pp.csv", 84, 3.5, 10, 4);
}

TEST_CASE("the project's torchtitan runs on an H200 measured after the model, allocated within 0.5%, reserved within 11% and 4% on average", "[model]") {
    // 12 more layouts (a 3B at FSDP 4, FSDP 2 x TP 2, pp 2 x FSDP 4, CP 2 and compiled; the 0.6B at
    // 8,192 tokens, CP 2 at 16,384, TP 2, compiled and at pp 4), each at its first and second step,
    // allocated and reserved.
    check_own_runs("memory_measured_torchtitan_h200_heldout.csv", 48, 0.5, 11, 4);
}

namespace {

/// The project's DeepSpeed runs in `file` (`rows` rows, half allocated and half reserved): allocated
/// within `allocated_max` percent and `allocated_mean` on average; reserved never more than
/// `reserved_over` percent above what was measured (the blocks a first iteration leaves cached beyond
/// its tensors are not modelled: tests/data/README.md) and within `reserved_mean` on average.
void check_deepspeed_runs(const std::string& file, size_t rows, double allocated_max, double allocated_mean,
                          double reserved_over, double reserved_mean) {
    auto table = io::CsvTable::parse(io::read_input(std::string(HETSCHED_TEST_DATA "/") + file));
    const auto read = model::read_measured_runs(table);
    REQUIRE(read.skipped.empty());
    REQUIRE(read.runs.size() == rows);
    double allocated_sum = 0, reserved_sum = 0;
    for (const auto& row : model::check_runs(read.runs, model::Method::framework)) {
        CAPTURE(row.id, row.predicted_gib, row.measured_gib);
        if (row.measure == model::Measure::allocated) {
            CHECK(std::fabs(row.error_pct) <= allocated_max);
            allocated_sum += std::fabs(row.error_pct);
        } else {
            CHECK(row.error_pct <= reserved_over);
            reserved_sum += std::fabs(row.error_pct);
        }
    }
    CHECK(allocated_sum / static_cast<double>(rows / 2) <= allocated_mean);
    CHECK(reserved_sum / static_cast<double>(rows / 2) <= reserved_mean);
}

}  // namespace

TEST_CASE("the project's DeepSpeed runs on an H100: allocated within 3% and 1% on average, reserved at most 1% over", "[model]") {
    // DeepSpeed 0.14.5's pipeline engine (pp 2-4, ZeRO-0 and 1, bf16 and fp16, flash or eager
    // attention, full or no recompute, dp up to 4) and plain engine (ZeRO-0 to 3) on Hugging Face's
    // Llama block, each at its first and third step (bench/gpu/deepspeed_memory.py). Reserved memory:
    // the flat optimizer state the first step makes in segments of its own is modelled, the rest of
    // the cache not (up to 27% under here, 11.9% on average).
    check_deepspeed_runs("memory_measured_deepspeed_h100.csv", 92, 3, 1, 1, 12.5);
}

TEST_CASE("the project's DeepSpeed runs on an H200, measured after the model they check, allocated within 2% and 1% on average", "[model]") {
    // 16 more cases of the same script, new shapes and layouts (a 2.6B-parameter GQA model, pp 3 and 4
    // stages of a 1B one, eager attention at 4,096 tokens, ZeRO-1 beside a pipeline, ZeRO-2 and 3
    // without one), each at its first and third step. Reserved: ZeRO-2's first step reaches 1.5% over.
    check_deepspeed_runs("memory_measured_deepspeed_h200.csv", 64, 2, 1, 2, 12.5);
}

TEST_CASE("DeepSpeed runs read off nvidia-smi: every row reads, and allocated <= reserved < device for each", "[model]") {
    // BigScience's and SAILOR's runs (tests/data/README.md): all DeepSpeed pipeline engines, all device
    // readings. The same run predicted as allocated, reserved and device memory must not shrink in
    // that order: the allocator's cache comes on top of the tensors (none beyond them where the
    // optimizer step peaks and its buffers reuse the backward's cached blocks), the context and NCCL on
    // top of both.
    auto table =
        io::CsvTable::parse(io::read_input(HETSCHED_TEST_DATA "/memory_measured_deepspeed_device.csv"));
    const auto read = model::read_measured_runs(table);
    REQUIRE(read.skipped.empty());
    REQUIRE(read.runs.size() == 103);
    std::vector<model::MeasuredRun> as[3];
    for (const auto& run : read.runs) {
        CHECK(run.training.framework == model::Framework::deepspeed);
        CHECK(run.measure == model::Measure::device);
        const model::Measure measures[] = {model::Measure::allocated, model::Measure::reserved, model::Measure::device};
        for (int k = 0; k < 3; ++k) {
            as[k].push_back(run);
            as[k].back().measure = measures[k];
        }
    }
    const auto allocated = model::check_runs(as[0], model::Method::framework);
    const auto reserved = model::check_runs(as[1], model::Method::framework);
    const auto device = model::check_runs(as[2], model::Method::framework);
    for (size_t i = 0; i < read.runs.size(); ++i) {
        CAPTURE(read.runs[i].id);
        CHECK(allocated[i].predicted_gib <= reserved[i].predicted_gib);
        CHECK(reserved[i].predicted_gib + 0.8 < device[i].predicted_gib);  // context and NCCL: 0.9 GiB
    }
}
