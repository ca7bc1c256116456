/// Fuzzes the per-layer statistics reader of fitthroughput --tune.
#include "fuzz_input.hpp"

#include <hetsched/fit/effective_progress.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hetsched;
    fuzz::refuse_only_typed([&] { fit::read_layer_stats(fuzz::as_input(data, size, "layers.csv")); });
    return 0;
}
