#include <hetsched/fit/prediction.hpp>

#include <algorithm>
#include <cmath>

#include <hetsched/fit/model_document.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/number_format.hpp>

namespace hetsched::fit {

std::vector<double> default_batches(const GroupFit& f) {
    const double lo = f.range.min_batch > 0 ? f.range.min_batch : 1, hi = std::max(lo, f.range.max_batch);
    std::vector<double> batches;
    for (double b = std::pow(2, std::ceil(std::log2(lo))); b <= hi; b *= 2) batches.push_back(b);
    if (batches.empty()) batches.push_back(lo);
    return batches;
}

int gpus_per_node(const GroupFit& f, int wanted) { return wanted > 0 ? wanted : std::max(1, f.range.max_per_node); }

std::vector<int> stage_counts(const GroupFit& f, int gpus) {
    // Every stage holds at least one layer: no deeper pipeline than the model has layers, where the
    // fit knows them (the profile reader refuses such rows, and the tuner such candidates).
    const int deepest = f.range.total_layers > 0 ? f.range.total_layers : gpus;
    switch (f.kind) {
    case ModelKind::icefrog_pp: return gpus <= deepest ? std::vector<int>{gpus} : std::vector<int>{};
    case ModelKind::icefrog_hp: {
        std::vector<int> out;
        for (int s = 1; s <= std::min({gpus, std::max(1, f.range.max_stages), deepest}); ++s)
            if (gpus % s == 0) out.push_back(s);
        return out;
    }
    default: return {1};
    }
}

Sample configuration(const GroupFit& f, int gpus, int nodes, double per_gpu_batch, int stages) {
    Sample s;
    s.app = f.app;
    s.gpu = f.gpu;
    s.num_gpus = gpus;
    s.num_nodes = nodes;
    s.stages = stages;
    s.max_per_node = (gpus + nodes - 1) / nodes;
    s.per_gpu_batch = per_gpu_batch;
    return s;
}

double fitted_throughput(const GroupFit& f, int gpus, int per_node, double global_batch) {
    const double most = f.range.max_batch > 0 ? f.range.max_batch : 1;
    const int nodes = (gpus + per_node - 1) / per_node;
    double best = 0;
    for (int p : stage_counts(f, gpus)) {
        // A profile's per-GPU batch is a replica's (a pipeline's replica spans p GPUs).
        const int replicas = gpus / p;
        const double each = global_batch > 0 ? global_batch / replicas : most;
        const double steps = std::max(1.0, std::ceil(each / most - 1e-9));
        const double t = step_time(f, configuration(f, gpus, nodes, each / steps, p));
        best = std::max(best, replicas * each / (steps * t));
    }
    return best;
}

namespace {
/// Clauses of the extrapolation warnings: "" when the fit saw the batch, or as many GPUs.
std::string batch_beyond(const GroupFit& f, double batch) {
    if (f.range.min_batch <= 0 || (batch >= f.range.min_batch && batch <= f.range.max_batch)) return "";
    return "per-GPU batch " + io::format_number(batch, 6) + " (profiled " + io::format_number(f.range.min_batch, 6) +
           "-" + io::format_number(f.range.max_batch, 6) + ")";
}
std::string gpus_beyond(const GroupFit& f, int gpus) {
    if (f.range.max_gpus <= 0 || gpus <= f.range.max_gpus) return "";
    return std::to_string(gpus) + " GPUs (profiled up to " + std::to_string(f.range.max_gpus) + ")";
}

/// Why `s` lies beyond what `f` was fitted on ("" when within).
std::string extrapolation(const GroupFit& f, const Sample& s) {
    const std::string batch = batch_beyond(f, s.per_gpu_batch), gpus = gpus_beyond(f, s.num_gpus);
    return batch.empty() ? gpus : gpus.empty() ? batch : batch + " and " + gpus;
}
}  // namespace

std::string predict_table(const Profile& profile, const std::vector<GroupFit>& fits, std::string* beyond) {
    std::vector<std::string> header;
    for (const auto& c : profile.table.header()) header.push_back(c.text);
    // A table predicted before gets its predictions replaced, not a second pair of columns.
    const auto column = [&](const char* name) {
        const int at = profile.table.find(name);
        if (at >= 0) return static_cast<size_t>(at);
        header.push_back(name);
        return header.size() - 1;
    };
    const size_t time_col = column("predicted_step_time_s"), rate_col = column("predicted_throughput");
    io::CsvWriter w(header);
    size_t extrapolated = 0;
    std::vector<std::string> named;  // the first few rows beyond their fit
    for (size_t r = 0; r < profile.samples.size(); ++r) {
        const Sample& s = profile.samples[r];
        const GroupFit& f = find_fit(fits, s.app, s.gpu, s.where);
        require_priceable(f.kind, s);
        const double t = step_time(f, s);
        if (const std::string why = extrapolation(f, s); !why.empty()) {
            ++extrapolated;
            if (extrapolated <= 5) named.push_back(s.where.file + ":" + std::to_string(s.where.line) + ": " + why);
        }
        std::vector<std::string> row;
        for (const auto& c : profile.table.row(r)) row.push_back(c.text);
        row.resize(header.size());
        row[time_col] = io::format_number(t, 6);
        row[rate_col] = io::format_number(s.throughput(t), 6);
        w.add_row(row);
    }
    if (beyond && extrapolated > 0)
        *beyond = std::to_string(extrapolated) + " of " + std::to_string(profile.samples.size()) +
                  " rows extrapolated beyond their fit's samples: " + io::join(named) +
                  (extrapolated > named.size() ? ", and " + std::to_string(extrapolated - named.size()) + " more" : "");
    return w.text();
}

std::string throughput_grid(const std::vector<GroupFit>& fits, const GridOptions& o, std::string* left_out) {
    io::CsvWriter w({"app", "gpu", "num_nodes", "num_gpus", "pipeline_stages", "per_gpu_batch",
                     "predicted_step_time_s", "predicted_throughput"});
    for (const auto& f : fits) {
        std::vector<int> gpus = o.gpus;
        if (gpus.empty())
            for (int g = 1; g <= std::max(1, f.range.max_gpus); g *= 2) gpus.push_back(g);
        const std::vector<double> batches = o.batches.empty() ? default_batches(f) : o.batches;
        const int per_node = gpus_per_node(f, o.gpus_per_node);
        std::vector<std::string> none;  // GPU counts this fit cannot price
        for (int g : gpus) {
            const std::vector<int> stages = stage_counts(f, g);
            if (stages.empty()) none.push_back(std::to_string(g));
            for (int p : stages)
                for (double b : batches) {
                    const Sample s = configuration(f, g, (g + per_node - 1) / per_node, b, p);
                    const double t = step_time(f, s);
                    w.add_row({f.app, f.gpu, std::to_string(s.num_nodes), std::to_string(g), std::to_string(p),
                               io::format_number(b, 6), io::format_number(t, 6), io::format_number(s.throughput(t), 6)});
                }
        }
        if (left_out && !none.empty())
            *left_out += std::string(left_out->empty() ? "" : "; ") + "no rows for " + f.app + " on " + f.gpu + " at " +
                         io::join(none) + " GPUs: " + model_name(f.kind) +
                         " prices them as one pipeline of as many stages, more than the model's " +
                         std::to_string(f.range.total_layers) + " layers";
        // Asked-for points beyond what the fit was profiled on are predicted all the same, and said.
        std::vector<std::string> beyond;
        for (double b : o.batches)
            if (std::string why = batch_beyond(f, b); !why.empty()) beyond.push_back(std::move(why));
        for (int g : o.gpus)
            if (std::string why = gpus_beyond(f, g);
                !why.empty() && std::find(none.begin(), none.end(), std::to_string(g)) == none.end())  // (said above)
                beyond.push_back(std::move(why));
        if (left_out && !beyond.empty())
            *left_out += std::string(left_out->empty() ? "" : "; ") + f.app + " on " + f.gpu +
                         " extrapolated beyond its samples: " + io::join(beyond);
    }
    return w.text();
}

}  // namespace hetsched::fit
