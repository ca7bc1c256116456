#pragma once
/// memest's work as a pure function: the job's text (or flags), a catalog and typed options in, output
/// text and verdict out. The binary reads the files and wires the flags, so every path is unit-testable
/// and a caller can run it in memory.
#include <optional>
#include <string>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/text_input.hpp>
#include <hetsched/model/job_options.hpp>
#include <hetsched/model/memory.hpp>

namespace hetsched::model {

struct MemestOptions {
    JobOptions job;
    std::string gpu;                ///< only this GPU type of the catalog; empty: all
    Method method = Method::framework;
    std::optional<Measure> measure; ///< none: device for fit decisions and plans, allocated otherwise
    double usable_fraction = 0.98;
    int max_gpus = 1024;
    size_t top = 20;                ///< 0: all
    bool csv = false;               ///< a CSV table instead of the job document
};

struct MemestResult {
    std::string text;     ///< what goes to the output
    bool fits = true;     ///< false: exit 1 (no plan, or the layout does not fit --gpu)
    std::string message;  ///< a line for stderr, or empty
    std::string summary;  ///< a line for stderr under --verbose: the peak, or the plans found
    std::vector<std::string> warnings;  ///< "file:line:col: what", for stderr
};

/// One layout's breakdown (any of --tp/--pp/--dp/--cp/--vpp given) or the ranked plans, for the job in
/// `job_text` (none: the flags describe it alone) over `catalog`.
MemestResult run_memest(const std::optional<io::TextInput>& job_text, const catalog::GpuCatalog& catalog,
                        const MemestOptions& o);

struct CheckResult {
    std::string csv;
    std::string summary;               ///< "N cases, mean |error| x%, max |error| y%, k within 5%[, s rows skipped]"
    std::vector<std::string> skipped;  ///< "id: file:line:col: why", one per row left out
    std::vector<std::string> warnings; ///< MeasuredRuns::warnings
    /// Not empty when every row was skipped (each in `skipped`): the error the caller raises (65)
    /// once it has told them all.
    std::string nothing_checked;
};
/// DataError (65) when the file has no row.
CheckResult run_memest_check(const io::CsvTable& measured, Method method);

std::string list_models_csv();
std::string list_gpus_csv(const catalog::GpuCatalog& c);

}  // namespace hetsched::model
