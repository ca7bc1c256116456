#include <hetsched/fit/prediction.hpp>

#include <cmath>

#include <hetsched/fit/model_document.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/number_format.hpp>

namespace hetsched::fit {

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
        std::vector<double> batches = o.batches;
        if (batches.empty()) {
            const double lo = f.range.min_batch > 0 ? f.range.min_batch : 1, hi = std::max(lo, f.range.max_batch);
            for (double b = std::pow(2, std::ceil(std::log2(lo))); b <= hi; b *= 2) batches.push_back(b);
            if (batches.empty()) batches.push_back(lo);
        }
        const int per_node = o.gpus_per_node > 0 ? o.gpus_per_node : std::max(1, f.range.max_per_node);
        for (int g : gpus)
            for (double b : batches) {
                Sample s;
                s.app = f.app;
                s.gpu = f.gpu;
                s.num_gpus = g;
                s.num_nodes = (g + per_node - 1) / per_node;
                s.max_per_node = std::min(g, per_node);
                s.per_gpu_batch = b;
                const double t = step_time(f, s);
                w.add_row({f.app, f.gpu, std::to_string(s.num_nodes), std::to_string(g), io::format_number(b, 6),
                           io::format_number(t, 6), io::format_number(s.throughput(t), 6)});
            }
    }
    return w.text();
}

}  // namespace hetsched::fit
