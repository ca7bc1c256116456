/// Espresso's resource-aware stage placer (Alg. 2) with its compute-memory ratio (Eq. 10).
#include <algorithm>
#include <cmath>
#include <limits>

#include <hetsched/place/estimator.hpp>
#include <hetsched/place/methods.hpp>

namespace hetsched::place {
namespace {

constexpr size_t kNone = std::numeric_limits<size_t>::max();

/// l_c: the most layers whose gradient sync on `type` at position `pos` fits in `budget` seconds.
double layers_within(const Problem& p, size_t type, int pos, double budget) {
    const double per_layer = p.types[type].allreduce_s_per_param * p.layer_params;
    if (per_layer <= 0) return std::numeric_limits<double>::infinity();
    return std::max(1.0, std::floor((budget - p.allreduce_s(type, pos, 0)) / per_layer));
}

/// AdjustToCoverAllLayers: hand the missing layers to stages 1..k-1 one at a time, round robin, while
/// memory allows (the paper's rule); surplus layers are taken back from the last stage forwards.
bool cover_all_layers(const Problem& p, Placement& pl) {
    const size_t k = pl.order.size();
    long total = 0;
    for (long c : pl.layers) total += c;
    while (total > p.layers) {
        bool moved = false;
        for (size_t s = k - 1; s >= 1 && total > p.layers; --s)
            if (pl.layers[s] > 1) --pl.layers[s], --total, moved = true;
        if (!moved) return false;
    }
    while (total < p.layers) {
        bool moved = false;
        for (size_t s = 1; s < k && total < p.layers; ++s)
            if (pl.layers[s] < p.types[pl.order[s]].max_layers[s]) ++pl.layers[s], ++total, moved = true;
        if (!moved) return false;
    }
    return true;
}

}  // namespace

Placement cmr_candidate(const Problem& p, long l0, const std::vector<size_t>* order) {
    const int k = p.stages();
    const size_t n = p.types.size();
    std::vector<int> left(n);
    double capability = 0;
    for (size_t t = 0; t < n; ++t) {
        left[t] = p.types[t].stages;
        capability += p.types[t].stages * p.types[t].tflops;
    }
    // L_f: the layers each type would take if the stages were balanced by computing capability.
    std::vector<long> balanced(n);
    for (size_t t = 0; t < n; ++t)
        balanced[t] = static_cast<long>(std::floor(static_cast<double>(p.layers) * p.types[t].tflops / capability));

    // The type for stage `s`: the least CMR(t, s) = F/M x max(l_m, l_c)/l_c among the types left that
    // hold `need` layers there; l_c is what fits the sync budget (stage 0: its own l0 layers).
    auto pick = [&](int s, long need, double budget) {
        if (order) {
            const size_t t = (*order)[static_cast<size_t>(s)];
            return p.types[t].max_layers[static_cast<size_t>(s)] >= need ? t : kNone;
        }
        size_t best = kNone;
        double best_cmr = std::numeric_limits<double>::infinity();
        for (size_t t = 0; t < n; ++t) {
            const StageType& g = p.types[t];
            const double lm = static_cast<double>(g.max_layers[static_cast<size_t>(s)]);
            if (left[t] == 0 || lm < static_cast<double>(need)) continue;
            const double lc = s == 0 ? static_cast<double>(l0) : layers_within(p, t, s, budget);
            const double cmr = g.tflops / g.memory_gib * (std::max(lm, lc) / lc);
            if (cmr < best_cmr) best = t, best_cmr = cmr;
        }
        return best;
    };

    Placement pl;
    const size_t t0 = pick(0, l0, 0);
    if (t0 == kNone) return {};
    pl.order.push_back(t0);
    pl.layers.push_back(l0);
    --left[t0];
    double overlap = p.allreduce_s(t0, 0, l0);  // T_0^ol: stage 0's own sync
    long first = l0;
    for (int s = 1; s < k; ++s) {
        const size_t prev = pl.order.back();
        const long prev_layers = pl.layers.back();
        overlap += p.backward_s(prev, s - 1, first - prev_layers, prev_layers);  // T_s^ol = T_{s-1}^ol + T^b_{s-1}
        const size_t t = pick(s, 1, overlap);
        if (t == kNone) return {};
        const long l = std::max(1L, std::min(p.types[t].max_layers[static_cast<size_t>(s)], balanced[t]));
        pl.order.push_back(t);
        pl.layers.push_back(l);
        --left[t];
        first += l;
    }
    if (!cover_all_layers(p, pl)) return {};
    return pl;
}

PlaceResult place_cmr(const Problem& p, const std::vector<size_t>* order) {
    const int k = p.stages();
    long l_max = 0;  // the most layers any candidate type holds on stage 0
    if (order) l_max = p.types[order->front()].max_layers[0];
    else
        for (const auto& t : p.types) l_max = std::max(l_max, t.max_layers[0]);
    l_max = std::min(l_max, p.layers - (k - 1));

    PlaceResult best;
    std::vector<StageCosts> costs;
    Schedule schedule;
    for (long l0 = 1; l0 <= l_max; ++l0) {
        Placement pl = cmr_candidate(p, l0, order);
        if (pl.empty()) continue;
        const double time = iteration_time(p, pl, costs, schedule);
        ++best.evaluated;
        if (best.placement.empty() || time < best.iteration_s) {
            best.placement = std::move(pl);
            best.iteration_s = time;
        }
    }
    return best;
}

}  // namespace hetsched::place
