#include <hetsched/place/methods.hpp>

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <tuple>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/number_format.hpp>

namespace hetsched::place {
namespace {

std::vector<size_t> stage_list(const Problem& p) {
    std::vector<size_t> out;
    for (size_t t = 0; t < p.types.size(); ++t) out.insert(out.end(), static_cast<size_t>(p.types[t].stages), t);
    return out;
}

}  // namespace

Method parse_method(const std::string& s) {
    if (s == "cmr") return Method::cmr;
    if (s == "whale") return Method::whale;
    if (s == "hph") return Method::hph;
    if (s == "optimal") return Method::optimal;
    if (s == "given") return Method::given;
    throw UsageError("unknown method '" + s + "' (expected cmr, whale, hph, optimal or given)");
}

std::string method_name(Method m) {
    switch (m) {
    case Method::cmr: return "cmr";
    case Method::whale: return "whale";
    case Method::hph: return "hph";
    case Method::optimal: return "optimal";
    case Method::given: return "given";
    }
    return "?";
}

std::vector<size_t> order_by_memory(const Problem& p) {
    auto out = stage_list(p);
    std::stable_sort(out.begin(), out.end(), [&](size_t a, size_t b) {
        const auto &x = p.types[a], &y = p.types[b];
        return std::make_tuple(-x.memory_gib, -x.tflops, x.name) < std::make_tuple(-y.memory_gib, -y.tflops, y.name);
    });
    return out;
}

std::vector<size_t> order_by_compute(const Problem& p) {
    auto out = stage_list(p);
    std::stable_sort(out.begin(), out.end(), [&](size_t a, size_t b) {
        const auto &x = p.types[a], &y = p.types[b];
        return std::make_tuple(x.tflops, x.memory_gib, x.name) < std::make_tuple(y.tflops, y.memory_gib, y.name);
    });
    return out;
}

// Each type's stages take the positions that maximise the sum of their max_layers (a position's
// capacity differs: the first holds the embedding, the last the output layer and loss, earlier ones
// more micro-batches in flight), by a search over how many stages of each type are left, memoised;
// past a million such mixes, -1 (the caller then bounds it by each stage at its type's best position).
long most_layers(const Problem& p) {
    std::vector<int> left;
    size_t states = 1;
    for (const auto& g : p.types) left.push_back(g.stages), states *= static_cast<size_t>(g.stages + 1);
    if (states > 1000000) return -1;
    std::map<std::vector<int>, long> memo;
    std::function<long(size_t)> best = [&](size_t pos) -> long {
        if (pos == static_cast<size_t>(p.stages())) return 0;
        if (const auto it = memo.find(left); it != memo.end()) return it->second;
        long most = std::numeric_limits<long>::min();
        for (size_t t = 0; t < left.size(); ++t) {
            if (left[t] == 0) continue;
            --left[t];
            const long rest = best(pos + 1);
            ++left[t];
            if (rest != std::numeric_limits<long>::min()) most = std::max(most, p.types[t].max_layers[pos] + rest);
        }
        memo[left] = most;
        return most;
    };
    return best(0);
}

std::string shortfall(const Problem& p, const std::vector<size_t>* order, bool exhaustive) {
    // The most layers the stages hold: over every order, or each at its own position in a fixed order.
    long most = 0, bound = 0;
    std::string none;
    for (size_t t = 0; t < p.types.size(); ++t) {
        const auto& g = p.types[t];
        const long best = *std::max_element(g.max_layers.begin(), g.max_layers.end());
        bound += best * g.stages;
        if (best == 0 && none.empty())
            none = "; one layer on " + g.name + " needs " + io::format_fixed(g.first_layer_gib, 2) + " GiB of " +
                   io::format_fixed(g.usable_gib, 2) + " GiB usable";
    }
    if (order)
        for (size_t s = 0; s < order->size(); ++s) most += p.types[(*order)[s]].max_layers[s];
    else
        most = most_layers(p);
    const bool exact = most >= 0;
    if (!exact) most = bound;
    const std::string where = order ? "in this stage order " : "";
    if (most >= p.layers)
        return "no placement found that fits memory, though the stages " + where + "hold up to " +
               std::to_string(most) + " of " + std::to_string(p.layers) + " layers" +
               (exhaustive ? "" : "; try --method optimal");
    double per_layer = 0;
    for (const auto& g : p.types) per_layer = std::max(per_layer, g.per_layer_gib);
    return "the allocation cannot hold " + p.model + ": its " + io::counted(p.stages(), "stage") + " " + where +
           "hold " + (exact ? "at most " : "no more than about ") + std::to_string(most) + " of " +
           std::to_string(p.layers) + " layers, about " +
           io::format_fixed(static_cast<double>(p.layers - most) * per_layer, 1) + " GiB short (" +
           io::format_fixed(per_layer, 2) + " GiB per layer)" + none;
}

PlaceResult place_stages(const Problem& p, Method m, const PlaceOptions& o) {
    const std::vector<size_t>* fixed = o.keep_order ? &o.order : nullptr;
    PlaceResult r;
    switch (m) {
    case Method::cmr: r = place_cmr(p, fixed); break;
    case Method::whale: r = place_whale(p, fixed ? *fixed : order_by_memory(p)); break;
    case Method::hph: {
        const std::vector<size_t> order = fixed ? *fixed : order_by_compute(p);
        r = place_exact(p, &order, place_cmr(p, &order), o.search_limit, o.stop);
        break;
    }
    case Method::optimal: r = place_exact(p, fixed, place_cmr(p, fixed), o.search_limit, o.stop); break;
    case Method::given: return place_given(p, o.order, o.layers, o.layers_where);
    }
    // optimal searches every order (hph, with --keep-order, the one given): no placement is a proof.
    if (r.placement.empty())
        throw Infeasible(shortfall(p, fixed, !r.stopped && (m == Method::optimal || (m == Method::hph && fixed))));
    return r;
}

}  // namespace hetsched::place
