/// Fuzzes replay's trace reader (our CSV and Gavel's tab-separated trace).
#include "fuzz_input.hpp"

#include <hetsched/sim/trace.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hetsched;
    fuzz::refuse_only_typed([&] { sim::read_trace(fuzz::as_input(data, size, "trace.csv")); });
    return 0;
}
