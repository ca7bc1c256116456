#pragma once
/// What a tool's options are, read off its CLI11 definitions, for the completion scripts that
/// scripts/gen-docs.sh writes: `tool --completion-spec` prints one line per option (a hidden flag
/// every tool has), so completions come from the same definitions the parser uses, not from --help.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace hetsched::cli {

/// What goes after an option, as a completion offers it. The tools declare it through the option's
/// type name: FILE, MODEL, GPU, GPUS (comma-separated, each once), STAGES (comma-separated GPU types
/// that may repeat: one a pipeline stage), CATALOG; an IsMember check gives `choice`.
enum class ValueKind { none, value, file, model, gpu, gpus, stages, catalog, choice };

struct OptionSpec {
    std::vector<std::string> names;  ///< "-o", "--output"; empty for the positional
    ValueKind kind = ValueKind::none;
    std::vector<std::string> choices;  ///< for `choice`; the built-in catalog names for `catalog`
    std::string description;
};

/// Every option of `app` that --help shows, and the positional input, in definition order.
std::vector<OptionSpec> option_specs(const CLI::App& app);

/// The name of the first option (or the positional input, "FILE") given an empty value, as an unset
/// shell variable gives it, either as a value CLI11 kept empty or as an argument "--NAME=" (which CLI11
/// reads as a flag given bare); empty when none is.
std::string empty_value_option(const CLI::App& app, int argc, const char* const* argv);

/// One line per option: KIND<TAB>NAMES (comma-separated)<TAB>CHOICES (comma-separated)<TAB>DESCRIPTION.
std::string format_option_specs(const std::vector<OptionSpec>& specs);

}  // namespace hetsched::cli
