#include <hetsched/alloc/planalloc.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <thread>

#include <hetsched/alloc/allocation_report.hpp>
#include <hetsched/alloc/best_fit.hpp>
#include <hetsched/alloc/cluster.hpp>
#include <hetsched/alloc/cost_search.hpp>
#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/output_file.hpp>
#include <hetsched/io/yaml_document.hpp>
#include <hetsched/model/job_document.hpp>
#include <hetsched/model/plans.hpp>

namespace hetsched::alloc {
namespace {

constexpr double kMaxPrice = 1e6;  ///< per GPU-hour, as in a catalog file
constexpr double kMaxQuota = 1e6;  ///< GPUs of one type, as in a catalog file
/// Effort (tree nodes plus stages placed) the search for the fastest plan may spend when no plan meets
/// the SLO: its bounds ignore transfers and bubbles, so on deep pipelines they rarely prune and an
/// unbounded search ran for minutes; this keeps the answer under a second on the Espresso catalog.
constexpr long kFastestEffort = 600;

/// "TYPE=VALUE" split at the last '='; UsageError naming the option otherwise.
std::pair<std::string, std::string> split_assignment(const std::string& s, const char* option) {
    const size_t eq = s.rfind('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
        throw UsageError(std::string(option) + " expects TYPE=VALUE, got '" + s + "'");
    return {s.substr(0, eq), s.substr(eq + 1)};
}

/// The number after '=': finite, from 0 to `hi`, whole when `integer`; UsageError naming the option.
double parse_value(const std::string& text, const std::string& whole, const char* option, bool integer, double hi) {
    char* end = nullptr;
    errno = 0;
    const double v = text.empty() || std::isspace(static_cast<unsigned char>(text[0])) ? -1 : std::strtod(text.c_str(), &end);
    if (!end || *end != '\0' || errno == ERANGE || !std::isfinite(v) || v < 0 || v > hi ||
        (integer && v != std::floor(v)))
        throw UsageError(std::string(option) + " expects " + (integer ? "an integer" : "a number") + " from 0 to " +
                         io::format_number(hi) + " after '=', got '" + whole + "'");
    return v;
}

/// The catalog with --price applied, and which types the user named (they must be usable).
struct TypeChoice {
    std::vector<Candidate> candidates;
    std::vector<std::string> skipped;  ///< "TYPE: why"
};

TypeChoice choose_types(const PlanallocOptions& o, const model::Training& training, catalog::GpuCatalog& cat) {
    std::map<std::string, std::string> named;  // type -> the option that named it
    // A type given twice to one option: which value was meant is not for us to guess.
    auto once = [](std::map<std::string, std::string>& seen, const std::string& name, const std::string& given,
                   const char* option) {
        const auto [it, fresh] = seen.emplace(name, given);
        if (!fresh)
            throw UsageError(std::string(option) + " gives " + name + " twice ('" + it->second + "' and '" + given +
                             "'; type names match with letter case ignored)");
    };
    std::map<std::string, std::string> priced, quoted;
    for (const auto& p : o.prices) {
        auto [type, value] = split_assignment(p, "--price");
        const std::string name = cat.find(type).name;
        once(priced, name, p, "--price");
        // 0 is the catalog's "no price", and a free type would make every plan on it equally cheap.
        double price = 0;
        try {
            price = parse_value(value, p, "--price", false, kMaxPrice);
        } catch (const UsageError&) {
        }
        if (price <= 0)
            throw UsageError("--price expects a price above 0 and at most " + io::format_number(kMaxPrice) +
                             " after '=', got '" + p + "' (GPUs you own: their cost per hour, for power and depreciation)");
        for (auto& g : cat.gpus)
            if (g.name == name) g.price_per_hour = price;
        named[name] = "--price";
    }
    int all_quota = -1;
    std::map<std::string, int> quota;
    for (const auto& q : o.quotas) {
        auto [type, value] = split_assignment(q, "--quota");
        const int n = static_cast<int>(parse_value(value, q, "--quota", true, kMaxQuota));
        if (type == "all" || type == "*") {
            once(quoted, "all", q, "--quota");
            all_quota = n;
            continue;
        }
        const std::string name = cat.find(type).name;
        once(quoted, name, q, "--quota");
        quota[name] = n;
        named[name] = "--quota";
    }
    std::vector<std::string> only;
    if (!o.types.empty())
        for (const auto& t : io::comma_list(o.types, "--types")) {
            const std::string name = cat.find(t).name;
            if (std::find(only.begin(), only.end(), name) != only.end())
                throw UsageError("--types names " + name + " twice (type names match with letter case ignored)");
            only.push_back(name);
            named[name] = "--types";
        }
    // A price or quota for a type --types leaves out would silently do nothing.
    if (!only.empty())
        for (const auto* given : {&priced, &quoted})
            for (const auto& [name, flag] : *given)
                if (name != "all" && std::find(only.begin(), only.end(), name) == only.end())
                    throw UsageError(std::string(given == &priced ? "--price" : "--quota") + " " + flag + " is for " + name +
                                     ", which --types leaves out");
    TypeChoice out;
    for (const auto& g : cat.gpus) {
        if (!only.empty() && std::find(only.begin(), only.end(), g.name) == only.end()) continue;
        const auto q = quota.find(g.name);
        const int n = q != quota.end() ? q->second : all_quota >= 0 ? all_quota : g.quota;
        const auto why = named.find(g.name);
        const model::Training on_type = model::on_gpu(training, g);
        if (const std::string cannot = model::precision_unsupported(on_type); !cannot.empty()) {
            if (why != named.end())
                throw UsageError(g.name + " (named by " + why->second + ", compute capability " +
                                 io::format_fixed(on_type.compute_capability, 1) + "): " + cannot);
            out.skipped.push_back(g.name + ": " + cannot);
            continue;
        }
        if (g.price_per_hour <= 0) {
            if (why != named.end())
                throw UsageError("no price for " + g.name + " (named by " + why->second + ") in catalog '" + cat.name +
                                 "': give --price " + g.name + "=PRICE");
            out.skipped.push_back(g.name + ": no price");
            continue;
        }
        if (n < 0)
            throw UsageError("no quota for " + g.name + ": catalog '" + cat.name + "' gives none; give --quota " +
                             g.name + "=N, --quota all=N, or --types to leave it out");
        if (n == 0) {
            if (why != named.end() && why->second == "--types")  // named to be used, and given none
                throw UsageError(g.name + " (named by --types) has quota 0" +
                                 (q != quota.end() ? std::string(" (--quota)") : all_quota >= 0 ? " (--quota all)" : " in catalog '" + cat.name + "'") +
                                 ": give it a quota or leave it out of --types");
            out.skipped.push_back(g.name + ": quota 0");
            continue;
        }
        out.candidates.push_back({g.name, g.price_per_hour, n});
    }
    if (out.candidates.empty()) {
        const model::PrecisionLeftOut left = model::precision_left_out(training, cat);
        throw UsageError(left.types.size() == cat.gpus.size()
                             ? "no GPU type in catalog '" + cat.name + "' can train in " + training.precision + ": " + left.reason
                             : "no GPU type in catalog '" + cat.name + "' has both a price and a quota" +
                                   (left.types.empty() ? "" : " and can train in " + training.precision));
    }
    return out;
}

/// The SLO from the flag, else from `training.slo_s`; 0 when neither gives one.
double slo_of(const PlanallocOptions& o, const io::YamlDocument& doc) {
    if (o.slo_s > 0) return o.slo_s;
    const YAML::Node training = io::optional_child(doc, doc.root, "training");
    if (!training.IsDefined()) return 0;
    const YAML::Node slo = io::optional_child(doc, training, "slo_s");
    if (!slo.IsDefined()) return 0;
    return io::yaml_number(doc, slo, "slo_s", model::limits::min_slo_s, model::limits::max_slo_s);
}

/// The catalog as an allocation names it: a named catalog by its name, a file by its full path (so
/// placestages, run from another directory, knows the file).
std::string catalog_identity(const catalog::GpuCatalog& cat) {
    const auto names = catalog::catalog_names();
    const bool named = cat.name == "job" || std::find(names.begin(), names.end(), cat.name) != names.end();  // "job": gpus:
    return named ? cat.name : io::resolved_path(cat.name);
}

/// The inter-node bandwidth a flag gave, written to the document's `network:` so placestages times
/// the plan on the same network.
void record_network(const PlanallocOptions& o, io::YamlDocument& doc) {
    if (o.inter_node_gb_s <= 0) return;
    if (!doc.root["network"].IsDefined() || !doc.root["network"].IsMap()) doc.root["network"] = YAML::Node(YAML::NodeType::Map);
    doc.root["network"]["inter_node_gb_s"] = io::format_number(o.inter_node_gb_s, 6);
}

/// No plan meets the SLO: the fastest plan a bounded time-objective search finds, in the document
/// (so a user sees what comes closest) and in the message, with whether it is proven fastest.
PlanallocResult fastest_instead(const PlanallocOptions& o, io::YamlDocument& doc, const model::JobSpec& job,
                                const SearchSpace& space, const SearchOptions& so, const SearchResult& slo,
                                const ReportContext& ctx, const std::vector<std::string>& skipped) {
    const SearchStats& slo_stats = slo.stats;
    SearchOptions fastest = so;
    fastest.objective = Objective::time;
    fastest.top = 1;
    fastest.effort_limit = kFastestEffort;
    SearchSpace open = space;
    open.slo_s = 0;
    SearchResult f = search_plans(open, fastest);
    // The bounded search may stop before a plan the SLO search already placed: the faster of the two.
    if (slo.fastest_too_slow && (f.plans.empty() || slo.fastest_too_slow->total_s < f.plans.front().total_s)) {
        f.plans = {*slo.fastest_too_slow};
        f.stats.lower_bound = std::min(f.stats.lower_bound, slo.fastest_too_slow->total_s);
    }
    // A complete SLO search that cut nothing by time or cost (exhaustive's, or one whose bounds never
    // bit) placed every plan that can hold the model: the fastest of them is proven fastest.
    const SearchStats& st = slo.stats;
    const bool all_placed = slo.fastest_too_slow && st.complete && st.trees_pruned == 0 && st.pruned_time == 0 &&
                            st.pruned_cost == 0 && st.pruned_cost_beta == 0;
    if (all_placed) f.plans = {*slo.fastest_too_slow};
    const bool proven = f.stats.complete || all_placed;
    const std::string currency = ctx.currency;
    if (f.plans.empty())
        throw Infeasible(std::string(f.stats.complete ? "no plan within the quotas can hold "
                                                      : "the search for the fastest plan found none that holds ") +
                         job.model.name + (so.method == SearchMethod::homogeneous ? " on 2^n GPUs of one type" : "") +
                         (f.stats.complete ? "" : " within its budget"));
    const PlanRecord& p = f.plans.front();
    PlanallocResult out;
    out.feasible = false;
    out.message = "no plan meets the SLO of " + io::format_number(ctx.slo_s, 6) + " s for " +
                  std::to_string(job.iterations) + " iterations: the fastest " +
                  (proven ? "takes " : "found takes ") + io::format_number(p.total_s, 6) + " s (" +
                  io::format_number(p.iteration_s, 6) + " s per iteration) with " + describe_plan(space, p) +
                  ", costing " + io::format_number(p.cost, 6) + " " + currency +
                  (proven ? "" : "; not proven fastest: no plan takes less than " +
                                               io::format_number(f.stats.lower_bound, 6) + " s");
    out.summary = out.message;
    if (o.csv) {
        out.text = plans_to_csv(space, f.plans);
        return out;
    }
    model::write_job_spec(doc.root, job);
    record_network(o, doc);
    if (o.slo_s > 0) doc.root["training"]["slo_s"] = io::format_number(o.slo_s, 6);
    YAML::Node a = allocation_to_yaml(space, f.plans, ctx);
    a["slo_met"] = false;
    a["fastest"] = proven ? "proven" : "found";
    if (!proven) a["total_time_lower_bound_s"] = io::format_number(f.stats.lower_bound, 6);
    doc.root["allocation"] = a;
    YAML::Node s = search_to_yaml(slo_stats, {}, ctx, skipped);
    YAML::Node fs(YAML::NodeType::Map);
    fs.SetStyle(YAML::EmitterStyle::Flow);
    fs["nodes_expanded"] = f.stats.nodes_expanded;
    fs["plans_evaluated"] = f.stats.plans_evaluated;
    fs["complete"] = f.stats.complete;
    fs["effort"] = f.stats.effort;
    fs["effort_limit"] = kFastestEffort;
    s["fastest_search"] = fs;
    doc.root["search"] = s;
    out.text = io::emit_yaml(doc.root);
    return out;
}

PlanallocResult slo_mode(const PlanallocOptions& o, io::YamlDocument& doc, model::JobSpec& job,
                         catalog::GpuCatalog& cat) {
    if (job.iterations <= 0)
        throw UsageError("the cost needs an iteration count: give --iterations N or training.iterations");
    const double slo = slo_of(o, doc);
    const TypeChoice types = choose_types(o, job.training, cat);

    SearchSpace space;
    space.job = &job;
    space.catalog = &cat;
    space.problem = place::problem_options(o.model, o.inter_node_gb_s, doc, cat);
    space.types = types.candidates;
    space.iterations = job.iterations;
    space.slo_s = slo;
    SearchOptions so;
    so.method = o.method;
    so.placer = o.placer;
    so.top = std::max<size_t>(1, o.top);
    so.beta = o.beta;
    so.node_limit = o.search_limit;
    so.time_limit_s = o.time_limit_s;
    so.threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    so.progress = o.progress;
    // The fastest-plan search that follows an unreachable SLO places the same plans again.
    so.memo = std::make_shared<PlacementMemo>();
    const SearchResult r = search_plans(space, so);
    const place::ScheduleKind schedule = space.problem.schedule.value_or(place::default_schedule(job.training));
    ReportContext ctx{search_method_name(o.method), place::method_name(o.placer), cat.currency, slo, job.iterations,
                      place::schedule_kind_name(schedule), catalog_identity(cat), model::measure_name(o.model.measure),
                      o.model.usable_fraction, o.model.efficiency};

    PlanallocResult out;
    if (r.plans.empty() && !r.stats.complete)
        throw UsageError("the search stopped at its " + r.stats.stopped_by + " (" + std::to_string(r.stats.nodes_expanded) +
                         " nodes, " + std::to_string(r.stats.plans_evaluated) + " plans placed) before any plan met "
                         "the SLO; raise " +
                         (r.stats.stopped_by == "time limit" ? "--time-limit-s" : "--search-limit") +
                         ", loosen the SLO or lower the quotas");
    if (r.plans.empty()) return fastest_instead(o, doc, job, space, so, r, ctx, types.skipped);
    if (!r.stats.complete)
        out.note = "the search stopped at its " + r.stats.stopped_by + ": the plan found costs " +
                   io::format_number(r.plans.front().cost, 6) + " " + cat.currency +
                   ", at most " + io::format_fixed(100 * (r.plans.front().cost / r.stats.lower_bound - 1), 1) +
                   "% above the cheapest (no plan costs less than " + io::format_number(r.stats.lower_bound, 6) + ")";

    const PlanRecord& best = r.plans.front();
    out.summary = search_method_name(so.method) + ": " + describe_plan(space, best) + ", cost " +
                  io::format_number(best.cost, 6) + " " + cat.currency + "; " + std::to_string(r.stats.plans_evaluated) +
                  " plans placed, " + std::to_string(r.stats.nodes_expanded) + " nodes, " +
                  io::format_number(r.stats.seconds, 3) + " s";
    if (o.csv) {
        out.text = plans_to_csv(space, r.plans);
        return out;
    }
    model::write_job_spec(doc.root, job);
    record_network(o, doc);
    if (o.slo_s > 0) doc.root["training"]["slo_s"] = io::format_number(o.slo_s, 6);
    doc.root["allocation"] = allocation_to_yaml(space, r.plans, ctx);
    doc.root["search"] = search_to_yaml(r.stats, r.plans, ctx, types.skipped);
    out.text = io::emit_yaml(doc.root);
    return out;
}

// ---- cluster mode ----

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
    model::Measure measure = model::Measure::device;
    bool from_memest = false;  ///< memest's own list (memory.plans), not ranked here
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
        out.from_memest = true;
        if (o.inter_node_gb_s > 0)
            throw UsageError("--inter-node-gb-s ranks the plans cluster mode computes itself; memest ranked the "
                             "document's memory.plans (give its document a network: section instead)");
        for (const auto& e : list) {
            model::Plan p;
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
            out.plans.push_back(p);
        }
        return out;
    }
    const catalog::GpuCatalog present = present_types(cat, nodes);
    model::PlanOptions po;
    po.usable_fraction = o.model.usable_fraction;
    po.micro_batch = job.micro_batch;
    po.network = place::problem_options(o.model, o.inter_node_gb_s, doc, cat).network;
    if (memory.IsDefined()) po.layout = fit_check_layout(doc, memory, job);
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

PlanallocResult cluster_mode(const PlanallocOptions& o, const std::optional<io::TextInput>& cluster,
                             io::YamlDocument& doc, model::JobSpec& job, const catalog::GpuCatalog& cat) {
    check_cluster_options(o);
    std::vector<ClusterNode> nodes = cluster ? parse_cluster(*cluster, cat)
                                             : read_cluster(doc, io::required_child(doc, doc.root, "cluster"), cat);
    // Nodes whose GPUs cannot train in the job's precision take no plan, whatever memory they have
    // (best-fit matches memory alone, and plans piped from memest may be sized for another type).
    const model::PrecisionLeftOut left = model::precision_left_out(job.training, present_types(cat, nodes));
    nodes.erase(std::remove_if(nodes.begin(), nodes.end(),
                               [&](const ClusterNode& n) {
                                   return std::find(left.types.begin(), left.types.end(), n.gpu) != left.types.end();
                               }),
                nodes.end());
    const std::string precision_note = left.types.empty() ? "" : "; the cluster's " + left.names() + ": " + left.reason;
    const RankedPlans ranked = nodes.empty() ? RankedPlans{} : ranked_plans(o, doc, job, cat, nodes);
    const std::vector<model::Plan>& plans = ranked.plans;
    if (plans.empty()) throw Infeasible("no plan of " + job.model.name + " fits any GPU type of the cluster" + precision_note);
    // One request per plan over the one node list: nothing is copied per plan (5,000 nodes times
    // memest's tens of thousands of plans took seconds, more with a long file name in each node).
    auto request = [&](const model::Plan& p) {
        // A tensor-parallel group within one node, a pipeline stage's dp x tp GPUs of one type.
        return GpuRequest{static_cast<int>(p.layout.gpus()), p.peak_gib, o.exact_type ? p.gpu : std::string(),
                          p.layout.tp, p.layout.tp * p.layout.dp};
    };
    for (size_t i = 0; i < plans.size(); ++i) {
        const model::Plan& p = plans[i];
        const std::vector<NodeShare> shares = best_fit_shares(nodes, request(p), o.model.usable_fraction);
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
        plan["rank"] = i + 1;
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
        for (const auto& [gib, n] : per_memory) by_memory[io::format_number(gib, 6)] = n;
        for (const auto& s : shares) {
            YAML::Node share(YAML::NodeType::Map);
            share.SetStyle(YAML::EmitterStyle::Flow);
            if (s.gpu.empty())
                share["memory_gib"] = io::format_number(s.memory_gib, 6);
            else
                share["gpu"] = s.gpu;
            share["gpus"] = s.gpus;
            where[s.node] = share;
        }
        if (!per_type.empty()) a["gpus"] = gpus;
        if (!per_memory.empty()) a["gpus_by_memory"] = by_memory;
        a["tp"] = p.layout.tp;
        a["pp"] = p.layout.pp;
        a["dp"] = p.layout.dp;
        a["micro_batch"] = p.layout.micro_batch;
        a["nodes"] = where;
        PlanallocResult out;
        std::string taken;
        for (const auto& [t, n] : per_type) taken += (taken.empty() ? "" : ", ") + std::to_string(n) + " x " + t;
        for (const auto& [gib, n] : per_memory)
            taken += (taken.empty() ? "" : ", ") + std::to_string(n) + " x " + io::format_number(gib, 6) + " GiB (no type)";
        out.summary = "best-fit: plan " + std::to_string(i + 1) + " (sized for " + p.gpu + ", " +
                      io::format_fixed(p.peak_gib, 2) + " GiB per GPU) matched by memory to " + taken + " on " +
                      std::to_string(shares.size()) + " node(s)";
        if (o.csv) {  // one row per node the plan takes
            io::CsvWriter w({"plan_rank", "sized_for", "peak_gib", "usable_gib", "tp", "pp", "dp", "micro_batch",
                             "node", "gpu", "gpus"});
            for (const auto& s : shares)
                w.add_row({std::to_string(i + 1), p.gpu, io::format_fixed(p.peak_gib, 3),
                           io::format_fixed(usable * o.model.usable_fraction, 3), std::to_string(p.layout.tp),
                           std::to_string(p.layout.pp), std::to_string(p.layout.dp),
                           std::to_string(p.layout.micro_batch), s.node, s.gpu, std::to_string(s.gpus)});
            out.text = w.text();
            return out;
        }
        model::write_job_spec(doc.root, job);
        record_network(o, doc);
        doc.root["allocation"] = a;
        out.text = io::emit_yaml(doc.root);
        return out;
    }
    const model::Plan& first = plans.front();
    const model::Plan* smallest = &first;
    for (const auto& p : plans)
        if (p.layout.gpus() < smallest->layout.gpus() ||
            (p.layout.gpus() == smallest->layout.gpus() && p.peak_gib < smallest->peak_gib))
            smallest = &p;
    auto need = [&](const model::Plan& p) {
        const int free = free_gpus_with(nodes, request(p), o.model.usable_fraction);
        const std::string groups =
            p.layout.tp > 1 ? " (tp " + std::to_string(p.layout.tp) + " GPUs of one node together)" : "";
        std::string stages;  // enough GPUs, too few on one type for whole stages
        if (free >= p.layout.gpus()) {
            const int whole = whole_type_groups_free(nodes, request(p), o.model.usable_fraction);
            stages = " but hold " + io::counted(whole, "whole stage") + " of " + std::to_string(p.layout.dp * p.layout.tp) +
                     " GPUs of one type, of " + std::to_string(p.layout.pp) + " needed";
        }
        return std::to_string(p.layout.gpus()) + (p.layout.gpus() == 1 ? " GPU with " : " GPUs with ") + io::format_fixed(p.peak_gib / o.model.usable_fraction, 2) +
               " GiB or more" + (o.exact_type ? " of type " + p.gpu : "") + groups + ", and " + std::to_string(free) +
               (free == 1 ? " such GPU is free" : " such GPUs are free") + stages;
    };
    throw Infeasible("none of the " + std::to_string(plans.size()) + " plans fits the cluster's free GPUs: the first needs " +
                     need(first) + "; the smallest needs " + need(*smallest) +
                     (ranked.from_memest ? " (memest --top 0 lists every plan)" : "") +
                     precision_note);
}

}  // namespace

PlanallocResult run_planalloc(const std::optional<io::TextInput>& job_text, const catalog::GpuCatalog& catalog,
                              const std::optional<io::TextInput>& cluster, const PlanallocOptions& o) {
    model::JobSpec job;
    io::YamlDocument doc = model::load_job_document(job_text, o.job, job);
    model::check_job_key(doc, "memory", job, "memest");
    catalog::GpuCatalog cat = model::job_catalog(doc, catalog, o.job.catalog_given);
    const bool cluster_given = cluster || io::optional_child(doc, doc.root, "cluster").IsDefined();
    return cluster_given ? cluster_mode(o, cluster, doc, job, cat) : slo_mode(o, doc, job, cat);
}

}  // namespace hetsched::alloc
