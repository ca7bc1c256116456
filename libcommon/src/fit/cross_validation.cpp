#include <hetsched/fit/cross_validation.hpp>

#include <algorithm>
#include <numeric>
#include <random>

#include <hetsched/fit/fitter.hpp>
#include <hetsched/io/number_format.hpp>

namespace hetsched::fit {

Validation cross_validate(ModelKind kind, const std::vector<Sample>& rows, int folds, std::uint64_t seed,
                          const FitOptions& options) {
    // The shuffle deals the canonical order: the same samples and seed make the same folds, whatever
    // order the files and rows came in.
    const std::vector<Sample> samples = canonical_order(rows);
    if (folds < 2 || static_cast<size_t>(folds) > samples.size())
        throw UsageError("--validate " + std::to_string(folds) + ": needs 2 to " + std::to_string(samples.size()) +
                         " folds for the " + io::counted(static_cast<long>(samples.size()), "sample") + " of " +
                         (samples.empty() ? std::string("this group") : samples.front().app + " on " + samples.front().gpu));
    std::vector<size_t> order(samples.size());
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(seed);
    std::shuffle(order.begin(), order.end(), rng);

    Validation v;
    v.folds = folds;
    std::vector<Sample> scored;
    std::vector<double> predicted;
    for (int f = 0; f < folds; ++f) {
        std::vector<Sample> train, test;
        for (size_t i = 0; i < order.size(); ++i)
            (static_cast<int>(i % static_cast<size_t>(folds)) == f ? test : train).push_back(samples[order[i]]);
        GroupFit fit;
        try {
            fit = fit_group(kind, train, options);
        } catch (const DataError&) {
            ++v.failed_folds;
            continue;
        }
        // A parameter the training part could not identify but the test part needs is a real gap in
        // the profile; the fold is scored with the pinned value all the same.
        for (const auto& s : test) {
            scored.push_back(s);
            predicted.push_back(step_time(fit, s));
        }
    }
    v.held_out = score(predicted, scored);
    return v;
}

}  // namespace hetsched::fit
