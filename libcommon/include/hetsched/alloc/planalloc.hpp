#pragma once
/// planalloc's work as a pure function: options in, the job document with its `allocation:` and
/// `search:` sections (or a CSV of the best plans) out. SLO mode searches the cheapest GPU mix that
/// meets a time SLO (Espresso); cluster mode best-fits the first of memest's ranked plans the
/// cluster's free GPUs satisfy (Frenzy HAS).
#include <string>
#include <vector>

#include <hetsched/cli/app.hpp>
#include <hetsched/model/job_options.hpp>
#include <hetsched/model/step_time.hpp>

namespace hetsched::alloc {

struct PlanallocOptions {
    cli::IoOptions io;
    model::JobOptions job;
    std::string catalog = "default";
    std::string method = "espresso";
    std::string placer = "cmr";
    double slo_s = 0;                  ///< 0: the document's training.slo_s, else none
    std::vector<std::string> quotas;   ///< TYPE=N or all=N
    std::vector<std::string> prices;   ///< TYPE=PRICE per GPU-hour
    std::string types;                 ///< comma-separated; empty: every type with a price and quota
    size_t top = 1;
    double beta = 0;
    long search_limit = 50000000;
    std::string measure = "device";
    double usable_fraction = 0.98;
    double efficiency = model::kDefaultEfficiency;
    double inter_node_gb_s = 0;        ///< 0: the document's network, else the catalog's
    std::string cluster;               ///< cluster file; or the document's `cluster:` section
    bool exact_type = false;           ///< cluster mode: only GPUs of the plan's own type
    std::string format = "yaml";
    bool progress = false;
};

struct PlanallocResult {
    std::string text;     ///< the output
    std::string summary;  ///< one line for stderr with -v
};

/// Infeasible (exit 1) when no plan meets the SLO (the message gives the fastest plan) or no plan
/// fits the cluster (the message says what is missing).
PlanallocResult run_planalloc(const PlanallocOptions& o);

}  // namespace hetsched::alloc
