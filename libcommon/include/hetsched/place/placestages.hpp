#pragma once
/// placestages' work as a pure function: the job's text (or flags), a catalog, an optional layer
/// profile and typed options in; the job document with its `placement:` (or a CSV stage table) and the
/// schedule's timeline out. The binary reads the files and wires the flags.
#include <optional>
#include <string>
#include <vector>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/io/text_input.hpp>
#include <hetsched/model/job_options.hpp>
#include <hetsched/place/methods.hpp>
#include <hetsched/place/problem_builder.hpp>

namespace hetsched::place {

struct PlacestagesOptions {
    model::JobOptions job;
    Method method = Method::cmr;
    bool method_given = false;       ///< --method named: else the allocation's placer, where it says
    bool keep_order = false;
    bool timeline = false;           ///< also return the simulated schedule as CSV
    bool csv = false;                ///< a stage table instead of the job document
    ProblemOptions model;            ///< measure, usable fraction and efficiency (the network is resolved)
    double inter_node_gb_s = 0;      ///< 0: the document's network, else the catalog's
    int dp = 0;                      ///< 0: the document's allocation
    std::string stages;              ///< comma-separated GPU types; empty: the document's allocation
    long search_limit = 20000000;
};

struct PlacestagesResult {
    std::string text;      ///< the output
    std::string timeline;  ///< the timeline CSV (empty unless asked for)
    std::string summary;   ///< a line for stderr under --verbose: the time and the stage that paces it
    std::string note;      ///< a line for stderr unless --quiet: what the run assumed or replaced (else empty)
    std::vector<std::string> warnings;  ///< input not read or read in doubt: stderr even under --quiet
};

/// Places the stages of the job in `job_text` (none: the flags describe it alone) with measured layer
/// times from `profile` when given; Infeasible (exit 1) when the allocation cannot hold the model.
PlacestagesResult run_placestages(const std::optional<io::TextInput>& job_text, const catalog::GpuCatalog& catalog,
                                  const std::optional<io::TextInput>& profile, const PlacestagesOptions& o);

}  // namespace hetsched::place
