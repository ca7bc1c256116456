/// Fuzzes replay's throughput-table reader (our CSV, Gavel's flattened CSV and JSON) and the lookup.
#include "fuzz_input.hpp"

#include <hetsched/sim/throughput_table.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hetsched;
    fuzz::refuse_only_typed([&] {
        const sim::ThroughputTable t = sim::read_throughputs(fuzz::as_input(data, size, "throughputs.csv"));
        for (const auto& m : t.models()) (void)t.lookup(m, 3);
    });
    return 0;
}
