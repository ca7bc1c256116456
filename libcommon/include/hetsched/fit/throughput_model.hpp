#pragma once
/// Step-time models: Pollux's (compute linear in the batch, network by link kind and replica count,
/// combined by a gamma-norm) and ICEFROG's layer-aware forms for data parallelism (Eq. 5-7), sharded
/// data parallelism (Eq. 9-10), pipelines (Eq. 11-12) and hybrid pipelines (Eq. 13). A model is a kind
/// and a vector of named parameters; predict() evaluates it on one configuration.
#include <string>
#include <vector>

#include <hetsched/fit/profile.hpp>

namespace hetsched::fit {

enum class ModelKind { pollux, icefrog_ddp, icefrog_sdp, icefrog_pp, icefrog_hp };

/// "pollux", "icefrog-ddp", ...
std::string model_name(ModelKind k);
/// The kind named `name`; UsageError listing the kinds otherwise.
ModelKind parse_model_kind(const std::string& name);
/// Every kind, in the order above.
const std::vector<ModelKind>& all_model_kinds();

/// How a parameter is searched: scale parameters on a log axis (they span decades), shape parameters
/// linearly.
enum class Axis { log, linear };

struct ParamInfo {
    std::string name;
    double lower;
    double upper;
    double neutral;  ///< the value that switches the term off (or the paper's default) when pinned
    Axis axis;
    std::string meaning;
};

/// The parameters of a kind, in a fixed order.
const std::vector<ParamInfo>& param_info(ModelKind k);
/// The index of parameter `name` in param_info(k), or -1.
int param_index(ModelKind k, const std::string& name);

/// A step-time prediction and its parts (seconds).
struct StepParts {
    double step = 0;
    double compute = 0;  ///< forward + backward (Pollux: T_accum)
    double network = 0;  ///< gradient synchronisation (all-reduce)
};

/// Scales on the model's compute and network terms (factor curves' values at a configuration).
struct Factors {
    double compute = 1;
    double network = 1;
};

/// Whether `k`'s form covers configuration `s`: Pollux's and ICEFROG's DDP and SDP forms have no
/// pipeline (one stage a replica), ICEFROG's PP form no data parallelism (one replica); HP has both.
bool can_price(ModelKind k, const Sample& s);

/// DataError at `s`'s row unless can_price(k, s), naming the kinds that can: a form fitted or used
/// outside itself would read a pipeline's stages as replicas (or the reverse) without a word.
void require_priceable(ModelKind k, const Sample& s);

/// The model's step time for configuration `s` (its measured times are ignored).
StepParts predict(ModelKind k, const std::vector<double>& params, const Sample& s, Factors f = {});

}  // namespace hetsched::fit
