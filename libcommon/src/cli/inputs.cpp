#include <hetsched/cli/inputs.hpp>

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

}  // namespace hetsched::cli
