#pragma once
/// Profiled training steps, read from the Sia/Pollux profile files as they are
/// (`placement,local_bsz,step_time,sync_time` and `num_nodes,num_replicas,local_bsz,step_time,sync_time`)
/// or from hetsched's own CSV (`app,gpu,num_nodes,num_gpus,per_gpu_batch,frozen_layers,total_layers,
/// step_time_s[,sync_time_s,fwd_time_s,bwd_time_s,...]`). The format is recognised by the header.
#include <limits>
#include <string>
#include <vector>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/csv_table.hpp>

namespace hetsched::fit {

/// One configuration and, when profiled, its measured times (NaN where not measured).
struct Sample {
    std::string app;
    std::string gpu;
    int num_nodes = 1;
    int num_gpus = 1;        ///< all GPUs of the job: replicas x pipeline stages
    int stages = 1;          ///< pipeline stages per replica
    int max_per_node = 1;    ///< most GPUs of the job on one node
    double per_gpu_batch = 0;
    int frozen_layers = 0;
    int total_layers = 0;    ///< 0: unknown (then no layers may be frozen)
    double unfrozen_flops = 1;   ///< theta: FLOPs share of the layers that still train
    double unfrozen_params = 1;  ///< omega: parameter share of the layers that still train
    double step_time_s = 0;
    double sync_time_s = std::numeric_limits<double>::quiet_NaN();  ///< NaN when not measured
    double fwd_time_s = std::numeric_limits<double>::quiet_NaN();   ///< NaN when not measured
    double bwd_time_s = std::numeric_limits<double>::quiet_NaN();   ///< NaN when not measured
    SourcePos where;         ///< the row, for messages
    SourcePos layers_where;  ///< its total_layers cell, else the row
    SourcePos stages_where;  ///< its pipeline_stages cell, else the row

    int replicas() const { return num_gpus / stages; }
    /// Samples per second: replicas x per-GPU batch / step time.
    double throughput(double step_s) const { return replicas() * per_gpu_batch / step_s; }
};

enum class ProfileFormat { placements, scalability, hetsched };

/// What a reader needs besides the text.
struct ProfileOptions {
    std::string app;  ///< for Sia files: overrides the app named by the file's folder
    std::string gpu;  ///< for Sia files: overrides the GPU type named by the file's cluster suffix
    bool need_times = true;  ///< false for --predict: step times may be absent
    /// For Sia files: the name of the folder that holds the file, from its absolute path (the tool
    /// knows the working directory; the library does not ask): "placements-dgx.csv" read in
    /// profiles/bert is bert's. "" to take the folder from the path as given.
    std::string folder;
};

/// A parsed profile: the table as read (for --predict to echo) and one sample per row.
struct Profile {
    ProfileFormat format = ProfileFormat::hetsched;
    io::CsvTable table;
    std::vector<Sample> samples;
};

/// Parses one profile. DataError at the cell for non-positive times or batches, unknown placement
/// strings, frozen layers without a layer count; at the header for missing columns; UsageError when a
/// Sia file's app or GPU type can be told neither from its path nor from the options.
Profile read_profile(const io::TextInput& in, const ProfileOptions& opt);

/// DataError unless each application has one layer count over `samples` (one profile, or every one a
/// fit reads) and none of its rows runs more pipeline stages than it has layers, a row that leaves
/// total_layers blank included (its stages hold a layer each at least): else a fit would write a
/// range its own reader refuses.
void check_layer_counts(const std::vector<Sample>& samples);

/// `samples` with a row that repeats an earlier one exactly (same app, GPU type, configuration and
/// every time, to the last digit) counted once: Sia's placements-dgx-ext.csv and scalability-dgx-ext.csv
/// hold the same 396 measurements, and counted twice they weighed double and put copies of training rows
/// into --validate's held-out folds. A scalability row says nodes and replicas, not how they are spread:
/// of two copies the fuller node (a placement's) is kept. `repeats`, when given and any row repeats,
/// gets a warning's text naming the count and the first.
std::vector<Sample> distinct_samples(const std::vector<Sample>& samples, std::string* repeats = nullptr);

/// The GPU type a Sia cluster suffix stands for ("aws" -> "T4"), or "" when unknown.
std::string sia_cluster_gpu(const std::string& cluster);

/// Nodes and replicas of a Sia placement string ("12": two nodes with 1 and 2 replicas); DataError
/// at `pos` unless it is a string of digits 1-9.
void parse_placement(const std::string& text, const SourcePos& pos, Sample& s);

}  // namespace hetsched::fit
