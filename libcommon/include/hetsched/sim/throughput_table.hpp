#pragma once
/// Throughput of each job type on each GPU type, as replay needs it to turn a trace into jobs: our CSV
/// `model,gpu,throughput[,num_gpus]` (any unit; only ratios between types and work matter), Gavel's
/// flattened table `job_type,scale_factor,<type>_steps_per_s,...`, or Gavel's throughput JSON as
/// published (`{type: {"('Model (batch size B)', sf)": {"null": steps_per_s, ...}}}`; the `null` entry
/// is the job alone, the `*_unconsolidated` types are left out); or fitthroughput's model document
/// (`kind: throughput-model`), whose fits predict samples/s for each job's GPU count and batch.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <hetsched/fit/fitter.hpp>
#include <hetsched/io/text_input.hpp>

namespace hetsched::sim {

struct ThroughputTable {
    std::vector<std::string> types;  ///< GPU types, as the table names them
    /// (model, GPUs) → throughput per type (0: cannot run there; negative: no value at that count)
    std::map<std::pair<std::string, int>, std::vector<double>> rows;
    /// A model document's fits (app = model, gpu = type), used instead of rows when there are any.
    std::vector<fit::GroupFit> fits;
    int gpus_per_node = 0;  ///< for the fits' predictions; 0: each fit's densest profiled node

    /// Distinct models, sorted.
    std::vector<std::string> models() const;
    /// Throughput per type of `model` on `gpus` GPUs: each type's value at exactly that many GPUs, else
    /// its value at the largest count below it scaled by gpus / count (linear scaling beyond the
    /// table), else 0; empty when the model is unknown at `gpus` or fewer. With fits: samples/s of `global_batch` predicted by each type's fit
    /// of the model (fit::fitted_throughput), 0 on a type without one.
    std::vector<double> lookup(const std::string& model, int gpus, double global_batch = 0) const;
};

/// Reads a table: JSON when the text starts with '{', a model document when it is YAML of kind
/// throughput-model, else CSV (long or Gavel's flattened form).
/// DataError (65) at the offending entry: non-finite or negative throughputs, unknown layouts.
ThroughputTable read_throughputs(const io::TextInput& in);

}  // namespace hetsched::sim
