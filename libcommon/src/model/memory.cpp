/// Memory estimates: the names of measures and methods, and the estimate over the stage model for a split.
#include <hetsched/model/memory.hpp>

#include <algorithm>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/model/pipeline_split.hpp>
#include <hetsched/model/stage_memory.hpp>

namespace hetsched::model {

MemoryEstimate frenzy_estimate(const catalog::ModelSpec& m, const Training& t, const Layout& l);  // memory_frenzy.cpp

Measure parse_measure(const std::string& written) {
    // Also torch's own names for the two peaks (torch.cuda.max_memory_allocated), Megatron-LM's
    // (its memory report's "max allocated", its logged mem-max-allocated-bytes), and nvidia-smi, with
    // '_', '-' or a space between words.
    std::string s = io::folded_name(written);
    if (s.rfind("torch.cuda.", 0) == 0) s.erase(0, 11);
    std::replace_if(s.begin(), s.end(), [](char c) { return c == '-' || c == ' '; }, '_');
    if (s.size() > 6 && s.compare(s.size() - 6, 6, "_bytes") == 0) s.erase(s.size() - 6);
    if (s.rfind("mem_max_", 0) == 0) s = "max_" + s.substr(8);
    if (s == "allocated" || s == "max_allocated" || s == "max_memory_allocated") return Measure::allocated;
    if (s == "reserved" || s == "max_reserved" || s == "max_memory_reserved") return Measure::reserved;
    if (s == "device" || s == "nvidia_smi") return Measure::device;
    throw DataError("unknown measure '" + written + "' (expected allocated, reserved or device)");
}

std::string measure_name(Measure m) {
    switch (m) {
    case Measure::allocated: return "allocated";
    case Measure::reserved: return "reserved";
    case Measure::device: return "device";
    }
    return "?";
}

const char* phase_name(Phase p) {
    switch (p) {
    case Phase::forward: return "forward";
    case Phase::backward: return "backward";
    case Phase::step: return "step";
    }
    return "?";
}

Method parse_method(const std::string& s) {
    if (s == "default") return Method::framework;
    if (s == "frenzy") return Method::frenzy;
    throw UsageError("unknown method '" + s + "' (expected default or frenzy)");
}

double element_bytes(const Training& t) { return t.precision == "fp32" ? 4 : 2; }

namespace {

/// Under interleaving stage s holds model chunks s, s + pp, s + 2 pp, ... (the interleaved schedules
/// of Megatron-LM and torch's pipelining): each stage's layers are cut into vpp chunks as evenly as
/// they go (the first chunks one layer more), and the model's layers run through the chunks in
/// model-chunk order.
void interleave(std::vector<StageMemory>& stages, const std::vector<long>& split, int vpp) {
    long next = 0;
    for (int v = 0; v < vpp; ++v)
        for (size_t s = 0; s < stages.size(); ++s) {
            const long size = split[s] / vpp + (v < split[s] % vpp ? 1 : 0);
            stages[s].chunks.emplace_back(next, next + size - 1);
            next += size;
        }
    for (auto& st : stages) {
        st.first_layer = st.chunks.front().first;
        st.last_layer = st.chunks.back().second;
    }
}

}  // namespace

MemoryEstimate estimate_memory(const catalog::ModelSpec& m, const Training& t, const Layout& l, Measure measure,
                               Method method) {
    if (method == Method::frenzy) return frenzy_estimate(m, t, l);
    const StageMemoryModel model(m, t, l, measure);
    MemoryEstimate est;
    long next = 0;
    const std::vector<long> own = l.layers_per_stage.empty() ? default_split(m, t, l) : std::vector<long>{};
    const std::vector<long>& split = l.layers_per_stage.empty() ? own : l.layers_per_stage;
    for (int i = 0; i < l.pp; ++i) {
        const long count = split[static_cast<size_t>(i)];
        est.stages.push_back(model.stage(i, next, count));
        next += count;
        if (est.stages.back().total() > est.stages[est.peak_stage].total()) est.peak_stage = static_cast<size_t>(i);
    }
    if (l.vpp > 1) interleave(est.stages, split, l.vpp);
    return est;
}

}  // namespace hetsched::model
