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
    for (const auto& h : table.header()) {
        if (is_index_column(table, h)) continue;
        if (!known_name(known, h.text)) {
            for (const auto& k : known) table.check_not_commented(k);
            throw DataError("unknown column '" + io::shown_value(h.text) + "'" + hint(h.text, known, "columns"),
                            {table.name(), h.line, h.col});
        }
    }
}

bool is_index_column(const io::CsvTable& table, const io::CsvCell& header) {
    // pandas' to_csv writes the index unnamed as the first column; read back and written again it
    // is "Unnamed: 0", and the original index a column "Unnamed: 1" beside it.
    const bool first = !table.header().empty() && &table.header().front() == &header;
    return (first && header.text.empty()) || header.text.rfind("Unnamed: ", 0) == 0;
}

}  // namespace hetsched::catalog
