#pragma once
/// planalloc's cluster mode (Frenzy's HAS): the first of memest's ranked plans, best first, that the
/// cluster's free GPUs hold, best-fit onto its nodes.
#include <optional>

#include <hetsched/alloc/planalloc.hpp>
#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/io/text_input.hpp>
#include <hetsched/io/yaml_document.hpp>
#include <hetsched/model/job_spec.hpp>

namespace hetsched::alloc {

/// Best-fits the job in `doc` onto the nodes of `cluster` (a cluster file's text) or of the document's
/// `cluster:` section. The plans are memest's (`memory:` plans, or its fit check's layout on each of
/// the cluster's types it fits), else enumerated here for the cluster's types. UsageError for the SLO
/// search's options; Infeasible (exit 1) when no plan fits the free GPUs, saying what the first and
/// the smallest plan need.
PlanallocResult cluster_mode(const PlanallocOptions& o, const std::optional<io::TextInput>& cluster,
                             io::YamlDocument& doc, model::JobSpec& job, const catalog::GpuCatalog& cat);

}  // namespace hetsched::alloc
