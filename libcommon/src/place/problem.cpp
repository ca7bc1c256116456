#include <hetsched/place/problem.hpp>

#include <algorithm>
#include <limits>

namespace hetsched::place {

int Problem::stages() const {
    int k = 0;
    for (const auto& t : types) k += t.stages;
    return k;
}

namespace {

/// Seconds of layers [first, first + count) from `prefix` sums, plus the ends the stage carries.
double span_s(const std::vector<double>& prefix, long first, long count, double head, double tail, bool is_first,
              bool is_last) {
    double s = prefix[static_cast<size_t>(first + count)] - prefix[static_cast<size_t>(first)];
    if (is_first) s += head;
    if (is_last) s += tail;
    return s;
}

}  // namespace

double Problem::forward_s(size_t type, int pos, long first, long count) const {
    const StageType& t = types[type];
    return span_s(t.forward, first, count, t.head_forward, t.tail_forward, pos == 0, pos == stages() - 1);
}

double Problem::backward_s(size_t type, int pos, long first, long count) const {
    const StageType& t = types[type];
    return span_s(t.backward, first, count, t.head_backward, t.tail_backward, pos == 0, pos == stages() - 1);
}

double Problem::stage_params(int pos, long count) const {
    double params = static_cast<double>(count) * layer_params;
    if (pos == 0) params += head_params;
    if (pos == stages() - 1) params += tail_params;
    return params;
}

double Problem::min_layer_s(size_t type) const {
    const StageType& t = types[type];
    double best = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i + 1 < t.forward.size(); ++i)
        best = std::min(best, t.forward[i + 1] - t.forward[i] + t.backward[i + 1] - t.backward[i]);
    return best;
}

bool feasible(const Problem& p, const Placement& pl) {
    const int k = p.stages();
    if (static_cast<int>(pl.order.size()) != k || pl.layers.size() != pl.order.size()) return false;
    std::vector<int> used(p.types.size(), 0);
    long total = 0;
    for (int s = 0; s < k; ++s) {
        const size_t t = pl.order[static_cast<size_t>(s)];
        const long c = pl.layers[static_cast<size_t>(s)];
        if (t >= p.types.size() || c < 1 || c > p.types[t].max_layers[static_cast<size_t>(s)]) return false;
        ++used[t];
        total += c;
    }
    for (size_t t = 0; t < p.types.size(); ++t)
        if (used[t] != p.types[t].stages) return false;
    return total == p.layers;
}

}  // namespace hetsched::place
