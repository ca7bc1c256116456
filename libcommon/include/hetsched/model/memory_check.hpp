#pragma once
/// Checking the memory model against measured training runs (memest --check): how a user learns how
/// far to trust it on their own jobs.
#include <string>
#include <vector>

#include <hetsched/io/csv_table.hpp>
#include <hetsched/model/memory.hpp>

namespace hetsched::model {

/// One measured run: its full configuration and what was measured where.
struct MeasuredRun {
    std::string id;
    catalog::ModelSpec model;
    Training training;
    Layout layout;
    std::string stage = "all";  ///< all or max (the peak stage), first, last, middle, or a 0-based index
    long stage_index = -1;      ///< that index, when `stage` is one
    Measure measure = Measure::allocated;
    double measured_gib = 0;
};

/// A row left out of a check, and why ("file:line: what was expected").
struct SkippedRun {
    std::string id;
    std::string reason;
};

struct MeasuredRuns {
    std::vector<MeasuredRun> runs;
    std::vector<SkippedRun> skipped;
    /// "file:1:col: ..." for a column the reader ignores but that is a slip of one it reads (a misspelt
    /// first_iteration would leave every row at its default).
    std::vector<std::string> warnings;
};

/// Reads runs in the column layout of memory_measured.csv (extra columns ignored). Optional columns:
/// framework, compile, dropout, rms_norm, linear_bias, layers_per_stage (the stages' layer counts
/// separated by spaces or ';'), compute_capability (else the default catalog's, for the gpu cell's
/// family), cublas_workspace_config (the run's
/// CUBLAS_WORKSPACE_CONFIG, or default when unset; empty: 32 MiB a workspace). Without a framework the run's `source` naming torchtitan (or FSDP) or
/// DeepSpeed says it, else zero_stage and distributed_optimizer do (3: FSDP; 1-2 without Megatron's
/// distributed optimizer: DeepSpeed; else Megatron-LM); without framework_version, a DeepSpeed run
/// follows the release its source names right after "DeepSpeed" (else 0.17.5), an FSDP run the one
/// right after "torchtitan" (else its code before 0.2); without compile, eager
/// blocks, unless an FSDP run's id or source says torch.compile ran (then compiled blocks); a gated
/// MLP implies the LLaMA style (RMSNorm, no bias, no dropout); without layers_per_stage, the
/// framework's own split. A row with a
/// missing or impossible value is skipped with its reason; a missing column is an error (DataError).
MeasuredRuns read_measured_runs(const io::CsvTable& table);

/// A run's measurement beside the prediction; error_pct = 100 (predicted - measured) / measured.
struct CheckRow {
    std::string id;
    Framework framework;
    Measure measure;
    double measured_gib;
    double predicted_gib;
    double error_pct;
};

struct CheckSummary {
    size_t cases = 0;
    double mean_abs_pct = 0;
    double max_abs_pct = 0;
    size_t within_5pct = 0;
};

/// Predicts each run's measured stage with `method` (middle: stage (pp - 1) / 2).
std::vector<CheckRow> check_runs(const std::vector<MeasuredRun>& runs, Method method);
CheckSummary summarize(const std::vector<CheckRow>& rows);
/// The summary line memest --check prints: all rows, then each framework's and each measure's when
/// there are several.
std::string summary_line(const std::vector<CheckRow>& rows);

}  // namespace hetsched::model
