#pragma once
/// placestages' work as a pure function: options in, the job document with its `placement:` (or a CSV
/// stage table) and the schedule's timeline out. The binary only wires flags and streams to this.
#include <string>

#include <hetsched/cli/app.hpp>
#include <hetsched/model/job_options.hpp>
#include <hetsched/model/step_time.hpp>

namespace hetsched::place {

struct PlacestagesOptions {
    cli::IoOptions io;
    model::JobOptions job;
    std::string catalog = "default";
    std::string method = "cmr";
    bool keep_order = false;
    std::string timeline;            ///< write the schedule here as CSV when not empty
    std::string format = "yaml";
    std::string profile;             ///< measured per-layer times (CSV) instead of the compute model
    std::string measure = "device";
    double usable_fraction = 0.98;
    double efficiency = model::kDefaultEfficiency;
    double inter_node_gb_s = 0;      ///< 0: the document's network, else the catalog's
    int dp = 0;                      ///< 0: the document's allocation
    std::string stages;              ///< comma-separated GPU types; empty: the document's allocation
    long search_limit = 20000000;
};

struct PlacestagesResult {
    std::string text;      ///< the output
    std::string timeline;  ///< the timeline CSV (empty unless asked for)
};

/// Places the stages; Infeasible (exit 1) when the allocation cannot hold the model.
PlacestagesResult run_placestages(const PlacestagesOptions& o);

}  // namespace hetsched::place
