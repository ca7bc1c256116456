#include <hetsched/catalog/known_keys.hpp>

#include <algorithm>

#include <hetsched/catalog/gpu_catalog.hpp>
#include <hetsched/cli/error.hpp>
#include <hetsched/io/names.hpp>
#include <hetsched/io/number_range.hpp>

namespace hetsched::catalog {
namespace {

bool known_name(const std::vector<std::string>& known, const std::string& name) {
    return std::find(known.begin(), known.end(), name) != known.end();
}

/// " (its keys are listed in hetsched-formats(5))", or the close names.
std::string hint(const std::string& name, const std::vector<std::string>& known, const char* what) {
    const std::string near = io::did_you_mean(name, known);
    return near.empty() ? std::string(" (its ") + what + " are listed in hetsched-formats(5))" : near;
}

}  // namespace

void check_known_keys(const io::YamlDocument& doc, const YAML::Node& sec, const char* section,
                      const std::vector<std::string>& known) {
    if (!sec.IsMap()) throw DataError(std::string("expected a mapping under '") + section + "'", doc.where(sec));
    for (const auto& kv : sec) {
        const std::string key = kv.first.Scalar();
        if (!known_name(known, key))
            throw DataError("unknown key '" + key + "' in '" + section + "'" + hint(key, known, "keys"), doc.where(kv.first));
    }
}

void check_known_columns(const io::CsvTable& table, const std::vector<std::string>& known) {
    for (size_t c = 0; c < table.header().size(); ++c) {
        const io::CsvCell& h = table.header()[c];
        if (is_index_column(table, c)) continue;
        if (!known_name(known, h.text)) {
            for (const auto& k : known) table.check_not_commented(k);
            throw DataError("unknown column '" + io::shown_value(h.text) + "'" + hint(h.text, known, "columns"),
                            {table.name(), h.line, h.col});
        }
    }
}

bool is_index_column(const io::CsvTable& table, size_t column) {
    // pandas' to_csv writes the index unnamed as the first column; a file read without index_col and
    // written again has it as "Unnamed: 0" (and its own index unnamed before it).
    const std::string& name = table.header().at(column).text;
    return (column == 0 && name.empty()) || name.rfind("Unnamed: ", 0) == 0;
}

}  // namespace hetsched::catalog
