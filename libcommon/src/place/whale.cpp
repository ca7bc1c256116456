/// Whale's placement: stages in a given order (decreasing memory), layers balanced by compute speed
/// and moved off any stage whose memory they overflow.
#include <cmath>

#include <hetsched/place/estimator.hpp>
#include <hetsched/place/methods.hpp>

namespace hetsched::place {

PlaceResult place_whale(const Problem& p, const std::vector<size_t>& order) {
    const size_t k = order.size();
    // Speed of a stage: layers per second of forward + backward on its type.
    std::vector<double> speed(k);
    double total_speed = 0;
    for (size_t s = 0; s < k; ++s) {
        const StageType& t = p.types[order[s]];
        speed[s] = static_cast<double>(p.layers) / (t.forward.back() + t.backward.back());
        total_speed += speed[s];
    }
    // The floor of L x speed share, at least one layer each.
    Placement pl{order, std::vector<long>(k, 1)};
    long given = static_cast<long>(k);
    std::vector<double> share(k);
    for (size_t s = 0; s < k; ++s) {
        share[s] = static_cast<double>(p.layers) * speed[s] / total_speed;
        const long whole = std::max(1L, static_cast<long>(std::floor(share[s])));
        given += whole - 1;
        pl.layers[s] = whole;
    }
    // Hand out what rounding left (or take back what the one-layer minimum added), always to the stage
    // whose load relative to its speed is lightest (heaviest), within its memory.
    auto load = [&](size_t s, long extra) { return static_cast<double>(pl.layers[s] + extra) / speed[s]; };
    auto cap = [&](size_t s) { return p.types[order[s]].max_layers[s]; };
    for (size_t s = 0; s < k; ++s)
        if (cap(s) < 1) return {};
    while (given > p.layers) {
        size_t pick = k;
        for (size_t s = 0; s < k; ++s)
            if (pl.layers[s] > 1 && (pick == k || load(s, 0) > load(pick, 0))) pick = s;
        --pl.layers[pick];
        --given;
    }
    for (size_t s = 0; s < k; ++s)  // memory caps: the overflow goes back into the pool
        if (pl.layers[s] > cap(s)) given -= pl.layers[s] - cap(s), pl.layers[s] = cap(s);
    while (given < p.layers) {
        size_t pick = k;
        for (size_t s = 0; s < k; ++s)
            if (pl.layers[s] < cap(s) && (pick == k || load(s, 1) < load(pick, 1))) pick = s;
        if (pick == k) return {};
        ++pl.layers[pick];
        ++given;
    }
    PlaceResult r;
    r.placement = pl;
    r.iteration_s = estimate(p, pl).schedule.iteration_s;
    r.evaluated = 1;
    return r;
}

}  // namespace hetsched::place
