#include <hetsched/cli/app.hpp>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/cli/option_spec.hpp>
#include <hetsched/io/names.hpp>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <new>
#include <regex>
#include <sstream>

#ifndef HETSCHED_VERSION
#define HETSCHED_VERSION "0.0.0"
#endif

namespace hetsched::cli {
namespace {

std::string lower_first(std::string s) {
    if (!s.empty() && s[0] >= 'A' && s[0] <= 'Z' && !(s.size() > 1 && s[1] >= 'A' && s[1] <= 'Z'))
        s[0] = static_cast<char>(s[0] - 'A' + 'a');
    while (!s.empty() && (s.back() == '.' || s.back() == '\n')) s.pop_back();
    return s;
}

/// CLI11's messages in the tools' voice: lower case, what was expected, then what came.
std::string tidy_parse_error(const std::string& what) {
    static const std::regex at_most(R"(^(-[-\w]+): At Most \d+ required but received \d+$)");
    static const std::regex missing(R"(^(-[-\w]+): \d+ required .* missing$)");
    static const std::regex not_in(R"(^(-[-\w]+): (.*) not in \{(.*)\}$)");
    std::smatch m;
    if (std::regex_match(what, m, at_most)) return m[1].str() + ": given more than once";
    if (std::regex_match(what, m, missing)) return m[1].str() + ": expected a value after it";
    if (std::regex_match(what, m, not_in)) {
        std::vector<std::string> choices;
        std::stringstream list(m[3].str());
        for (std::string c; std::getline(list, c, ',');) choices.push_back(c);
        return m[1].str() + ": expected one of " + std::regex_replace(m[3].str(), std::regex(","), ", ") + ", got '" +
               m[2].str() + "'" + io::did_you_mean(m[2].str(), choices);
    }
    return lower_first(what);
}

/// CLI11 pads an option's name to the help's column and starts its description after it, one space
/// after a name one short of the column: help2man then reads the description as part of the name.
/// Such a name takes a trailing space, and its description the next line, as a longer name's does.
class HelpFormatter : public CLI::Formatter {
public:
    std::string make_option_opts(const CLI::Option* opt) const override {
        std::string opts = CLI::Formatter::make_option_opts(opt);
        const size_t shown = 2 + make_option_name(opt, !opt->nonpositional()).size() + opts.size();
        if (shown + 1 == get_column_width()) opts += ' ';
        return opts;
    }
};

}  // namespace

std::unique_ptr<CLI::App> make_app(const ToolInfo& info, Verbosity& verbosity) {
    auto app = std::make_unique<CLI::App>(info.description, info.name);
    app->set_version_flag("-V,--version", info.name + " (hetsched) " HETSCHED_VERSION);
    CLI::Option* quiet = app->add_flag("-q,--quiet", verbosity.quiet, "No progress, notes or summary on stderr (warnings and errors still print)");
    // Both at once asked for a summary and for none: refused rather than one silently winning.
    app->add_flag("-v,--verbose", verbosity.verbose, "A summary of the result on stderr")->excludes(quiet);
    if (!info.footer.empty()) app->footer(info.footer);
    app->formatter(std::make_shared<HelpFormatter>());
    app->get_formatter()->column_width(34);
    // Hidden (no group): what scripts/gen-docs.sh builds the completions from.
    app->add_flag("--completion-spec", "Print the options for the completion generator and exit")->group("");
    return app;
}

void add_io_options(CLI::App& app, IoOptions& io) {
    app.add_option("FILE", io.input, "Input file; - reads standard input")
        ->capture_default_str()
        ->each([&io](const std::string&) { io.input_given = true; });
    app.add_option("-o,--output", io.output, "Write the result to FILE atomically instead of stdout")->type_name("FILE");
}

void refuse_unread(const CLI::App& app, const std::vector<std::string>& read, const std::string& mode) {
    for (const CLI::Option* o : app.get_options()) {
        if (o->count() == 0) continue;
        const std::string name = o->get_positional() && o->get_lnames().empty() ? "FILE" : o->get_name();
        if (name == "--quiet" || name == "--verbose" || name == "--output") continue;
        if (std::find(read.begin(), read.end(), name) == read.end())
            throw UsageError(mode + " does not read " + name + ": drop it");
    }
}

int run_tool(CLI::App& app, int argc, char** argv, const std::function<Exit()>& body) {
    const std::string tool = app.get_name();
    // A tool builds one tree of small YAML nodes and frees it whole. With glibc's fast bins, that free
    // spent its time consolidating them: 0.55 s for memest's 46,245 plans, against 0.17 s without.
#if defined(__GLIBC__)
    mallopt(M_MXFAST, 0);
#endif
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help() << std::flush;
        return std::cout ? 0 : static_cast<int>(Exit::io);
    } catch (const CLI::CallForAllHelp&) {
        std::cout << app.help("", CLI::AppFormatMode::All) << std::flush;
        return 0;
    } catch (const CLI::CallForVersion&) {
        std::cout << app.version() << '\n' << std::flush;
        return 0;
    } catch (const CLI::ParseError& e) {
        std::cerr << tool << ": " << escape_control(tidy_parse_error(e.what())) << "\n"
                  << tool << ": try '" << tool << " --help'\n";
        return static_cast<int>(Exit::usage);
    }
    // An empty value is never one the user meant, but an unset variable in a crontab: --actions
    // "$ACTIONS" would write nowhere and --gpu "$GPU" check no GPU, each with exit 0.
    if (const std::string name = empty_value_option(app, argc, argv); !name.empty()) {
        std::cerr << tool << ": " << name << " is given an empty value (an unset variable?)\n"
                  << tool << ": try '" << tool << " --help'\n";
        return static_cast<int>(Exit::usage);
    }
    if (app.get_option("--completion-spec")->count() > 0) {
        std::cout << format_option_specs(option_specs(app)) << std::flush;
        return 0;
    }
    Exit code = Exit::internal;
    try {
        code = body();
    } catch (const Error& e) {
        std::cerr << tool << ": " << describe(e) << '\n';
        return static_cast<int>(e.code());
    } catch (const std::bad_alloc&) {
        std::cerr << tool << ": out of memory\n";
        return static_cast<int>(Exit::internal);
    } catch (const std::exception& e) {
        std::cerr << tool << ": internal error: " << escape_control(e.what()) << '\n';
        return static_cast<int>(Exit::internal);
    }
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0) {
        std::cerr << tool << ": error writing standard output: " << std::strerror(errno) << '\n';
        return static_cast<int>(Exit::io);
    }
    return static_cast<int>(code);
}

}  // namespace hetsched::cli
