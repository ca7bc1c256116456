/// Fuzzes the cluster file reader (nodes and their free GPUs, YAML or CSV).
#include "fuzz_input.hpp"

#include <hetsched/alloc/cluster.hpp>
#include <hetsched/catalog/gpu_catalog.hpp>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace hetsched;
    static const catalog::GpuCatalog catalog = catalog::named_catalog("default");
    if (size == 0) return 0;
    const std::string name = data[0] % 2 ? "cluster.csv" : "cluster.yaml";
    fuzz::refuse_only_typed([&] { alloc::parse_cluster(fuzz::as_input(data + 1, size - 1, name), catalog); });
    return 0;
}
