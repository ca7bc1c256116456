#include <hetsched/fit/effective_progress.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

#include <hetsched/catalog/known_keys.hpp>
#include <hetsched/fit/limits.hpp>
#include <hetsched/fit/prediction.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/number_format.hpp>

namespace hetsched::fit {

LayerStats read_layer_stats(const io::TextInput& in) {
    const io::CsvTable t = io::CsvTable::parse(in);
    catalog::check_known_columns(t, {"layer", "grad_var", "grad_var_at_freeze", "flops", "params"});
    const int layer = t.require("layer"), var = t.require("grad_var");
    const int freeze = t.find("grad_var_at_freeze"), flops = t.find("flops"), params = t.find("params");
    if (t.rows() < 2) throw DataError("layer statistics need at least 2 layers", {in.name, 1, 1});
    if (t.rows() > static_cast<size_t>(limits::max_layers))
        throw DataError("layer statistics have " + std::to_string(t.rows()) + " layers, more than the " +
                            std::to_string(limits::max_layers) + " a model may have",
                        {in.name, 1, 1});
    LayerStats s;
    for (size_t r = 0; r < t.rows(); ++r) {
        if (t.integer(r, layer, 1, limits::max_layers) != static_cast<long>(r) + 1)
            throw DataError("expected layer " + std::to_string(r + 1) + " (rows in layer order from 1)", t.where(r, layer));
        const auto nonneg = [&](int c) { return t.number(r, c, 0, limits::max_layer_stat); };
        const auto positive = [&](int c) { return t.positive(r, c, limits::max_layer_stat); };
        s.grad_var.push_back(nonneg(var));
        s.at_freeze.push_back(freeze >= 0 && !t.cell(r, freeze).text.empty() ? nonneg(freeze)
                                                                            : std::numeric_limits<double>::quiet_NaN());
        s.flops.push_back(flops >= 0 ? positive(flops) : 1.0);
        s.params.push_back(params >= 0 ? positive(params) : 1.0);
    }
    return s;
}

double frozen_penalty(const LayerStats& s, int frozen) {
    double front = 0, back = 0;
    for (size_t i = 0; i < s.grad_var.size(); ++i) {
        if (static_cast<int>(i) < frozen) front += std::isnan(s.at_freeze[i]) ? s.grad_var[i] : s.at_freeze[i];
        else back += s.grad_var[i];
    }
    if (front + back <= 0) return 1;
    return back / (front + back);
}

double unfrozen_share(const std::vector<double>& w, int frozen) {
    double all = 0, rest = 0;
    for (size_t i = 0; i < w.size(); ++i) {
        all += w[i];
        if (static_cast<int>(i) >= frozen) rest += w[i];
    }
    return all > 0 ? rest / all : 1;
}

namespace {

/// The candidates of `p`-stage replicas at per-replica batch `m`, one per frozen-layer count.
void add_candidates(const GroupFit& fit, const LayerStats& stats, int gpus, int nodes, int p, double m,
                    std::vector<TuneCandidate>& out) {
    const int layers = static_cast<int>(stats.grad_var.size());
    for (int l = 0; l < layers; ++l) {
        Sample s = configuration(fit, gpus, nodes, m, p);
        s.frozen_layers = l;
        s.total_layers = layers;
        s.unfrozen_flops = unfrozen_share(stats.flops, l);
        s.unfrozen_params = unfrozen_share(stats.params, l);
        TuneCandidate c;
        c.per_gpu_batch = m;
        c.pipeline_stages = p;
        c.frozen_layers = l;
        c.psi = frozen_penalty(stats, l);
        c.step_time_s = step_time(fit, s);
        c.throughput = s.throughput(c.step_time_s);
        c.effective_progress = c.psi * c.throughput;
        out.push_back(c);
    }
}

}  // namespace

std::vector<TuneCandidate> tune_layers(const GroupFit& fit, const LayerStats& stats, int gpus, int nodes,
                                       const std::vector<double>& batches, double global_batch) {
    const int layers = static_cast<int>(stats.grad_var.size());
    std::vector<TuneCandidate> out;
    for (int p : stage_counts(fit, gpus)) {
        if (p > layers) continue;  // every stage holds a layer
        // A fixed global batch is split over the replicas of p stages (gpus / p of them).
        const std::vector<double> each = global_batch > 0 ? std::vector<double>{global_batch / (gpus / p)} : batches;
        for (double m : each) add_candidates(fit, stats, gpus, nodes, p, m, out);
    }
    if (out.empty())  // only ICEFROG-PP has no 1-stage count: one pipeline over every GPU
        throw DataError(io::counted(gpus, "GPU") + " need pipelines of " + std::to_string(gpus) +
                        " stages, more than the " + std::to_string(layers) + " layers of the statistics");
    std::stable_sort(out.begin(), out.end(), [](const TuneCandidate& a, const TuneCandidate& b) {
        if (a.effective_progress != b.effective_progress) return a.effective_progress > b.effective_progress;
        if (a.frozen_layers != b.frozen_layers) return a.frozen_layers < b.frozen_layers;
        if (a.per_gpu_batch != b.per_gpu_batch) return a.per_gpu_batch < b.per_gpu_batch;
        return a.pipeline_stages < b.pipeline_stages;
    });
    return out;
}

}  // namespace hetsched::fit
