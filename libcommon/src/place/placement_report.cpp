#include <hetsched/place/placement_report.hpp>

#include <algorithm>

#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/yaml_document.hpp>

namespace hetsched::place {
namespace {

std::string seconds(double s) { return io::format_number(s, 6); }
std::string gib(double g) { return io::format_fixed(g, 3); }

}  // namespace

std::vector<StageReport> stage_reports(const Problem& p, const Placement& pl, const Estimate& e) {
    std::vector<StageReport> out;
    long first = 0;
    for (size_t s = 0; s < pl.order.size(); ++s) {
        StageReport r;
        r.stage = static_cast<int>(s);
        r.gpu = p.types[pl.order[s]].name;
        r.first_layer = first;
        r.layers = pl.layers[s];
        r.times = e.stages[s];
        const StageType& t = p.types[pl.order[s]];
        r.usable_gib = t.usable_gib;
        if (t.memory) r.memory_gib = t.memory->stage(r.stage, first, r.layers).total() / model::kGiB;
        first += r.layers;
        out.push_back(r);
    }
    return out;
}

YAML::Node placement_to_yaml(const Problem& p, const PlaceResult& r, const Estimate& e, const ReportContext& c) {
    YAML::Node n(YAML::NodeType::Map);
    n["method"] = c.method;
    n["tp"] = p.tp;
    n["dp"] = p.dp;
    n["pp"] = p.stages();
    n["micro_batch"] = c.micro_batch;
    n["micro_batches"] = p.micro_batches;
    n["schedule"] = schedule_kind_name(p.schedule);
    n["layer_times"] = c.layer_times;
    if (c.layer_times != "profile") n["efficiency"] = io::yaml_number_node(c.efficiency);
    n["measure"] = c.measure;
    n["iteration_time_s"] = seconds(e.schedule.iteration_s);
    n["pipeline_time_s"] = seconds(e.schedule.pipeline_s);
    YAML::Node bound(YAML::NodeType::Map);
    bound.SetStyle(YAML::EmitterStyle::Flow);
    using Bound = Estimate::Bound;
    const size_t stage = e.bound == Bound::compute ? e.slowest_stage : e.critical_stage;
    bound["stage"] = stage;
    bound["gpu"] = p.types[r.placement.order[stage]].name;
    bound["by"] = e.bound == Bound::compute               ? "compute"
                  : e.bound == Bound::allreduce           ? "allreduce"
                  : e.bound == Bound::embedding_allreduce ? "embedding_allreduce"
                                                          : "optimizer";
    n["bound_by"] = bound;
    n["evaluated"] = r.evaluated;
    if (r.nodes > 0) {
        n["search_nodes"] = r.nodes;
        n["search_complete"] = !r.stopped;
    }
    YAML::Node stages(YAML::NodeType::Sequence);
    for (const auto& s : stage_reports(p, r.placement, e)) {
        YAML::Node st(YAML::NodeType::Map);
        st.SetStyle(YAML::EmitterStyle::Flow);
        st["stage"] = s.stage;
        st["gpu"] = s.gpu;
        st["gpus"] = p.dp * p.tp;
        st["first_layer"] = s.first_layer;
        st["last_layer"] = s.first_layer + s.layers - 1;
        st["layers"] = s.layers;
        st["forward_s"] = seconds(s.times.forward);
        st["backward_s"] = seconds(s.times.backward);
        st["send_activation_s"] = seconds(s.times.send_activation);
        st["send_gradient_s"] = seconds(s.times.send_gradient);
        st["allreduce_s"] = seconds(s.times.allreduce);
        st["optimizer_s"] = seconds(s.times.optimizer);
        st["embedding_allreduce_s"] = seconds(s.times.tied);  // first and last stage of a tied model
        if (s.memory_gib >= 0) {
            st["memory_gib"] = gib(s.memory_gib);
            st["usable_gib"] = gib(s.usable_gib);
            st["headroom_gib"] = gib(s.usable_gib - s.memory_gib);
        }
        stages.push_back(st);
    }
    n["stages"] = stages;
    return n;
}

std::string placement_to_csv(const Problem& p, const PlaceResult& r, const Estimate& e) {
    io::CsvWriter w({"stage", "gpu", "gpus", "first_layer", "last_layer", "layers", "forward_s", "backward_s",
                     "send_activation_s", "send_gradient_s", "allreduce_s", "optimizer_s", "memory_gib", "usable_gib", "headroom_gib",
                     "iteration_time_s", "embedding_allreduce_s"});
    for (const auto& s : stage_reports(p, r.placement, e)) {
        const bool known = s.memory_gib >= 0;
        w.add_row({std::to_string(s.stage), s.gpu, std::to_string(p.dp * p.tp), std::to_string(s.first_layer),
                   std::to_string(s.first_layer + s.layers - 1), std::to_string(s.layers), seconds(s.times.forward),
                   seconds(s.times.backward), seconds(s.times.send_activation), seconds(s.times.send_gradient),
                   seconds(s.times.allreduce), seconds(s.times.optimizer), known ? gib(s.memory_gib) : "", gib(s.usable_gib),
                   known ? gib(s.usable_gib - s.memory_gib) : "", seconds(e.schedule.iteration_s), seconds(s.times.tied)});
    }
    return w.text();
}

std::string timeline_to_csv(const Problem& p, const Placement& pl, const std::vector<TimelineEvent>& events) {
    std::vector<TimelineEvent> sorted = events;
    std::stable_sort(sorted.begin(), sorted.end(), [](const TimelineEvent& a, const TimelineEvent& b) {
        return a.stage != b.stage ? a.stage < b.stage : a.start_s < b.start_s;
    });
    io::CsvWriter w({"stage", "gpu", "micro_batch", "kind", "start_s", "end_s"});
    for (const auto& e : sorted)
        w.add_row({std::to_string(e.stage), p.types[pl.order[static_cast<size_t>(e.stage)]].name,
                   e.micro_batch < 0 ? "" : std::to_string(e.micro_batch), event_kind_name(e.kind),
                   io::format_number(e.start_s, 9), io::format_number(e.end_s, 9)});
    return w.text();
}

}  // namespace hetsched::place
