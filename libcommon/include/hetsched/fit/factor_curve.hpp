#pragma once
/// Where a compact model's linear terms miss a real mechanism, a factor curve holds the measured
/// departure: compute is not linear in the batch (kernel choices, tile sizes, caches change with it),
/// and an all-reduce across nodes does not scale smoothly with the node count (ring or tree, NIC
/// sharing). A curve stores a factor at the values the samples measured; between them it is
/// interpolated on a log axis, beyond them the nearest factor holds.
#include <vector>

#include <hetsched/fit/profile.hpp>

namespace hetsched::fit {

struct FactorCurve {
    std::vector<double> x;       ///< increasing
    std::vector<double> factor;  ///< > 0, one per x

    bool empty() const { return x.empty(); }
    /// The factor at `v` (1 when the curve is empty).
    double at(double v) const;
};

/// The values of `key` (a sample's batch, or its node count) worth a knot: those with at least
/// `min_samples` samples over at least two distinct configurations, when there are at least
/// `min_knots` of them; none otherwise (a curve on fewer points would only memorise them).
std::vector<double> curve_knots(const std::vector<Sample>& samples, double (*key)(const Sample&), size_t min_samples,
                                size_t min_knots);

/// Keys for curve_knots: the per-GPU batch; the node count of multi-node samples (0 otherwise).
double batch_key(const Sample& s);
double nodes_key(const Sample& s);

}  // namespace hetsched::fit
