#include <hetsched/fit/factor_curve.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace hetsched::fit {

double FactorCurve::at(double v) const {
    if (x.empty()) return 1;
    if (v <= x.front()) return factor.front();
    if (v >= x.back()) return factor.back();
    const size_t hi = static_cast<size_t>(std::upper_bound(x.begin(), x.end(), v) - x.begin());
    const size_t lo = hi - 1;
    const double t = std::log(v / x[lo]) / std::log(x[hi] / x[lo]);
    return std::exp((1 - t) * std::log(factor[lo]) + t * std::log(factor[hi]));
}

double batch_key(const Sample& s) { return s.per_gpu_batch; }
double nodes_key(const Sample& s) { return s.num_nodes > 1 && s.replicas() > 1 ? s.num_nodes : 0; }

std::vector<double> curve_knots(const std::vector<Sample>& samples, double (*key)(const Sample&), size_t min_samples,
                                size_t min_knots) {
    std::map<double, std::pair<size_t, std::set<std::tuple<int, int, double>>>> at;
    for (const auto& s : samples) {
        const double k = key(s);
        if (!(k > 0)) continue;
        auto& a = at[k];
        ++a.first;
        a.second.insert({s.num_nodes, s.num_gpus, s.per_gpu_batch});
    }
    std::vector<double> knots;
    for (const auto& [k, a] : at)
        if (a.first >= min_samples && a.second.size() >= 2) knots.push_back(k);
    if (knots.size() < min_knots) knots.clear();
    return knots;
}

}  // namespace hetsched::fit
