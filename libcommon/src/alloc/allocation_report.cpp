#include <hetsched/alloc/allocation_report.hpp>

#include <algorithm>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/output_file.hpp>

namespace hetsched::alloc {
namespace {

std::string num(double v) { return io::format_number(v, 6); }


std::string mix(const SearchSpace& space, const PlanRecord& p, const char* sep) {
    std::string out;
    for (size_t t = 0; t < p.stages.size(); ++t)
        if (p.stages[t] > 0)
            out += (out.empty() ? "" : sep) + space.types[t].name + ": " + std::to_string(p.stages[t] * p.dp);
    return out;
}

std::string stage_list(const PlanRecord& p) {
    std::string out;
    for (size_t s = 0; s < p.order.size(); ++s)
        out += (s ? " " : "") + p.order[s] + "/" + std::to_string(p.layers[s]);
    return out;
}

YAML::Node plan_to_yaml(const SearchSpace& space, const PlanRecord& p, bool detailed) {
    YAML::Node n(YAML::NodeType::Map);
    n["gpus"] = gpu_counts(space, p);
    n["dp"] = p.dp;
    n["pp"] = p.pp;
    YAML::Node stages(YAML::NodeType::Sequence);
    for (size_t s = 0; s < p.order.size(); ++s) {
        YAML::Node st(YAML::NodeType::Map);
        st.SetStyle(YAML::EmitterStyle::Flow);
        st["gpu"] = p.order[s];
        st["layers"] = p.layers[s];
        stages.push_back(st);
    }
    n["stages"] = stages;
    n["iteration_time_s"] = num(p.iteration_s);
    n["total_time_s"] = time_beside_slo(p.total_s, space.slo_s);
    n["price_per_hour"] = num(p.price_per_hour);
    n["cost"] = num(p.cost);
    if (detailed && p.lower_bound_cost > 0) n["cost_lower_bound"] = num(p.lower_bound_cost);
    return n;
}

/// Why the best plan is as good as the search says (or, `found` false, why there is none).
std::string proof(const SearchStats& s, const ReportContext& c, bool found) {
    if (!s.complete && s.stopped_by == "beta")
        return "not proven: --beta's estimate pruned partial plans that no bound cut, and no plan costs less than "
               "lower_bound_cost (the least admissible bound over them)";
    if (!s.complete)
        return "stopped at its " + s.stopped_by + ": no plan left unexplored costs less than lower_bound_cost (the least "
               "admissible bound over the open nodes and the trees not yet explored)";
    const std::string what = found ? "optimal for the " + c.placer + " placer" : "no plan meets the SLO";
    if (c.method == "espresso")
        return what + ": every (dp, pp) tree was explored, each plan placed or cut by a lower bound that no "
                      "placement beats";
    if (c.method == "exhaustive") return what + ": every plan was placed";
    return what + " among plans of one type on 2^n GPUs";
}

}  // namespace

YAML::Node gpu_counts(const SearchSpace& space, const PlanRecord& p) {
    YAML::Node n(YAML::NodeType::Map);
    n.SetStyle(YAML::EmitterStyle::Flow);
    for (size_t t = 0; t < p.stages.size(); ++t)
        if (p.stages[t] > 0) n[space.types[t].name] = p.stages[t] * p.dp;
    return n;
}

std::string catalog_identity(const catalog::GpuCatalog& cat) {
    const auto names = catalog::catalog_names();
    const bool named = cat.name == "job" || std::find(names.begin(), names.end(), cat.name) != names.end();  // "job": gpus:
    return named ? cat.name : io::resolved_path(cat.name);
}

YAML::Node allocation_to_yaml(const SearchSpace& space, const std::vector<PlanRecord>& plans, const ReportContext& c) {
    YAML::Node n(YAML::NodeType::Map);
    n["method"] = c.method;
    n["placer"] = c.placer;
    n["schedule"] = c.schedule;
    n["measure"] = c.measure;
    n["usable_fraction"] = num(c.usable_fraction);
    n["efficiency"] = num(c.efficiency);
    const YAML::Node best = plan_to_yaml(space, plans.front(), true);
    for (const auto& kv : best) n[kv.first.Scalar()] = kv.second;
    n["iterations"] = c.iterations;
    if (c.slo_s > 0) n["slo_s"] = io::format_exact(c.slo_s);  // as given
    n["currency"] = c.currency;
    n["catalog"] = c.catalog;  // placestages refuses to time these GPUs with another catalog's specs
    if (plans.size() > 1) {
        YAML::Node alts(YAML::NodeType::Sequence);
        for (size_t i = 1; i < plans.size(); ++i) {
            YAML::Node a(YAML::NodeType::Map);
            a["rank"] = i + 1;
            for (const auto& kv : plan_to_yaml(space, plans[i], false)) a[kv.first.Scalar()] = kv.second;
            alts.push_back(a);
        }
        n["alternatives"] = alts;
    }
    return n;
}

YAML::Node search_to_yaml(const SearchStats& s, const std::vector<PlanRecord>& plans, const ReportContext& c,
                          const std::vector<std::string>& skipped) {
    YAML::Node n(YAML::NodeType::Map);
    n["method"] = c.method;
    n["trees"] = s.trees;
    n["trees_pruned_boundary"] = s.trees_pruned_bp;
    n["trees_pruned"] = s.trees_pruned;
    n["nodes_expanded"] = s.nodes_expanded;
    YAML::Node pruned(YAML::NodeType::Map);
    pruned.SetStyle(YAML::EmitterStyle::Flow);
    pruned["cost"] = s.pruned_cost;
    pruned["cost_beta"] = s.pruned_cost_beta;
    pruned["time"] = s.pruned_time;
    pruned["capacity"] = s.pruned_capacity;
    n["pruned"] = pruned;
    n["plans_evaluated"] = s.plans_evaluated;
    n["plans_unplaceable"] = s.plans_unplaceable;
    n["plans_too_slow"] = s.plans_too_slow;
    n["complete"] = s.complete;
    if (!s.complete) n["stopped_by"] = s.stopped_by;
    if (!plans.empty()) {
        n["lower_bound_cost"] = num(s.lower_bound);
        n["gap"] = s.complete ? "0" : s.lower_bound > 0 ? io::format_fixed(plans.front().cost / s.lower_bound - 1, 4) : ".inf";
    }
    if (!plans.empty() || s.complete) n["proof"] = proof(s, c, !plans.empty());
    if (!skipped.empty()) {
        YAML::Node list(YAML::NodeType::Sequence);
        for (const auto& t : skipped) list.push_back(t);
        n["skipped"] = list;
    }
    return n;
}

std::string replace_allocation(YAML::Node& root, const YAML::Node& allocation, bool search_follows) {
    root["allocation"] = allocation;
    std::vector<std::string> dropped;
    for (const char* key : {"placement", "search"})
        if (root[key] && (std::string(key) != "search" || !search_follows)) {
            root.remove(key);
            dropped.push_back(std::string(key) + ":");
        }
    if (dropped.empty()) return "";
    return "the document's " + io::join(dropped, " and ") + (dropped.size() > 1 ? " sections" : " section") +
           " described the allocation this one replaces and " + (dropped.size() > 1 ? "are" : "is") + " dropped" +
           (dropped.front() == "placement:" ? " (placestages places the new one)" : "");
}

std::string time_beside_slo(double t, double slo) {
    if (slo <= 0) return num(t);
    // As many significant digits as the SLO is written with (6 at least), more where those would put
    // the time on the SLO's other side.
    int digits = 0;
    bool leading = true;
    for (char ch : io::format_exact(slo)) {
        if (ch == 'e') break;
        if (ch < '0' || ch > '9' || (leading && ch == '0')) continue;
        leading = false;
        ++digits;
    }
    std::string text;
    for (digits = std::max(digits, 6); digits <= 17; ++digits) {
        text = io::format_number(t, digits);
        if ((std::stod(text) <= slo) == (t <= slo)) break;
    }
    return text;
}

std::string plans_to_csv(const SearchSpace& space, const std::vector<PlanRecord>& plans) {
    io::CsvWriter w({"rank", "gpus", "mix", "dp", "pp", "stages", "iteration_time_s", "total_time_s",
                     "price_per_hour", "cost"});
    for (size_t i = 0; i < plans.size(); ++i) {
        const PlanRecord& p = plans[i];
        w.add_row({std::to_string(i + 1), std::to_string(p.gpus()), mix(space, p, "; "), std::to_string(p.dp),
                   std::to_string(p.pp), stage_list(p), num(p.iteration_s), time_beside_slo(p.total_s, space.slo_s), num(p.price_per_hour),
                   num(p.cost)});
    }
    return w.text();
}

std::string describe_plan(const SearchSpace& space, const PlanRecord& p) {
    return "dp " + std::to_string(p.dp) + ", pp " + std::to_string(p.pp) + ", " + io::counted(p.gpus(), "GPU") +
           " (" + mix(space, p, ", ") + "), stages " + stage_list(p);
}

void record_network(double inter_node_gb_s, YAML::Node& root) {
    if (inter_node_gb_s <= 0) return;
    if (!root["network"].IsDefined() || !root["network"].IsMap()) root["network"] = YAML::Node(YAML::NodeType::Map);
    root["network"]["inter_node_gb_s"] = num(inter_node_gb_s);
}

}  // namespace hetsched::alloc
