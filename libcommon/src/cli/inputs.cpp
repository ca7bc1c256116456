#include <hetsched/cli/inputs.hpp>

#include <filesystem>
#include <system_error>

#include <hetsched/cli/error.hpp>

namespace hetsched::cli {

catalog::GpuCatalog load_catalog(const std::string& name_or_path) {
    if (!catalog::is_catalog_file(name_or_path)) return catalog::named_catalog(name_or_path);
    return catalog::parse_catalog(io::read_input(name_or_path));
}

std::optional<io::TextInput> job_input(const IoOptions& io, const model::JobOptions& o) {
    if (model::flags_describe_job(o) && !io.input_given) return std::nullopt;
    return io::read_input(io.input);
}

std::optional<io::TextInput> optional_input(const std::string& path) {
    if (path.empty()) return std::nullopt;
    return io::read_input(path);
}

void check_distinct_inputs(const std::vector<std::string>& paths, const std::string& what) {
    for (size_t i = 0; i < paths.size(); ++i)
        for (size_t j = i + 1; j < paths.size(); ++j) {
            if (paths[i] == "-" && paths[j] == "-")
                throw UsageError("standard input can be read once: two " + what + " name '-'");
            std::error_code ec;  // a path that does not exist is reported when it is read
            if (paths[i] != "-" && paths[j] != "-" && std::filesystem::equivalent(paths[i], paths[j], ec))
                throw UsageError(paths[i] + " and " + paths[j] + " are one file: its rows would be read, and counted, twice");
        }
}

}  // namespace hetsched::cli
