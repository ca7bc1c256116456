/// Fuzzes the YAML reader every document goes through (shape limits, then yaml-cpp).
#include "fuzz_input.hpp"

#include <hetsched/io/yaml_document.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hetsched;
    fuzz::refuse_only_typed([&] { io::parse_yaml(fuzz::as_input(data, size)); });
    return 0;
}
