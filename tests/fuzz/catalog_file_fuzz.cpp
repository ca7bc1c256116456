/// Fuzzes the GPU catalog reader (YAML or CSV, chosen by the name as the tools do).
#include "fuzz_input.hpp"

#include <hetsched/catalog/gpu_catalog.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hetsched;
    // The first byte picks the format, so one corpus covers both readers.
    if (size == 0) return 0;
    const std::string name = data[0] % 2 ? "catalog.csv" : "catalog.yaml";
    fuzz::refuse_only_typed([&] { catalog::parse_catalog(fuzz::as_input(data + 1, size - 1, name)); });
    return 0;
}
