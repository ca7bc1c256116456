#include <hetsched/alloc/planalloc.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <thread>

#include <hetsched/alloc/allocation_report.hpp>
#include <hetsched/alloc/cluster_mode.hpp>
#include <hetsched/alloc/cost_search.hpp>
#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/number_range.hpp>
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
    // Decimal only, as every number hetsched reads (no hexadecimal, nan or inf).
    const std::optional<double> v = io::parse_finite(text);
    if (!v || *v < 0 || *v > hi || (integer && *v != std::floor(*v)))
        throw UsageError(std::string(option) + " expects " + (integer ? "an integer" : "a number") + " from 0 to " +
                         io::format_number(hi) + " after '=', got '" + whole + "'");
    return *v;
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
    // Each option is repeatable and each value a comma-separated list: A30=2,V100=4 as two.
    auto entries = [](const std::vector<std::string>& given, const char* option) {
        std::vector<std::string> out;
        for (const auto& g : given)
            for (auto& e : io::comma_list(g, option)) out.push_back(std::move(e));
        return out;
    };
    for (const auto& p : entries(o.prices, "--price")) {
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
    for (const auto& q : entries(o.quotas, "--quota")) {
        auto [type, value] = split_assignment(q, "--quota");
        const int n = static_cast<int>(parse_value(value, q, "--quota", true, kMaxQuota));
        if (io::same_name(type, "all")) {  // as type names, letter case aside
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
                             ? "no GPU type in catalog '" + cat.name + "' can train in " + training.precision + " (" + left.text() + ")"
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
    // The SLO as given, the fastest time to as many digits as show it misses (not 230.887 "missing" 230.887).
    PlanallocResult out;
    out.feasible = false;
    out.message = "no plan meets the SLO of " + io::format_exact(ctx.slo_s) + " s for " +
                  std::to_string(job.iterations) + " iterations: the fastest " +
                  (proven ? "takes " : "found takes ") + time_beside_slo(p.total_s, ctx.slo_s) + " s (" +
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
    record_network(o.inter_node_gb_s, doc.root);
    if (o.slo_s > 0) doc.root["training"]["slo_s"] = io::format_exact(o.slo_s);
    YAML::Node a = allocation_to_yaml(space, f.plans, ctx);
    a["slo_met"] = false;
    a["fastest"] = proven ? "proven" : "found";
    if (!proven) a["total_time_lower_bound_s"] = io::format_number(f.stats.lower_bound, 6);
    out.note = replace_allocation(doc.root, a, true);
    YAML::Node s = search_to_yaml(slo_stats, {}, ctx, skipped);
    YAML::Node fs(YAML::NodeType::Map);
    fs.SetStyle(YAML::EmitterStyle::Flow);
    fs["nodes_expanded"] = f.stats.nodes_expanded;
    fs["plans_evaluated"] = f.stats.plans_evaluated;
    fs["complete"] = f.stats.complete;
    fs["effort"] = f.stats.effort;
    fs["effort_limit"] = kFastestEffort;
    // Its own search stopped short, but the SLO search placed every plan: the fastest is proven by that.
    if (all_placed && !f.stats.complete) fs["proven_by"] = "slo_search";
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
    const bool beta = r.stats.stopped_by == "beta";  // (never without a plan: it prunes against one)
    if (r.plans.empty() && !r.stats.complete) {
        // Out of time (75: a run with more time may answer) or out of nodes (64: raise the flag).
        const bool time = r.stats.stopped_by == "time limit", placer = r.stats.stopped_by == kPlacerNodeLimit;
        const std::string why = "the search stopped at its " + r.stats.stopped_by + " (" +
                                std::to_string(r.stats.nodes_expanded) + " nodes, " +
                                std::to_string(r.stats.plans_evaluated) + " plans placed) before any plan met the SLO; " +
                                (placer ? "placements were cut short at the placer's limit of " +
                                              std::to_string(so.placer_limit) +
                                              " nodes (hph may gain from --placer cmr, whose order differs)"
                                 : time ? "raise --time-limit-s"
                                        : "raise --search-limit") +
                                ", loosen the SLO or lower the quotas";
        if (time) throw TryLater(why);
        throw UsageError(why);
    }
    if (r.plans.empty()) return fastest_instead(o, doc, job, space, so, r, ctx, types.skipped);
    // Notes, one clause each, joined: how far the search got, and what it assumed or left.
    std::vector<std::string> notes;
    if (!r.stats.complete)
        notes.push_back((beta ? std::string("--beta's estimate pruned partial plans that no bound cut")
                              : "the search stopped at its " + r.stats.stopped_by) +
                        ": the plan found costs " + io::format_number(r.plans.front().cost, 6) + " " + cat.currency +
                        ", at most " + io::format_fixed(100 * (r.plans.front().cost / r.stats.lower_bound - 1), 1) +
                        "% above the cheapest (no plan costs less than " + io::format_number(r.stats.lower_bound, 6) +
                        ")");
    std::vector<std::string> searched;
    for (const auto& t : space.types) searched.push_back(t.name);
    if (const std::string bw = model::unknown_bandwidth_note(cat, searched); !bw.empty()) notes.push_back(bw);
    // memest's plans are cluster mode's input: the SLO search sizes each stage itself.
    if (io::optional_child(doc, doc.root, "memory").IsDefined())
        notes.push_back("the document's memory: section (memest's) is not read by the SLO search, which sizes each "
                        "stage of every plan itself; it is passed through (cluster mode, --cluster, best-fits its plans)");
    const PlanRecord& best = r.plans.front();
    out.summary = search_method_name(so.method) + ": " + describe_plan(space, best) + ", cost " +
                  io::format_number(best.cost, 6) + " " + cat.currency + "; " + std::to_string(r.stats.plans_evaluated) +
                  " plans placed, " + std::to_string(r.stats.nodes_expanded) + " nodes, " +
                  io::format_number(r.stats.seconds, 3) + " s";
    if (o.csv) {
        out.note = io::join(notes, "; ");
        out.text = plans_to_csv(space, r.plans);
        return out;
    }
    model::write_job_spec(doc.root, job);
    record_network(o.inter_node_gb_s, doc.root);
    if (o.slo_s > 0) doc.root["training"]["slo_s"] = io::format_exact(o.slo_s);
    if (const std::string dropped = replace_allocation(doc.root, allocation_to_yaml(space, r.plans, ctx), true);
        !dropped.empty())
        notes.push_back(dropped);
    doc.root["search"] = search_to_yaml(r.stats, r.plans, ctx, types.skipped);
    out.note = io::join(notes, "; ");
    out.text = io::emit_yaml(doc.root);
    return out;
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
