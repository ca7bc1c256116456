#pragma once
/// How memest's results look on the wire: the `memory:` section of a job document, and CSV tables.
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/model/memory.hpp>
#include <hetsched/model/memory_check.hpp>
#include <hetsched/model/plans.hpp>

namespace hetsched::model {

/// The keys of a plan in memory.plans, as plans_to_yaml writes them (planalloc reads them back).
const std::vector<std::string>& plan_keys();

/// `memory:` for one layout: per-stage breakdown in GiB, the peak stage, and whether it fits `gpu`.
YAML::Node breakdown_to_yaml(const MemoryEstimate& est, const Layout& l, Measure measure, const std::string& method,
                             const catalog::GpuType* gpu, double usable_fraction);
/// Fills `section` (a mapping already in the document) as `memory:` for ranked plans (the first `top`,
/// all when 0).
void plans_to_yaml(YAML::Node section, const std::vector<Plan>& plans, size_t top, Measure measure,
                   const std::string& method);

/// One row per stage, with the measure its totals count.
std::string breakdown_to_csv(const MemoryEstimate& est, Measure measure);
std::string plans_to_csv(const std::vector<Plan>& plans, size_t top);
/// id,measure_kind,measured_gib,predicted_gib,error_pct
std::string check_to_csv(const std::vector<CheckRow>& rows);

}  // namespace hetsched::model
