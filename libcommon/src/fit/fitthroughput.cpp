#include <hetsched/fit/fitthroughput.hpp>

#include <algorithm>
#include <cmath>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/fit/cross_validation.hpp>
#include <hetsched/fit/effective_progress.hpp>
#include <hetsched/fit/gpu_sharing.hpp>
#include <hetsched/fit/limits.hpp>
#include <hetsched/io/yaml_document.hpp>
#include <hetsched/fit/model_document.hpp>
#include <hetsched/io/comma_list.hpp>
#include <hetsched/fit/prediction.hpp>
#include <hetsched/io/number_format.hpp>

namespace hetsched::fit {
namespace {

constexpr double kRoughFitPct = 15;  ///< a fit's mean |error| on its own samples past which it is warned of

/// How profile `i` is read: the flags' app and GPU type, and the folder the tool found it in.
ProfileOptions profile_options(const FitthroughputInputs& in, const FitthroughputOptions& o, size_t i, bool times) {
    return {o.app, o.gpu, times, i < in.profile_folders.size() ? in.profile_folders[i] : ""};
}

/// The samples of every profile, a row that repeats an earlier one counted once (distinct_samples);
/// `repeats` gets the warning's text.
std::vector<Sample> read_samples(const FitthroughputInputs& in, const FitthroughputOptions& o, std::string& repeats) {
    if (in.profiles.empty()) throw UsageError("a fit needs at least one profile");
    std::vector<Sample> all;
    for (size_t i = 0; i < in.profiles.size(); ++i) {
        Profile p = read_profile(in.profiles[i], profile_options(in, o, i, true));
        all.insert(all.end(), p.samples.begin(), p.samples.end());
    }
    check_layer_counts(all);
    return distinct_samples(all, &repeats);
}

/// Why a fit misses its samples: a free scale parameter its samples pull past a bound of its range
/// (held there, and a tenth of the lower bound, or ten times the upper, fits them better: their scale
/// is beyond what the model allows), else their disagreement with the model's form. A parameter at
/// its bound that the samples do not pull (a term they do not need, at its "off" value) is no cause.
std::string rough_fit_cause(const GroupFit& f, const std::vector<Sample>& samples) {
    const auto& info = param_info(f.kind);
    const double now = measure_quality(f, samples).mean_ape_pct;
    std::vector<std::string> held;
    for (size_t i = 0; i < info.size() && i < f.params.size(); ++i) {
        if ((i < f.pinned.size() && !f.pinned[i].empty()) || info[i].axis != Axis::log) continue;
        const double v = f.params[i], lo = info[i].lower, hi = info[i].upper;
        const bool at_lo = v <= lo * (1 + 1e-6), at_hi = v >= hi * (1 - 1e-6);
        if (!at_lo && !at_hi) continue;
        GroupFit past = f;
        past.params[i] = at_lo ? lo / 10 : hi * 10;
        if (measure_quality(past, samples).mean_ape_pct < now * 0.99)
            held.push_back(info[i].name + " at its " + (at_lo ? "lower" : "upper") + " bound " +
                           io::format_number(at_lo ? lo : hi, 6));
    }
    if (held.empty()) return "the samples disagree with the model's form";
    return io::join(held) + " (the samples pull it past: their scale is beyond the range the model allows it)";
}

FitthroughputResult run_fit(const FitthroughputInputs& in, const FitthroughputOptions& o) {
    const ModelKind kind = parse_model_kind(o.model);
    std::vector<ModelEntry> entries;
    double worst = 0;
    size_t unscored = 0;  // groups whose every fold failed to fit
    const FitOptions fo{!o.no_curves};
    std::string repeats;
    const auto groups = group_samples(read_samples(in, o, repeats));
    const auto fits = fit_groups(kind, groups, fo);
    for (size_t i = 0; i < groups.size(); ++i) {
        const auto& group = groups[i];
        ModelEntry e{fits[i], std::nullopt};
        if (o.validate > 0) {
            e.validation = cross_validate(kind, group, o.validate, o.seed, fo);
            if (e.validation->held_out.samples == 0) ++unscored;
            else worst = std::max(worst, e.validation->held_out.mean_ape_pct);
        }
        entries.push_back(std::move(e));
    }
    FitthroughputResult r;
    r.text = o.csv ? write_quality_csv(kind, entries) : write_model_document(kind, entries);
    r.summary = "fitted " + model_name(kind) + " to " + std::to_string(entries.size()) + " app x GPU groups";
    if (o.validate > 0) r.summary += "; worst held-out mean APE " + io::format_fixed(worst, 2) + "%";
    if (!repeats.empty()) r.warnings.push_back(repeats);
    for (size_t i = 0; i < fits.size(); ++i) {
        const GroupFit& f = fits[i];
        if (!f.unsplit.empty()) r.warnings.push_back(f.unsplit);
        // A model that misses its own samples this far answers replay and schedround as roughly.
        if (f.quality.mean_ape_pct > kRoughFitPct)
            r.warnings.push_back(f.app + " on " + f.gpu + ": the fit misses its own samples by " +
                                 io::format_fixed(f.quality.mean_ape_pct, 1) + "% on average (r2 " +
                                 io::format_fixed(f.quality.r2, 2) + "): " + rough_fit_cause(f, groups[i]) +
                                 ", and its predictions are as rough");
    }
    // schedround and replay match a fit to a cluster's type by name: one the catalog lacks needs a
    // cluster or state that names it so (a slip such as V100 for V100-SXM2-16GB is found only there).
    const catalog::GpuCatalog cat = catalog::named_catalog("default");
    std::vector<std::string> unknown;
    for (const auto& f : fits)
        if (!cat.lookup(f.gpu) && std::find(unknown.begin(), unknown.end(), f.gpu) == unknown.end()) unknown.push_back(f.gpu);
    if (!unknown.empty())
        r.warnings.push_back("GPU type " + io::join(unknown) + (unknown.size() > 1 ? " are" : " is") +
                             " not in the default catalog (--list-gpus): schedround and replay use a fit only "
                             "for a type a cluster or state names so (letter case aside)");
    if (unscored > 0)
        r.warnings.push_back(std::to_string(unscored) + " of " + std::to_string(entries.size()) +
                             " app x GPU groups not validated: no training fold could identify the model (failed_folds)");
    return r;
}

std::vector<GroupFit> read_params(const FitthroughputInputs& in, const char* mode) {
    if (!in.params) throw UsageError(std::string(mode) + " needs --params MODEL.yaml (the output of a fit)");
    return read_model_document(*in.params);
}

std::string num(double v) { return io::format_number(v, 6); }

YAML::Node candidate_node(const TuneCandidate& c) {
    YAML::Node n(YAML::NodeType::Map);
    n.SetStyle(YAML::EmitterStyle::Flow);
    n["per_gpu_batch"] = num(c.per_gpu_batch);
    n["pipeline_stages"] = c.pipeline_stages;
    n["frozen_layers"] = c.frozen_layers;
    n["psi"] = num(c.psi);
    n["step_time_s"] = num(c.step_time_s);
    n["throughput"] = num(c.throughput);
    n["effective_progress"] = num(c.effective_progress);
    return n;
}

FitthroughputResult run_tune(const FitthroughputInputs& in, const FitthroughputOptions& o) {
    const auto fits = read_params(in, "--tune");
    if (!in.layer_stats) throw UsageError("--tune needs --layer-stats FILE (layer,grad_var[,...])");
    const GroupFit& f = find_fit(fits, o.app, o.gpu, {in.params->name, 0, 0});
    const LayerStats stats = read_layer_stats(*in.layer_stats);
    if (f.range.total_layers > 0 && static_cast<int>(stats.grad_var.size()) != f.range.total_layers)
        throw DataError("the layer statistics have " + std::to_string(stats.grad_var.size()) +
                            " layers, the model of " + f.app + " on " + f.gpu + " was fitted on " +
                            std::to_string(f.range.total_layers),
                        {in.layer_stats->name, 0, 0});
    const int gpus = o.gpus.front();
    const int per_node = gpus_per_node(f, o.gpus_per_node);
    const int nodes = o.nodes > 0 ? o.nodes : (gpus + per_node - 1) / per_node;
    if (nodes > gpus) throw UsageError("--nodes " + std::to_string(nodes) + " exceeds --gpus " + std::to_string(gpus));
    // A fixed global batch is split over each candidate's replicas (whole: see check_options); else
    // the per-replica batches given, or those the fit saw.
    const std::vector<double> batches = o.global_batch > 0 || !o.batches.empty() ? o.batches : default_batches(f);
    const auto cands = tune_layers(f, stats, gpus, nodes, batches, static_cast<double>(o.global_batch));
    YAML::Node root(YAML::NodeType::Map);
    root["kind"] = "layer-tuning";
    root["version"] = 1;
    root["app"] = f.app;
    root["gpu"] = f.gpu;
    root["gpus"] = gpus;
    root["nodes"] = nodes;
    root["layers"] = stats.grad_var.size();
    root["best"] = candidate_node(cands.front());
    YAML::Node top(YAML::NodeType::Sequence);
    for (size_t i = 0; i < cands.size() && i < static_cast<size_t>(o.top); ++i) top.push_back(candidate_node(cands[i]));
    root["candidates"] = top;
    return {io::emit_yaml(root), "best: batch " + num(cands.front().per_gpu_batch) + ", " +
                                     std::to_string(cands.front().frozen_layers) + " frozen layers", {}};
}

/// APP:BATCH[:FROZEN/TOTAL]
SharingJob parse_job(const std::string& text) {
    SharingJob j;
    const size_t a = text.find(':');
    const auto bad = [&] {
        return UsageError("--pair: expected APP:BATCH[:FROZEN/TOTAL] for each job (batch in (0, " +
                          io::format_number(limits::max_batch, 7) + "], 0 <= FROZEN < TOTAL <= " +
                          std::to_string(limits::max_layers) + "), got '" + escape_control(text) + "'");
    };
    if (a == std::string::npos || a == 0) throw bad();
    j.app = text.substr(0, a);
    const size_t b = text.find(':', a + 1);
    try {
        size_t used = 0;
        const std::string batch = text.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
        j.per_gpu_batch = std::stod(batch, &used);
        if (used != batch.size() || !std::isfinite(j.per_gpu_batch) || !(j.per_gpu_batch > 0) ||
            j.per_gpu_batch > limits::max_batch)
            throw bad();
        if (b != std::string::npos) {
            const std::string layers = text.substr(b + 1);
            const size_t slash = layers.find('/');
            if (slash == std::string::npos) throw bad();
            const std::string frozen = layers.substr(0, slash), total = layers.substr(slash + 1);
            size_t used_f = 0, used_t = 0;
            j.frozen_layers = std::stoi(frozen, &used_f);
            j.total_layers = std::stoi(total, &used_t);
            if (used_f != frozen.size() || used_t != total.size() || j.total_layers < 1 ||
                j.total_layers > limits::max_layers || j.frozen_layers < 0 || j.frozen_layers >= j.total_layers)
                throw bad();
        }
    } catch (const std::logic_error&) {
        throw bad();
    }
    return j;
}

YAML::Node linear_node(const LinearUsage& u) {
    YAML::Node n(YAML::NodeType::Map);
    n.SetStyle(YAML::EmitterStyle::Flow);
    n["intercept"] = num(u.coef[0]);
    n["per_gpu_batch"] = num(u.coef[1]);
    n["theta"] = num(u.coef[2]);
    n["r2"] = io::format_fixed(u.r2, 4);
    return n;
}

FitthroughputResult run_sharing(const FitthroughputInputs& in, const FitthroughputOptions& o) {
    if (!in.usage) throw UsageError("--sharing needs a usage profile");
    const auto models = fit_usage(read_usage(*in.usage));
    YAML::Node root(YAML::NodeType::Map);
    root["kind"] = "gpu-sharing";
    root["version"] = 1;
    root["memory_margin"] = num(kMemoryMargin);
    root["shared_slowdown"] = num(kSharedSlowdown);
    YAML::Node ms(YAML::NodeType::Sequence);
    for (const auto& m : models) {
        YAML::Node n(YAML::NodeType::Map);
        n["app"] = m.app;
        n["gpu"] = m.gpu;
        n["samples"] = m.samples;
        n["util_pct"] = linear_node(m.util);
        n["memory_gib"] = linear_node(m.memory);
        ms.push_back(n);
    }
    root["models"] = ms;
    std::string summary = "fitted " + std::to_string(models.size()) + " usage models";
    if (!o.pairs.empty()) {
        std::vector<SharingJob> jobs;
        for (const auto& p : o.pairs) jobs.push_back(parse_job(p));
        double capacity = o.capacity_gib;
        if (capacity <= 0) {
            const catalog::GpuCatalog cat = catalog::named_catalog("default");
            const catalog::GpuType* t = cat.lookup(o.gpu);
            if (!t) throw UsageError("GPU type '" + o.gpu + "' is not in the default catalog: give --capacity-gib");
            capacity = t->memory_gib;
        }
        const SharingVerdict v = judge_sharing(models, o.gpu, jobs, capacity);
        YAML::Node n(YAML::NodeType::Map);
        n["gpu"] = o.gpu;
        YAML::Node js(YAML::NodeType::Sequence);
        js.SetStyle(YAML::EmitterStyle::Flow);
        for (const auto& p : o.pairs) js.push_back(p);
        n["jobs"] = js;
        n["util_pct"] = io::format_fixed(v.util_pct, 1);
        n["memory_gib"] = io::format_fixed(v.memory_gib, 3);
        n["capacity_gib"] = num(v.capacity_gib);
        n["share"] = v.share;
        n["lambda"] = num(v.share ? kSharedSlowdown : 0.0);
        n["reason"] = v.reason;
        root["verdict"] = n;
        summary += v.share ? "; the jobs may share" : "; the jobs may not share";
        if (!v.beyond.empty())
            return {io::emit_yaml(root), summary,
                    {"usage extrapolated beyond the sharing profile's batches: " + io::join(v.beyond)}};
    }
    return {io::emit_yaml(root), summary, {}};
}

/// UsageError naming `flag` when `values` lists a value twice.
template <class T>
void refuse_repeats(const std::vector<T>& values, const char* flag) {
    for (size_t i = 0; i < values.size(); ++i)
        if (std::find(values.begin(), values.begin() + static_cast<long>(i), values[i]) != values.begin() + static_cast<long>(i))
            throw UsageError(std::string(flag) + " lists " + io::format_number(static_cast<double>(values[i]), 6) + " twice");
}

}  // namespace

Mode select_mode(bool predict, bool grid, bool tune, bool sharing) {
    if (predict + grid + tune + sharing > 1)
        throw UsageError("--predict, --grid, --tune and --sharing are separate modes: give one");
    return predict ? Mode::predict : grid ? Mode::grid : tune ? Mode::tune : sharing ? Mode::sharing : Mode::fit;
}

void check_options(const FitthroughputOptions& o, const GivenInputs& given) {
    if (o.validate == 1) throw UsageError("--validate needs at least 2 folds");
    const char* name[] = {"a fit", "--predict", "--grid", "--tune", "--sharing"};
    const char* mode = name[static_cast<int>(o.mode)];
    // The options only some modes read (the others: output, verbosity, lists, help).
    using M = Mode;
    static const std::vector<std::pair<std::string, std::vector<Mode>>> readers = {
        {"FILE", {M::fit}}, {"--model", {M::fit}}, {"--validate", {M::fit}}, {"--no-curves", {M::fit}},
        {"--seed", {M::fit}}, {"--format", {M::fit}}, {"--params", {M::predict, M::grid, M::tune}},
        {"--app", {M::fit, M::predict, M::tune}}, {"--gpu", {M::fit, M::predict, M::tune, M::sharing}},
        {"--gpus", {M::grid, M::tune}}, {"--batch", {M::grid, M::tune}}, {"--gpus-per-node", {M::grid, M::tune}},
        {"--layer-stats", {M::tune}}, {"--nodes", {M::tune}}, {"--global-batch", {M::tune}}, {"--top", {M::tune}},
        {"--pair", {M::sharing}}, {"--capacity-gib", {M::sharing}}};
    for (const auto& flag : given.flags)
        for (const auto& [reader, modes] : readers)
            if (flag == reader && std::find(modes.begin(), modes.end(), o.mode) == modes.end()) {
                std::string which;
                for (size_t i = 0; i < modes.size(); ++i)
                    which += std::string(i == 0 ? "" : i + 1 == modes.size() ? " or " : ", ") +
                             name[static_cast<int>(modes[i])];
                throw UsageError((flag == "FILE" ? std::string("a profile FILE") : flag) + " is read by " + which +
                                 ", not by " + mode);
            }
    // Options a mode reads only along with another: alone they would change nothing.
    const auto gave = [&](const char* flag) {
        return std::find(given.flags.begin(), given.flags.end(), flag) != given.flags.end();
    };
    if (o.mode == Mode::fit && gave("--seed") && o.validate == 0)
        throw UsageError("--seed is read by --validate only: it seeds the cross-validation shuffle");
    if (o.mode == Mode::fit && gave("--no-curves") && o.model == "pollux")
        throw UsageError("--no-curves is read by the ICEFROG models only: pollux has no factor curves");
    for (const auto& [flag, what] : {std::pair{"--gpu", "the GPU type the jobs would share"},
                                     {"--capacity-gib", "the GPU memory the jobs would share"}})
        if (o.mode == Mode::sharing && o.pairs.empty() && gave(flag))
            throw UsageError(std::string(flag) + " is read by --sharing only with --pair: " + what);
    if (o.mode == Mode::tune && o.nodes > 0 && gave("--gpus-per-node"))
        throw UsageError("--gpus-per-node is read by --tune only without --nodes: --nodes says how the GPUs are spread");
    if ((o.mode == Mode::predict || o.mode == Mode::grid || o.mode == Mode::tune) && !given.params)
        throw UsageError(std::string(mode) + " needs --params MODEL.yaml (the output of a fit)");
    if (o.mode == Mode::sharing && !o.pairs.empty()) {
        if (o.gpu.empty()) throw UsageError("--pair needs --gpu: the GPU type the jobs would share");
        if (o.pairs.size() < 2) throw UsageError("--pair needs at least two jobs, comma-separated");
    }
    // A count or batch listed twice would give duplicate rows.
    refuse_repeats(o.gpus, "--gpus");
    refuse_repeats(o.batches, "--batch");
    if (o.mode != Mode::tune) return;
    if (!given.layer_stats) throw UsageError("--tune needs --layer-stats FILE (layer,grad_var[,...])");
    if (o.app.empty() || o.gpu.empty()) throw UsageError("--tune needs --app and --gpu: which fitted model to use");
    if (o.gpus.size() != 1) throw UsageError("--tune needs --gpus N: the job's allocation");
    if (o.global_batch > 0) {
        if (!o.batches.empty()) throw UsageError("--global-batch fixes the per-GPU batch: give it or --batch, not both");
        const long gpus = o.gpus.front();
        // Every GPU takes the same whole number of samples, so the global batch splits evenly.
        if (o.global_batch < gpus)
            throw UsageError("--global-batch " + std::to_string(o.global_batch) + " is below --gpus " +
                             std::to_string(gpus) + ": every GPU needs at least one sample of the batch");
        if (o.global_batch % gpus != 0)
            throw UsageError("--global-batch " + std::to_string(o.global_batch) + " does not split evenly over --gpus " +
                             std::to_string(gpus) + ": give a multiple of " + std::to_string(gpus) +
                             " so that every GPU takes the same whole per-GPU batch");
        if (static_cast<double>(o.global_batch / gpus) > limits::max_batch)
            throw UsageError("--global-batch " + std::to_string(o.global_batch) + " over --gpus " +
                             std::to_string(gpus) + " gives a per-GPU batch above " +
                             io::format_number(limits::max_batch, 7));
    }
}

FitthroughputResult run_fitthroughput(const FitthroughputInputs& in, const FitthroughputOptions& o) {
    check_options(o, {in.params.has_value(), in.layer_stats.has_value(), {}});
    switch (o.mode) {
    case Mode::predict: {
        const auto fits = read_params(in, "--predict");
        if (in.profiles.size() != 1) throw UsageError("--predict reads one profile");
        const Profile p = read_profile(in.profiles.front(), profile_options(in, o, 0, false));
        std::string beyond;
        std::string text = predict_table(p, fits, &beyond);
        return {std::move(text), "predicted " + io::counted(static_cast<long>(p.samples.size()), "row"),
                beyond.empty() ? std::vector<std::string>{} : std::vector<std::string>{beyond}};
    }
    case Mode::tune: return run_tune(in, o);
    case Mode::sharing: return run_sharing(in, o);
    case Mode::grid: {
        const auto fits = read_params(in, "--grid");
        std::string left_out;
        std::string text = throughput_grid(fits, {o.gpus, o.batches, o.gpus_per_node}, &left_out);
        return {std::move(text), "grid for " + io::counted(static_cast<long>(fits.size()), "fit"),
                left_out.empty() ? std::vector<std::string>{} : std::vector<std::string>{left_out}};
    }
    case Mode::fit: break;
    }
    return run_fit(in, o);
}

}  // namespace hetsched::fit
