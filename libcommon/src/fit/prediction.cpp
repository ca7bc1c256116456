#include <hetsched/fit/prediction.hpp>

#include <algorithm>
#include <cmath>

#include <hetsched/fit/model_document.hpp>
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

Sample configuration(const GroupFit& f, int gpus, int nodes, double per_gpu_batch) {
    Sample s;
    s.app = f.app;
    s.gpu = f.gpu;
    s.num_gpus = gpus;
    s.num_nodes = nodes;
    s.max_per_node = (gpus + nodes - 1) / nodes;
    s.per_gpu_batch = per_gpu_batch;
    return s;
}

double fitted_throughput(const GroupFit& f, int gpus, int per_node, double global_batch) {
    const double most = f.range.max_batch > 0 ? f.range.max_batch : 1;
    const double per_gpu = global_batch > 0 ? global_batch / gpus : most;
    const double steps = std::max(1.0, std::ceil(per_gpu / most - 1e-9));
    const int nodes = (gpus + per_node - 1) / per_node;
    const Sample s = configuration(f, gpus, nodes, per_gpu / steps);
    return gpus * per_gpu / (steps * step_time(f, s));
}

std::string predict_table(const Profile& profile, const std::vector<GroupFit>& fits) {
    std::vector<std::string> header;
    for (const auto& c : profile.table.header()) header.push_back(c.text);
    header.push_back("predicted_step_time_s");
    header.push_back("predicted_throughput");
    io::CsvWriter w(header);
    for (size_t r = 0; r < profile.samples.size(); ++r) {
        const Sample& s = profile.samples[r];
        const GroupFit& f = find_fit(fits, s.app, s.gpu, s.where);
        const double t = step_time(f, s);
        std::vector<std::string> row;
        for (const auto& c : profile.table.row(r)) row.push_back(c.text);
        row.push_back(io::format_number(t, 6));
        row.push_back(io::format_number(s.throughput(t), 6));
        w.add_row(row);
    }
    return w.text();
}

std::string throughput_grid(const std::vector<GroupFit>& fits, const GridOptions& o) {
    io::CsvWriter w({"app", "gpu", "num_nodes", "num_gpus", "per_gpu_batch", "predicted_step_time_s",
                     "predicted_throughput"});
    for (const auto& f : fits) {
        std::vector<int> gpus = o.gpus;
        if (gpus.empty())
            for (int g = 1; g <= std::max(1, f.range.max_gpus); g *= 2) gpus.push_back(g);
        const std::vector<double> batches = o.batches.empty() ? default_batches(f) : o.batches;
        const int per_node = gpus_per_node(f, o.gpus_per_node);
        for (int g : gpus)
            for (double b : batches) {
                const Sample s = configuration(f, g, (g + per_node - 1) / per_node, b);
                const double t = step_time(f, s);
                w.add_row({f.app, f.gpu, std::to_string(s.num_nodes), std::to_string(g), io::format_number(b, 6),
                           io::format_number(t, 6), io::format_number(s.throughput(t), 6)});
            }
    }
    return w.text();
}

}  // namespace hetsched::fit
