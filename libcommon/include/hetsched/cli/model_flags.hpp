#pragma once
/// The flags of the time and memory model that placestages and planalloc share (--efficiency,
/// --inter-node-gb-s, --measure, --schedule, --usable-fraction), registered once so they mean the same in both.
#include <CLI/CLI.hpp>
#include <string>

#include <hetsched/place/problem_builder.hpp>

namespace hetsched::cli {

struct ModelFlags {
    std::string measure = "device";
    double usable_fraction = 0.98;
    double efficiency = model::kDefaultEfficiency;
    double inter_node_gb_s = 0;  ///< 0: not given
    std::string schedule;  ///< empty: the job's framework's

    /// The flags as the library's typed options (the network is resolved later, per document), with
    /// which of them `app`'s command line gave.
    place::ProblemOptions problem(const CLI::App& app) const;
};

/// Registers the five flags in `group` (none: the default group); `schedule_default` is what --schedule's
/// help says it defaults to.
void add_model_flags(CLI::App& app, ModelFlags& f, const char* group = nullptr,
                     const std::string& schedule_default = "the job's framework's");

}  // namespace hetsched::cli
