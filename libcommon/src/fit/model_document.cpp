#include <hetsched/fit/model_document.hpp>

#include <cmath>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/fit/limits.hpp>
#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/number_range.hpp>
#include <hetsched/io/yaml_document.hpp>

namespace hetsched::fit {
namespace {

std::string num(double v) { return io::format_number(v, 6); }

YAML::Node flow_list(const std::vector<double>& v) {
    YAML::Node n(YAML::NodeType::Sequence);
    n.SetStyle(YAML::EmitterStyle::Flow);
    for (double x : v) n.push_back(num(x));
    return n;
}

/// A score rounded to `decimals` places and, like every output number, to at most 6 significant digits
/// (a wild fit's APE can run to millions of percent).
std::string figure(double v, int decimals) { return io::format_number(std::stod(io::format_fixed(v, decimals)), 6); }

YAML::Node quality_node(const FitQuality& q) {
    YAML::Node n(YAML::NodeType::Map);
    n.SetStyle(YAML::EmitterStyle::Flow);
    n["samples"] = q.samples;
    n["r2"] = figure(q.r2, 4);
    n["mean_ape_pct"] = figure(q.mean_ape_pct, 2);
    n["max_ape_pct"] = figure(q.max_ape_pct, 2);
    return n;
}

YAML::Node curve_node(const FactorCurve& c, const char* axis) {
    YAML::Node n(YAML::NodeType::Map);
    n[axis] = flow_list(c.x);
    n["factor"] = flow_list(c.factor);
    return n;
}

/// A number of the document within [lo, hi] (or (0, hi] with `open_lo`); DataError at the node naming
/// it. Values are written with 6 significant digits, so one at a bound may have rounded past it by
/// `slack` (relative) and is taken as the bound.
double ranged(const io::YamlDocument& doc, const YAML::Node& n, const std::string& what, double lo, double hi,
              bool open_lo, double slack = 1e-5) {
    const std::optional<double> v = n.IsScalar() ? io::parse_finite(n.Scalar()) : std::nullopt;
    if (!v || (open_lo ? *v <= lo : *v < lo - slack * std::fabs(lo)) || *v > hi + slack * std::fabs(hi))
        throw DataError((open_lo ? io::expected_positive(hi) : io::expected_number(lo, hi)) + " for '" + what +
                            "', got '" + io::shown_value(n.IsScalar() ? n.Scalar() : "a collection") + "'",
                        doc.where(n));
    return std::min(std::max(*v, lo), hi);
}

/// A whole number of the document within [lo, hi].
int ranged_count(const io::YamlDocument& doc, const YAML::Node& n, const std::string& what, long lo, long hi) {
    return static_cast<int>(io::yaml_integer(doc, n, what, lo, hi));
}

FactorCurve read_curve(const io::YamlDocument& doc, const YAML::Node& n, const char* axis) {
    FactorCurve c;
    if (!n) return c;
    const YAML::Node xs = io::required_child(doc, n, axis), fs = io::required_child(doc, n, "factor");
    if (!xs.IsSequence() || !fs.IsSequence() || xs.size() != fs.size() || xs.size() == 0)
        throw DataError(std::string("expected lists '") + axis + "' and 'factor' of the same, non-zero length",
                        doc.where(n));
    for (size_t i = 0; i < xs.size(); ++i) {
        const bool nodes = std::string(axis) == "nodes";
        const double x = nodes ? ranged_count(doc, xs[i], axis, 1, limits::max_gpus)
                               : ranged(doc, xs[i], axis, 0, limits::max_batch, true);
        const double f = ranged(doc, fs[i], "factor", limits::min_factor, limits::max_factor, false);
        if (!c.x.empty() && x <= c.x.back())
            throw DataError(std::string("a curve's '") + axis + "' points must increase", doc.where(xs[i]));
        c.x.push_back(x);
        c.factor.push_back(f);
    }
    return c;
}

}  // namespace

std::string write_model_document(ModelKind kind, const std::vector<ModelEntry>& entries) {
    YAML::Node root(YAML::NodeType::Map);
    root["kind"] = "throughput-model";
    root["version"] = 1;
    root["model"] = model_name(kind);
    YAML::Node fits(YAML::NodeType::Sequence);
    for (const auto& e : entries) {
        const GroupFit& g = e.fit;
        YAML::Node n(YAML::NodeType::Map);
        n["app"] = g.app;
        n["gpu"] = g.gpu;
        YAML::Node params(YAML::NodeType::Map), pinned(YAML::NodeType::Map);
        const auto& info = param_info(kind);
        for (size_t i = 0; i < info.size(); ++i) {
            params[info[i].name] = num(g.params[i]);
            if (!g.pinned[i].empty()) pinned[info[i].name] = g.pinned[i];
        }
        n["params"] = params;
        if (pinned.size() > 0) n["pinned"] = pinned;
        if (!g.curves.compute_by_batch.empty()) n["compute_by_batch"] = curve_node(g.curves.compute_by_batch, "batch");
        if (!g.curves.network_by_nodes.empty()) n["network_by_nodes"] = curve_node(g.curves.network_by_nodes, "nodes");
        YAML::Node range(YAML::NodeType::Map);
        range.SetStyle(YAML::EmitterStyle::Flow);
        range["per_gpu_batch"] = flow_list({g.range.min_batch, g.range.max_batch});
        range["max_gpus"] = g.range.max_gpus;
        range["max_nodes"] = g.range.max_nodes;
        range["max_gpus_per_node"] = g.range.max_per_node;
        if (g.range.max_stages > 1) range["max_stages"] = g.range.max_stages;
        if (g.range.total_layers > 0) range["total_layers"] = g.range.total_layers;
        n["range"] = range;
        n["fit"] = quality_node(g.quality);
        if (e.validation) {
            // Every fold failing leaves nothing scored: no figures, rather than zeros that read as perfect.
            YAML::Node v = quality_node(e.validation->held_out);
            if (e.validation->held_out.samples == 0) {
                v.remove("r2");
                v.remove("mean_ape_pct");
                v.remove("max_ape_pct");
            }
            v["folds"] = e.validation->folds;
            if (e.validation->failed_folds > 0) v["failed_folds"] = e.validation->failed_folds;
            n["validation"] = v;
        }
        fits.push_back(n);
    }
    root["fits"] = fits;
    return io::emit_yaml(root);
}

std::vector<GroupFit> read_model_document(const io::TextInput& in) {
    const io::YamlDocument doc = io::parse_yaml(in);
    io::require_kind(doc, "throughput-model");
    const YAML::Node model = io::required_child(doc, doc.root, "model");
    ModelKind kind;
    try {
        kind = parse_model_kind(io::yaml_string(doc, model, "model"));
    } catch (const UsageError& e) {
        throw DataError(e.what(), doc.where(model));
    }
    const YAML::Node fits = io::required_child(doc, doc.root, "fits");
    if (!fits.IsSequence() || fits.size() == 0)
        throw DataError("expected 'fits' to be a non-empty list", doc.where(fits));
    const auto& info = param_info(kind);
    std::vector<GroupFit> out;
    for (const auto& f : fits) {
        GroupFit g;
        g.kind = kind;
        g.app = io::yaml_string(doc, io::required_child(doc, f, "app"), "app");
        const YAML::Node gpu = io::required_child(doc, f, "gpu");
        g.gpu = io::yaml_string(doc, gpu, "gpu");
        for (const auto& seen : out)
            if (seen.app == g.app && io::same_name(seen.gpu, g.gpu))
                throw DataError("a second fit for " + g.app + " on " + g.gpu + ": a model document has one per app and GPU type",
                                doc.where(gpu));
        const YAML::Node params = io::required_child(doc, f, "params");
        if (!params.IsMap()) throw DataError("expected 'params' to be a mapping", doc.where(params));
        for (const auto& kv : params) {
            const std::string name = io::yaml_string(doc, kv.first, "parameter name");
            if (param_index(kind, name) < 0)
                throw DataError("unknown parameter '" + name + "' for model " + model_name(kind), doc.where(kv.first));
        }
        for (const auto& p : info) {
            // Every key there is a parameter (checked above): none stands for the missing one.
            const YAML::Node v = io::optional_child(doc, params, p.name);
            if (!v.IsDefined())
                throw DataError("missing parameter '" + p.name + "' of model " + model_name(kind), doc.where(params));
            g.params.push_back(ranged(doc, v, p.name, p.lower, p.upper, false, 1e-9));
            g.pinned.emplace_back();
        }
        g.curves.compute_by_batch = read_curve(doc, io::optional_child(doc, f, "compute_by_batch"), "batch");
        g.curves.network_by_nodes = read_curve(doc, io::optional_child(doc, f, "network_by_nodes"), "nodes");
        const YAML::Node range = io::optional_child(doc, f, "range");
        if (range) {
            const YAML::Node b = io::optional_child(doc, range, "per_gpu_batch");
            if (b && (!b.IsSequence() || b.size() != 2))
                throw DataError("expected 'per_gpu_batch' to be a list [min, max]", doc.where(b));
            if (b) {
                g.range.min_batch = ranged(doc, b[0], "per_gpu_batch", 0, limits::max_batch, true);
                g.range.max_batch = ranged(doc, b[1], "per_gpu_batch", 0, limits::max_batch, true);
                if (g.range.max_batch < g.range.min_batch)
                    throw DataError("per_gpu_batch [min, max] has max below min", doc.where(b));
            }
            const auto count = [&](const char* key, int& into, long hi) {
                const YAML::Node v = io::optional_child(doc, range, key);
                if (v) into = ranged_count(doc, v, key, 1, hi);
            };
            count("max_gpus", g.range.max_gpus, limits::max_gpus);
            count("max_nodes", g.range.max_nodes, limits::max_gpus);
            count("max_gpus_per_node", g.range.max_per_node, limits::max_gpus);
            count("max_stages", g.range.max_stages, limits::max_layers);
            count("total_layers", g.range.total_layers, limits::max_layers);
            // The range is what the profile held: its runs' largest counts, which bound one another.
            const auto given = [&](const char* key) { return io::optional_child(doc, range, key).IsDefined(); };
            const auto refuse = [&](const char* key, const std::string& why) {
                throw DataError(std::string(key) + " " + why, doc.where(io::optional_child(doc, range, key)));
            };
            if (given("max_gpus") && given("max_gpus_per_node") && g.range.max_per_node > g.range.max_gpus)
                refuse("max_gpus_per_node", std::to_string(g.range.max_per_node) + " is more than max_gpus " + std::to_string(g.range.max_gpus));
            if (given("max_gpus") && given("max_nodes") && g.range.max_nodes > g.range.max_gpus)
                refuse("max_nodes", std::to_string(g.range.max_nodes) + " is more than max_gpus " + std::to_string(g.range.max_gpus));
            if (given("max_gpus") && given("max_nodes") && given("max_gpus_per_node") &&
                static_cast<long>(g.range.max_nodes) * g.range.max_per_node < g.range.max_gpus)
                refuse("max_gpus", std::to_string(g.range.max_gpus) + " is more than max_nodes x max_gpus_per_node (" +
                                       std::to_string(g.range.max_nodes) + " x " + std::to_string(g.range.max_per_node) + ")");
            if (given("max_stages") && given("total_layers") && g.range.max_stages > g.range.total_layers)
                refuse("max_stages", std::to_string(g.range.max_stages) + " is more than total_layers " + std::to_string(g.range.total_layers));
        }
        out.push_back(std::move(g));
    }
    return out;
}

const GroupFit& find_fit(const std::vector<GroupFit>& fits, const std::string& app, const std::string& gpu,
                         const SourcePos& where) {
    std::string have;
    for (const auto& f : fits) {
        if (f.app == app && io::same_name(f.gpu, gpu)) return f;
        have += (have.empty() ? "" : ", ") + f.app + " on " + f.gpu;
    }
    throw DataError("no fitted model for " + app + " on " + gpu + "; the model document has " + have, where);
}

std::string write_quality_csv(ModelKind kind, const std::vector<ModelEntry>& entries) {
    io::CsvWriter w({"app", "gpu", "model", "samples", "r2", "mean_ape_pct", "max_ape_pct", "heldout_r2",
                     "heldout_mean_ape_pct", "heldout_max_ape_pct"});
    for (const auto& e : entries) {
        const FitQuality& q = e.fit.quality;
        std::vector<std::string> row = {e.fit.app, e.fit.gpu, model_name(kind), std::to_string(q.samples),
                                        figure(q.r2, 4), figure(q.mean_ape_pct, 2), figure(q.max_ape_pct, 2),
                                        "", "", ""};
        if (e.validation && e.validation->held_out.samples > 0) {
            const FitQuality& h = e.validation->held_out;
            row[7] = figure(h.r2, 4);
            row[8] = figure(h.mean_ape_pct, 2);
            row[9] = figure(h.max_ape_pct, 2);
        }
        w.add_row(row);
    }
    return w.text();
}

}  // namespace hetsched::fit
