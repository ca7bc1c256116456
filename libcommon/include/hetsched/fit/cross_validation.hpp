#pragma once
/// K-fold cross-validation of a model on one app x GPU type's samples: each fold is fitted on the other
/// folds and scored on itself, so the error reported is on points the fit never saw.
#include <cstdint>
#include <vector>

#include <hetsched/fit/fitter.hpp>

namespace hetsched::fit {

struct Validation {
    int folds = 0;
    FitQuality held_out;  ///< over every sample, each predicted by the fit that did not see it
    int failed_folds = 0; ///< folds whose training part could not identify the model
};

/// Shuffles the samples with `seed`, splits them into `folds` (2 <= folds <= samples) parts and
/// scores each part on a fit to the rest. UsageError when folds is out of range.
Validation cross_validate(ModelKind kind, const std::vector<Sample>& samples, int folds, std::uint64_t seed,
                          const FitOptions& options = {});

}  // namespace hetsched::fit
