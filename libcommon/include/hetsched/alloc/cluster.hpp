#pragma once
/// A cluster's nodes and their free GPUs, for best-fit allocation: a `cluster:` section of a job
/// document, a YAML file (`kind: cluster`, the same `nodes:` list) or a CSV table.
///
///   cluster: {nodes: [{name: n1, gpu: A100-40GB-SXM, gpus: 8, free: 3}, ...]}
///   name,gpu,gpus,free            (CSV; free defaults to gpus, memory_gib to the catalog's)
#include <string>
#include <vector>

#include <hetsched/alloc/best_fit.hpp>
#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/io/yaml_document.hpp>

namespace hetsched::alloc {

/// The most GPUs one node may have (a catalog's gpus_per_node has the same bound).
inline constexpr long kMaxGpusPerNode = 1024;

/// The `nodes:` list under `section`; DataError at the offending node (missing keys, free > gpus,
/// unknown GPU types, duplicate names).
std::vector<ClusterNode> read_cluster(const io::YamlDocument& doc, const YAML::Node& section,
                                      const catalog::GpuCatalog& catalog);

/// A cluster file's text: CSV when its name ends in .csv, else YAML `kind: cluster`.
std::vector<ClusterNode> parse_cluster(const io::TextInput& in, const catalog::GpuCatalog& catalog);

}  // namespace hetsched::alloc
