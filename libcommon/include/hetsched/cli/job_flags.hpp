#pragma once
/// The flags that describe a job (model, training, layout), registered the same way in every tool
/// that builds or overrides a job document, so the same flag means the same thing everywhere.
#include <CLI/CLI.hpp>

#include <hetsched/model/job_options.hpp>

namespace hetsched::cli {

/// Registers the model and training flags, and the layout flags unless `layout` is false. Every
/// size is checked against model::limits, so nothing absurd reaches the library.
void add_job_options(CLI::App& app, model::JobOptions& o, bool layout = true);

/// --layers-per-stage N,N,...: every entry a layer count, none empty.
CLI::Option* add_layers_per_stage(CLI::App& app, std::vector<long>& split, const std::string& help);

}  // namespace hetsched::cli
