#include <hetsched/fit/fitthroughput.hpp>

#include <hetsched/fit/cross_validation.hpp>
#include <hetsched/fit/model_document.hpp>
#include <hetsched/fit/prediction.hpp>
#include <hetsched/io/number_format.hpp>
#include <hetsched/io/text_input.hpp>

namespace hetsched::fit {
namespace {

std::vector<Sample> read_samples(const FitthroughputOptions& o) {
    std::vector<std::string> inputs = o.inputs;
    if (inputs.empty()) inputs.push_back("-");
    std::vector<Sample> all;
    for (const auto& path : inputs) {
        Profile p = read_profile(io::read_input(path), {o.app, o.gpu, true});
        all.insert(all.end(), p.samples.begin(), p.samples.end());
    }
    return all;
}

FitthroughputResult run_fit(const FitthroughputOptions& o) {
    const ModelKind kind = parse_model_kind(o.model);
    std::vector<ModelEntry> entries;
    double worst = 0;
    const FitOptions fo{!o.no_curves};
    const auto groups = group_samples(read_samples(o));
    const auto fits = fit_groups(kind, groups, fo);
    for (size_t i = 0; i < groups.size(); ++i) {
        const auto& group = groups[i];
        ModelEntry e{fits[i], std::nullopt};
        if (o.validate > 0) {
            e.validation = cross_validate(kind, group, o.validate, o.seed, fo);
            worst = std::max(worst, e.validation->held_out.mean_ape_pct);
        }
        entries.push_back(std::move(e));
    }
    FitthroughputResult r;
    r.text = o.format == "csv" ? write_quality_csv(kind, entries) : write_model_document(kind, entries);
    r.summary = "fitted " + model_name(kind) + " to " + std::to_string(entries.size()) + " app x GPU groups";
    if (o.validate > 0) r.summary += "; worst held-out mean APE " + io::format_fixed(worst, 2) + "%";
    return r;
}

std::vector<GroupFit> read_params(const FitthroughputOptions& o, const char* mode) {
    if (o.params.empty()) throw UsageError(std::string(mode) + " needs --params MODEL.yaml (the output of a fit)");
    return read_model_document(io::read_input(o.params));
}

}  // namespace

FitthroughputResult run_fitthroughput(const FitthroughputOptions& o) {
    const int modes = !o.predict.empty() + o.grid + o.tune + !o.sharing.empty();
    if (modes > 1) throw UsageError("--predict, --grid, --tune and --sharing are separate modes: give one");
    if (o.validate == 1) throw UsageError("--validate needs at least 2 folds");
    if (!o.predict.empty()) {
        const auto fits = read_params(o, "--predict");
        const Profile p = read_profile(io::read_input(o.predict), {o.app, o.gpu, false});
        return {predict_table(p, fits), "predicted " + std::to_string(p.samples.size()) + " rows"};
    }
    if (o.grid) {
        const auto fits = read_params(o, "--grid");
        return {throughput_grid(fits, {o.gpus, o.batches, o.gpus_per_node}), "grid for " + std::to_string(fits.size()) + " fits"};
    }
    return run_fit(o);
}

}  // namespace hetsched::fit
