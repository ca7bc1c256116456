#pragma once
/// planalloc's work as a pure function: options in, the job document with its `allocation:` and
/// `search:` sections (or a CSV of the best plans) out. SLO mode searches the cheapest GPU mix that
/// meets a time SLO (Espresso); cluster mode best-fits the first of memest's ranked plans the
/// cluster's free GPUs satisfy (Frenzy HAS).
#include <optional>
#include <string>
#include <vector>

#include <hetsched/alloc/cost_search.hpp>
#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/io/text_input.hpp>
#include <hetsched/model/job_options.hpp>
#include <hetsched/place/problem_builder.hpp>

namespace hetsched::alloc {

/// The longest --time-limit-s, seconds (a week).
inline constexpr double kMaxTimeLimitS = 604800;

struct PlanallocOptions {
    model::JobOptions job;
    SearchMethod method = SearchMethod::espresso;
    place::Method placer = place::Method::cmr;
    double slo_s = 0;                  ///< 0: the document's training.slo_s, else none
    std::vector<std::string> quotas;   ///< TYPE=N or all=N
    std::vector<std::string> prices;   ///< TYPE=PRICE per GPU-hour
    std::string types;                 ///< comma-separated; empty: every type with a price and quota
    size_t top = 1;
    double beta = 0;
    long search_limit = 50000000;
    double time_limit_s = 0;           ///< stop the search with its best plan after this long; 0 = none
    int threads = 0;                   ///< threads placing plans; 0 = one per core (same plans for any count)
    place::ProblemOptions model;       ///< measure, usable fraction and efficiency (the network is resolved)
    double inter_node_gb_s = 0;        ///< 0: the document's network, else the catalog's
    bool exact_type = false;           ///< cluster mode: only GPUs of the plan's own type
    bool csv = false;                  ///< a table of the best plans instead of the job document
    ProgressFn progress;               ///< called as the search goes (may be empty)
};

struct PlanallocResult {
    bool feasible = true; ///< false: no plan meets the SLO; `text` holds the fastest found (exit 1)
    std::string message;  ///< for stderr when not feasible
    std::string text;     ///< the output
    std::string summary;  ///< one line for stderr with -v
    std::string note;     ///< for stderr unless quiet, when not empty: the search stopped short of a proof
};

/// Plans the job in `job_text` (none: the flags describe it alone) over `catalog`: cluster mode when
/// `cluster` (a cluster file's text) is given or the document has a `cluster:` section, SLO mode
/// otherwise. When no plan meets the SLO the result is not `feasible`: its text holds the fastest plan
/// a bounded search found and its message says so. Infeasible (exit 1) when no plan holds the model or
/// no plan fits the cluster (the message says what is missing); UsageError when SLO-search options are
/// given in cluster mode, where they would mean nothing.
PlanallocResult run_planalloc(const std::optional<io::TextInput>& job_text, const catalog::GpuCatalog& catalog,
                              const std::optional<io::TextInput>& cluster, const PlanallocOptions& o);

}  // namespace hetsched::alloc
