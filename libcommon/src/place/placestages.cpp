#include <hetsched/place/placestages.hpp>

#include <algorithm>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/yaml_document.hpp>
#include <hetsched/model/job_document.hpp>
#include <hetsched/model/profile_units.hpp>
#include <hetsched/place/placement_report.hpp>
#include <hetsched/place/problem_builder.hpp>

namespace hetsched::place {
namespace {

/// The allocation from the document, with --stages and --dp over it.
Allocation allocation_of(const PlacestagesOptions& o, const io::YamlDocument& doc, const catalog::GpuCatalog& c) {
    const bool in_document = doc.root["allocation"].IsDefined();
    if (!in_document && o.stages.empty()) {
        if (doc.name == model::kFlagsDocument)
            throw UsageError("no allocation: give --stages (and --dp), or a job document with an allocation");
        return read_allocation(doc, c);  // says what is missing, where
    }
    Allocation a = o.stages.empty() ? read_allocation(doc, c) : allocation_from_flags(1, o.stages, c);
    if (!o.stages.empty() && in_document) {  // stages of the flag's types, on no node the document names
        const Allocation given = read_allocation(doc, c);
        a.dp = given.dp;
        a.schedule = given.schedule;
        a.measure = given.measure;
        a.usable_fraction = given.usable_fraction;
        a.efficiency = given.efficiency;
        a.warnings = given.warnings;
    }
    // Another dp takes other GPUs than the nodes the document's allocation names hold.
    if (o.dp > 0 && o.dp != a.dp) a.gpus_per_node.clear();
    // An allocation of GPU counts (gpus: {TYPE: n}) keeps its GPUs: --dp makes n / (dp x tp) stages of each.
    if (o.dp > 0 && o.dp != a.dp && !a.counts.empty()) {
        if (const auto* count = undivided_count(a.counts, o.dp, a.tp))
            throw UsageError("--dp " + std::to_string(o.dp) + ": the allocation's " + std::to_string(count->second) +
                             " GPUs of " + count->first + " are no multiple of " + stage_width(o.dp, a.tp) +
                             ": its gpus map makes n / (dp x tp) stages of each type");
        a.stages = stages_of_counts(a.counts, o.dp, a.tp);
    }
    if (o.dp > 0) a.dp = o.dp;
    return a;
}

/// The problem, its allocation's errors told apart when flags made it. A layout the flags make that
/// the job cannot take is their fault (64), the document's its own (65): one that fails at dp 1 too is
/// the stages' (--stages, else the document's), one that fails at its dp alone is the dp's (--dp, else
/// the document's). A --stages type that cannot train in the job's precision is the flag's too. Told
/// apart only once the problem fails: a good one is checked once.
Problem problem_of(const PlacestagesOptions& o, const model::JobSpec& job, const Allocation& alloc,
                   const io::YamlDocument& doc, const catalog::GpuCatalog& planned, const catalog::GpuCatalog& cat,
                   const ProblemOptions& po) {
    try {
        return make_problem(job, alloc, cat, po);
    } catch (const DataError& e) {
        if (o.stages.empty() && o.dp <= 0) throw;
        const int stages = static_cast<int>(alloc.stages.size());
        const auto fails = [&](int dp) {
            try {
                checked_layout(job, dp, stages, alloc.tp, po.measure, alloc.where);
                return false;
            } catch (const DataError&) {
                return true;
            }
        };
        if (fails(alloc.dp)) {
            const bool by_stages = fails(1);
            if (by_stages && !o.stages.empty()) throw UsageError(e.pos().file + ": " + e.what());
            if (!by_stages && o.dp > 0) throw UsageError("--dp " + std::to_string(o.dp) + ": " + e.what());
            throw DataError(e.what(), read_allocation(doc, planned).where);  // the document's
        }
        if (!o.stages.empty())
            for (const auto& name : alloc.stages)
                if (const std::string why = precision_unsupported_on(job, planned.find(name)); !why.empty())
                    throw UsageError("--stages: " + why);
        throw;
    }
}

/// The first stage of each type in the allocation's own order, as indices into the problem's types.
std::vector<size_t> given_order(const Problem& p, const Allocation& a) {
    std::vector<size_t> order;
    for (const auto& name : a.stages)
        for (size_t t = 0; t < p.types.size(); ++t)
            if (p.types[t].name == name) order.push_back(t);
    return order;
}

/// The catalog the stages are timed on: --catalog, else the document's own `gpus:` (job_catalog),
/// else the built-in catalog the allocation was planned on (as planalloc timed it), else `given` (the
/// default). A file catalog must be named again (the library opens no files): the allocation's check
/// then says which.
catalog::GpuCatalog planned_catalog(const io::YamlDocument& doc, const catalog::GpuCatalog& given, bool catalog_given) {
    if (catalog_given || io::optional_child(doc, doc.root, "gpus").IsDefined())
        return model::job_catalog(doc, given, catalog_given);
    const YAML::Node sec = io::optional_child(doc, doc.root, "allocation");
    if (!sec.IsDefined() || !sec.IsMap()) return given;
    const YAML::Node planned = io::optional_child(doc, sec, "catalog");
    if (!planned.IsDefined() || !planned.IsScalar()) return given;
    const auto names = catalog::catalog_names();
    if (std::find(names.begin(), names.end(), planned.Scalar()) == names.end()) return given;
    return catalog::named_catalog(planned.Scalar());
}

/// Where the placement crosses nodes at the catalog's inter-node speed (the job's network: gives none,
/// nor --inter-node-gb-s, and a type has no nic_gb_s), a note saying the speed assumed: it sets the
/// pipeline's sends and the all-reduces across nodes, and a run's real network may be far from it.
std::string default_network_note(const Problem& p, const catalog::GpuCatalog& cat, bool network_given) {
    if (network_given) return "";
    bool crosses = p.types.size() > 1, on_default = false;
    for (const auto& t : p.types) {
        const catalog::GpuType& g = cat.find(t.name);
        const bool across = p.dp * p.tp * t.stages > g.gpus_per_node;  // a type's stages fill its nodes
        crosses = crosses || across;
        on_default = on_default || g.nic_gb_s <= 0;
    }
    if (!crosses || !on_default) return "";
    return "no inter-node speed in the job or the flags: the catalog's " + io::format_number(cat.inter_node_gb_s) +
           " GB/s a node assumed between nodes (network.inter_node_gb_s or --inter-node-gb-s sets it)";
}

}  // namespace

PlacestagesResult run_placestages(const std::optional<io::TextInput>& job_text, const catalog::GpuCatalog& given,
                                  const std::optional<io::TextInput>& profile_text, const PlacestagesOptions& o) {
    model::JobSpec job;
    io::YamlDocument doc = model::load_job_document(job_text, o.job, job);
    const catalog::GpuCatalog planned = planned_catalog(doc, given, o.job.catalog_given);
    const Allocation alloc = allocation_of(o, doc, planned);
    // The plan's micro-batch (planalloc's cluster mode) is the job's where the job gives none; a
    // document's training.micro_batch must agree, --micro-batch overrides it as the other flags do.
    if (alloc.micro_batch && job.micro_batch == 0) job.micro_batch = *alloc.micro_batch;
    if (alloc.micro_batch && o.job.micro_batch == 0 && job.micro_batch != *alloc.micro_batch)
        throw DataError("allocation.micro_batch " + std::to_string(*alloc.micro_batch) + " but training.micro_batch is " +
                            std::to_string(job.micro_batch) + ": the plan was made for another micro-batch (--micro-batch "
                            "chooses)",
                        alloc.micro_batch_where);
    // Stages on the nodes the allocation names fill those nodes' GPUs, not the catalog's node size.
    const catalog::GpuCatalog cat = on_allocated_nodes(planned, alloc);
    // The placer planalloc split the plan's layers with, unless --method names one: the same time.
    const Method method = o.method_given ? o.method : alloc.placer.value_or(o.method);

    ProblemOptions po = with_planned_settings(problem_options(o.model, o.inter_node_gb_s, doc, cat), alloc);
    model::LayerProfile profile;
    if (profile_text) {
        profile = model::read_layer_profile(io::CsvTable::parse(*profile_text), job.model.layers, micro_batch_of(job), cat,
                                            alloc.tp);
        po.profile = &profile;
        for (auto& w : model::implausible_profile_times(profile, job.model, job.training, cat, po.efficiency))
            profile.warnings.push_back(std::move(w));
    }
    const Problem problem = problem_of(o, job, alloc, doc, planned, cat, po);

    PlaceOptions opts;
    opts.keep_order = o.keep_order;
    opts.order = given_order(problem, alloc);
    opts.search_limit = o.search_limit;
    opts.layers = !o.job.layers_per_stage.empty() ? o.job.layers_per_stage
                  : !alloc.layers.empty()         ? alloc.layers
                                                  : job.layers_per_stage;  // the flag, the allocation, the document
    if (o.job.layers_per_stage.empty()) opts.layers_where = alloc.layers.empty() ? job.layers_per_stage_where : alloc.layers_where;
    const PlaceResult r = place_stages(problem, method, opts);
    std::vector<TimelineEvent> events;
    const Estimate e = estimate(problem, r.placement, o.timeline ? &events : nullptr);

    PlacestagesResult out;
    out.summary = std::string(method_name(method)) + ": " + io::counted(static_cast<long>(r.placement.order.size()), "stage") +
                  ", iteration " + io::format_number(r.iteration_s, 6) + " s; stage " + std::to_string(e.slowest_stage) +
                  " paces the pipeline, stage " + std::to_string(e.critical_stage) + " finishes last" +
                  (!e.ends_after_pipeline                    ? ""
                   : e.tied_outlasts
                       ? " (its tied embedding's all-reduce)"
                       : " (its all-reduce and optimizer step)") +
                  "; " +
                  io::counted(r.evaluated, "placement") + " evaluated" + (r.stopped ? ", search stopped (not proven)" : "");
    out.warnings = alloc.warnings;
    out.warnings.insert(out.warnings.end(), profile.warnings.begin(), profile.warnings.end());
    // Notes, one clause each, joined: what the run assumed or replaced.
    std::vector<std::string> notes;
    // Two splits in the document that disagree: the allocation's stages win, as documented; say so.
    auto listed = [](const std::vector<long>& split) {
        std::string s;
        for (long n : split) s += (s.empty() ? "" : ",") + std::to_string(n);
        return s;
    };
    if (o.job.layers_per_stage.empty() && !alloc.layers.empty() && !job.layers_per_stage.empty() &&
        alloc.layers != job.layers_per_stage)
        notes.push_back("training.layers_per_stage (" + listed(job.layers_per_stage) +
                        ") differs from the allocation's stages (" + listed(alloc.layers) + "): the stages' split is used");
    // A split the input gives is what --method given times; a search places its own, told where it differs.
    if (method != Method::given && !opts.layers.empty() && opts.layers != r.placement.layers)
        notes.push_back("the split given (" + listed(opts.layers) + ") is what --method given times; " +
                        method_name(method) + " placed another");
    const model::Layout layout{alloc.tp, static_cast<int>(alloc.stages.size()), alloc.dp, 1, 1, micro_batch_of(job), {}};
    if (const std::string fp32 = model::torchtitan_fp32_note(job.training, layout); !fp32.empty())
        notes.push_back(fp32);
    // The inter-node speed given: the flag's, else the document's network section's (0: neither says it).
    const bool network_given = o.inter_node_gb_s > 0 || model::read_network(doc, {0, 0}).inter_node_gb_s > 0;
    if (const std::string net = default_network_note(problem, cat, network_given); !net.empty())
        notes.push_back(net);
    std::vector<std::string> timed;
    for (const auto& t : problem.types) timed.push_back(t.name);
    if (const std::string bw = model::unknown_bandwidth_note(cat, timed); !bw.empty()) notes.push_back(bw);
    if (r.stopped)
        notes.push_back(std::string(method_name(method)) + " stopped at its --search-limit of " +
                        std::to_string(o.search_limit) + " nodes with the best placement found (iteration " +
                        io::format_number(r.iteration_s, 6) + " s; it starts from cmr's split" +
                        (method == Method::hph ? " of its order" : "") +
                        "), not proven best: raise --search-limit to search on");
    out.note = io::join(notes, "; ");
    if (o.timeline) out.timeline = timeline_to_csv(problem, r.placement, events);
    if (o.csv) {
        out.text = placement_to_csv(problem, r, e);
        return out;
    }
    // A profile without an output row for the last stage's type leaves the output layer and loss to
    // the compute model (a missing embedding row counts nothing, as the compute model's lookup).
    const bool ends_modelled =
        profile_text && profile.complete(problem.types[r.placement.order.back()].name).tail_forward < 0;
    ReportContext ctx{method_name(method),
                      !profile_text ? "compute-model" : ends_modelled ? "profile+compute-model" : "profile", po.efficiency,
                      model::measure_name(po.measure), micro_batch_of(job)};
    model::write_job_spec(doc.root, job);
    // A plan's micro-batch that --micro-batch overrode is written as the one timed, so the output reads back.
    if (alloc.micro_batch && doc.root["allocation"].IsMap()) doc.root["allocation"]["micro_batch"] = job.micro_batch;
    doc.root["placement"] = placement_to_yaml(problem, r, e, ctx);
    out.text = io::emit_yaml(doc.root);
    return out;
}

}  // namespace hetsched::place
