#pragma once
/// memest's work as a pure function: options in, output text and verdict out. The binary only wires
/// flags and streams to this, so every path is unit-testable.
#include <string>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/cli/app.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/model/job_options.hpp>
#include <hetsched/model/memory.hpp>

namespace hetsched::model {

struct MemestOptions {
    cli::IoOptions io;
    JobOptions job;
    std::string gpu;
    std::string catalog = "default";
    std::string method = "default";
    std::string measure;            ///< empty: device for fit decisions and plans, allocated otherwise
    double usable_fraction = 0.98;
    int max_gpus = 1024;
    size_t top = 20;
    std::string format = "yaml";
    std::string check;
    bool list_models = false;
    bool list_gpus = false;
};

struct MemestResult {
    std::string text;     ///< what goes to the output
    bool fits = true;     ///< false: exit 1 (no plan, or the layout does not fit --gpu)
    std::string message;  ///< a line for stderr, or empty
};

/// One layout's breakdown (any of --tp/--pp/--dp/--cp/--vpp given) or the ranked plans.
MemestResult run_memest(const MemestOptions& o);

struct CheckResult {
    std::string csv;
    std::string summary;  ///< "N cases, mean |error| x%, max |error| y%, k within 5%"
};
CheckResult run_memest_check(const io::CsvTable& measured, Method method);

std::string list_models_csv();
std::string list_gpus_csv(const catalog::GpuCatalog& c);

}  // namespace hetsched::model
