#include <hetsched/cli/option_spec.hpp>

#include <hetsched/catalog/gpu_catalog.hpp>

namespace hetsched::cli {
namespace {

const char* kind_name(ValueKind k) {
    switch (k) {
    case ValueKind::none: return "flag";
    case ValueKind::value: return "value";
    case ValueKind::file: return "file";
    case ValueKind::model: return "model";
    case ValueKind::gpu: return "gpu";
    case ValueKind::gpus: return "gpus";
    case ValueKind::stages: return "stages";
    case ValueKind::catalog: return "catalog";
    case ValueKind::choice: return "choice";
    }
    return "value";
}

/// The words of "{a,b,c}" in a CLI11 type name ("TEXT:{a,b,c}"), or none.
std::vector<std::string> member_choices(const std::string& type) {
    const size_t open = type.find('{'), close = type.find('}', open);
    std::vector<std::string> out;
    if (open == std::string::npos || close == std::string::npos) return out;
    std::string word;
    for (size_t i = open + 1; i <= close; ++i) {
        if (type[i] == ',' || type[i] == '}') {
            if (!word.empty()) out.push_back(word);
            word.clear();
        } else if (type[i] != ' ') {
            word += type[i];
        }
    }
    return out;
}

ValueKind kind_of(const CLI::Option& o, const std::string& type) {
    if (o.get_items_expected_max() == 0) return ValueKind::none;
    for (auto [prefix, kind] : {std::pair{"FILE", ValueKind::file}, {"MODEL", ValueKind::model},
                                {"GPUS", ValueKind::gpus}, {"GPU", ValueKind::gpu}, {"STAGES", ValueKind::stages},
                                {"CATALOG", ValueKind::catalog}})
        if (type.rfind(prefix, 0) == 0) return kind;
    return member_choices(type).empty() ? ValueKind::value : ValueKind::choice;
}

}  // namespace

std::vector<OptionSpec> option_specs(const CLI::App& app) {
    std::vector<OptionSpec> out;
    for (const CLI::Option* o : app.get_options()) {
        if (o->get_group().empty()) continue;  // hidden
        OptionSpec s;
        for (const auto& n : o->get_snames()) s.names.push_back("-" + n);
        for (const auto& n : o->get_lnames()) s.names.push_back("--" + n);
        const std::string type = o->get_type_name();
        s.kind = o->get_positional() && s.names.empty() ? ValueKind::file : kind_of(*o, type);
        if (s.kind == ValueKind::choice) s.choices = member_choices(type);
        if (s.kind == ValueKind::catalog) s.choices = catalog::catalog_names();
        s.description = o->get_description();
        out.push_back(std::move(s));
    }
    return out;
}

std::string empty_value_option(const CLI::App& app, int argc, const char* const* argv) {
    for (const CLI::Option* o : app.get_options()) {
        if (o->count() == 0 || o->get_items_expected_max() == 0) continue;  // not given, or a flag
        const bool positional = o->get_positional() && o->get_lnames().empty() && o->get_snames().empty();
        for (const auto& value : o->results())
            if (value.empty())
                return positional ? "FILE" : !o->get_lnames().empty() ? "--" + o->get_lnames().front() : "-" + o->get_snames().front();
    }
    // A flag that takes an optional value reads "--compile=" as bare --compile: the argument itself says.
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--") break;
        if (arg.size() > 3 && arg.compare(0, 2, "--") == 0 && arg.find('=') == arg.size() - 1)
            return arg.substr(0, arg.size() - 1);
    }
    return "";
}

std::string format_option_specs(const std::vector<OptionSpec>& specs) {
    std::string text;
    auto join = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
        return s;
    };
    for (const auto& s : specs) {
        std::string d = s.description;
        for (char& c : d)
            if (c == '\t' || c == '\n') c = ' ';
        text += std::string(kind_name(s.kind)) + '\t' + join(s.names) + '\t' + join(s.choices) + '\t' + d + '\n';
    }
    return text;
}

}  // namespace hetsched::cli
