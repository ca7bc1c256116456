#pragma once
/// The fitted models as a YAML document (`kind: throughput-model`): per app x GPU type the parameters
/// (with the reason each pinned one was not fitted), the factor curves, the range of configurations
/// the samples covered, the fit quality and, with --validate, the held-out quality.
#include <optional>
#include <string>
#include <vector>

#include <hetsched/fit/cross_validation.hpp>
#include <hetsched/fit/fitter.hpp>
#include <hetsched/io/text_input.hpp>

namespace hetsched::fit {

struct ModelEntry {
    GroupFit fit;
    std::optional<Validation> validation;
};

std::string write_model_document(ModelKind kind, const std::vector<ModelEntry>& entries);

/// Reads a throughput-model document; DataError at the node for a wrong kind, an unknown model, a
/// missing or unknown parameter, or a value outside the parameter's bounds.
std::vector<GroupFit> read_model_document(const io::TextInput& in);

/// The fit for (app, gpu); DataError at `where` naming the pairs the document has otherwise.
const GroupFit& find_fit(const std::vector<GroupFit>& fits, const std::string& app, const std::string& gpu,
                         const SourcePos& where);

/// One row per fit: app, gpu, model, samples, r2, mean/max APE, and held-out figures when validated.
std::string write_quality_csv(ModelKind kind, const std::vector<ModelEntry>& entries);

}  // namespace hetsched::fit
