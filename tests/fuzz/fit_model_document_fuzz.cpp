/// Fuzzes the reader of fitted throughput models (fitthroughput's own output, read back by --predict).
#include "fuzz_input.hpp"

#include <hetsched/fit/model_document.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hetsched;
    fuzz::refuse_only_typed([&] { fit::read_model_document(fuzz::as_input(data, size, "model.yaml")); });
    return 0;
}
