#include <hetsched/model/memory_report.hpp>

#include <cmath>

#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/yaml_document.hpp>

namespace hetsched::model {
namespace {

std::string gib(double bytes) { return io::format_fixed(bytes / kGiB, 3); }

YAML::Node layout_to_yaml(const Layout& l) {
    YAML::Node n(YAML::NodeType::Map);
    n.SetStyle(YAML::EmitterStyle::Flow);
    n["tp"] = l.tp;
    n["pp"] = l.pp;
    n["dp"] = l.dp;
    n["cp"] = l.cp;
    n["vpp"] = l.vpp;
    n["micro_batch"] = l.micro_batch;
    if (!l.layers_per_stage.empty()) {
        YAML::Node split(YAML::NodeType::Sequence);
        for (long c : l.layers_per_stage) split.push_back(c);
        n["layers_per_stage"] = split;
    }
    return n;
}

const char* kStageColumns[] = {"weights_gib", "gradients_gib", "optimizer_gib", "activations_gib",
                               "logits_gib",  "comm_buffers_gib", "overhead_gib", "total_gib"};

std::vector<double> stage_values(const StageMemory& s) {
    return {s.weights, s.gradients, s.optimizer, s.activations, s.logits, s.comm_buffers, s.overhead, s.total()};
}

}  // namespace

YAML::Node breakdown_to_yaml(const MemoryEstimate& est, const Layout& l, Measure measure, const std::string& method,
                             const catalog::GpuType* gpu, double usable_fraction) {
    YAML::Node n(YAML::NodeType::Map);
    n["method"] = method;
    n["measure"] = measure_name(measure);
    n["layout"] = layout_to_yaml(l);
    n["gpus"] = l.gpus();
    YAML::Node stages(YAML::NodeType::Sequence);
    for (const auto& s : est.stages) {
        YAML::Node st(YAML::NodeType::Map);
        st["stage"] = s.stage;
        st["first_layer"] = s.first_layer;
        st["last_layer"] = s.last_layer;
        if (!s.chunks.empty()) {
            YAML::Node chunks(YAML::NodeType::Sequence);
            for (const auto& [first, last] : s.chunks) {
                YAML::Node c(YAML::NodeType::Sequence);
                c.push_back(first);
                c.push_back(last);
                c.SetStyle(YAML::EmitterStyle::Flow);
                chunks.push_back(c);
            }
            chunks.SetStyle(YAML::EmitterStyle::Flow);
            st["chunks"] = chunks;
        }
        st["in_flight_micro_batches"] = io::yaml_number_node(s.in_flight);
        auto values = stage_values(s);
        for (size_t i = 0; i < values.size(); ++i) st[kStageColumns[i]] = gib(values[i]);
        st["peak_phase"] = phase_name(s.phase);
        stages.push_back(st);
    }
    n["stages"] = stages;
    n["peak_stage"] = est.peak_stage;
    n["peak_gib"] = gib(est.peak_bytes());
    if (gpu) {
        const double usable = gpu->memory_gib * usable_fraction;
        n["gpu"] = gpu->name;
        n["usable_gib"] = io::format_fixed(usable, 3);
        // Short or spare by less than the 3 decimals show: as many digits as tell its sign, lest a
        // peak and usable printed alike read as fitting when they do not.
        const double headroom = usable - est.peak_bytes() / kGiB;
        n["headroom_gib"] = std::fabs(headroom) >= 0.0005 || headroom == 0 ? io::format_fixed(headroom, 3)
                                                                            : io::format_number(headroom, 2);
        n["fits"] = est.peak_bytes() / kGiB <= usable;
    }
    return n;
}

const std::vector<std::string>& plan_keys() {
    static const std::vector<std::string> keys = {"rank", "gpu",      "gpus",       "tp",        "pp",
                                                  "dp",   "micro_batch", "peak_gib", "usable_gib", "est_iteration_s"};
    return keys;
}

void plans_to_yaml(YAML::Node section, const std::vector<Plan>& plans, size_t top, Measure measure,
                   const std::string& method) {
    section["method"] = method;
    section["measure"] = measure_name(measure);
    section["plans_found"] = plans.size();
    // The list is made inside the section, so each plan joins the document's node memory as it is added;
    // a list built apart is copied into it whole (a million nodes for every plan of a 7B model).
    section["plans"] = YAML::Node(YAML::NodeType::Sequence);
    YAML::Node list = section["plans"];
    for (size_t i = 0; i < plans.size() && (top == 0 || i < top); ++i) {
        const Plan& p = plans[i];
        YAML::Node e(YAML::NodeType::Map);
        e.SetStyle(YAML::EmitterStyle::Flow);
        e["rank"] = i + 1;
        e["gpu"] = p.gpu;
        e["gpus"] = p.layout.gpus();
        e["tp"] = p.layout.tp;
        e["pp"] = p.layout.pp;
        e["dp"] = p.layout.dp;
        e["micro_batch"] = p.layout.micro_batch;
        e["peak_gib"] = io::format_fixed(p.peak_gib, 3);
        e["usable_gib"] = io::format_fixed(p.usable_gib, 3);
        e["est_iteration_s"] = io::yaml_number_node(p.iteration_s);
        list.push_back(e);
    }
}

std::string breakdown_to_csv(const MemoryEstimate& est, Measure measure) {
    const bool interleaved = !est.stages.front().chunks.empty();
    std::vector<std::string> header = {"stage", "first_layer", "last_layer", "in_flight_micro_batches"};
    for (const char* c : kStageColumns) header.push_back(c);
    header.push_back("peak_phase");
    header.push_back("measure");  // what total_gib counts (--gpu makes it device)
    if (interleaved) header.push_back("chunks");  // "0-2;12-14": each chunk's first and last layer
    io::CsvWriter w(header);
    for (const auto& s : est.stages) {
        std::vector<std::string> row = {std::to_string(s.stage), std::to_string(s.first_layer),
                                        std::to_string(s.last_layer), io::format_number(s.in_flight)};
        for (double v : stage_values(s)) row.push_back(gib(v));
        row.push_back(phase_name(s.phase));
        row.push_back(measure_name(measure));
        if (interleaved) {
            std::string chunks;
            for (const auto& [first, last] : s.chunks)
                chunks += (chunks.empty() ? "" : ";") + std::to_string(first) + "-" + std::to_string(last);
            row.push_back(chunks);
        }
        w.add_row(row);
    }
    return w.text();
}

std::string plans_to_csv(const std::vector<Plan>& plans, size_t top) {
    io::CsvWriter w({"rank", "gpu", "gpus", "tp", "pp", "dp", "micro_batch", "peak_gib", "usable_gib", "est_iteration_s"});
    for (size_t i = 0; i < plans.size() && (top == 0 || i < top); ++i) {
        const Plan& p = plans[i];
        w.add_row({std::to_string(i + 1), p.gpu, std::to_string(p.layout.gpus()), std::to_string(p.layout.tp),
                   std::to_string(p.layout.pp), std::to_string(p.layout.dp), std::to_string(p.layout.micro_batch),
                   io::format_fixed(p.peak_gib, 3), io::format_fixed(p.usable_gib, 3),
                   io::format_number(p.iteration_s)});
    }
    return w.text();
}

std::string check_to_csv(const std::vector<CheckRow>& rows) {
    io::CsvWriter w({"id", "framework", "measure_kind", "measured_gib", "predicted_gib", "error_pct"});
    for (const auto& r : rows)
        w.add_row({r.id, framework_name(r.framework), measure_name(r.measure), io::format_number(r.measured_gib),
                   io::format_fixed(r.predicted_gib, 3), io::format_fixed(r.error_pct, 2)});
    return w.text();
}

}  // namespace hetsched::model
