#pragma once
/// fitthroughput's work as a pure function: typed options and input texts in, the output text out.
/// Modes: fit (default), --predict, --grid, --tune (the layer tuner) and --sharing (GPU-sharing models
/// and verdicts). The tool reads the files; check_options() says first, from the flags alone, whether
/// the mode has what it needs, so a usage error never waits on reading a file.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <hetsched/io/text_input.hpp>

namespace hetsched::fit {

enum class Mode { fit, predict, grid, tune, sharing };

struct FitthroughputOptions {
    Mode mode = Mode::fit;
    std::string app;                  ///< for Sia profiles (and rows without an app column); --tune's model
    std::string gpu;
    std::string model = "icefrog-ddp";
    int validate = 0;                 ///< K folds; 0: none
    bool no_curves = false;           ///< the paper's forms only, no factor curves
    std::uint64_t seed = 1;
    bool csv = false;                 ///< fit: the quality table instead of the model document
    std::vector<int> gpus;
    std::vector<double> batches;
    int gpus_per_node = 0;
    // --tune
    int nodes = 0;                    ///< 0: as few as gpus_per_node allows
    long global_batch = 0;            ///< 0: none; else split evenly over the GPUs
    int top = 5;
    // --sharing
    std::vector<std::string> pairs;   ///< APP:BATCH[:FROZEN/TOTAL], two or more per verdict
    double capacity_gib = 0;          ///< 0: the catalog's for `gpu`
};

/// What the mode reads, as text: the tool fills in the ones the mode needs after check_options().
struct FitthroughputInputs {
    std::vector<io::TextInput> profiles;       ///< fit: every profile; --predict: the profile to predict
    /// The folder that holds each profile, by position, from its absolute path ("" for standard input,
    /// or where absent): a Sia profile's app (ProfileOptions::folder).
    std::vector<std::string> profile_folders;
    std::optional<io::TextInput> params;       ///< a throughput-model document (--predict, --grid, --tune)
    std::optional<io::TextInput> layer_stats;  ///< --tune
    std::optional<io::TextInput> usage;        ///< --sharing
};

/// The mode a set of mode flags asks for; UsageError when more than one is given.
Mode select_mode(bool predict, bool grid, bool tune, bool sharing);

/// Which inputs the user named, for check_options().
struct GivenInputs {
    bool params = false;
    bool layer_stats = false;
    /// Every option the command line gave, by its long name ("--grid"; "FILE" for the positional one):
    /// one that only other modes read is refused rather than ignored.
    std::vector<std::string> flags;
};

/// Usage errors visible from the flags alone: a mode's missing inputs, flags only other modes read (or
/// that the mode reads only with another: --seed with --validate, --no-curves with an ICEFROG model,
/// --gpu and --capacity-gib under --sharing with --pair, --tune's --gpus-per-node without --nodes), and
/// a --global-batch that cannot be split into whole per-GPU batches over --gpus.
void check_options(const FitthroughputOptions& o, const GivenInputs& given);

struct FitthroughputResult {
    std::string text;
    std::string summary;  ///< one line for stderr with -v
    std::vector<std::string> warnings;  ///< a line each for stderr, even under -q
};

/// Runs the mode: check_options(), then the work. DataError (65) for bad inputs, UsageError (64) for
/// flags that disagree with the inputs.
FitthroughputResult run_fitthroughput(const FitthroughputInputs& in, const FitthroughputOptions& o);

}  // namespace hetsched::fit
