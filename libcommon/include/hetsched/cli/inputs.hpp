#pragma once
/// The file side of the tools: what a path on the command line becomes before the library sees it.
/// The library itself takes text and values only, so that replay can run the same code in memory.
#include <optional>
#include <string>
#include <vector>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/cli/app.hpp>
#include <hetsched/io/text_input.hpp>
#include <hetsched/model/job_options.hpp>

namespace hetsched::cli {

/// A built-in catalog by name, or the catalog file at `name_or_path`.
catalog::GpuCatalog load_catalog(const std::string& name_or_path);

/// The job document's text, or nothing when the flags describe the job alone and no FILE is named
/// (a named "-" reads stdin, whose document the flags then amend).
std::optional<io::TextInput> job_input(const IoOptions& io, const model::JobOptions& o);

/// The file at `path` when one was given (non-empty), else nothing.
std::optional<io::TextInput> optional_input(const std::string& path);

/// UsageError when `paths` name standard input ("-") more than once, or one file twice (by any two
/// names): its rows would be read, and counted, twice. `what` names them in the stdin message.
void check_distinct_inputs(const std::vector<std::string>& paths, const std::string& what);

/// A file named on the command line with the flag that named it ("--trace", "FILE" for the operand).
struct NamedPath {
    std::string flag;
    std::string path;
};

/// UsageError when an output (a regular file already there) is one of the inputs, by any name: the
/// atomic rename would replace the input with the result, and the input would be gone. Empty paths
/// and "-" (stdout) pass; an input "-" is standard input's file (a redirect from the output's file).
void check_outputs_spare_inputs(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

}  // namespace hetsched::cli
