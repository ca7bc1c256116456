#include <hetsched/alloc/cluster_mode.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <hetsched/alloc/allocation_report.hpp>
#include <hetsched/alloc/best_fit.hpp>
#include <hetsched/alloc/cluster.hpp>
#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/catalog/known_keys.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/model/job_document.hpp>
#include <hetsched/model/memory_report.hpp>
#include <hetsched/model/plans.hpp>
#include <hetsched/model/step_time.hpp>

namespace hetsched::alloc {
namespace {

/// A plan's peak in GiB for the job trained on one type (model::on_gpu), as the memory model gives it.
double peak_gib(const model::JobSpec& job, const model::Training& on_type, const model::Layout& l, model::Measure measure,
                model::Method method = model::Method::framework) {
    return model::estimate_memory(job.model, on_type, l, measure, method).peak_bytes() / model::kGiB;
}

/// The catalog's types that the cluster's nodes have.
catalog::GpuCatalog present_types(const catalog::GpuCatalog& cat, const std::vector<ClusterNode>& nodes) {
    catalog::GpuCatalog present = cat;
    present.gpus.clear();
    for (const auto& g : cat.gpus)
        if (std::any_of(nodes.begin(), nodes.end(), [&](const ClusterNode& n) { return n.gpu == g.name; }))
            present.gpus.push_back(g);
    return present;
}

/// The memory measure memest sized the document's plans (or checked its layout) for; DataError when
/// --measure asks for another.
model::Measure check_memest_measure(const PlanallocOptions& o, const io::YamlDocument& doc, const YAML::Node& memory) {
    const YAML::Node m = io::optional_child(doc, memory, "measure");
    model::Measure sized = model::Measure::device;  // memest's default for plans
    if (m.IsDefined()) {
        try {
            sized = model::parse_measure(io::yaml_string(doc, m, "measure"));
        } catch (const Error& e) {
            throw DataError(e.what(), doc.where(m));
        }
    }
    if (o.model.given.measure && o.model.measure != sized)
        throw DataError("memest measured " + model::measure_name(sized) + " memory; --measure " +
                            model::measure_name(o.model.measure) + " changes what must fit: rerun memest with it",
                        doc.where(m.IsDefined() ? m : memory));
    return sized;
}

/// The layout of memest's fit check (`memory.layout`), which cluster mode places as memest checked it;
/// none when the section has no layout.
std::optional<model::Layout> fit_check_layout(const io::YamlDocument& doc, const YAML::Node& memory,
                                              const model::JobSpec& job) {
    const YAML::Node node = io::optional_child(doc, memory, "layout");
    if (!node.IsDefined()) return std::nullopt;
    model::check_job_unchanged(doc, "memory", job, "memest");
    auto degree = [&](const char* key, long hi) {
        const YAML::Node v = io::optional_child(doc, node, key);
        return v.IsDefined() ? io::yaml_integer(doc, v, key, 1, hi) : 1;
    };
    model::Layout l;
    l.tp = static_cast<int>(degree("tp", model::limits::degree));
    l.pp = static_cast<int>(degree("pp", model::limits::degree));
    l.dp = static_cast<int>(degree("dp", model::limits::degree));
    l.cp = static_cast<int>(degree("cp", model::limits::degree));
    l.vpp = static_cast<int>(degree("vpp", model::limits::degree));
    l.micro_batch = degree("micro_batch", model::limits::global_batch);
    l.layers_per_stage = job.layers_per_stage;
    // An allocation names tp, pp and dp (what placestages reads); context parallelism and virtual
    // stages have no place in it.
    if (l.cp > 1 || l.vpp > 1)
        throw DataError("cluster mode allocates tp x pp x dp layouts; this fit check's layout has " +
                            std::string(l.cp > 1 ? "cp " + std::to_string(l.cp) : "vpp " + std::to_string(l.vpp)) +
                            " (memest without --cp/--vpp, or without a layout, gives plans it can place)",
                        doc.where(node));
    try {
        model::validate(job.model, job.training, l);
    } catch (const DataError& e) {
        throw DataError(e.what(), doc.where(node));
    }
    return l;
}

/// The ranked plans from memest's `memory:` section (its plans, or its fit check's layout on each of
/// the cluster's types it fits), else enumerated here for the cluster's types.
/// The plans cluster mode best-fits, best first, and the memory their peaks count.
struct RankedPlans {
    std::vector<model::Plan> plans;
    std::vector<long> ranks;  ///< memest's rank of each plan; empty: ranked here, from 1
    long rank(size_t i) const { return ranks.empty() ? static_cast<long>(i) + 1 : ranks[i]; }
    model::Measure measure = model::Measure::device;
    model::Method method = model::Method::framework;  ///< the memory model the peaks come from
    bool from_memest = false;  ///< memest's own list (memory.plans), not ranked here
    bool fit_check = false;    ///< memest's fit check's layout, on each type here
    std::string stale;         ///< a plan whose peak is not the memory model's here (the first), for a note
};

RankedPlans ranked_plans(const PlanallocOptions& o, const io::YamlDocument& doc, const model::JobSpec& job,
                         const catalog::GpuCatalog& cat, const std::vector<ClusterNode>& nodes) {
    const YAML::Node memory = io::optional_child(doc, doc.root, "memory");
    RankedPlans out;
    out.measure = o.model.measure;
    const YAML::Node list = memory.IsDefined() ? io::optional_child(doc, memory, "plans") : memory;
    if (memory.IsDefined() && list.IsDefined()) {
        if (!list.IsSequence()) throw DataError("expected a list of plans under 'memory.plans'", doc.where(list));
        model::check_job_unchanged(doc, "memory", job, "memest");
        out.measure = check_memest_measure(o, doc, memory);
        if (const YAML::Node m = io::optional_child(doc, memory, "method"); m.IsDefined()) {
            try {
                out.method = model::parse_method(io::yaml_string(doc, m, "method"));
            } catch (const Error& e) {
                throw DataError(e.what(), doc.where(m));
            }
        }
        out.from_memest = true;
        if (o.inter_node_gb_s > 0)
            throw UsageError("--inter-node-gb-s ranks the plans cluster mode computes itself; memest ranked the "
                             "document's memory.plans (give its document a network: section instead)");
        std::vector<std::pair<long, model::Plan>> ranked;
        std::set<long> ranks_seen;
        bool ranks_given = false;
        for (const auto& e : list) {
            catalog::check_known_keys(doc, e, "memory.plans", model::plan_keys());
            model::Plan p;
            // memest's rank, which a filtered or reordered list keeps: the order plans are tried in;
            // without ranks, the list's order. On every plan or on none: mixed, they could collide.
            long rank = static_cast<long>(ranked.size()) + 1;
            const YAML::Node r = io::optional_child(doc, e, "rank");
            if (ranked.empty()) ranks_given = r.IsDefined();
            if (r.IsDefined() != ranks_given)
                throw DataError("expected a rank on every plan or on none: this plan " +
                                    std::string(ranks_given ? "has none" : "has one") + ", the first " +
                                    (ranks_given ? "had" : "had none"),
                                doc.where(e));
            if (r.IsDefined()) {
                rank = io::yaml_integer(doc, r, "rank", 1, 1000000000);
                if (!ranks_seen.insert(rank).second)
                    throw DataError("plan rank " + std::to_string(rank) + " is given twice", doc.where(r));
            }
            auto integer = [&](const char* key, long hi) {
                return static_cast<int>(io::yaml_integer(doc, io::required_child(doc, e, key), key, 1, hi));
            };
            const YAML::Node gpu = io::required_child(doc, e, "gpu");
            try {
                p.gpu = cat.find(io::yaml_string(doc, gpu, "gpu")).name;
            } catch (const UsageError& u) {  // a name in a file, not a flag
                throw DataError(u.what(), doc.where(gpu));
            }
            p.layout.tp = integer("tp", model::limits::degree);
            p.layout.pp = integer("pp", model::limits::degree);
            p.layout.dp = integer("dp", model::limits::degree);
            p.layout.micro_batch = integer("micro_batch", model::limits::global_batch);
            if (p.layout.gpus() > model::limits::layout_gpus)
                throw DataError("expected at most " + std::to_string(model::limits::layout_gpus) +
                                    " GPUs (tp x pp x dp) in a plan, got " + std::to_string(p.layout.gpus()),
                                doc.where(e));
            p.peak_gib = io::yaml_number(doc, io::required_child(doc, e, "peak_gib"), "peak_gib", 0.001,
                                         model::limits::max_memory_gib);
            const YAML::Node g = io::optional_child(doc, e, "gpus");
            if (g.IsDefined() && io::yaml_integer(doc, g, "gpus", 1, model::limits::layout_gpus) != p.layout.gpus())
                throw DataError("gpus is not tp x pp x dp (" + std::to_string(p.layout.gpus()) + ")", doc.where(g));
            // A layout the job cannot run (a micro-batch that does not divide its batch, tp 3 for 32
            // heads) was not memest's: it would be placed and never run.
            try {
                model::validate(job.model, job.training, p.layout);
            } catch (const DataError& bad) {
                throw DataError(bad.what(), doc.where(e));
            }
            // memest prints a peak to 3 decimals; best-fit compares it with a GPU's memory, where a
            // thousandth either way can flip the fit: the peak is the memory model's here, for the
            // job as the document now gives it. One memest printed otherwise (on another catalog or
            // release, or before the training section was edited) is said.
            {  // p.gpu is a catalog name (found above)
                if (static_cast<long>(job.layers_per_stage.size()) == p.layout.pp) p.layout.layers_per_stage = job.layers_per_stage;
                const double gib =
                    peak_gib(job, model::on_gpu(job.training, cat.find(p.gpu)), p.layout, out.measure, out.method);
                if (std::fabs(gib - p.peak_gib) > 0.0005 + 1e-9 && out.stale.empty())
                    out.stale = "plan " + std::to_string(rank) + "'s peak_gib " + io::format_fixed(p.peak_gib, 3) +
                                " is not what the memory model gives it on " + p.gpu + " here (" + io::format_fixed(gib, 3) +
                                "): memest ran on another catalog or release, or the job changed since; the plans' "
                                "peaks are sized here";
                p.peak_gib = gib;
            }
            ranked.push_back({rank, p});
        }
        std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (auto& [rank, p] : ranked) {
            out.ranks.push_back(rank);
            out.plans.push_back(std::move(p));
        }
        return out;
    }
    const catalog::GpuCatalog present = present_types(cat, nodes);
    model::PlanOptions po;
    po.usable_fraction = o.model.usable_fraction;
    po.micro_batch = job.micro_batch;
    po.network = place::problem_options(o.model, o.inter_node_gb_s, doc, cat).network;
    if (memory.IsDefined()) po.layout = fit_check_layout(doc, memory, job);
    out.fit_check = po.layout.has_value();
    if (po.layout) out.measure = check_memest_measure(o, doc, memory);  // what memest checked it for
    po.measure = out.measure;
    out.plans = model::enumerate_plans(job.model, job.training, present, po);
    return out;
}

/// Refuses the SLO search's options in cluster mode, where they would be silently ignored.
void check_cluster_options(const PlanallocOptions& o) {
    std::vector<std::string> given;
    if (o.slo_s > 0) given.push_back("--slo-s");
    if (o.job.iterations > 0) given.push_back("--iterations");
    if (!o.quotas.empty()) given.push_back("--quota");
    if (!o.prices.empty()) given.push_back("--price");
    if (!o.types.empty()) given.push_back("--types");
    if (o.time_limit_s > 0) given.push_back("--time-limit-s");
    // Options that shape the SLO search or its placements, given other than their defaults.
    const PlanallocOptions defaults;
    if (o.method != defaults.method) given.push_back("--method");
    if (o.placer != defaults.placer) given.push_back("--placer");
    if (o.top != defaults.top) given.push_back("--top");
    if (o.beta != defaults.beta) given.push_back("--beta");
    if (o.search_limit != defaults.search_limit) given.push_back("--search-limit");
    if (o.model.efficiency != defaults.model.efficiency) given.push_back("--efficiency");
    if (o.model.schedule) given.push_back("--schedule");
    if (given.empty()) return;
    throw UsageError(io::join(given) + (given.size() > 1 ? " belong" : " belongs") +
                     " to the SLO search; cluster mode (--cluster or a cluster: section) best-fits memest's plans "
                     "onto free GPUs and takes none of them");
}

}  // namespace

PlanallocResult cluster_mode(const PlanallocOptions& o, const std::optional<io::TextInput>& cluster,
                             io::YamlDocument& doc, model::JobSpec& job, const catalog::GpuCatalog& cat) {
    check_cluster_options(o);
    const auto section = [&] {
        const YAML::Node sec = io::required_child(doc, doc.root, "cluster");
        catalog::check_known_keys(doc, sec, "cluster", {"nodes", "gpu_types"});
        return sec;
    };
    std::vector<ClusterNode> nodes = cluster ? parse_cluster(*cluster, cat) : read_cluster(doc, section(), cat);
    const bool untyped_only =
        !nodes.empty() && std::none_of(nodes.begin(), nodes.end(), [](const ClusterNode& n) { return !n.gpu.empty(); });
    // Nodes whose GPUs cannot train in the job's precision take no plan, whatever memory they have
    // (best-fit matches memory alone, and plans piped from memest may be sized for another type).
    const model::PrecisionLeftOut left = model::precision_left_out(job.training, present_types(cat, nodes));
    nodes.erase(std::remove_if(nodes.begin(), nodes.end(),
                               [&](const ClusterNode& n) {
                                   return std::find(left.types.begin(), left.types.end(), n.gpu) != left.types.end();
                               }),
                nodes.end());
    const std::string precision_note = left.types.empty() ? "" : "; the cluster's " + left.text();
    const RankedPlans ranked = nodes.empty() ? RankedPlans{} : ranked_plans(o, doc, job, cat, nodes);
    const std::vector<model::Plan>& plans = ranked.plans;
    if (plans.empty()) {
        // Plans are ranked here per GPU type; nodes given by memory alone have none to rank them for.
        if (untyped_only && !ranked.from_memest)
            throw Infeasible(std::string("the cluster's nodes give memory but no GPU type, and ") +
                             (ranked.fit_check ? "memest's layout is checked here on each type: let memest rank "
                                                 "plans (no --tp, --pp or --dp)"
                                               : "plans are ranked here per type: rank them with memest first, and "
                                                 "pipe its plans to planalloc") +
                             ", or give each node its gpu");
        throw Infeasible("no plan of " + job.model.name + " fits any GPU type of the cluster" + precision_note);
    }
    // One request per plan over the one node list: nothing is copied per plan (5,000 nodes times
    // memest's tens of thousands of plans took seconds, more with a long file name in each node).
    // A plan's peak is its type's: on a node type of another compute capability the same layout
    // needs other memory (Transformer Engine has no fused attention below 8.0 and a larger workspace
    // from 9.0), which the memory model says there. Frenzy's formula knows no capability.
    // Each type's training and compute capability, worked out once (best-fit asks them of every plan).
    std::map<std::string, model::Training> on_type;
    for (const auto& n : nodes)
        if (const catalog::GpuType* g = n.gpu.empty() ? nullptr : cat.lookup(n.gpu))
            on_type[n.gpu] = model::on_gpu(job.training, *g);
    auto capability = [&](const std::string& type) {
        if (const auto it = on_type.find(type); it != on_type.end()) return it->second.compute_capability;
        const catalog::GpuType* g = cat.lookup(type);  // a plan's type no node has
        return g ? model::on_gpu(job.training, *g).compute_capability : -1.0;
    };
    auto request = [&](const model::Plan& p) {
        // A tensor-parallel group within one node, a pipeline stage's dp x tp GPUs of one type (or, on
        // nodes given by memory alone, of one memory size).
        GpuRequest r{static_cast<int>(p.layout.gpus()), p.peak_gib, o.exact_type ? p.gpu : std::string(),
                     p.layout.tp, p.layout.tp * p.layout.dp};
        const double sized = capability(p.gpu);
        if (ranked.method == model::Method::framework && sized >= 0 && !o.exact_type)
            for (const auto& [type, training] : on_type)
                if (training.compute_capability != sized) {
                    const double gib = peak_gib(job, training, p.layout, ranked.measure);
                    if (std::abs(gib - p.peak_gib) >= 0.005) r.memory_by_type[type] = gib;  // as memest rounds it
                }
        return r;
    };
    for (size_t i = 0; i < plans.size(); ++i) {
        const model::Plan& p = plans[i];
        const GpuRequest req = request(p);
        const std::vector<NodeShare> shares = best_fit_shares(nodes, req, o.model.usable_fraction);
        if (shares.empty()) continue;
        YAML::Node a(YAML::NodeType::Map);
        a["method"] = "best-fit";
        // memest sized the plan for one type; best-fit takes any free GPUs with the memory it needs,
        // so say so, and what the GPUs taken hold, lest the plan's type be read as the GPUs allocated.
        a["matched_by"] = o.exact_type ? "memory and type" : "memory";
        a["measure"] = model::measure_name(ranked.measure);  // what the plan's peak counts, which placestages keeps
        a["usable_fraction"] = io::format_number(o.model.usable_fraction, 6);
        YAML::Node plan(YAML::NodeType::Map);
        plan.SetStyle(YAML::EmitterStyle::Flow);
        plan["rank"] = ranked.rank(i);
        plan["sized_for"] = p.gpu;
        plan["peak_gib"] = io::format_fixed(p.peak_gib, 3);
        a["plan"] = plan;
        double usable = shares.front().memory_gib;
        for (const auto& s : shares) usable = std::min(usable, s.memory_gib);
        a["usable_gib"] = io::format_fixed(usable * o.model.usable_fraction, 3);
        YAML::Node gpus(YAML::NodeType::Map), by_memory(YAML::NodeType::Map), where(YAML::NodeType::Map);
        gpus.SetStyle(YAML::EmitterStyle::Flow);
        by_memory.SetStyle(YAML::EmitterStyle::Flow);
        // Nodes given by memory alone (Frenzy's Node(n, s)) have no type: their GPUs are counted by
        // memory size, apart from the typed ones placestages can time.
        std::map<std::string, int> per_type;
        std::map<double, int> per_memory;
        for (const auto& s : shares) (s.gpu.empty() ? per_memory[s.memory_gib] : per_type[s.gpu]) += s.gpus;
        for (const auto& [t, n] : per_type) gpus[t] = n;
        // The plan's peak on each type taken: sized on one type, it needs other memory on a type of
        // another compute capability (memest's model there), which is what those GPUs will hold.
        YAML::Node placed_peak(YAML::NodeType::Map);
        placed_peak.SetStyle(YAML::EmitterStyle::Flow);
        for (const auto& [t, n] : per_type) placed_peak[t] = io::format_fixed(req.need_gib(t), 3);
        for (const auto& [gib, n] : per_memory) by_memory[io::format_number(gib, 6)] = n;
        for (const auto& s : shares) {
            YAML::Node share(YAML::NodeType::Map);
            share.SetStyle(YAML::EmitterStyle::Flow);
            if (s.gpu.empty())
                share["memory_gib"] = io::format_number(s.memory_gib, 6);
            else
                share["gpu"] = s.gpu;
            share["gpus"] = s.gpus;
            where[io::yaml_text_node(s.node)] = share;  // a node named 123 or yes reads back as its name
        }
        if (!per_type.empty()) {
            a["gpus"] = gpus;
            a["placed_peak_gib"] = placed_peak;
        }
        if (!per_memory.empty()) a["gpus_by_memory"] = by_memory;
        a["tp"] = p.layout.tp;
        a["pp"] = p.layout.pp;
        a["dp"] = p.layout.dp;
        a["micro_batch"] = p.layout.micro_batch;
        a["nodes"] = where;
        a["catalog"] = catalog_identity(cat);  // placestages times these GPUs with this catalog's specs, or refuses
        PlanallocResult out;
        std::vector<std::string> notes;
        if (!ranked.stale.empty()) notes.push_back(ranked.stale);
        if (!ranked.from_memest) {  // ranked here by their rough time: a type without bandwidth ranks too fast
            std::vector<std::string> types;
            for (const auto& n : nodes)
                if (!n.gpu.empty()) types.push_back(n.gpu);
            if (const std::string bw = model::unknown_bandwidth_note(cat, types); !bw.empty()) notes.push_back(bw);
        }
        std::string taken;
        for (const auto& [t, n] : per_type) {
            taken += (taken.empty() ? "" : ", ") + std::to_string(n) + " x " + t;
            if (req.need_gib(t) != p.peak_gib) taken += " (" + io::format_fixed(req.need_gib(t), 2) + " GiB there)";
        }
        for (const auto& [gib, n] : per_memory)
            taken += (taken.empty() ? "" : ", ") + std::to_string(n) + " x " + io::format_number(gib, 6) + " GiB (no type)";
        out.summary = "best-fit: plan " + std::to_string(ranked.rank(i)) + " (sized for " + p.gpu + ", " +
                      io::format_fixed(p.peak_gib, 2) + " GiB per GPU) matched by memory to " + taken + " on " +
                      std::to_string(shares.size()) + " node(s)";
        if (o.csv) {  // one row per node the plan takes
            io::CsvWriter w({"plan_rank", "sized_for", "peak_gib", "usable_gib", "tp", "pp", "dp", "micro_batch",
                             "node", "gpu", "gpus", "memory_gib", "placed_peak_gib"});
            for (const auto& s : shares)
                w.add_row({std::to_string(ranked.rank(i)), p.gpu, io::format_fixed(p.peak_gib, 3),
                           io::format_fixed(usable * o.model.usable_fraction, 3), std::to_string(p.layout.tp),
                           std::to_string(p.layout.pp), std::to_string(p.layout.dp),
                           std::to_string(p.layout.micro_batch), s.node, s.gpu, std::to_string(s.gpus),
                           io::format_number(s.memory_gib, 6), io::format_fixed(req.need_gib(s.gpu), 3)});
            out.note = io::join(notes, "; ");
            out.text = w.text();
            return out;
        }
        model::write_job_spec(doc.root, job);
        record_network(o.inter_node_gb_s, doc.root);
        if (const std::string dropped = replace_allocation(doc.root, a, false); !dropped.empty()) notes.push_back(dropped);
        out.note = io::join(notes, "; ");
        out.text = io::emit_yaml(doc.root);
        return out;
    }
    const model::Plan& first = plans.front();
    const model::Plan* smallest = &first;
    for (const auto& p : plans)
        if (p.layout.gpus() < smallest->layout.gpus() ||
            (p.layout.gpus() == smallest->layout.gpus() && p.peak_gib < smallest->peak_gib))
            smallest = &p;
    const bool untyped = std::any_of(nodes.begin(), nodes.end(), [](const ClusterNode& n) { return n.gpu.empty(); });
    const std::string kind =
        untyped && !o.exact_type ? "one type (or memory size, on nodes without a type)" : "one type";
    // "N GiB or more" of a GPU's memory: rounded up, lest a GPU of the printed size read as holding it.
    auto at_least = [&](double gib) { return io::format_fixed(std::ceil(gib / o.model.usable_fraction * 100 - 1e-9) / 100, 2); };
    auto need = [&](const model::Plan& p) {
        const GpuRequest r = request(p);
        const int free = free_gpus_with(nodes, r, o.model.usable_fraction);
        std::string elsewhere;  // what the plan needs on the types of another compute capability
        for (const auto& [type, gib] : r.memory_by_type)
            elsewhere += (elsewhere.empty() ? " (" : ", ") + at_least(gib) + " GiB on " +
                         type + ", compute capability " + io::format_fixed(capability(type), 1);
        if (!elsewhere.empty()) elsewhere += ")";
        const std::string groups =
            p.layout.tp > 1 ? " (tp " + std::to_string(p.layout.tp) + " GPUs of one node together)" : "";
        std::string stages;  // enough GPUs, too few on one type for whole stages
        if (free >= p.layout.gpus()) {
            const int whole = whole_type_groups_free(nodes, r, o.model.usable_fraction);
            stages = " but hold " + io::counted(whole, "whole stage") + " of " + std::to_string(p.layout.dp * p.layout.tp) +
                     " GPUs of " + kind + ", of " + std::to_string(p.layout.pp) + " needed";
        }
        return std::to_string(p.layout.gpus()) + (p.layout.gpus() == 1 ? " GPU with " : " GPUs with ") + at_least(p.peak_gib) +
               " GiB or more" + (o.exact_type ? " of type " + p.gpu : "") + elsewhere + groups + ", and " + std::to_string(free) +
               (free == 1 ? " such GPU is free" : " such GPUs are free") +
               (p.layout.tp > 1 ? " in whole groups of " + std::to_string(p.layout.tp) + " on a node" : "") + stages;
    };
    throw Infeasible("none of the " + std::to_string(plans.size()) + " plans fits the cluster's free GPUs: the first needs " +
                     need(first) + "; the smallest needs " + need(*smallest) +
                     (ranked.from_memest ? " (memest --top 0 lists every plan)" : "") +
                     precision_note + (ranked.stale.empty() ? "" : "; " + ranked.stale));
}

}  // namespace hetsched::alloc
