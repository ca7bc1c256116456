#pragma once
/// --catalog, --list-models and --list-gpus, shared by every tool that takes --model or --catalog, so
/// that the names an error message suggests can always be listed from the same tool.
#include <string>

#include <CLI/CLI.hpp>

namespace hetsched::cli {

struct ListFlags {
    bool models = false;
    bool gpus = false;
};

/// Registers --catalog (a built-in name or a YAML/CSV file) into `catalog`.
CLI::Option* add_catalog_option(CLI::App& app, std::string& catalog);

/// Registers --list-gpus, and --list-models unless `models` is false (a tool without presets).
void add_list_flags(CLI::App& app, ListFlags& flags, bool models = true);

/// When a list was asked for, writes it as CSV to `output` ("-" or empty: stdout) and returns true;
/// --list-gpus lists the catalog `catalog` names (a built-in name or a file). UsageError for both
/// lists at once, or any other option of `app` but --catalog (with --list-gpus), -o, -q and -v.
bool write_list(const CLI::App& app, const ListFlags& flags, const std::string& catalog, const std::string& output);

}  // namespace hetsched::cli
