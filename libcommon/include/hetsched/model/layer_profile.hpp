#pragma once
/// Measured per-layer forward and backward times per GPU type (`--profile FILE.csv`), in place of the
/// compute model's FLOPs / achieved TFLOPS.
///
/// Columns: gpu, layer, forward_s, backward_s, and optionally micro_batch and tp. `layer` is a 0-based
/// layer index, `*` for every transformer layer, `embedding` or `output` (output projection and loss).
/// Times are seconds per micro-batch on one GPU: with tp, on each of the tp GPUs that split the layer,
/// the tensor-parallel all-reduces inside it included.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/io/csv_table.hpp>

namespace hetsched::model {

/// One GPU type's measured times.
struct ProfiledTimes {
    std::vector<double> forward, backward;  ///< per layer; negative where the profile has no row
    double head_forward = -1, head_backward = -1;  ///< embedding; negative when absent
    double tail_forward = -1, tail_backward = -1;  ///< output layer and loss; negative when absent
};

struct LayerProfile {
    std::string source;
    int tp = 1;  ///< the tensor-parallel degree the times were measured at (1 without a tp column)
    long micro_batch = 1;  ///< the job's, whose rows these are
    std::map<std::string, ProfiledTimes> by_gpu;  ///< keyed by the catalog's name of the type
    /// Types with rows at other micro-batches only: the first such row and the micro-batches there.
    struct OtherRows {
        SourcePos where;
        std::set<long> micro_batches;
    };
    std::map<std::string, OtherRows> other_micro_batches;
    int tp_wanted = 0;  ///< the allocation's tp the rows were chosen for (0: the file's one tp)
    /// Types with rows at other tp degrees than tp_wanted: the first such row and the degrees there.
    struct OtherDegrees {
        SourcePos where;
        std::set<int> degrees;
    };
    std::map<std::string, OtherDegrees> other_tps;
    /// Types the catalog does not have, whose rows were left out, and what the user is told of them.
    std::set<std::string> left_out;
    std::vector<std::string> warnings;

    /// The times of `gpu` with every one of the model's layers present; DataError naming the first
    /// missing layer or type otherwise.
    const ProfiledTimes& complete(const std::string& gpu) const;
};

/// Reads a profile for a model of `layers` layers run with `micro_batch` sequences per micro-batch:
/// the rows of that micro-batch where the file times several (times are not rescaled). Rows of types
/// the catalog lacks are left out with a warning (with suggestions). DataError at the cell for bad
/// layer names, non-positive times, duplicates, a
/// file without a row of the job's micro-batch, or rows of two tp degrees. The allocation's tp is
/// checked against the profile's where the problem is built.
/// With `tp` above 0 (the allocation's), a profile with a tp column may time several degrees: the rows
/// of that tp are used (DataError when it has none); with 0, one tp a profile.
LayerProfile read_layer_profile(const io::CsvTable& table, long layers, long micro_batch,
                                const catalog::GpuCatalog& catalog, int tp = 0);

}  // namespace hetsched::model
