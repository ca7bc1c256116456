#include <hetsched/model/memest.hpp>

#include <set>

#include <hetsched/cli/error.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/yaml_document.hpp>
#include <hetsched/model/job_document.hpp>
#include <hetsched/model/memory_check.hpp>
#include <hetsched/model/memory_report.hpp>
#include <hetsched/model/transformer.hpp>

namespace hetsched::model {
namespace {

/// "ID: why" for a skipped row; a row without an id is named by the message's place alone.
std::string skipped_row(const SkippedRun& sk) { return sk.id.empty() ? sk.reason : sk.id + ": " + sk.reason; }

/// Frenzy's formula spreads a model over tp x dp and holds a rank's whole batch at once: a layout it
/// does not compute is refused rather than reported as if it had; the micro-batch is the rank's batch.
void frenzy_layout(const JobSpec& job, Layout& l) {
    if (l.pp > 1 || l.cp > 1 || l.vpp > 1)
        throw UsageError("--method frenzy is the Frenzy paper's formula over tp and dp: it has no pipeline or "
                         "context parallelism (pp, cp and vpp must be 1; the default method models them)");
    const long whole = job.training.global_batch / l.dp;
    if (job.micro_batch > 0 && job.micro_batch != whole)
        throw UsageError("--method frenzy holds a data-parallel rank's whole batch at once: micro_batch must be "
                         "global_batch / dp = " + std::to_string(whole) + ", got " + std::to_string(job.micro_batch));
    l.micro_batch = whole;
}

}  // namespace

MemestResult run_memest(const std::optional<io::TextInput>& job_text, const catalog::GpuCatalog& given,
                        const MemestOptions& o) {
    JobSpec job;
    io::YamlDocument doc = load_job_document(job_text, o.job, job);
    const catalog::GpuCatalog cat = job_catalog(doc, given, o.job.catalog_given);
    catalog::GpuCatalog chosen = cat;
    if (!o.gpu.empty()) chosen.gpus = {cat.find(o.gpu)};
    const Method method = o.method;
    const std::string method_label = method == Method::frenzy ? "frenzy" : "default";
    write_job_spec(doc.root, job);

    MemestResult out;
    // What memest does with a document whose layout it does not read, as the warnings below say.
    const std::string without_layout =
        job.layers_per_stage.empty() ? "ranks plans" : "estimates training.layers_per_stage's pipeline at tp 1, dp 1";
    // An allocation (placestages' input, planalloc's output) names a layout memest does not take from
    // the document: say so, as a user who wrote one expects it checked.
    if (const YAML::Node a = io::optional_child(doc, doc.root, "allocation"); a.IsDefined() && !o.job.layout_given())
        out.warnings.push_back(describe(DataError(
            "the document's allocation is placestages' input, not read by memest: give its layout as --tp, --pp, --dp "
            "(--layers-per-stage) and its GPU as --gpu to check it; without them memest " + without_layout,
            doc.where(a))));
    // memest's own output fed back: its memory: section is replaced, its layout not read from it.
    if (const YAML::Node mem = io::optional_child(doc, doc.root, "memory"); mem.IsMap() && !o.job.layout_given())
        if (const YAML::Node l = io::optional_child(doc, mem, "layout"); l.IsDefined())
            out.warnings.push_back(describe(DataError(
                "the document's memory: section is memest's output, replaced and not read: give its layout as --tp, "
                "--pp, --dp (--micro-batch, --gpu) to estimate it again; without them memest " + without_layout,
                doc.where(l))));
    // Read in either mode, so that a bad network: section is refused here, not passed on to planalloc.
    const Network network = read_network(doc, Network{cat.inter_node_gb_s});
    if (o.job.layout_given() || !job.layers_per_stage.empty()) {  // a split names its layout
        Layout l = layout_from_options(o.job, job);
        if (method == Method::frenzy) frenzy_layout(job, l);
        // A fit check on a GPU is measured as plans are (device: what the card must hold), unless told.
        const Measure measure = o.measure.value_or(o.gpu.empty() ? Measure::allocated : Measure::device);
        const catalog::GpuType* gpu = o.gpu.empty() ? nullptr : &chosen.gpus[0];
        const Training on_type = gpu ? on_gpu(job.training, *gpu) : job.training;
        const MemoryEstimate est = estimate_memory(job.model, on_type, l, measure, method);
        const std::string unsupported = precision_unsupported(on_type);
        const bool node_holds_tp = !gpu || l.tp <= gpu->gpus_per_node;  // tensor parallelism stays in a node
        // A catalog's quota caps how many GPUs of the type a plan may take (0: none), as in plan mode.
        const bool within_quota = !gpu || gpu->quota < 0 || l.gpus() <= gpu->quota;
        if (gpu) {
            const double usable = gpu->memory_gib * o.usable_fraction;
            out.fits = est.peak_bytes() / kGiB <= usable && unsupported.empty() && node_holds_tp && within_quota;
            if (!within_quota)
                out.message = "the layout takes " + std::to_string(l.gpus()) + " GPUs, but the catalog's quota for " +
                              gpu->name + " is " + std::to_string(gpu->quota);
            else if (!node_holds_tp)
                out.message = "tp " + std::to_string(l.tp) + " needs " + std::to_string(l.tp) + " GPUs in one node, but a node of " +
                              gpu->name + " has " + std::to_string(gpu->gpus_per_node);
            else if (!unsupported.empty())
                out.message = gpu->name + capability_note(on_type) + ": " + unsupported;
            else if (!out.fits) {
                const double need = est.peak_bytes() / kGiB;
                const int d = io::decimals_apart(need, usable, 2);
                out.message = "does not fit " + gpu->name + ": stage " + std::to_string(est.peak_stage) + " needs " +
                              io::format_fixed(need, d) + " GiB, " + io::format_fixed(usable, d) + " GiB usable";
            }
        }
        doc.root["memory"] = with_job_key(job, breakdown_to_yaml(est, l, measure, method_label, gpu, o.usable_fraction));
        if (!unsupported.empty()) {
            doc.root["memory"]["fits"] = false;
            doc.root["memory"]["unsupported"] = unsupported;
        }
        if (!node_holds_tp || !within_quota) {
            doc.root["memory"]["fits"] = false;
            doc.root["memory"]["unsupported"] = out.message;
        }
        const std::string fp32 = torchtitan_fp32_note(on_type, l);
        if (!fp32.empty()) {
            doc.root["memory"]["precision"] = fp32;
            if (out.message.empty()) out.message = fp32;
        }
        // Selective recompute that keeps more than none: say why, as a user who asked for it would not guess.
        if (method == Method::framework && on_type.recompute == Recompute::selective && on_type.precision == "fp8" &&
            !on_type.compiled && torchtitan_sac_saves_abs(on_type)) {
            const std::string note = "selective recompute before torchtitan 0.1.0 saves every abs() the eager fp8 "
                                     "casts make (its op list saves aten.abs), which can keep more than no recompute; "
                                     "--framework-version 0.1.0 or --compile saves none of them";
            doc.root["memory"]["recompute"] = note;
            if (out.message.empty()) out.message = note;
        }
        // Asked for flash attention, the estimate is of unfused attention: say why.
        if (method == Method::framework && on_type.flash_attention && !runs_fused_attention(on_type))
            doc.root["memory"]["attention"] = "unfused: Transformer Engine has no flash or cuDNN attention below "
                                              "compute capability 8.0 (" + gpu->name + ")";
        out.summary = "tp " + std::to_string(l.tp) + " pp " + std::to_string(l.pp) + " dp " + std::to_string(l.dp) +
                      " cp " + std::to_string(l.cp) + " vpp " + std::to_string(l.vpp) + " micro-batch " +
                      std::to_string(l.micro_batch) + ": peak " + io::format_fixed(est.peak_bytes() / kGiB, 3) +
                      " GiB " + measure_name(measure) + " on stage " + std::to_string(est.peak_stage) + " (" +
                      phase_name(est.stages[est.peak_stage].phase) + ")";
        out.text = o.csv ? breakdown_to_csv(est, measure) : io::emit_yaml(doc.root);
        return out;
    }
    PlanOptions po;
    po.method = method;
    po.measure = o.measure.value_or(Measure::device);
    po.usable_fraction = o.usable_fraction;
    po.max_gpus = o.max_gpus;
    po.micro_batch = job.micro_batch;
    po.network = network;
    auto plans = enumerate_plans(job.model, job.training, chosen, po);
    // Types left out for the job's precision (enumerate_plans gives them no plan): named in the message.
    const PrecisionLeftOut left = precision_left_out(job.training, chosen);
    if (!left.types.empty()) out.message = "no plans on " + left.text();
    if (plans.empty()) {
        out.fits = false;
        // Where a type's quota, not --max-gpus, bounds its plans, the message says so.
        std::vector<std::string> capped;
        for (const auto& g : chosen.gpus)
            if (g.quota >= 0 && g.quota < o.max_gpus) capped.push_back(g.name + " " + std::to_string(g.quota));
        // With --gpu, the one type searched; else every type of the catalog.
        const std::string where = chosen.gpus.size() == 1 ? chosen.gpus.front().name
                                                          : "any GPU type in catalog '" + chosen.name + "'";
        const std::string none = "no plan of at most " + std::to_string(o.max_gpus) + " GPUs fits " + where +
                                 (capped.empty() ? "" : " (quotas cap GPUs: " + io::join(capped) + ")");
        if (left.types.empty()) out.message = none;
        else if (left.types.size() < chosen.gpus.size()) out.message = none + "; " + out.message;  // else the precision alone
        if (torchtitan_trains_fp32(job.training, Layout{2, 1, 1, 1, 1, 1, {}}))  // tp 2 at dp 1: left out
            out.message += "; layouts with tp or pp at dp x cp 1 were left out, as torchtitan trains them in fp32: "
                           "give --precision fp32 to rank them, or a global batch that allows dp above 1";
    }
    {
        std::set<std::string> types;
        for (const auto& p : plans) types.insert(p.gpu);
        // est_iteration_s ranks the plans: a type timed without its bandwidth ranks too fast.
        if (const std::string bw = unknown_bandwidth_note(chosen, {types.begin(), types.end()}); !bw.empty())
            out.warnings.push_back(bw);
        out.summary = io::counted(static_cast<long>(plans.size()), "plan") + " on " + io::counted(static_cast<long>(types.size()), "GPU type") + " of " +
                      std::to_string(chosen.gpus.size()) + " in catalog '" + chosen.name + "' (" + measure_name(po.measure) +
                      " memory, at most " + std::to_string(o.max_gpus) + " GPUs)";
        if (!plans.empty())
            out.summary += "; first: " + std::to_string(plans[0].layout.gpus()) + " x " + plans[0].gpu + ", " +
                           io::format_fixed(plans[0].peak_gib, 2) + " GiB of " + io::format_fixed(plans[0].usable_gib, 2);
    }
    // The document only for YAML output: yaml-cpp spends about 14 KB per plan, 850 MB for 61,000.
    if (o.csv) {
        out.text = plans_to_csv(plans, o.top);
        return out;
    }
    doc.root["memory"] = with_job_key(job, YAML::Node(YAML::NodeType::Map));
    plans_to_yaml(doc.root["memory"], plans, o.top, po.measure, method_label);
    if (!left.types.empty()) doc.root["memory"]["no_plans_on"] = left.text();
    out.text = io::emit_yaml(doc.root);
    return out;
}

CheckResult run_memest_check(const io::CsvTable& measured, Method method) {
    const MeasuredRuns read = read_measured_runs(measured);
    if (read.runs.empty() && read.skipped.empty())
        throw DataError("no measured run to check: expected a row under the header", {measured.name(), 2, 1});
    if (read.runs.empty()) {
        CheckResult none;
        for (const auto& sk : read.skipped) none.skipped.push_back(skipped_row(sk));
        none.warnings = read.warnings;
        none.nothing_checked = "no measured run could be checked: " +
                               io::counted(static_cast<long>(read.skipped.size()), "row") + " skipped, each for the reason above";
        return none;
    }
    auto rows = check_runs(read.runs, method);
    std::string summary = summary_line(rows);
    if (!read.skipped.empty()) summary += ", " + io::counted(static_cast<long>(read.skipped.size()), "row") + " skipped";
    CheckResult out{check_to_csv(rows), summary, {}, read.warnings, {}};
    for (const auto& sk : read.skipped) out.skipped.push_back(skipped_row(sk));
    return out;
}

std::string list_models_csv() {
    io::CsvWriter w({"name", "params_b", "layers", "hidden", "heads", "kv_heads", "ffn_hidden", "gated_mlp", "vocab",
                     "tied_embeddings", "causal", "head_dim", "qk_norm"});
    for (const auto& m : catalog::model_presets())
        w.add_row({m.name, io::format_fixed(total_params(m) / 1e9, 2), std::to_string(m.layers),
                   std::to_string(m.hidden), std::to_string(m.heads), std::to_string(m.kv_heads),
                   std::to_string(m.ffn_hidden), m.gated_mlp ? "1" : "0", std::to_string(m.vocab),
                   m.tied_embeddings ? "1" : "0", m.causal ? "1" : "0",
                   std::to_string(static_cast<long>(head_width(m))), m.qk_norm ? "1" : "0"});
    return w.text();
}

std::string list_gpus_csv(const catalog::GpuCatalog& c) {
    io::CsvWriter w({"name", "memory_gib", "tflops", "tflops_kind", "mem_bw_gb_s", "link_gb_s", "compute_capability",
                     "gpus_per_node", "price_per_hour", "currency", "quota", "nic_gb_s", "fp8", "fp32_tflops",
                     "inter_node_gb_s"});
    // Blank means unknown, as for prices and quotas: a catalog without a bandwidth holds 0.
    auto known = [](double v) { return v > 0 ? io::format_number(v) : std::string(); };
    for (const auto& g : c.gpus)
        w.add_row({g.name, io::format_number(g.memory_gib), io::format_number(g.tflops),
                   g.tflops_from_fp32 ? "fp32" : "tensor", known(g.mem_bw_gb_s), known(g.link_gb_s),
                   known(g.compute_capability), std::to_string(g.gpus_per_node),
                   g.price_per_hour < 0 ? "" : io::format_number(g.price_per_hour), c.currency,
                   g.quota < 0 ? "" : std::to_string(g.quota), known(g.nic_gb_s),
                   g.fp8 < 0 ? "" : std::to_string(g.fp8), known(g.fp32_tflops),
                   io::format_exact(c.inter_node_gb_s)});  // the catalog's network, on every row as the currency
    return w.text();
}

}  // namespace hetsched::model
