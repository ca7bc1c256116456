/// Fuzzes the measured-memory reader and the check run over what it accepts.
#include "fuzz_input.hpp"

#include <hetsched/io/csv_table.hpp>
#include <hetsched/model/memory_check.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hetsched;
    fuzz::refuse_only_typed([&] {
        const auto runs = model::read_measured_runs(io::CsvTable::parse(fuzz::as_input(data, size, "measured.csv"))).runs;
        model::check_runs(runs, model::Method::framework);
        model::check_runs(runs, model::Method::frenzy);
    });
    return 0;
}
