#pragma once
/// fitthroughput's work as a pure function: options in, the output text out. Modes: fit (default),
/// --predict, --grid, --tune (the layer tuner) and --sharing (GPU-sharing models and verdicts).
#include <cstdint>
#include <string>
#include <vector>

namespace hetsched::fit {

struct FitthroughputOptions {
    std::vector<std::string> inputs;  ///< profile files; empty or "-": stdin
    std::string output;
    std::string app;                  ///< for Sia profiles (and rows without an app column)
    std::string gpu;
    std::string model = "icefrog-ddp";
    int validate = 0;                 ///< K folds; 0: none
    bool no_curves = false;           ///< the paper's forms only, no factor curves
    std::uint64_t seed = 1;
    std::string format = "yaml";      ///< fit: yaml document or csv quality table
    std::string predict;              ///< profile to predict
    std::string params;               ///< throughput-model document for --predict/--grid/--tune
    bool grid = false;
    std::vector<int> gpus;
    std::vector<double> batches;
    int gpus_per_node = 0;
    // --tune
    bool tune = false;
    std::string layer_stats;
    int nodes = 0;                    ///< 0: as few as gpus_per_node allows
    double global_batch = 0;
    int top = 5;
    // --sharing
    std::string sharing;
    std::vector<std::string> pairs;   ///< APP:BATCH[:FROZEN] twice per verdict, comma-separated
    double capacity_gib = 0;
};

struct FitthroughputResult {
    std::string text;
    std::string summary;  ///< one line for stderr with -v
};

FitthroughputResult run_fitthroughput(const FitthroughputOptions& o);

}  // namespace hetsched::fit
