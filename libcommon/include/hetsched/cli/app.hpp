#pragma once
/// The shared shape of every tool: one CLI11 app with --help/--version/-q/-v, input/output options,
/// and run_tool(), the only place where exceptions become messages and exit codes.
#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <hetsched/cli/error.hpp>
#include <hetsched/cli/validators.hpp>

namespace hetsched::cli {

/// What a tool says about itself in --help and --version.
struct ToolInfo {
    std::string name;
    std::string description;
    std::string footer;  ///< extra help text (formats, exit status pointer)
};

/// Input file (`-` = stdin) and output file (empty or `-` = stdout, else written atomically).
struct IoOptions {
    std::string input = "-";
    bool input_given = false;  ///< FILE named on the command line, "-" included
    std::string output;
};

/// How chatty a tool is on stderr.
struct Verbosity {
    bool quiet = false;
    int verbose = 0;
};

/// An app with the common flags already added; `verbosity` receives -q/-v.
std::unique_ptr<CLI::App> make_app(const ToolInfo& info, Verbosity& verbosity);

/// Adds the positional [FILE] and `-o FILE` options every filter has.
void add_io_options(CLI::App& app, IoOptions& io);

/// UsageError naming the first option given on the command line that `mode` does not read: those
/// in `read` and -q, -v, -o are read; FILE counts as an option.
void refuse_unread(const CLI::App& app, const std::vector<std::string>& read, const std::string& mode);

/// Parses argv, runs `body`, maps errors to `tool: message` on stderr and exit codes, and checks that
/// stdout was written without error. Returns the process exit status.
int run_tool(CLI::App& app, int argc, char** argv, const std::function<Exit()>& body);

}  // namespace hetsched::cli
