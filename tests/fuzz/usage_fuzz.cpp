/// Fuzzes the GPU-usage reader of fitthroughput --sharing.
#include "fuzz_input.hpp"

#include <hetsched/fit/gpu_sharing.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hetsched;
    fuzz::refuse_only_typed([&] { fit::read_usage(fuzz::as_input(data, size, "usage.csv")); });
    return 0;
}
