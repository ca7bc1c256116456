#pragma once
/// A misspelled key or column would silently leave its setting at the default, so the readers of job
/// documents, cluster files and catalogs refuse one they do not know, naming the known ones closest.
#include <string>
#include <vector>

#include <hetsched/io/csv_table.hpp>
#include <hetsched/io/yaml_document.hpp>

namespace hetsched::catalog {

/// DataError at the first key of mapping `sec` not in `known` (with did-you-mean); `section` names
/// the mapping in the message.
void check_known_keys(const io::YamlDocument& doc, const YAML::Node& sec, const char* section,
                      const std::vector<std::string>& known);

/// The same for the columns of a CSV table's header, pandas' index columns aside (is_index_column).
void check_known_columns(const io::CsvTable& table, const std::vector<std::string>& known);

/// Whether column `column` of `table` is one pandas wrote for its index: an unnamed first column, or
/// one named "Unnamed: N". Readers read no such column.
bool is_index_column(const io::CsvTable& table, size_t column);

}  // namespace hetsched::catalog
