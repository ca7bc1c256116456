/// Fuzzes the per-layer profile reader placestages uses.
#include "fuzz_input.hpp"

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/model/layer_profile.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hetsched;
    static const catalog::GpuCatalog catalog = catalog::named_catalog("default");
    fuzz::refuse_only_typed([&] {
        model::read_layer_profile(io::CsvTable::parse(fuzz::as_input(data, size, "layers.csv")), 24, 1, catalog);
    });
    return 0;
}
