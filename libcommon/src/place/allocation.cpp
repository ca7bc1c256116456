#include <hetsched/place/allocation.hpp>

#include <algorithm>
#include <map>

#include <hetsched/io/comma_list.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/output_file.hpp>
#include <hetsched/model/training.hpp>

namespace hetsched::place {
namespace {

std::string resolve(const io::YamlDocument& doc, const YAML::Node& n, const catalog::GpuCatalog& c) {
    const std::string name = io::yaml_string(doc, n, "gpu");
    try {
        return c.find(name).name;
    } catch (const UsageError& e) {
        throw DataError(e.what(), doc.where(n));
    }
}

/// Deeper pipelines than limits::stages are refused before any placer runs.
void check_stage_count(const Allocation& a) {
    if (a.stages.size() > static_cast<size_t>(model::limits::stages))
        throw DataError("expected at most " + std::to_string(model::limits::stages) + " pipeline stages, got " +
                            std::to_string(a.stages.size()),
                        a.where);
}

/// The allocation's `nodes:` (planalloc --cluster): per type, the smallest share of a node; the
/// shares of each type must add up to its GPUs in `counted` (when `gpus:` gave them).
std::map<std::string, int> node_shares(const io::YamlDocument& doc, const YAML::Node& nodes, const catalog::GpuCatalog& c,
                                       const std::map<std::string, long>& counted) {
    if (!nodes.IsMap() || nodes.size() == 0)
        throw DataError("expected a map of node name to {gpu, gpus} under 'nodes'", doc.where(nodes));
    std::map<std::string, int> smallest;
    std::map<std::string, long> held;
    for (const auto& kv : nodes) {
        if (!kv.second.IsMap()) throw DataError("expected {gpu, gpus} for node '" + kv.first.Scalar() + "'", doc.where(kv.second));
        const std::string type = resolve(doc, io::required_child(doc, kv.second, "gpu"), c);
        const int n = static_cast<int>(io::yaml_integer(doc, io::required_child(doc, kv.second, "gpus"), "gpus", 1,
                                                        model::limits::degree));
        smallest[type] = smallest.count(type) ? std::min(smallest[type], n) : n;
        held[type] += n;
    }
    if (!counted.empty() && held != counted)
        throw DataError("the allocation's 'nodes' and 'gpus' disagree on how many GPUs of each type it holds",
                        doc.where(nodes));
    return smallest;
}

/// A stage entry's keys: gpu and layers are read; a stage's own dp, tp or GPU count must be the
/// allocation's (every stage runs on dp x tp GPUs: a stage of its own width is not modelled); any
/// other key is told about.
void check_stage_keys(const io::YamlDocument& doc, const YAML::Node& stage, Allocation& a) {
    for (const auto& kv : stage) {
        const std::string key = kv.first.Scalar();
        if (key == "gpu" || key == "layers") continue;
        const long whole = static_cast<long>(a.dp) * a.tp;
        const long same = key == "dp" ? a.dp : key == "tp" ? a.tp : key == "gpus" ? whole : -1;
        if (same < 0) {
            const std::string slip = io::near_miss_warning(key, {"gpu", "layers"}, doc.where(kv.first), "key", "in a stage is not read");
            a.warnings.push_back(!slip.empty() ? slip
                                               : describe(DataError("key '" + escape_control(key) +
                                                                        "' in a stage is not read (a stage has gpu and layers)",
                                                                    doc.where(kv.first))));
            continue;
        }
        const long v = io::yaml_integer(doc, kv.second, key, 1, model::limits::stages * whole);
        if (v != same)
            throw DataError("a stage's " + key + " " + std::to_string(v) + " differs from the allocation's " +
                                (key == "gpus" ? "dp x tp (" + std::to_string(whole) + ")" : key + " (" + std::to_string(same) + ")") +
                                ": every stage runs on allocation.dp x allocation.tp GPUs (stages of their own width are not modelled)",
                            doc.where(kv.second));
    }
}

}  // namespace

catalog::GpuCatalog on_allocated_nodes(catalog::GpuCatalog catalog, const Allocation& a) {
    for (auto& g : catalog.gpus)
        if (const auto it = a.gpus_per_node.find(g.name); it != a.gpus_per_node.end()) g.gpus_per_node = it->second;
    return catalog;
}

Allocation read_allocation(const io::YamlDocument& doc, const catalog::GpuCatalog& c) {
    const YAML::Node sec = io::optional_child(doc, doc.root, "allocation");
    if (!sec.IsDefined())
        throw DataError("missing key 'allocation' (the dp degree and stage GPU types; or give --dp and --stages)",
                        doc.where(doc.root));
    if (!sec.IsMap()) throw DataError("expected a map under 'allocation'", doc.where(sec));
    Allocation a;
    // What is read here; what planalloc writes beside it (its cost, times, method...) passes through;
    // any other key is told about, as a slip of one read where it looks like one.
    static const std::vector<std::string> read = {"catalog", "dp", "tp", "stages", "gpus", "gpus_by_memory", "nodes",
                                                  "schedule", "usable_fraction", "efficiency", "measure",
                                                  "micro_batch", "pp", "placer"};
    static const std::vector<std::string> planalloc_writes = {
        "method", "matched_by", "plan", "placed_peak_gib", "usable_gib", "iteration_time_s", "total_time_s", "price_per_hour",
        "cost", "cost_lower_bound", "iterations", "slo_s", "slo_met", "currency", "alternatives", "fastest",
        "fastest_search", "proven_by", "total_time_lower_bound_s"};
    for (const auto& kv : sec) {
        const std::string key = kv.first.Scalar();
        if (std::find(planalloc_writes.begin(), planalloc_writes.end(), key) != planalloc_writes.end()) continue;
        if (std::string slip = io::near_miss_warning(key, read, doc.where(kv.first), "key", "in allocation is not read");
            !slip.empty())
            a.warnings.push_back(std::move(slip));
        else if (std::find(read.begin(), read.end(), key) == read.end())
            a.warnings.push_back(describe(DataError("key '" + escape_control(key) +
                                                        "' in allocation is not read (placestages reads " + io::join(read) + ")",
                                                    doc.where(kv.first))));
    }
    // A plan timed with one catalog's GPU specs (planalloc writes which) is not timed with another's.
    if (const YAML::Node planned = io::optional_child(doc, sec, "catalog"); planned.IsDefined()) {
        const std::string name = io::yaml_string(doc, planned, "catalog");
        // A catalog file may be named by another path to the same file.
        if (name != c.name && io::resolved_path(name) != io::resolved_path(c.name))
            throw DataError("the allocation was planned with catalog '" + name + "', but this run has catalog '" +
                                c.name + "': give --catalog " + name + " so its GPUs are timed alike",
                            doc.where(planned));
    }
    a.where = doc.where(sec);
    const YAML::Node dp = io::required_child(doc, sec, "dp");
    a.dp = static_cast<int>(io::yaml_integer(doc, dp, "dp", 1, model::limits::degree));
    if (const YAML::Node tp = io::optional_child(doc, sec, "tp"); tp.IsDefined()) {
        a.tp = static_cast<int>(io::yaml_integer(doc, tp, "tp", 1, model::limits::degree));
        a.tp_where = doc.where(tp);
    }
    const long per_stage = static_cast<long>(a.dp) * a.tp;
    const YAML::Node stages = io::optional_child(doc, sec, "stages");
    const YAML::Node gpus = io::optional_child(doc, sec, "gpus");
    if (const YAML::Node m = io::optional_child(doc, sec, "gpus_by_memory"); m.IsDefined())
        throw DataError("the allocation counts GPUs by memory alone (gpus_by_memory: its cluster's nodes named no "
                        "gpu type), and stages are timed on GPU types: give each node its gpu and allocate again",
                        doc.where(m));
    if (!stages.IsDefined() && !gpus.IsDefined())
        throw DataError("allocation needs 'stages' (a GPU type per stage) or 'gpus' (GPUs per type)", a.where);
    std::map<std::string, long> counted;
    if (gpus.IsDefined()) {
        if (!gpus.IsMap()) throw DataError("expected a map of GPU type to count under 'gpus'", doc.where(gpus));
        for (const auto& kv : gpus) {
            const std::string name = resolve(doc, kv.first, c);
            if (counted.count(name))
                throw DataError("GPU type " + name + " is listed twice under 'gpus' (type names match with letter case ignored)",
                                doc.where(kv.first));
            const long n = io::yaml_integer(doc, kv.second, "gpus", 1, model::limits::stages * per_stage);
            if (n % (static_cast<long>(a.dp) * a.tp) != 0)
                throw DataError("expected a positive multiple of " + stage_width(a.dp, a.tp) + " GPUs of " + name +
                                    ", got " + kv.second.Scalar(),
                                doc.where(kv.second));
            counted[name] += n;
            if (!stages.IsDefined()) a.counts.emplace_back(name, n);
        }
        if (!stages.IsDefined()) a.stages = stages_of_counts(a.counts, a.dp, a.tp);
    }
    if (stages.IsDefined()) {
        if (!stages.IsSequence() || stages.size() == 0)
            throw DataError("expected a list of stage GPU types under 'stages'", doc.where(stages));
        std::map<std::string, long> listed;
        for (const auto& st : stages) {
            if (st.IsMap()) check_stage_keys(doc, st, a);
            const YAML::Node name = st.IsMap() ? io::required_child(doc, st, "gpu") : YAML::Node(st);
            a.stages.push_back(resolve(doc, name, c));
            listed[a.stages.back()] += per_stage;
            const YAML::Node layers = st.IsMap() ? io::optional_child(doc, st, "layers") : YAML::Node(YAML::NodeType::Undefined);
            if (a.stages.size() > 1 && layers.IsDefined() != !a.layers.empty())
                throw DataError("expected 'layers' on every stage of 'stages' or on none", doc.where(st));
            if (layers.IsDefined()) a.layers.push_back(io::yaml_integer(doc, layers, "layers", 1, model::limits::layers));
            if (layers.IsDefined()) a.layers_where = doc.where(stages);
        }
        if (gpus.IsDefined() && listed != counted)
            throw DataError("'stages' (times dp x tp) and 'gpus' disagree on how many GPUs of each type", doc.where(stages));
        if (!gpus.IsDefined()) counted = listed;
    }
    if (const YAML::Node nodes = io::optional_child(doc, sec, "nodes"); nodes.IsDefined())
        a.gpus_per_node = node_shares(doc, nodes, c, counted);
    // planalloc writes the plan's pipeline depth and micro-batch beside its stages.
    if (const YAML::Node pp = io::optional_child(doc, sec, "pp"); pp.IsDefined()) {
        const long n = io::yaml_integer(doc, pp, "pp", 1, model::limits::stages);
        if (n != static_cast<long>(a.stages.size()))
            throw DataError("pp " + std::to_string(n) + " but the allocation has " +
                                io::counted(static_cast<long>(a.stages.size()), "stage"),
                            doc.where(pp));
    }
    if (const YAML::Node mb = io::optional_child(doc, sec, "micro_batch"); mb.IsDefined()) {
        a.micro_batch = io::yaml_integer(doc, mb, "micro_batch", 1, model::limits::global_batch);
        a.micro_batch_where = doc.where(mb);
    }
    if (const YAML::Node s = io::optional_child(doc, sec, "schedule"); s.IsDefined()) {
        try {
            a.schedule = parse_schedule_kind(io::yaml_string(doc, s, "schedule"));
        } catch (const UsageError& e) {
            throw DataError(e.what(), doc.where(s));
        }
    }
    if (const YAML::Node p = io::optional_child(doc, sec, "placer"); p.IsDefined()) {
        try {
            a.placer = parse_method(io::yaml_string(doc, p, "placer"));
        } catch (const UsageError& e) {
            throw DataError(e.what(), doc.where(p));
        }
    }
    auto fraction = [&](const char* key, double lo) -> std::optional<double> {
        const YAML::Node v = io::optional_child(doc, sec, key);
        if (!v.IsDefined()) return std::nullopt;
        return io::yaml_number(doc, v, key, lo, 1.0);
    };
    a.usable_fraction = fraction("usable_fraction", 0.1);  // the ranges of the flags
    a.efficiency = fraction("efficiency", 0.01);
    if (const YAML::Node m = io::optional_child(doc, sec, "measure"); m.IsDefined()) {
        try {
            a.measure = model::parse_measure(io::yaml_string(doc, m, "measure"));
        } catch (const Error& e) {
            throw DataError(e.what(), doc.where(m));
        }
    }
    check_stage_count(a);
    return a;
}

std::vector<std::string> stages_of_counts(const std::vector<std::pair<std::string, long>>& counts, int dp, int tp) {
    std::vector<std::string> stages;
    for (const auto& [name, n] : counts) stages.insert(stages.end(), static_cast<size_t>(n / (dp * tp)), name);
    return stages;
}

const std::pair<std::string, long>* undivided_count(const std::vector<std::pair<std::string, long>>& counts, int dp,
                                                    int tp) {
    for (const auto& c : counts)
        if (c.second % (static_cast<long>(dp) * tp) != 0) return &c;
    return nullptr;
}

std::string stage_width(int dp, int tp) {
    return tp > 1 ? "dp x tp (" + std::to_string(dp * tp) + ")" : "dp (" + std::to_string(dp) + ")";
}

Allocation allocation_from_flags(int dp, const std::string& stages, const catalog::GpuCatalog& c) {
    Allocation a;
    a.dp = dp;
    a.where.file = "allocation (--dp, --stages)";
    for (const auto& name : io::comma_list(stages, "--stages")) a.stages.push_back(c.find(name).name);
    if (a.stages.size() > static_cast<size_t>(model::limits::stages))
        throw UsageError("--stages: expected at most " + std::to_string(model::limits::stages) +
                         " pipeline stages, got " + std::to_string(a.stages.size()));
    return a;
}

}  // namespace hetsched::place
