#pragma once
/// ICEFROG's GPU-sharing rule (Eq. 8 and the rules before it): linear models of a job's GPU
/// utilisation and peak memory in (per-GPU batch, theta, omega), fitted per app x GPU type; two jobs may
/// share a GPU when their predicted utilisations sum to at most 100% and their predicted memory, each
/// times 1.1, fits the GPU; a sharing job then runs at lambda = 0.9 of its throughput.
#include <array>
#include <string>
#include <vector>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/text_input.hpp>

namespace hetsched::fit {

struct UsageSample {
    std::string app, gpu;
    double per_gpu_batch = 0, theta = 1, omega = 1;
    double util_pct = 0, memory_gib = 0;
    SourcePos where;
};

/// CSV app,gpu,per_gpu_batch[,frozen_layers,total_layers],gpu_util_pct,memory_gib.
std::vector<UsageSample> read_usage(const io::TextInput& in);

/// A linear model: intercept + coefficients on batch, theta, omega (0 where the samples do not vary).
struct LinearUsage {
    std::array<double, 4> coef{};
    double r2 = 0;
    double at(double batch, double theta, double omega) const {
        return coef[0] + coef[1] * batch + coef[2] * theta + coef[3] * omega;
    }
};

struct UsageModel {
    std::string app, gpu;
    size_t samples = 0;
    LinearUsage util, memory;
    /// The one batch or trained share every sample had, when they all had one (its term is then not
    /// fitted, so the model answers only at that value); < 0 when the samples vary it.
    double only_batch = -1, only_share = -1;
    double min_batch = 0, max_batch = 0;  ///< the per-GPU batches the samples span (0: not known)
};

/// One model per (app, gpu), by least squares (Eigen); DataError when a group has fewer samples than
/// the features that vary in it, plus one.
std::vector<UsageModel> fit_usage(const std::vector<UsageSample>& samples);

constexpr double kMemoryMargin = 1.1;
constexpr double kSharedSlowdown = 0.9;

/// A job that may share: which model, at what batch and trained shares.
struct SharingJob {
    std::string app;
    double per_gpu_batch = 0;
    int frozen_layers = 0;
    int total_layers = 0;
};

struct SharingVerdict {
    double util_pct = 0;     ///< predicted, summed
    double memory_gib = 0;   ///< predicted x 1.1, summed
    double capacity_gib = 0;
    bool share = false;
    std::string reason;
    std::vector<std::string> beyond;  ///< "x at per-GPU batch 128 (profiled 16-64)": a job extrapolated
};

SharingVerdict judge_sharing(const std::vector<UsageModel>& models, const std::string& gpu,
                             const std::vector<SharingJob>& jobs, double capacity_gib);

}  // namespace hetsched::fit
