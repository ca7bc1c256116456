#include <hetsched/model/pipeline_split.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <mutex>
#include <tuple>

#include <hetsched/model/stage_memory.hpp>
#include <hetsched/model/transformer.hpp>

namespace hetsched::model {
namespace {

std::vector<long> even_split(long layers, int pp) {
    std::vector<long> out;
    for (int i = 0; i < pp; ++i) out.push_back(layers / pp + (i >= pp - layers % pp ? 1 : 0));
    return out;
}

/// DeepSpeed's dynamic programme is cubic: past this many steps (layers² x pp) it would take DeepSpeed
/// minutes, and memest's plan search calls it for every layout.
constexpr double kMostPartitionSteps = 4e7;

/// A PipelineModule's layer list as DeepSpeed weighs it: [embedding, `layers` x layer, norm, head].
struct LayerWeights {
    long layers;
    double embedding, layer, norm, head;

    std::vector<double> list() const {
        std::vector<double> out{embedding};
        out.insert(out.end(), static_cast<size_t>(layers), layer);
        out.push_back(norm);
        out.push_back(head);
        return out;
    }
};

/// partition_balanced of `w` into `parts`, remembered: a plan search asks for the same few layer lists
/// again and again, so the key is the five numbers that make the list, not the list. Guarded for
/// planalloc's threads; a plain value cache, cleared when it grows.
std::vector<long> remembered_partition(const LayerWeights& w, int parts) {
    using Key = std::tuple<long, double, double, double, double, int>;
    static std::mutex guard;
    static std::map<Key, std::vector<long>> memo;
    const Key key{w.layers, w.embedding, w.layer, w.norm, w.head, parts};
    {
        const std::lock_guard<std::mutex> lock(guard);
        if (auto it = memo.find(key); it != memo.end()) return it->second;
    }
    std::vector<long> cuts = partition_balanced(w.list(), parts);
    const std::lock_guard<std::mutex> lock(guard);
    if (memo.size() >= 256) memo.clear();
    memo.emplace(key, cuts);
    return cuts;
}

}  // namespace

std::vector<long> partition_balanced(const std::vector<double>& weights, int parts) {
    const size_t n = weights.size(), m = static_cast<size_t>(std::max(parts, 1));
    if (n <= m) {  // partition_uniform: one item a part while they last
        std::vector<long> out;
        for (size_t p = 0; p <= m; ++p) out.push_back(static_cast<long>(std::min(p, n)));
        return out;
    }
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> prefix(n + 1, 0.0);
    for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + weights[i];
    // For the first i items in j parts: the least (largest − smallest part), with the largest and the
    // smallest part that reach it and where the last part starts. DeepSpeed leaves the smallest part
    // of no parts at infinity, and a later start wins a tie.
    const size_t w = m + 1;
    std::vector<double> cost((n + 1) * w, inf), most((n + 1) * w, inf), least((n + 1) * w, inf);
    std::vector<size_t> start((n + 1) * w, 0);
    cost[0] = most[0] = 0;
    for (size_t i = 1; i <= n; ++i)
        for (size_t j = 1; j <= std::min(i, m); ++j)
            for (size_t k = 0; k < i; ++k) {
                const double part = prefix[i] - prefix[k];
                const double hi = std::max(most[k * w + j - 1], part), lo = std::min(least[k * w + j - 1], part);
                const double c = hi - lo;
                const size_t at = i * w + j;
                if (cost[at] >= c) {
                    cost[at] = c;
                    most[at] = hi;
                    least[at] = lo;
                    start[at] = k;
                }
            }
    std::vector<long> out{static_cast<long>(n)};
    for (size_t j = m; j >= 1; --j) out.push_back(static_cast<long>(start[static_cast<size_t>(out.back()) * w + j]));
    std::reverse(out.begin(), out.end());
    return out;
}

std::vector<long> default_split(const catalog::ModelSpec& m, const Training& t, const Layout& l) {
    if (l.pp <= 1 || t.framework != Framework::deepspeed) return even_split(m.layers, l.pp);
    // A PipelineModule of [embedding, the decoder layers, the final norm, the output head]. A
    // LLaMA-style model partitions by trainable parameters (a tied head is a TiedLayerSpec, counted in
    // full too); Megatron-DeepSpeed's GPT by transformer layers (type:transformer: a weight of 1 for
    // each, 0 for the rest), which gives the first stages the extra layers.
    const double n = static_cast<double>(m.layers + 3);
    if (n * n * l.pp > kMostPartitionSteps) return even_split(m.layers, l.pp);
    const double vocab_rows = static_cast<double>(padded_vocab(m, l.tp, false)) * static_cast<double>(m.hidden) / l.tp;
    const LayerWeights weights = megatron_deepspeed(m, t)
                                     ? LayerWeights{m.layers, 0, 1, 0, 0}
                                     : LayerWeights{m.layers, embedding_params(m, l.tp, false), layer_params(m, l.tp),
                                                    static_cast<double>(m.hidden), vocab_rows};
    const std::vector<long> cuts = remembered_partition(weights, l.pp);
    std::vector<long> out;
    for (int i = 0; i < l.pp; ++i) {
        // Decoder layers are items 1..layers.
        const long from = std::max(cuts[static_cast<size_t>(i)], 1L), to = std::min(cuts[static_cast<size_t>(i) + 1], m.layers + 1);
        out.push_back(std::max(0L, to - from));
    }
    // A stage left with the embedding or the head alone has no layer for the memory model to place:
    // DeepSpeed's split is then not one this model describes, and the even split stands in.
    if (std::find(out.begin(), out.end(), 0L) != out.end()) return even_split(m.layers, l.pp);
    return out;
}

}  // namespace hetsched::model
